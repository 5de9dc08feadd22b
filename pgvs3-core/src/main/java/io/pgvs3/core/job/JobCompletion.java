package io.pgvs3.core.job;

/**
 * One job to complete in {@link JobStore#ackAll(java.util.List)}.
 *
 * @param jobId      the job
 * @param workerId   the worker that must hold the job's lease, or null to accept any lease
 * @param resultJson the job's result as JSON, or null for none
 */
public record JobCompletion(String jobId, String workerId, String resultJson) {
}
