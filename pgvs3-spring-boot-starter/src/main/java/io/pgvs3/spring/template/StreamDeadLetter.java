package io.pgvs3.spring.template;

import java.time.Instant;
import java.util.Map;

import tools.jackson.databind.JsonNode;

/**
 * A stream message that used up its retries (or that an error handler dead-lettered).
 *
 * @param id         the dead letter's id, for {@link StreamAdmin#replay(String, long)}
 * @param messageId  the message's id
 * @param type       the message's type
 * @param payload    the message's payload
 * @param headers    the message's headers
 * @param retryCount how often it was retried
 * @param reason     why its last delivery failed
 * @param consumer   the consumer that dead-lettered it
 * @param deadAt     when it was dead-lettered
 */
public record StreamDeadLetter(long id, String messageId, String type, JsonNode payload, Map<String, String> headers,
        int retryCount, String reason, String consumer, Instant deadAt) {
}
