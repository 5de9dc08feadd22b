package io.pgvs3.spring.listener;

import java.time.Duration;

import io.pgvs3.core.error.ErrorCode;
import io.pgvs3.core.error.Pgvs3Exception;
import io.pgvs3.core.stream.NackResult;
import io.pgvs3.core.stream.ReceivedMessage;
import io.pgvs3.core.stream.StreamStore;
import io.pgvs3.spring.metrics.Pgvs3Metrics;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What follows a stream message whose handling failed: the {@link ListenerErrorHandler} decides (a nack with a delay,
 * a dead letter, or a recoverer's work; the database dead-letters a retried message once it exhausted the queue's
 * {@code max_retries}), this carries it out and logs one line for the failure.
 */
final class StreamMessageFailures {

    // the container's category, where these lines were always logged
    private static final Logger log = LoggerFactory.getLogger(StreamListenerContainer.class);

    private final StreamListenerEndpoint endpoint;
    private final StreamStore store;
    private final ListenerErrorHandler errorHandler;
    private final Pgvs3Metrics metrics;

    StreamMessageFailures(StreamListenerEndpoint endpoint, StreamStore store, ListenerErrorHandler errorHandler,
            Pgvs3Metrics metrics) {
        this.endpoint = endpoint;
        this.store = store;
        this.errorHandler = errorHandler;
        this.metrics = metrics;
    }

    /** Asks the error handler what follows a failed message, does it, and logs one line for the failure. */
    void handle(long batchId, ReceivedMessage message, RuntimeException failure) {
        Throwable error = AbstractPgvs3ListenerContainer.unwrap(failure);
        int attempt = message.retryCount() + 1;
        DeliveryFailure delivery = new DeliveryFailure(DeliveryFailure.Kind.STREAM, endpoint.id(), endpoint.queue(),
                endpoint.consumer(), message.id(), attempt, 0, error, message);
        FailureAction action;
        try {
            action = errorHandler.handle(delivery);
        }
        catch (RuntimeException ex) {
            log.error("Error handler of stream listener {} failed; message {} is retried: {}", endpoint.id(),
                    message.id(), ex.toString());
            action = FailureAction.retry(AbstractPgvs3ListenerContainer.ERROR_PAUSE);
        }
        String outcome;
        try {
            outcome = carryOut(batchId, message, error, action);
        }
        catch (Pgvs3Exception ex) {
            if (ex.code() != ErrorCode.CONFLICT) {
                throw ex;
            }
            outcome = "already nacked on an earlier delivery of the batch";
        }
        log.warn("Stream listener {} failed on message {} (queue {}, consumer {}, attempt {}): {}; {}", endpoint.id(),
                message.id(), endpoint.queue(), endpoint.consumer(), attempt, error.toString(), outcome);
        if (log.isDebugEnabled()) {
            log.debug("Failure of message " + message.id() + " in stream listener " + endpoint.id(), error);
        }
    }

    private String carryOut(long batchId, ReceivedMessage message, Throwable error, FailureAction action) {
        String outcome;
        switch (action.kind()) {
            case RETRY -> {
                NackResult result = store.nack(endpoint.queue(), batchId, message.id(), action.delay(),
                        describe(error), false);
                metrics.nacked(endpoint.queue(), endpoint.consumer(), result.action());
                outcome = "dead_letter".equals(result.action())
                        ? "dead-lettered: the queue's max_retries is used up"
                        : "retry in " + action.delay().toMillis() + " ms";
            }
            case DEAD_LETTER -> {
                NackResult result = store.nack(endpoint.queue(), batchId, message.id(), Duration.ZERO,
                        describe(error), true);
                metrics.nacked(endpoint.queue(), endpoint.consumer(), result.action());
                outcome = "dead-lettered";
            }
            default -> outcome = "recovered";
        }
        return outcome;
    }

    private static String describe(Throwable error) {
        String text = error.getClass().getName() + (error.getMessage() == null ? "" : ": " + error.getMessage());
        return text.length() > 1000 ? text.substring(0, 1000) : text;
    }
}
