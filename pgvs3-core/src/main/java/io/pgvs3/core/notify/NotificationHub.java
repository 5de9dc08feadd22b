package io.pgvs3.core.notify;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import javax.sql.DataSource;

import io.pgvs3.core.catalog.QueueName;
import io.pgvs3.core.sql.Identifiers;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One shared {@code LISTEN} connection for the whole application. A daemon thread blocks in
 * {@link PGConnection#getNotifications(int)} and runs the callbacks registered for a channel when a notification
 * on it arrives. After a failure it reconnects with backoff, LISTENs again to every registered channel and runs
 * every callback once (notifications may have been missed meanwhile). While it is disconnected,
 * {@link #isConnected()} is false so callers can fall back to polling.
 * <p>
 * Callbacks run on the hub thread and must be quick: they wake waiters, nothing more. The hub starts on the
 * first {@link #listen(String, Runnable)}.
 */
public class NotificationHub implements AutoCloseable {

    /** How long one {@code getNotifications} call blocks; also how long a first LISTEN may wait for the socket. */
    static final int POLL_MILLIS = 200;

    private static final Duration MIN_BACKOFF = Duration.ofMillis(100);
    private static final Duration MAX_BACKOFF = Duration.ofSeconds(5);

    private static final Logger log = LoggerFactory.getLogger(NotificationHub.class);

    private final DataSource dataSource;
    private final Map<String, List<Runnable>> callbacks = new ConcurrentHashMap<>();
    private final Set<String> listening = ConcurrentHashMap.newKeySet();
    private final Set<String> unlistenPending = ConcurrentHashMap.newKeySet();
    private final Object lifecycle = new Object();

    private volatile Connection connection;
    private volatile boolean connected;
    private volatile boolean closed;
    private Thread thread;

    public NotificationHub(DataSource dataSource) {
        this.dataSource = dataSource;
    }

    /** The channel appends to a queue notify: the queue's schema name. */
    public static String channelFor(QueueName queue) {
        return queue.schema();
    }

    /**
     * Runs {@code onNotification} on every notification on {@code channel} until the registration is closed.
     * The first registration of a channel LISTENs to it, which may wait up to {@link #POLL_MILLIS} for the
     * connection; callers that register per request should keep one registration per channel instead.
     */
    public synchronized Registration listen(String channel, Runnable onNotification) {
        if (closed) {
            throw new IllegalStateException("NotificationHub is closed");
        }
        start();
        callbacks.computeIfAbsent(channel, key -> new CopyOnWriteArrayList<>()).add(onNotification);
        if (!listening.contains(channel)) {
            execute("LISTEN " + Identifiers.quote(channel), channel, true);
        }
        return () -> unregister(channel, onNotification);
    }

    /** Whether the LISTEN connection is up; when false, notifications are not arriving. */
    public boolean isConnected() {
        return connected;
    }

    @Override
    public void close() {
        Thread running;
        synchronized (lifecycle) {
            closed = true;
            running = thread;
        }
        if (running != null) {
            running.interrupt();
            try {
                running.join(POLL_MILLIS * 5L);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
        }
        closeConnection();
    }

    private void start() {
        synchronized (lifecycle) {
            if (thread == null && !closed) {
                thread = new Thread(this::loop, "pgvs3-notifications");
                thread.setDaemon(true);
                thread.start();
            }
        }
    }

    /**
     * Removes a callback at once. The UNLISTEN of a channel left without callbacks is run by the hub thread between
     * two waits, so closing a registration never waits for the driver (a container that stops does not queue behind
     * the hub's wait, nor behind other containers that stop at the same time).
     */
    private void unregister(String channel, Runnable onNotification) {
        List<Runnable> list = callbacks.get(channel);
        if (list == null || !list.remove(onNotification)) {
            return;
        }
        if (list.isEmpty()) {
            unlistenPending.add(channel);
        }
    }

    /** On the hub thread: UNLISTENs the channels whose last callback went and that nobody registered again. */
    private synchronized void unlistenAbandoned() {
        for (String channel : List.copyOf(unlistenPending)) {
            unlistenPending.remove(channel);
            List<Runnable> list = callbacks.get(channel);
            if (list != null && list.isEmpty()) {
                callbacks.remove(channel);
                execute("UNLISTEN " + Identifiers.quote(channel), channel, false);
            }
        }
    }

    /**
     * Runs LISTEN or UNLISTEN on the current connection. The driver serialises it with the hub thread's wait, so
     * it may take up to {@link #POLL_MILLIS}. A failure is left to the hub thread, which reconnects and LISTENs to
     * every registered channel again.
     */
    private void execute(String sql, String channel, boolean listen) {
        Connection current = connection;
        if (current == null) {
            return;
        }
        try (Statement statement = current.createStatement()) {
            statement.execute(sql);
            if (listen) {
                listening.add(channel);
            }
            else {
                listening.remove(channel);
            }
        }
        catch (SQLException ex) {
            log.debug("{} failed; the hub will re-LISTEN after reconnecting: {}", sql, ex.getMessage());
        }
    }

    private void loop() {
        Duration backoff = MIN_BACKOFF;
        while (!closed) {
            try {
                connect();
                backoff = MIN_BACKOFF;
                PGConnection pg = connection.unwrap(PGConnection.class);
                while (!closed) {
                    PGNotification[] notifications = pg.getNotifications(POLL_MILLIS);
                    if (notifications != null) {
                        for (PGNotification notification : notifications) {
                            dispatch(notification.getName());
                        }
                    }
                    if (!unlistenPending.isEmpty()) {
                        unlistenAbandoned();
                    }
                    if (Thread.interrupted() && closed) {
                        return;
                    }
                }
            }
            catch (SQLException | RuntimeException ex) {
                if (closed) {
                    return;
                }
                boolean wasConnected = connected;
                connected = false;
                closeConnection();
                if (wasConnected) {
                    log.warn("pgvs3 LISTEN connection lost ({}); reconnecting", ex.getMessage());
                }
                else {
                    log.debug("pgvs3 LISTEN connection failed: {}", ex.getMessage());
                }
                try {
                    Thread.sleep(backoff.toMillis());
                }
                catch (InterruptedException interrupted) {
                    if (closed) {
                        return;
                    }
                }
                backoff = backoff.multipliedBy(2).compareTo(MAX_BACKOFF) > 0 ? MAX_BACKOFF : backoff.multipliedBy(2);
            }
        }
    }

    private void connect() throws SQLException {
        Connection fresh = dataSource.getConnection();
        try {
            fresh.setAutoCommit(true);
            fresh.unwrap(PGConnection.class);
            listening.clear();
            connection = fresh;
            try (Statement statement = fresh.createStatement()) {
                for (String channel : callbacks.keySet()) {
                    statement.execute("LISTEN " + Identifiers.quote(channel));
                    listening.add(channel);
                }
            }
        }
        catch (SQLException | RuntimeException ex) {
            connection = null;
            fresh.close();
            throw ex;
        }
        connected = true;
        // anything sent while there was no connection was missed: let every waiter look again
        callbacks.keySet().forEach(this::dispatch);
    }

    private void dispatch(String channel) {
        List<Runnable> list = callbacks.get(channel);
        if (list == null) {
            return;
        }
        for (Runnable callback : list) {
            try {
                callback.run();
            }
            catch (RuntimeException ex) {
                log.warn("Notification callback for {} failed", channel, ex);
            }
        }
    }

    private void closeConnection() {
        Connection current = connection;
        connection = null;
        if (current != null) {
            try {
                current.close();
            }
            catch (SQLException ex) {
                log.debug("Closing the LISTEN connection failed: {}", ex.getMessage());
            }
        }
    }

    /** A callback registration; closing it stops the callback (and UNLISTENs when it was the channel's last). */
    public interface Registration extends AutoCloseable {

        @Override
        void close();
    }
}
