package io.pgvs3.spring.listener;

import java.time.Duration;

/**
 * How a job handler container fetches and holds jobs.
 *
 * @param visibilityTimeout   lease taken on each fetched job, renewed by heartbeats while it runs
 * @param heartbeatInterval   how often leases of held jobs are renewed
 * @param prefetch            jobs fetched ahead of free handler threads, so a thread that finishes starts at once
 */
public record JobContainerSettings(Duration visibilityTimeout, Duration heartbeatInterval, int prefetch) {

    public JobContainerSettings {
        if (heartbeatInterval.compareTo(visibilityTimeout) >= 0) {
            throw new IllegalArgumentException("heartbeat interval " + heartbeatInterval
                    + " must be shorter than the visibility timeout " + visibilityTimeout);
        }
        if (prefetch < 0) {
            throw new IllegalArgumentException("prefetch must not be negative");
        }
    }
}
