package io.pgvs3.spring.listener;

/**
 * Decides what follows a failed delivery of a stream message or a job. One error handler can serve many
 * listeners; a listener names its own with the {@code errorHandler} attribute of its annotation, else it uses its
 * container factory's. {@link DefaultListenerErrorHandler} retries with a {@code BackOff}, classifies exceptions
 * and hands exhausted deliveries to a recoverer.
 */
@FunctionalInterface
public interface ListenerErrorHandler {

    FailureAction handle(DeliveryFailure failure);
}
