package io.pgvs3.spring.listener;

/**
 * A payload or job argument that could not be converted to the type a listener or handler method declares.
 * Retrying does not help, so job handlers record it as a non-retryable error.
 */
public class MessageConversionException extends RuntimeException {

    public MessageConversionException(String message, Throwable cause) {
        super(message, cause);
    }

    public MessageConversionException(String message) {
        super(message);
    }
}
