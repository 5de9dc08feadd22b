package io.pgvs3.spring.listener;

import java.time.Duration;

/**
 * How long a container thread waits after a fetch found nothing. With a working {@code LISTEN} connection a
 * notification wakes it, so it sleeps for the long safety interval. Without one it polls, doubling the wait from
 * the minimum to the maximum while the queue stays empty; any delivery resets it.
 */
final class IdlePolicy {

    private final long minNanos;
    private final long maxNanos;
    private final long listeningNanos;
    private long currentNanos;

    IdlePolicy(Duration min, Duration max, Duration listening) {
        this.minNanos = Math.max(1, min.toNanos());
        this.maxNanos = Math.max(minNanos, max.toNanos());
        this.listeningNanos = listening.toNanos();
        this.currentNanos = minNanos;
    }

    /** The wait after an empty fetch; advances the polling backoff. */
    long nextWaitNanos(boolean listening) {
        if (listening) {
            currentNanos = minNanos;
            return listeningNanos;
        }
        long wait = currentNanos;
        currentNanos = Math.min(maxNanos, currentNanos * 2);
        return wait;
    }

    void reset() {
        currentNanos = minNanos;
    }
}
