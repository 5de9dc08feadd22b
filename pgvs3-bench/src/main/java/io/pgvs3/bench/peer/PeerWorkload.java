package io.pgvs3.bench.peer;

import java.time.Duration;

/**
 * What every peer is asked to do in one repetition, the same for all of them and for pgvs3's own figures.
 *
 * @param warmup          closed-loop load before the enqueue window counts
 * @param measure         the enqueue window, extended until it holds at least {@code minCalls} whole calls
 * @param minCalls        the fewest enqueue calls a window holds, so that one call moves the figure little
 * @param backlog         jobs enqueued before a drain
 * @param fillLimit       the longest a backlog is filled; a slower fill drains what it made
 * @param drainLimit      the longest a drain is timed; a slower drain reports what it did within it
 * @param latencyRate     jobs per second of the latency run
 * @param latencyDuration length of the latency run
 * @param payload         the JSON payload of every job
 */
public record PeerWorkload(Duration warmup, Duration measure, int minCalls, int backlog, Duration fillLimit, Duration drainLimit,
        int latencyRate, Duration latencyDuration, String payload) {
}
