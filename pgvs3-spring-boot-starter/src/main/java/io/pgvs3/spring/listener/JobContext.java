package io.pgvs3.spring.listener;

import io.pgvs3.core.job.Job;

/**
 * What a {@code @JobHandler} method may declare besides its arguments: the job being run and the worker running it.
 *
 * @param job      the job as fetched
 * @param workerId the id this application's worker fetched it under
 */
public record JobContext(Job job, String workerId) {

    public String id() {
        return job.id();
    }

    public String type() {
        return job.type();
    }

    public String queue() {
        return job.queue();
    }

    public int attempt() {
        return job.attempt();
    }
}
