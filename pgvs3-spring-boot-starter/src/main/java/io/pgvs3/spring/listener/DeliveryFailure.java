package io.pgvs3.spring.listener;

/**
 * One failed delivery, as an error handler and a recoverer see it.
 *
 * @param kind        whether a stream message or a job failed
 * @param listenerId  the container id of the stream listener, or the job handler's container id
 * @param queue       the queue
 * @param consumer    the stream consumer, or the job type
 * @param messageId   the stream message id or the job id
 * @param attempt     which delivery failed: 1 for the first
 * @param maxAttempts the most attempts the job may have (its retry policy), or 0 for a stream message, whose
 *                    retries the error handler's back-off and the queue's {@code max_retries} bound
 * @param error       what the listener threw (a checked exception unwrapped from
 *                    {@link ListenerExecutionFailedException})
 * @param record      the {@code ReceivedMessage} or {@code Job} that failed
 */
public record DeliveryFailure(Kind kind, String listenerId, String queue, String consumer, String messageId,
        int attempt, int maxAttempts, Throwable error, Object record) {

    public enum Kind {
        STREAM, JOB
    }
}
