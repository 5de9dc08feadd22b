package io.pgvs3.spring.listener;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.pgvs3.core.catalog.QueueName;
import io.pgvs3.core.error.ErrorCode;
import io.pgvs3.core.error.Pgvs3Exception;
import io.pgvs3.core.notify.NotificationHub;
import io.pgvs3.core.stream.NackResult;
import io.pgvs3.core.stream.ReceivedMessage;
import io.pgvs3.core.stream.StreamBatch;
import io.pgvs3.core.stream.StreamStore;
import io.pgvs3.spring.core.Pgvs3Metrics;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;
import org.springframework.util.backoff.BackOff;
import org.springframework.util.backoff.BackOffExecution;

/**
 * Consumes one queue as one consumer, with one thread per cooperative member.
 * <p>
 * Each member receives a batch, hands it to the listener method, nacks every message whose handling failed (with
 * a delay taken from the {@link BackOff} for the message's retry count; the database dead-letters it once it
 * exhausted the queue's {@code max_retries}), and acks the batch. While batches keep coming it receives again at
 * once; when one comes back empty it waits for a {@code LISTEN} notification on the queue's channel, or polls with
 * a growing interval when notifications are off or unavailable.
 * <p>
 * In transactional mode the listener's own database work, the nacks and the ack commit in one transaction; each
 * message runs in a savepoint, so a failing message rolls back only its own work.
 */
public class StreamListenerContainer implements Pgvs3ListenerContainer {

    private static final Logger log = LoggerFactory.getLogger(StreamListenerContainer.class);

    private static final Duration ERROR_PAUSE = Duration.ofSeconds(1);

    private final StreamListenerEndpoint endpoint;
    private final StreamListenerMethodAdapter adapter;
    private final StreamStore store;
    private final NotificationHub notifications;
    private final PollingSettings polling;
    private final BackOff backOff;
    private final TransactionTemplate batchTransaction;
    private final TransactionTemplate messageTransaction;
    private final Pgvs3Metrics metrics;
    private final List<String> members;
    private final WakeUpSignal signal = new WakeUpSignal();

    private final Object lifecycleMonitor = new Object();
    private volatile boolean running;
    private volatile boolean paused;
    private List<Thread> threads = List.of();
    private NotificationHub.Registration registration;

    public StreamListenerContainer(StreamListenerEndpoint endpoint, StreamListenerMethodAdapter adapter,
            StreamStore store, NotificationHub notifications, PollingSettings polling, BackOff backOff,
            PlatformTransactionManager transactionManager, Pgvs3Metrics metrics, String memberPrefix) {
        this.endpoint = endpoint;
        this.adapter = adapter;
        this.store = store;
        this.notifications = polling.listen() ? notifications : null;
        this.polling = polling;
        this.backOff = backOff;
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
    public void start() {
        synchronized (lifecycleMonitor) {
            if (running) {
                return;
            }
            if (endpoint.subscribe()) {
                store.subscribe(endpoint.queue(), endpoint.consumer(), null);
            }
            if (notifications != null) {
                registration = notifications.listen(NotificationHub.channelFor(QueueName.of(endpoint.queue())),
                        signal::signal);
            }
            running = true;
            List<Thread> started = new ArrayList<>();
            for (int i = 0; i < members.size(); i++) {
                String member = members.get(i);
                Thread thread = new Thread(() -> consume(member), "pgvs3-" + endpoint.id() + "-" + i);
                thread.setDaemon(true);
                thread.start();
                started.add(thread);
            }
            threads = List.copyOf(started);
            log.debug("Started stream listener {} on {} as {} with {} member(s)", endpoint.id(), endpoint.queue(),
                    endpoint.consumer(), members.size());
        }
    }

    @Override
    public void stop(Duration timeout) {
        List<Thread> stopping;
        synchronized (lifecycleMonitor) {
            if (!running) {
                return;
            }
            running = false;
            stopping = threads;
            threads = List.of();
            if (registration != null) {
                registration.close();
                registration = null;
            }
        }
        signal.signal();
        long deadline = System.nanoTime() + timeout.toNanos();
        for (Thread thread : stopping) {
            joinUntil(thread, deadline);
        }
        for (Thread thread : stopping) {
            if (thread.isAlive()) {
                log.warn("Stream listener {} did not finish its batch within {}; interrupting it (the batch stays "
                        + "unacknowledged and is delivered again)", endpoint.id(), timeout);
                thread.interrupt();
            }
        }
        for (Thread thread : stopping) {
            joinUntil(thread, System.nanoTime() + TimeUnit.SECONDS.toNanos(5));
        }
    }

    private static void joinUntil(Thread thread, long deadlineNanos) {
        long left = deadlineNanos - System.nanoTime();
        if (left <= 0) {
            return;
        }
        try {
            thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void pause() {
        paused = true;
    }

    @Override
    public void resume() {
        paused = false;
        signal.signal();
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    @Override
    public boolean isPaused() {
        return paused;
    }

    @Override
    public void wakeUp() {
        signal.signal();
    }

    private boolean listening() {
        return notifications != null && notifications.isConnected();
    }

    private void consume(String member) {
        IdlePolicy idle = polling.newIdlePolicy();
        while (running) {
            long seen = signal.generation();
            try {
                if (paused) {
                    signal.await(seen, polling.listenPollInterval().toNanos());
                    continue;
                }
                StreamBatch batch = receive(member);
                if (batch.batchId() == null || batch.messages().isEmpty()) {
                    if (batch.batchId() != null) {
                        store.ack(endpoint.queue(), batch.batchId());
                    }
                    signal.await(seen, idle.nextWaitNanos(listening()));
                    continue;
                }
                idle.reset();
                process(batch);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                return;
            }
            catch (RuntimeException ex) {
                if (!running && Thread.currentThread().isInterrupted()) {
                    return;
                }
                log.warn("Stream listener {} failed to receive from {}: {}", endpoint.id(), endpoint.queue(),
                        ex.toString());
                try {
                    signal.await(seen, ERROR_PAUSE.toNanos());
                }
                catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    /**
     * Receives the member's next batch. A batch is fixed by two tick snapshots and may hold more messages than the
     * listener's batch size (a consumer that lagged while producers appended); it is then received whole, with the
     * size the {@code batch_too_large} error reports (at most {@link StreamStore#MAX_RECEIVE}), and handed over in
     * chunks. The next batch can change between the two receives (another member took it), hence the few attempts.
     */
    private StreamBatch receive(String member) {
        int max = endpoint.maxBatchSize();
        for (int attempt = 0;; attempt++) {
            try {
                return store.receive(endpoint.queue(), endpoint.consumer(), member, max);
            }
            catch (Pgvs3Exception ex) {
                int needed = neededCeiling(ex);
                if (ex.code() != ErrorCode.BATCH_TOO_LARGE || needed <= max || attempt >= 3) {
                    throw ex;
                }
                log.debug("Stream listener {} receives a batch of {} messages from {} in chunks of {}", endpoint.id(),
                        needed, endpoint.queue(), endpoint.maxBatchSize());
                max = needed;
            }
        }
    }

    /** The ceiling a {@code batch_too_large} error asks for, bounded by the store's: its batch_size when known. */
    private static int neededCeiling(Pgvs3Exception ex) {
        Object size = ex.details().get("batch_size");
        long needed = size instanceof Number number ? number.longValue() : StreamStore.MAX_RECEIVE;
        return (int) Math.min(needed, StreamStore.MAX_RECEIVE);
    }

    private void process(StreamBatch batch) {
        metrics.received(endpoint.queue(), endpoint.consumer(), batch.messages().size());
        if (batchTransaction != null) {
            batchTransaction.executeWithoutResult(status -> handleAndAck(batch));
        }
        else {
            handleAndAck(batch);
        }
    }

    private void handleAndAck(StreamBatch batch) {
        long batchId = batch.batchId();
        List<Failure> failures = adapter.isBatch() ? handleBatch(batch.messages(), batchId)
                : handleEach(batch.messages(), batchId);
        if (Thread.currentThread().isInterrupted()) {
            // Forced shutdown: leave the batch active so it is delivered again in full.
            throw new IllegalStateException("Interrupted while handling batch " + batchId);
        }
        for (Failure failure : failures) {
            nack(batchId, failure);
        }
        store.ack(endpoint.queue(), batchId);
        metrics.acked(endpoint.queue(), endpoint.consumer(), batch.messages().size());
    }

    private List<Failure> handleEach(List<ReceivedMessage> messages, long batchId) {
        List<Failure> failures = new ArrayList<>();
        for (ReceivedMessage message : messages) {
            RuntimeException error = invoke(() -> adapter.onMessage(message, batchId));
            if (error != null) {
                failures.add(new Failure(message, error));
            }
        }
        return failures;
    }

    private List<Failure> handleBatch(List<ReceivedMessage> messages, long batchId) {
        List<Failure> failures = new ArrayList<>();
        int size = endpoint.maxBatchSize();
        for (int from = 0; from < messages.size(); from += size) {
            List<ReceivedMessage> chunk = messages.subList(from, Math.min(messages.size(), from + size));
            RuntimeException error = invoke(() -> adapter.onBatch(chunk, batchId));
            if (error != null) {
                chunk.forEach(message -> failures.add(new Failure(message, error)));
            }
        }
        return failures;
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

    private void nack(long batchId, Failure failure) {
        ReceivedMessage message = failure.message();
        Duration delay = retryDelay(message.retryCount());
        NackResult result = store.nack(endpoint.queue(), batchId, message.id(), delay, describe(failure.error()));
        metrics.nacked(endpoint.queue(), endpoint.consumer(), result.action());
        if ("dead_letter".equals(result.action())) {
            log.warn("Stream listener {} dead-lettered message {} of {} after {} retries: {}", endpoint.id(),
                    message.id(), endpoint.queue(), message.retryCount(), failure.error().toString());
        }
        else {
            log.debug("Stream listener {} failed on message {}; retry {} in {}", endpoint.id(), message.id(),
                    result.retryCount(), delay, failure.error());
        }
    }

    /** The BackOff's delay for the attempt after {@code retryCount} earlier failures. */
    Duration retryDelay(int retryCount) {
        BackOffExecution execution = backOff.start();
        long delay = 0;
        for (int i = 0; i <= retryCount; i++) {
            long next = execution.nextBackOff();
            if (next == BackOffExecution.STOP) {
                break;
            }
            delay = next;
        }
        return Duration.ofMillis(delay);
    }

    private static String describe(Throwable error) {
        String text = error.getClass().getName() + (error.getMessage() == null ? "" : ": " + error.getMessage());
        return text.length() > 1000 ? text.substring(0, 1000) : text;
    }

    private record Failure(ReceivedMessage message, RuntimeException error) {
    }

    @Override
    public String toString() {
        return "StreamListenerContainer[" + endpoint.id() + " " + endpoint.queue() + "/" + endpoint.consumer() + "]";
    }
}
