package io.pgvs3.spring.autoconfigure;

import java.time.Duration;

/**
 * Configuration under {@code pgvs3.handler.*}.
 */
public class Pgvs3HandlerProperties {

    /** Lease taken on each job a @JobHandler container fetches; renewed by heartbeats while it runs. */
    private Duration visibilityTimeout = Duration.ofSeconds(30);

    /**
     * How often the leases of held jobs are checked; one is renewed when it would otherwise run out before the
     * check after next. Must be shorter than the visibility timeout.
     */
    private Duration heartbeatInterval = Duration.ofSeconds(10);

    /** Jobs fetched ahead of free handler threads, so a thread that finishes starts the next job at once. */
    private int prefetch = 0;

    /** Longest wait between fetches of an idle queue (scheduled and retried jobs become due without a notification). */
    private Duration maxPollInterval = Duration.ofSeconds(1);

    public Duration getVisibilityTimeout() {
        return visibilityTimeout;
    }

    public void setVisibilityTimeout(Duration visibilityTimeout) {
        this.visibilityTimeout = visibilityTimeout;
    }

    public Duration getHeartbeatInterval() {
        return heartbeatInterval;
    }

    public void setHeartbeatInterval(Duration heartbeatInterval) {
        this.heartbeatInterval = heartbeatInterval;
    }

    public int getPrefetch() {
        return prefetch;
    }

    public void setPrefetch(int prefetch) {
        this.prefetch = prefetch;
    }

    public Duration getMaxPollInterval() {
        return maxPollInterval;
    }

    public void setMaxPollInterval(Duration maxPollInterval) {
        this.maxPollInterval = maxPollInterval;
    }
}
