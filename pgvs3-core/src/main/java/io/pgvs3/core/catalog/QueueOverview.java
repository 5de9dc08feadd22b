package io.pgvs3.core.catalog;

import java.time.Instant;

/**
 * A queue namespace with what its views say about it, read without scanning the queue.
 *
 * @param name the queue name
 * @param schema the queue's schema, {@code s3q_<name>}
 * @param createdAt when the namespace was created
 * @param paused whether job delivery is paused (streams are never paused)
 * @param estimatedJobs live rows of the job table by PostgreSQL's statistics (all states, may lag by seconds)
 * @param estimatedStreamEvents live rows of the stream log's segments by PostgreSQL's statistics
 */
public record QueueOverview(String name, String schema, Instant createdAt, boolean paused, long estimatedJobs,
        long estimatedStreamEvents) {
}
