package io.pgvs3.core.notify;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.StringJoiner;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;

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
 * Only the hub thread talks to the connection. Registering and closing registrations never wait for it: between two
 * waits the hub thread brings the connection's channels in line with the registrations, all pending
 * {@code LISTEN}s and {@code UNLISTEN}s in one round trip, so registering hundreds of channels at once costs one
 * statement, not one wait each. Once a channel's {@code LISTEN} has run, the hub runs the channel's callbacks once:
 * a caller that looked for work, registered and found nothing misses no notification sent before the
 * {@code LISTEN} took effect, because that wake-up makes it look again.
 * <p>
 * Callbacks run on the hub thread and must be quick: they wake waiters, nothing more. The hub starts on the
 * first {@link #listen(String, Runnable)}.
 */
public class NotificationHub implements AutoCloseable {

    /**
     * How long one {@code getNotifications} call blocks at most: a notification ends it at once, so this bounds only
     * how long a new registration waits for its {@code LISTEN}.
     */
    static final int POLL_MILLIS = 50;

    /** The {@code application_name} of the LISTEN connection, which tells it apart in {@code pg_stat_activity}. */
    public static final String APPLICATION_NAME = "pgvs3-notifications";

    private static final String SET_APPLICATION_NAME_SQL = "SET application_name = '" + APPLICATION_NAME + "'";

    private static final String RESET_SQL = "UNLISTEN *; RESET application_name";

    /** The commands {@link #execute} runs for a list of channels, each channel a quoted identifier. */
    private static final String LISTEN = "LISTEN";
    private static final String UNLISTEN = "UNLISTEN";

    /** Most channels one LISTEN/UNLISTEN statement names. */
    private static final int MAX_CHANNELS_PER_STATEMENT = 500;

    private static final Duration MIN_BACKOFF = Duration.ofMillis(100);
    private static final Duration MAX_BACKOFF = Duration.ofSeconds(5);

    private static final Logger log = LoggerFactory.getLogger(NotificationHub.class);

    private final DataSource dataSource;
    /** The registrations; structural changes under {@code this}. A channel with an empty list awaits its UNLISTEN. */
    private final Map<String, List<Runnable>> callbacks = new ConcurrentHashMap<>();
    /** The channels whose LISTEN has run on the current connection. */
    private final Set<String> listening = ConcurrentHashMap.newKeySet();
    /** Set when registrations changed since the hub thread last brought the connection in line. */
    private final AtomicBoolean changed = new AtomicBoolean();
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
     * Returns at once; the first registration of a channel is LISTENed to by the hub thread within about
     * {@link #POLL_MILLIS}, and its callbacks run once when that LISTEN has run (see the class comment).
     */
    public Registration listen(String channel, Runnable onNotification) {
        synchronized (this) {
            if (closed) {
                throw new IllegalStateException("NotificationHub is closed");
            }
            callbacks.computeIfAbsent(channel, key -> new CopyOnWriteArrayList<>()).add(onNotification);
            if (!listening.contains(channel)) {
                changed.set(true);
            }
        }
        start();
        return () -> unregister(channel, onNotification);
    }

    /**
     * Runs the callbacks registered for {@code channel} now, on the calling thread, as a notification on it would:
     * for a write this process committed itself, so that its own listeners need not wait for the notification to come
     * back over the LISTEN connection. The driver hands a received notification over only after a further read that
     * waits up to a millisecond for more messages, which made most of a job's enqueue-to-handler latency. Callers
     * still notify the channel for other processes; a listener woken twice looks for work once more.
     */
    public void wakeUpLocally(String channel) {
        dispatch(channel);
    }

    /** Whether the LISTEN connection is up; when false, notifications are not arriving. */
    public boolean isConnected() {
        return connected;
    }

    /**
     * Whether notifications on {@code channel} are arriving: the connection is up and the channel's LISTEN has run
     * on it. A caller that looked for work after this answered true misses no later notification.
     */
    public boolean isListening(String channel) {
        return connected && listening.contains(channel);
    }

    /** How many channels are LISTENed to on the current connection. */
    public int listeningChannels() {
        return listening.size();
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
                running.join(POLL_MILLIS * 10L);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
        }
        closeConnection(true);
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

    /** Removes a callback at once; the hub thread UNLISTENs a channel left without callbacks between two waits. */
    private void unregister(String channel, Runnable onNotification) {
        synchronized (this) {
            List<Runnable> list = callbacks.get(channel);
            if (list != null && list.remove(onNotification) && list.isEmpty()) {
                changed.set(true);
            }
        }
    }

    /**
     * On the hub thread: LISTENs to the channels registered since the last call and UNLISTENs those left without
     * callbacks, in one round trip, then runs the callbacks of the channels just LISTENed to. A failure is thrown
     * to the loop, which reconnects and LISTENs to every registered channel again.
     */
    private void reconcile(Connection current) throws SQLException {
        if (!changed.getAndSet(false)) {
            return;
        }
        List<String> listen = new ArrayList<>();
        List<String> unlisten = new ArrayList<>();
        synchronized (this) {
            for (Iterator<Map.Entry<String, List<Runnable>>> it = callbacks.entrySet().iterator(); it.hasNext();) {
                Map.Entry<String, List<Runnable>> entry = it.next();
                if (entry.getValue().isEmpty()) {
                    it.remove();
                    if (listening.remove(entry.getKey())) {
                        unlisten.add(entry.getKey());
                    }
                }
                else if (!listening.contains(entry.getKey())) {
                    listen.add(entry.getKey());
                }
            }
        }
        execute(current, UNLISTEN, unlisten);
        execute(current, LISTEN, listen);
        listening.addAll(listen);
        // a waiter that registered before the LISTEN ran looks again now that notifications arrive
        listen.forEach(this::dispatch);
    }

    private static void execute(Connection current, String command, List<String> channels) throws SQLException {
        for (int from = 0; from < channels.size(); from += MAX_CHANNELS_PER_STATEMENT) {
            StringJoiner sql = new StringJoiner("; ");
            channels.subList(from, Math.min(channels.size(), from + MAX_CHANNELS_PER_STATEMENT))
                    .forEach(channel -> sql.add(command + " " + Identifiers.quote(channel)));
            try (Statement statement = current.createStatement()) {
                statement.execute(sql.toString());
            }
        }
    }

    private void loop() {
        Duration backoff = MIN_BACKOFF;
        while (!closed) {
            try {
                connect();
                backoff = MIN_BACKOFF;
                Connection current = connection;
                PGConnection pg = current.unwrap(PGConnection.class);
                while (!closed) {
                    reconcile(current);
                    PGNotification[] notifications = pg.getNotifications(POLL_MILLIS);
                    if (notifications != null) {
                        for (PGNotification notification : notifications) {
                            dispatch(notification.getName());
                        }
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
                closeConnection(false);
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
                statement.execute(SET_APPLICATION_NAME_SQL);
            }
            changed.set(false);
            List<String> channels;
            synchronized (this) {
                callbacks.values().removeIf(List::isEmpty);
                channels = List.copyOf(callbacks.keySet());
            }
            execute(fresh, LISTEN, channels);
            listening.addAll(channels);
        }
        catch (SQLException | RuntimeException ex) {
            connection = null;
            listening.clear();
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

    /** Closes the connection; {@code reset}: it is healthy and goes back to the pool, so it stops listening first. */
    private void closeConnection(boolean reset) {
        Connection current = connection;
        connection = null;
        if (current != null) {
            try {
                if (reset && !current.isClosed()) {
                    // the pool hands the connection on: without the channels and the name
                    try (Statement statement = current.createStatement()) {
                        statement.execute(RESET_SQL);
                    }
                }
            }
            catch (SQLException ex) {
                log.debug("Resetting the LISTEN connection failed: {}", ex.getMessage());
            }
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
