package io.pgvs3.spring.listener;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.pgvs3.core.error.ErrorCode;
import io.pgvs3.core.error.Pgvs3Exception;
import io.pgvs3.core.notify.NotificationHub;
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
 * Consumes one queue as one consumer, with one thread per cooperative member.
 * <p>
 * Each member receives a batch, hands it to the listener method, asks the {@link ListenerErrorHandler} what follows
 * for every message whose handling failed (a nack with a delay, a dead letter, or a recoverer's work; the database
 * dead-letters a retried message once it exhausted the queue's {@code max_retries}), and acks the batch: with the
 * next receive, in one call and one commit ({@link StreamStore#ackAndReceive}), or on its own when the member pauses
 * or stops first. While batches keep coming it receives again at once; when one comes back empty it waits for a
 * {@code LISTEN} notification on the queue's channel, or polls with a growing interval when notifications are off or
 * unavailable.
 * <p>
 * In transactional mode the listener's own database work, the nacks and the ack commit in one transaction; each
 * message runs in a savepoint, so a failing message rolls back only its own work.
 */
public class StreamListenerContainer extends AbstractPgvs3ListenerContainer {

    private static final Logger log = LoggerFactory.getLogger(StreamListenerContainer.class);

    private final StreamListenerEndpoint endpoint;
    private final StreamListenerMethodAdapter adapter;
    private final StreamStore store;
    private final ListenerErrorHandler errorHandler;
    private final TransactionTemplate batchTransaction;
    private final TransactionTemplate messageTransaction;
    private final Pgvs3Metrics metrics;
    private final List<String> members;

    private List<Thread> threads = List.of();

    public StreamListenerContainer(StreamListenerEndpoint endpoint, StreamListenerMethodAdapter adapter,
            StreamStore store, NotificationHub notifications, PollingSettings polling,
            ListenerErrorHandler errorHandler, PlatformTransactionManager transactionManager, Pgvs3Metrics metrics, String memberPrefix) {
        super(notifications, polling);
        this.endpoint = endpoint;
        this.adapter = adapter;
        this.store = store;
        this.errorHandler = errorHandler;
        this.metrics = metrics;
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
        List<String> names = new ArrayList<>();
        for (int i = 0; i < endpoint.concurrency(); i++) {
            names.add(endpoint.concurrency() == 1 ? null : memberPrefix + "-" + i);
        }
        this.members = names;
    }

    @Override
    public String id() {
        return endpoint.id();
    }

    @Override
    public String queue() {
        return endpoint.queue();
    }

    public String consumer() {
        return endpoint.consumer();
    }

    @Override
    public int concurrency() {
        return endpoint.concurrency();
    }

    public StreamListenerEndpoint endpoint() {
        return endpoint;
    }

    @Override
    protected void beforeStart() {
        if (endpoint.subscribe()) {
            if (endpoint.startFrom() == null) {
                store.subscribeFromNow(endpoint.queue(), endpoint.consumer());
            }
            else {
                store.subscribe(endpoint.queue(), endpoint.consumer(), endpoint.startFrom());
            }
        }
    }

    @Override
    protected void doStart() {
        List<Thread> started = new ArrayList<>();
        for (int i = 0; i < members.size(); i++) {
            String member = members.get(i);
            Thread thread = daemon(() -> consume(member), "pgvs3-" + endpoint.id() + "-" + i);
            thread.start();
            started.add(thread);
        }
        threads = List.copyOf(started);
        log.debug("Started stream listener {} on {} as {} with {} member(s)", endpoint.id(), endpoint.queue(),
                endpoint.consumer(), members.size());
    }

    @Override
    protected void doStop(long deadlineNanos, Duration timeout) {
        List<Thread> stopping = threads;
        threads = List.of();
        for (Thread thread : stopping) {
            joinUntil(thread, deadlineNanos);
        }
        if (stopping.stream().noneMatch(Thread::isAlive)) {
            return;
        }
        abandon();
        log.warn("Stream listener {} did not finish its batch within {}; abandoning it: no further message is "
                + "handled and the batch stays unacknowledged, to be delivered again", endpoint.id(), timeout);
        for (Thread thread : stopping) {
            thread.interrupt();
        }
        for (Thread thread : stopping) {
            joinUntil(thread, System.nanoTime() + TimeUnit.SECONDS.toNanos(5));
            if (thread.isAlive()) {
                log.error("Stream listener {}: the handler call on thread {} ignores the interrupt and is still "
                        + "running; its batch will be delivered again", endpoint.id(), thread.getName());
            }
        }
    }

    private void consume(String member) {
        IdlePolicy idle = polling.newIdlePolicy();
        PendingAck pending = new PendingAck();
        try {
            consume(member, idle, pending);
        }
        finally {
            flush(pending);
        }
    }

    private void consume(String member, IdlePolicy idle, PendingAck pending) {
        while (isRunning()) {
            long seen = wakeUps();
            try {
                if (isPaused()) {
                    flush(pending);
                }
                if (waitWhilePaused(seen) || !isRunning()) {
                    continue;
                }
                StreamBatch batch = receive(member, pending);
                if (!isRunning() && batch.batchId() != null && !batch.messages().isEmpty()) {
                    log.debug("Stream listener {} stops before handling batch {}; it is delivered again",
                            endpoint.id(), batch.batchId());
                    return;
                }
                if (batch.batchId() == null || batch.messages().isEmpty()) {
                    if (batch.batchId() != null) {
                        store.ack(endpoint.queue(), batch.batchId());
                    }
                    awaitWork(idle, seen);
                    continue;
                }
                idle.reset();
                if (!process(batch, pending)) {
                    // left unacknowledged by a manual listener: delivered again, after a pause instead of at once
                    pauseAfterError(seen);
                }
            }
            catch (BatchAbandonedException ex) {
                log.info("Stream listener {} left batch {} ({} messages) unacknowledged at shutdown; it is "
                        + "delivered again", endpoint.id(), ex.batchId(), ex.size());
                return;
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                return;
            }
            catch (RuntimeException ex) {
                // the ack that failed with the receive is tried on its own: the receive may fail for reasons of
                // its own (the consumer was unsubscribed), and the handled batch must not wait for it
                flush(pending);
                if (!isRunning()) {
                    log.debug("Stream listener {} stopped while receiving: {}", endpoint.id(), ex.toString());
                    return;
                }
                log.warn("Stream listener {} failed to receive from {}: {}", endpoint.id(), endpoint.queue(),
                        ex.toString());
                try {
                    pauseAfterError(seen);
                }
                catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    /**
     * Receives the member's next batch: at most the listener's batch size, which therefore also bounds what a stop
     * in the middle of a batch leaves to be delivered again. A handled batch still to be acked is acked by the same
     * call, in the same transaction: a listener's cycle costs one commit, not two.
     */
    private StreamBatch receive(String member, PendingAck pending) {
        if (pending.batchId == null) {
            return store.receive(endpoint.queue(), endpoint.consumer(), member, endpoint.maxBatchSize());
        }
        StreamBatch batch = store.ackAndReceive(endpoint.queue(), pending.batchId, endpoint.consumer(), member,
                endpoint.maxBatchSize());
        acked(pending);
        return batch;
    }

    /** Acks a handled batch on its own (before a pause, at stop, after a failed receive); failures are logged. */
    private void flush(PendingAck pending) {
        if (pending.batchId == null) {
            return;
        }
        try {
            store.ack(endpoint.queue(), pending.batchId);
            acked(pending);
        }
        catch (RuntimeException ex) {
            log.warn("Stream listener {} could not ack batch {}; it is delivered again: {}", endpoint.id(),
                    pending.batchId, ex.toString());
            pending.batchId = null;
        }
    }

    private void acked(PendingAck pending) {
        metrics.acked(endpoint.queue(), endpoint.consumer(), pending.size);
        pending.batchId = null;
    }

    /** A batch a non-transactional listener handled completely, acked with the member's next receive. */
    private static final class PendingAck {

        Long batchId;
        int size;
    }

    /**
     * Handles a batch; false when a manual listener left it unacknowledged. A transactional listener's batch is acked
     * in its transaction; otherwise it is left in {@code pending}, to be acked with the next receive.
     */
    private boolean process(StreamBatch batch, PendingAck pending) {
        metrics.received(endpoint.queue(), endpoint.consumer(), batch.messages().size());
        if (batchTransaction != null) {
            return Boolean.TRUE.equals(batchTransaction.execute(status -> handleAndAck(batch, null)));
        }
        return handleAndAck(batch, pending);
    }

    private boolean handleAndAck(StreamBatch batch, PendingAck pending) {
        long batchId = batch.batchId();
        Outcome outcome = new Outcome();
        if (adapter.isBatch()) {
            handleBatch(batch.messages(), batchId, outcome);
        }
        else {
            handleEach(batch.messages(), batchId, outcome);
        }
        requireNotAbandoned(batch);
        for (Failure failure : outcome.failures) {
            handleFailure(batchId, failure);
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
            pending.batchId = batchId;
            pending.size = batch.messages().size();
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
    private void requireNotAbandoned(StreamBatch batch) {
        requireNotAbandoned(batch.batchId(), batch.messages().size());
    }

    private void requireNotAbandoned(long batchId, int size) {
        if (isAbandoned()) {
            throw new BatchAbandonedException(batchId, size);
        }
    }

    /** Asks the error handler what follows a failed message, does it, and logs one line for the failure. */
    private void handleFailure(long batchId, Failure failure) {
        ReceivedMessage message = failure.message();
        Throwable error = unwrap(failure.error());
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
            action = FailureAction.retry(ERROR_PAUSE);
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

    static Throwable unwrap(Throwable error) {
        return error instanceof ListenerExecutionFailedException && error.getCause() != null ? error.getCause()
                : error;
    }

    private static String describe(Throwable error) {
        String text = error.getClass().getName() + (error.getMessage() == null ? "" : ": " + error.getMessage());
        return text.length() > 1000 ? text.substring(0, 1000) : text;
    }

    private record Failure(ReceivedMessage message, RuntimeException error) {
    }

    /** Unwinds a batch abandoned at shutdown (and rolls back its transaction, when transactional). */
    private static final class BatchAbandonedException extends RuntimeException {

        private final long batchId;
        private final int size;

        BatchAbandonedException(long batchId, int size) {
            super("batch " + batchId + " abandoned at shutdown", null, false, false);
            this.batchId = batchId;
            this.size = size;
        }

        long batchId() {
            return batchId;
        }

        int size() {
            return size;
        }
    }

    @Override
    public String toString() {
        return "StreamListenerContainer[" + endpoint.id() + " " + endpoint.queue() + "/" + endpoint.consumer() + "]";
    }
}
