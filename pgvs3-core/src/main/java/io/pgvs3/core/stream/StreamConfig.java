package io.pgvs3.core.stream;

import java.time.Duration;

/**
 * A queue's stream settings.
 *
 * @param maxRetries   how often a message may be nacked for retry before it is dead-lettered
 * @param retention    the minimum time events are kept; the log rotates every {@code retention / 2}
 * @param dedupeWindow how long an appended dedupe key makes a repeat of it a duplicate (at most {@code retention})
 */
public record StreamConfig(int maxRetries, Duration retention, Duration dedupeWindow) {

    /** The dedupe window of a new queue. */
    public static final Duration DEFAULT_DEDUPE_WINDOW = Duration.ofMinutes(5);

    public StreamConfig(int maxRetries, Duration retention) {
        this(maxRetries, retention, DEFAULT_DEDUPE_WINDOW);
    }

    public Duration rotationPeriod() {
        return retention.dividedBy(2);
    }
}
