package io.pgvs3.spring.listener;

import java.time.Instant;
import java.util.Map;

/**
 * One stream message as a listener sees it: the converted payload with the message's metadata.
 *
 * @param id         the message id (unique within the queue)
 * @param seq        the storage sequence number
 * @param type       the message type given at append
 * @param payload    the payload converted to the listener's type
 * @param headers    the headers given at append (never null)
 * @param retryCount how many times this message was nacked before this delivery
 * @param batchId    the batch that delivered it
 * @param createdAt  when it was appended
 * @param <T>        the payload type
 */
public record StreamMessage<T>(String id, long seq, String type, T payload, Map<String, String> headers,
        int retryCount, long batchId, Instant createdAt) {

    public StreamMessage {
        headers = headers == null ? Map.of() : Map.copyOf(headers);
    }

    /** The value of one header, or null. */
    public String header(String name) {
        return headers.get(name);
    }
}
