package io.pgvs3.core.job;

import java.time.Duration;

/**
 * Tuning of a {@link JobStore}.
 *
 * @param defaultVisibilityTimeout lease of a fetched job when neither the fetch nor the job names one
 * @param retention how long completed, cancelled and discarded jobs are kept before the maintenance pass deletes them
 * @param deadLetterRetention how long dead-lettered jobs are kept
 * @param eventRetention how long lifecycle events are kept
 * @param maxAckBatch most acks completed in one statement and commit when acks arrive concurrently (1 turns grouping off)
 * @param ackFlushers most ack batches in flight at once; acks that arrive meanwhile wait and share the next commit
 * @param maintenanceBatch most jobs per queue and kind each maintenance pass handles
 */
public record JobStoreSettings(Duration defaultVisibilityTimeout, Duration retention, Duration deadLetterRetention,
        Duration eventRetention, int maxAckBatch, int ackFlushers, int maintenanceBatch) {

    public static final JobStoreSettings DEFAULTS = new JobStoreSettings(Duration.ofSeconds(30), Duration.ofHours(1),
            Duration.ofDays(7), Duration.ofHours(1), 256, 1, 1000);

    public JobStoreSettings {
        if (defaultVisibilityTimeout == null || defaultVisibilityTimeout.isNegative() || defaultVisibilityTimeout.isZero()) {
            throw new IllegalArgumentException("defaultVisibilityTimeout must be positive");
        }
        if (maxAckBatch < 1 || ackFlushers < 1 || maintenanceBatch < 1) {
            throw new IllegalArgumentException("maxAckBatch, ackFlushers and maintenanceBatch must be at least 1");
        }
    }

    public JobStoreSettings withDefaultVisibilityTimeout(Duration timeout) {
        return new JobStoreSettings(timeout, retention, deadLetterRetention, eventRetention, maxAckBatch, ackFlushers,
                maintenanceBatch);
    }

    public JobStoreSettings withMaxAckBatch(int batch) {
        return new JobStoreSettings(defaultVisibilityTimeout, retention, deadLetterRetention, eventRetention, batch,
                ackFlushers, maintenanceBatch);
    }
}
