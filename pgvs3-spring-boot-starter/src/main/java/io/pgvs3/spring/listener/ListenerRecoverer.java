package io.pgvs3.spring.listener;

/**
 * Called when a delivery will not be retried (its exception is not retryable, or its back-off is exhausted), for
 * example to write it to a table or another queue. When it returns, a stream message counts as handled; when it
 * throws, the message is dead-lettered in the database instead. A job is failed without retry either way.
 */
@FunctionalInterface
public interface ListenerRecoverer {

    void recover(DeliveryFailure failure) throws Exception;
}
