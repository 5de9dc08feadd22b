package io.pgvs3.spring.web.streams;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

import javax.sql.DataSource;

import io.pgvs3.core.stream.ReceiveTarget;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.jdbc.datasource.ConnectionHolder;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * One pooled connection that the long-poll keeps, with one thread: the queues of waiting receives are warmed on it
 * (their receive functions compiled and planned there, {@code stream_receive_warm}), and a waiter woken on such a
 * queue receives on it. A receive's first call on a connection plans that queue's functions there, tens of
 * milliseconds under load, and every pooled connection pays it once per queue; a woken long-poll on a pooled
 * connection would mostly pay it.
 * <p>
 * At most {@code maxQueues} queues are warmed, in the order their waiters first waited: each costs the
 * connection's backend its plans and relation cache entries (about 2 MB). A queue's place is taken when its first
 * waiter registers ({@link #reserve}), not when that waiter's first look ends: first looks end in no fixed order
 * (checks of up to 100 waiters run side by side, a look that receives takes longer than one that checks), and the
 * places went to whichever queues' looks ended first. Wake-ups go ahead of warm-ups, and only one
 * wake-up is queued or running at a time: another goes to the long-poll's workers, as do wake-ups of queues not
 * warmed (yet). Statements run on the lane's connection by binding it to the lane's thread for the data source, so
 * the store's {@code JdbcTemplate} uses it (in auto-commit, as on any pooled connection).
 */
final class WakeLane implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(WakeLane.class);

    private final DataSource dataSource;
    private final Consumer<ReceiveTarget> warmUp;
    private final int maxQueues;
    private final LongPollWorkers thread = new LongPollWorkers(1, "pgvs3-long-poll-lane-");
    /** Queues that have a place on the lane: warmed, queued to be, or waiting for their first look to end. */
    private final Set<String> taken = ConcurrentHashMap.newKeySet();
    /** Queues warmed on the connection, or queued to be. */
    private final Set<String> submitted = ConcurrentHashMap.newKeySet();
    private final Set<String> warmed = ConcurrentHashMap.newKeySet();
    private final AtomicBoolean wakeUnderWay = new AtomicBoolean();
    /** Only the lane's thread uses it, and {@link #close} once that thread has ended. */
    private volatile Connection connection;

    WakeLane(DataSource dataSource, Consumer<ReceiveTarget> warmUp, int maxQueues) {
        this.dataSource = dataSource;
        this.warmUp = warmUp;
        this.maxQueues = maxQueues;
    }

    /** Takes a place on the lane for the queue of a waiter that registers, unless the lane is full. */
    void reserve(String queue) {
        if (taken.size() < maxQueues) {
            taken.add(queue);
        }
    }

    /**
     * Queues a warm-up of the target's queue if it has a place on the lane ({@link #reserve}) and is not warmed (or
     * queued) already.
     */
    void warm(ReceiveTarget target) {
        String queue = target.queue().value();
        if (!taken.contains(queue) || !submitted.add(queue)) {
            return;
        }
        thread.submit(true, () -> {
            boolean done = onConnection(() -> {
                try {
                    warmUp.accept(target);
                    warmed.add(queue);
                }
                catch (RuntimeException ex) {
                    log.debug("Warming the receive of queue {} failed: {}", queue, ex.getMessage());
                }
            }, false);
            if (!done || !warmed.contains(queue)) {
                submitted.remove(queue);
                taken.remove(queue);
            }
        });
    }

    /**
     * Runs a woken waiter's look on the lane when its queue is warmed there and no other wake-up is under way on
     * it; {@code false}: the caller runs it elsewhere.
     */
    boolean wake(String queue, Runnable look) {
        if (!warmed.contains(queue) || !wakeUnderWay.compareAndSet(false, true)) {
            return false;
        }
        thread.submit(false, () -> {
            try {
                onConnection(look, true);
            }
            finally {
                wakeUnderWay.set(false);
            }
        });
        return true;
    }

    boolean isWarmed(String queue) {
        return warmed.contains(queue);
    }

    /** A dropped queue's warm state is gone with its functions. */
    void forget(String queue) {
        warmed.remove(queue);
        submitted.remove(queue);
        taken.remove(queue);
    }

    @Override
    public void close() {
        thread.shutdownNow();
        if (thread.awaitTermination(5_000)) {
            closeConnection();
        }
    }

    /**
     * Runs {@code body} with the lane's connection bound to this thread; without one (none could be had), only when
     * {@code anyway} (a woken waiter's look then takes a pooled connection as on a worker). Whether it ran.
     */
    private boolean onConnection(Runnable body, boolean anyway) {
        Connection current;
        try {
            current = connection();
        }
        catch (SQLException ex) {
            log.debug("No connection for the long-poll lane: {}", ex.getMessage());
            if (anyway) {
                body.run();
            }
            return anyway;
        }
        TransactionSynchronizationManager.bindResource(dataSource, new ConnectionHolder(current));
        try {
            body.run();
        }
        finally {
            TransactionSynchronizationManager.unbindResource(dataSource);
        }
        return true;
    }

    /** The lane's connection; a new one, with nothing warmed, once the one before is no longer valid. */
    private Connection connection() throws SQLException {
        if (connection != null && !connection.isClosed()) {
            return connection;
        }
        if (connection != null) {
            closeConnection();
            // the queues keep their places, and are warmed again after their waiters' next looks
            warmed.clear();
            submitted.clear();
        }
        connection = dataSource.getConnection();
        return connection;
    }

    private void closeConnection() {
        if (connection != null) {
            try {
                connection.close();
            }
            catch (SQLException ex) {
                log.debug("Closing the long-poll lane's connection failed: {}", ex.getMessage());
            }
            connection = null;
        }
    }
}
