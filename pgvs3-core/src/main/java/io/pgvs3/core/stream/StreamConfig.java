package io.pgvs3.core.stream;

import java.time.Duration;

/**
 * A queue's stream settings.
 *
 * @param maxRetries how often a message may be nacked for retry before it is dead-lettered
 * @param retention  the minimum time events are kept; the log rotates every {@code retention / 2}
 */
public record StreamConfig(int maxRetries, Duration retention) {

    public Duration rotationPeriod() {
        return retention.dividedBy(2);
    }
}
