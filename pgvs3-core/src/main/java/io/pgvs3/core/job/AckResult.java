package io.pgvs3.core.job;

/**
 * The outcome of one completion in {@link JobStore#ackAll(java.util.List)}.
 *
 * @param jobId        the job
 * @param job          the job as it is, when it was not acknowledged; null when it does not exist, and for an
 *                     acknowledged job (completed, and not read back)
 * @param acknowledged whether it was active under the given lease and is now completed
 */
public record AckResult(String jobId, Job job, boolean acknowledged) {
}
