package io.pgvs3.spring.listener;

/**
 * A checked exception thrown by a listener or handler method, wrapped so containers handle every failure alike.
 */
public class ListenerExecutionFailedException extends RuntimeException {

    public ListenerExecutionFailedException(String message, Throwable cause) {
        super(message, cause);
    }
}
