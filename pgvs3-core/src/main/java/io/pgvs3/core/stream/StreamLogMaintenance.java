package io.pgvs3.core.stream;

import io.pgvs3.core.catalog.QueueCatalog;
import io.pgvs3.core.catalog.QueueName;
import io.pgvs3.core.sql.QueueStatement;

import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The upkeep of a queue's stream that the maintenance pass runs ({@link StreamMaintenanceTask}) and an operator may
 * force: rotation of the log, ticks, due retries moved back into the log, compaction of the metadata.
 */
public class StreamLogMaintenance {

    private static final QueueStatement ROTATE = QueueStatement.of("SELECT {stream_rotate}(?)");

    private static final QueueStatement TICK = QueueStatement.of("SELECT {stream_tick}(?)");

    private static final QueueStatement MOVE_RETRIES = QueueStatement.of("SELECT {stream_move_retries}(?)");

    private static final QueueStatement COMPACT = QueueStatement.of("SELECT {stream_compact}(?)");

    private final StreamCalls calls;
    private final JdbcTemplate jdbc;

    public StreamLogMaintenance(JdbcTemplate jdbc, QueueCatalog catalog) {
        this.calls = new StreamCalls(jdbc, catalog);
        this.jdbc = jdbc;
    }

    /** Rotates the queue's log if due (or now, when {@code force}), under the rotation locking protocol. */
    public RotationOutcome rotate(String queue, boolean force) {
        QueueName name = QueueName.of(queue);
        return RotationOutcome.of(calls.existing(name, () -> jdbc.queryForObject(
                ROTATE.in(name.schema()), String.class, force)));
    }

    /**
     * Makes a tick of the queue when it has subscribers and at least {@code minEvents} sequence numbers were drawn
     * since its latest tick (some of them visible events), so that consumers that lag find batch boundaries about
     * that many events apart. Delivery does not depend on it: receives make the ticks they need. Returns 1 when a
     * tick was made; 0 when none was needed, or when called inside a transaction that has written or is not
     * {@code READ COMMITTED}.
     */
    public int tick(String queue, int minEvents) {
        QueueName name = QueueName.of(queue);
        return calls.existing(name, () -> jdbc.queryForObject(TICK.in(name.schema()), Integer.class, minEvents));
    }

    /** Moves due retries of one queue back into its log; returns how many moved. */
    public int moveDueRetries(String queue, int limit) {
        QueueName name = QueueName.of(queue);
        return calls.existing(name, () -> jdbc.queryForObject(MOVE_RETRIES.in(name.schema()), Integer.class, limit));
    }

    /**
     * Compacts the queue's stream metadata now: ticks, cursor moves, batches, acks and nacks still needed are carried
     * into the other metadata part and the old part is truncated. Returns how many ticks were dropped (0 when a
     * reader or writer held a lock; the next maintenance pass tries again).
     */
    public int cleanupTicks(String queue) {
        return compact(queue, true);
    }

    /**
     * Compacts the queue's stream metadata when it is due (or now, when {@code force}), under the rotation locking
     * protocol: the hot path only inserts metadata rows, and compaction drops the dead ones with a TRUNCATE.
     * Returns how many ticks were dropped.
     */
    public int compact(String queue, boolean force) {
        QueueName name = QueueName.of(queue);
        return calls.existing(name, () -> jdbc.queryForObject(COMPACT.in(name.schema()), Integer.class, force));
    }
}
