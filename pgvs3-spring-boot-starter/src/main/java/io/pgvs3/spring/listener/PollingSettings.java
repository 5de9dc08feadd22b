package io.pgvs3.spring.listener;

import java.time.Duration;

/**
 * How containers learn of new work.
 *
 * @param listen             whether to wake on {@code LISTEN} notifications (off behind PgBouncer transaction pooling)
 * @param minPollInterval    first wait after an empty fetch when polling
 * @param maxPollInterval    longest wait the polling backoff reaches
 * @param listenPollInterval safety-net poll while notifications are being received
 */
public record PollingSettings(boolean listen, Duration minPollInterval, Duration maxPollInterval,
        Duration listenPollInterval) {

    IdlePolicy newIdlePolicy() {
        return new IdlePolicy(minPollInterval, maxPollInterval, listenPollInterval);
    }
}
