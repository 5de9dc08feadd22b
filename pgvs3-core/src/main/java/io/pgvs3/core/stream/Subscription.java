package io.pgvs3.core.stream;

/**
 * A consumer's cursor after subscribing.
 *
 * @param consumer the consumer name
 * @param lastTick the tick the consumer's next batch starts after
 * @param created  whether this call created the subscription (false: it existed and is unchanged)
 */
public record Subscription(String consumer, long lastTick, boolean created) {
}
