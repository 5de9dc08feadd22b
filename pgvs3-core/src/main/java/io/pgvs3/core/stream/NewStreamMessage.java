package io.pgvs3.core.stream;

import java.util.Map;

/**
 * A message to append to a queue's stream.
 *
 * @param id          the message id, or null for a generated UUIDv7
 * @param type        the message type, e.g. {@code order.created}
 * @param payloadJson the payload as JSON text
 * @param headers     string headers, or null for none
 */
public record NewStreamMessage(String id, String type, String payloadJson, Map<String, String> headers) {

    public NewStreamMessage {
        headers = headers == null ? Map.of() : Map.copyOf(headers);
    }

    public static NewStreamMessage of(String type, String payloadJson) {
        return new NewStreamMessage(null, type, payloadJson, null);
    }
}
