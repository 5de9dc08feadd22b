package io.pgvs3.core.stream;

import java.util.Map;

/**
 * A message to append to a queue's stream.
 *
 * @param id          the message id, or null for a generated UUIDv7
 * @param type        the message type, e.g. {@code order.created}
 * @param payloadJson the payload as JSON text
 * @param headers     string headers, or null for none
 * @param dedupeKey   the idempotency key (1 to 255 characters), or null: an append of a key already appended within
 *                    the queue's dedupe window stores nothing and answers with the first append's id and position
 */
public record NewStreamMessage(String id, String type, String payloadJson, Map<String, String> headers,
        String dedupeKey) {

    public NewStreamMessage {
        headers = headers == null ? Map.of() : Map.copyOf(headers);
    }

    public NewStreamMessage(String id, String type, String payloadJson, Map<String, String> headers) {
        this(id, type, payloadJson, headers, null);
    }

    public static NewStreamMessage of(String type, String payloadJson) {
        return new NewStreamMessage(null, type, payloadJson, null, null);
    }

    public NewStreamMessage withDedupeKey(String dedupeKey) {
        return new NewStreamMessage(id, type, payloadJson, headers, dedupeKey);
    }
}
