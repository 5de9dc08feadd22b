package io.pgvs3.core.stream;

import java.util.function.ToIntBiFunction;

import io.pgvs3.core.catalog.QueueCatalog;
import io.pgvs3.core.error.Pgvs3Exception;
import io.pgvs3.core.maintenance.MaintenanceTask;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.dao.DataAccessException;

/**
 * One stream step of the maintenance pass, run for every queue in its own short transaction: a queue that fails
 * (or was dropped meanwhile) does not stop the others.
 */
public final class StreamMaintenanceTask implements MaintenanceTask {

    private static final Logger log = LoggerFactory.getLogger(StreamMaintenanceTask.class);

    private static final int RETRY_BATCH = 1000;

    /** New events after which the ticker makes a tick: compaction keeps a tick about every 100 events too. */
    static final int TICK_EVERY = 100;

    private final String name;
    private final QueueCatalog catalog;
    private final StreamStore store;
    private final ToIntBiFunction<StreamStore, String> step;

    private StreamMaintenanceTask(String name, QueueCatalog catalog, StreamStore store,
            ToIntBiFunction<StreamStore, String> step) {
        this.name = name;
        this.catalog = catalog;
        this.store = store;
        this.step = step;
    }

    /** Moves due nacked messages back into the log as fresh events. */
    public static StreamMaintenanceTask retries(QueueCatalog catalog, StreamStore store) {
        return new StreamMaintenanceTask("stream-retries", catalog, store,
                (streams, queue) -> streams.moveDueRetries(queue, RETRY_BATCH));
    }

    /**
     * Makes a tick for every queue with subscribers and at least {@value #TICK_EVERY} new events since its latest
     * tick, which keeps the batches of lagging consumers about that long (or one pass of appends). Delivery never
     * depends on it.
     */
    public static StreamMaintenanceTask ticker(QueueCatalog catalog, StreamStore store) {
        return new StreamMaintenanceTask("stream-ticker", catalog, store,
                (streams, queue) -> streams.tick(queue, TICK_EVERY));
    }

    /** Rotates every log whose current segment is retention / 2 old. */
    public static StreamMaintenanceTask rotation(QueueCatalog catalog, StreamStore store) {
        return new StreamMaintenanceTask("stream-rotation", catalog, store,
                (streams, queue) -> streams.rotate(queue, false) == RotationOutcome.ROTATED ? 1 : 0);
    }

    /**
     * Compacts every queue's stream metadata that is due: drops the ticks, cursor moves and batches nothing needs
     * any more by truncating the old metadata part.
     */
    public static StreamMaintenanceTask tickCleanup(QueueCatalog catalog, StreamStore store) {
        return new StreamMaintenanceTask("stream-compaction", catalog, store,
                (streams, queue) -> streams.compact(queue, false));
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public long run() {
        long handled = 0;
        for (String queue : catalog.names()) {
            try {
                handled += step.applyAsInt(store, queue);
            }
            catch (Pgvs3Exception ex) {
                // the queue was dropped after it was listed
                log.debug("{} skipped queue {}: {}", name, queue, ex.getMessage());
            }
            catch (DataAccessException ex) {
                log.warn("{} failed for queue {}: {}", name, queue, ex.getMessage());
            }
        }
        return handled;
    }
}
