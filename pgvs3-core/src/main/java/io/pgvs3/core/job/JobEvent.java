package io.pgvs3.core.job;

import java.time.Instant;

/** One lifecycle event of a job, e.g. {@code job.completed}; {@code dataJson} holds its OJS event data. */
public record JobEvent(long id, Instant occurredAt, String type, String queue, String jobId, String dataJson) {
}
