package io.pgvs3.core.notify;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Wakes the listeners of a queue after writes that concern them have committed, from a thread of its own, in short
 * transactions with {@code synchronous_commit} off. PostgreSQL holds a global lock from a notifying transaction's
 * commit until its commit record is flushed, so notifying inside every write would make the commits of concurrent
 * producers wait for each other; a notification alone writes almost nothing and need not wait for a flush.
 * <p>
 * {@link #signal(String)} only marks the channel and returns: the writer does not wait for the notification. The
 * notifier thread sends one transaction for every channel marked since its last one, each channel once, so under
 * sustained writes the notifications cost one round trip per send, not one per write, and every signal is followed
 * by a notification sent after it. The thread ends when idle and starts again on the next signal.
 */
public final class QueueNotifier {

    private static final String SEND = "SELECT set_config('synchronous_commit', 'off', true), count(pg_notify(c, ?)) "
            + "FROM unnest(?::text[]) AS c";

    private static final Logger log = LoggerFactory.getLogger(QueueNotifier.class);

    private final JdbcTemplate jdbc;
    private final String payload;
    private final Set<String> marked = ConcurrentHashMap.newKeySet();
    private final AtomicBoolean scheduled = new AtomicBoolean();
    private final ExecutorService sender;

    /** A notifier that sends {@code payload} (e.g. {@code stream}) on the channels it is signalled for. */
    public QueueNotifier(JdbcTemplate jdbc, String payload) {
        this.jdbc = jdbc;
        this.payload = payload;
        ThreadPoolExecutor executor = new ThreadPoolExecutor(0, 1, 5, TimeUnit.SECONDS, new LinkedBlockingQueue<>(),
                runnable -> {
                    Thread thread = new Thread(runnable, "pgvs3-notifier-" + payload);
                    thread.setDaemon(true);
                    return thread;
                });
        this.sender = executor;
    }

    /** Notifies {@code channel} soon; call outside any transaction, after the work committed. Never blocks. */
    public void signal(String channel) {
        marked.add(channel);
        if (scheduled.compareAndSet(false, true)) {
            sender.execute(this::drain);
        }
    }

    private void drain() {
        while (true) {
            List<String> channels = new ArrayList<>(marked.size());
            for (String channel : marked) {
                if (marked.remove(channel)) {
                    channels.add(channel);
                }
            }
            if (!channels.isEmpty()) {
                send(channels);
                continue;
            }
            scheduled.set(false);
            // a signal that marked a channel after the scan above and saw the flag still set left it to this thread
            if (marked.isEmpty() || !scheduled.compareAndSet(false, true)) {
                return;
            }
        }
    }

    private void send(List<String> channels) {
        try {
            jdbc.query(SEND, rs -> {
            }, payload, channels.toArray(String[]::new));
        }
        catch (DataAccessException ex) {
            // listeners also poll: a lost wake-up delays their next receive or fetch, it loses nothing
            log.warn("Could not notify the listeners of {}: {}", channels, ex.getMessage());
        }
    }
}
