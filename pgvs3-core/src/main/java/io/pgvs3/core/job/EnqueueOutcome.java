package io.pgvs3.core.job;

/** The result of an enqueue: the job, and whether it was created (false when a unique job was ignored). */
public record EnqueueOutcome(Job job, boolean created) {
}
