package io.pgvs3.core.stream;

/**
 * What a nack did with one message.
 *
 * @param messageId  the message
 * @param action     {@code retry} (redelivered later) or {@code dead_letter} (max_retries used up)
 * @param retryCount the retry count of the redelivery, or of the message as dead-lettered
 */
public record NackResult(String messageId, String action, int retryCount) {

    public static final String RETRY = "retry";

    public static final String DEAD_LETTER = "dead_letter";
}
