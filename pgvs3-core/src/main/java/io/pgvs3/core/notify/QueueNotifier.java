package io.pgvs3.core.notify;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Wakes the listeners of a queue after writes that concern them have committed, each wake-up its own short
 * transaction with {@code synchronous_commit} off. PostgreSQL holds a global lock from a notifying transaction's
 * commit until its commit record is flushed, so notifying inside every write would make the commits of concurrent
 * producers wait for each other; a notification alone writes almost nothing and need not wait for a flush.
 * <p>
 * Wake-ups of one channel coalesce: while one caller sends, the others only mark the channel again and return, and
 * the sender sends once more for all of them, so every signal is followed by a notification sent after it.
 */
public final class QueueNotifier {

    private static final int IDLE = 0;
    private static final int SENDING = 1;
    private static final int AGAIN = 2;

    private static final Logger log = LoggerFactory.getLogger(QueueNotifier.class);

    private final JdbcTemplate jdbc;
    private final String payload;
    private final Map<String, AtomicInteger> channels = new ConcurrentHashMap<>();

    /** A notifier that sends {@code payload} (e.g. {@code stream}) on the channels it is signalled for. */
    public QueueNotifier(JdbcTemplate jdbc, String payload) {
        this.jdbc = jdbc;
        this.payload = payload;
    }

    /** Notifies {@code channel}; call outside any transaction, after the work committed. */
    public void signal(String channel) {
        AtomicInteger state = channels.computeIfAbsent(channel, key -> new AtomicInteger(IDLE));
        while (!state.compareAndSet(IDLE, SENDING)) {
            if (state.get() == AGAIN || state.compareAndSet(SENDING, AGAIN)) {
                return;
            }
        }
        while (true) {
            send(channel);
            if (state.compareAndSet(SENDING, IDLE)) {
                return;
            }
            state.set(SENDING);
        }
    }

    private void send(String channel) {
        try {
            jdbc.query("SELECT set_config('synchronous_commit', 'off', true), pg_notify(?, ?)", rs -> {
            }, channel, payload);
        }
        catch (DataAccessException ex) {
            // listeners also poll: a lost wake-up delays their next receive or fetch, it loses nothing
            log.warn("Could not notify the listeners of {}: {}", channel, ex.getMessage());
        }
    }
}
