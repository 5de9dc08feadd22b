package io.pgvs3.spring.listener;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;

import io.pgvs3.core.error.ErrorCode;
import io.pgvs3.core.error.Pgvs3Exception;
import io.pgvs3.core.stream.NackResult;
import io.pgvs3.core.stream.ReceivedMessage;
import io.pgvs3.core.stream.StreamBatch;
import io.pgvs3.core.stream.StreamStore;
import io.pgvs3.spring.metrics.Pgvs3Metrics;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Hands one received batch to a stream listener's method, message by message or in chunks, then carries out what
 * followed: the failures' error handling, a manual listener's nacks, and the ack. In transactional mode the
 * listener's own database work, the nacks and the ack commit in one transaction; each message runs in a savepoint,
 * so a failing message rolls back only its own work.
 */
final class StreamBatchHandler {

    // the container's category, where these lines were always logged
    private static final Logger log = LoggerFactory.getLogger(StreamListenerContainer.class);

    private final StreamListenerEndpoint endpoint;
    private final StreamListenerMethodAdapter adapter;
    private final StreamStore store;
    private final StreamMessageFailures failures;
    private final Pgvs3Metrics metrics;
    private final BooleanSupplier abandoned;
    private final TransactionTemplate batchTransaction;
    private final TransactionTemplate messageTransaction;

    /**
     * @param abandoned whether the container's shutdown timeout passed: from then on nothing more is handled,
     *                  nacked or acked
     */
    StreamBatchHandler(StreamListenerEndpoint endpoint, StreamListenerMethodAdapter adapter, StreamStore store,
            StreamMessageFailures failures, PlatformTransactionManager transactionManager, Pgvs3Metrics metrics,
            BooleanSupplier abandoned) {
        this.endpoint = endpoint;
        this.adapter = adapter;
        this.store = store;
        this.failures = failures;
        this.metrics = metrics;
        this.abandoned = abandoned;
        if (endpoint.transactional()) {
            if (transactionManager == null) {
                throw new IllegalStateException("Stream listener " + endpoint.id()
                        + " is transactional but there is no PlatformTransactionManager");
            }
            this.batchTransaction = new TransactionTemplate(transactionManager);
            this.messageTransaction = new TransactionTemplate(transactionManager);
            this.messageTransaction.setPropagationBehavior(TransactionDefinition.PROPAGATION_NESTED);
        }
        else {
            this.batchTransaction = null;
            this.messageTransaction = null;
        }
    }

    /**
     * Handles a batch; false when a manual listener left it unacknowledged. A transactional listener's batch is acked
     * in its transaction; otherwise it is left in {@code pending}, to be acked with the next receive.
     */
    boolean process(StreamBatch batch, PendingBatchAck pending) {
        metrics.received(endpoint.queue(), endpoint.consumer(), batch.messages().size());
        if (batchTransaction != null) {
            return Boolean.TRUE.equals(batchTransaction.execute(status -> handleAndAck(batch, null)));
        }
        return handleAndAck(batch, pending);
    }

    private boolean handleAndAck(StreamBatch batch, PendingBatchAck pending) {
        long batchId = batch.batchId();
        Outcome outcome = new Outcome();
        if (adapter.isBatch()) {
            handleBatch(batch.messages(), batchId, outcome);
        }
        else {
            handleEach(batch.messages(), batchId, outcome);
        }
        requireNotAbandoned(batchId, batch.messages().size());
        for (Failure failure : outcome.failures) {
            failures.handle(batchId, failure.message(), failure.error());
        }
        for (ManualNack nack : outcome.nacks) {
            manualNack(batchId, nack);
        }
        if (outcome.undecided > 0) {
            log.warn("Stream listener {} returned without acknowledging or nacking {} message(s) of batch {}; the "
                    + "batch stays unacknowledged and is delivered again", endpoint.id(), outcome.undecided, batchId);
            return false;
        }
        if (pending != null) {
            pending.hold(batchId, batch.messages().size());
            return true;
        }
        store.ack(endpoint.queue(), batchId);
        metrics.acked(endpoint.queue(), endpoint.consumer(), batch.messages().size());
        return true;
    }

    private void handleEach(List<ReceivedMessage> messages, long batchId, Outcome outcome) {
        for (ReceivedMessage message : messages) {
            requireNotAbandoned(batchId, messages.size());
            ManualAcknowledgment acknowledgment = adapter.isManual() ? new ManualAcknowledgment(1) : null;
            RuntimeException error = invoke(() -> adapter.onMessage(message, batchId, acknowledgment));
            if (error != null) {
                outcome.failures.add(new Failure(message, error));
            }
            else if (acknowledgment != null) {
                outcome.decided(List.of(message), acknowledgment);
            }
        }
    }

    private void handleBatch(List<ReceivedMessage> messages, long batchId, Outcome outcome) {
        int size = endpoint.maxBatchSize();
        for (int from = 0; from < messages.size(); from += size) {
            List<ReceivedMessage> chunk = messages.subList(from, Math.min(messages.size(), from + size));
            requireNotAbandoned(batchId, messages.size());
            ManualAcknowledgment acknowledgment = adapter.isManual() ? new ManualAcknowledgment(chunk.size()) : null;
            RuntimeException error = invoke(() -> adapter.onBatch(chunk, batchId, acknowledgment));
            if (error != null) {
                chunk.forEach(message -> outcome.failures.add(new Failure(message, error)));
            }
            else if (acknowledgment != null) {
                outcome.decided(chunk, acknowledgment);
            }
        }
    }

    /** A nack a manual listener asked for; a message nacked on an earlier delivery of the batch stays nacked. */
    private void manualNack(long batchId, ManualNack nack) {
        try {
            NackResult result = store.nack(endpoint.queue(), batchId, nack.message().id(), nack.delay(),
                    "nacked by the listener", false);
            metrics.nacked(endpoint.queue(), endpoint.consumer(), result.action());
            log.debug("Stream listener {} nacked message {}: {}", endpoint.id(), nack.message().id(), result.action());
        }
        catch (Pgvs3Exception ex) {
            if (ex.code() != ErrorCode.CONFLICT) {
                throw ex;
            }
            log.debug("Message {} of batch {} was nacked on an earlier delivery", nack.message().id(), batchId);
        }
    }

    private RuntimeException invoke(Runnable call) {
        long start = System.nanoTime();
        RuntimeException error = null;
        try {
            if (messageTransaction != null) {
                messageTransaction.executeWithoutResult(status -> call.run());
            }
            else {
                call.run();
            }
        }
        catch (RuntimeException ex) {
            error = ex;
        }
        metrics.handled("stream", endpoint.id(), endpoint.queue(), Duration.ofNanos(System.nanoTime() - start),
                error == null);
        return error;
    }

    /** Past the shutdown timeout nothing more is handled, nacked or acked: the batch is left for redelivery. */
    private void requireNotAbandoned(long batchId, int size) {
        if (abandoned.getAsBoolean()) {
            throw new BatchAbandonedException(batchId, size);
        }
    }

    /** What the listener made of one batch: failures for the error handler, manual nacks, undecided messages. */
    private static final class Outcome {

        final List<Failure> failures = new ArrayList<>();
        final List<ManualNack> nacks = new ArrayList<>();
        int undecided;

        void decided(List<ReceivedMessage> messages, ManualAcknowledgment acknowledgment) {
            if (!acknowledgment.isDecided()) {
                undecided += messages.size();
                return;
            }
            for (int i = 0; i < messages.size(); i++) {
                Duration delay = acknowledgment.nackDelay(i);
                if (delay != null) {
                    nacks.add(new ManualNack(messages.get(i), delay));
                }
            }
        }
    }

    private record ManualNack(ReceivedMessage message, Duration delay) {
    }

    private record Failure(ReceivedMessage message, RuntimeException error) {
    }
}
