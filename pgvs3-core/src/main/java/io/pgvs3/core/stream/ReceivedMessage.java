package io.pgvs3.core.stream;

import java.time.Instant;
import java.util.Map;

/** One message of a received batch; {@code retryCount} is how often it was nacked and redelivered. */
public record ReceivedMessage(String id, long seq, String type, String payloadJson, Map<String, String> headers,
        int retryCount, Instant createdAt) {
}
