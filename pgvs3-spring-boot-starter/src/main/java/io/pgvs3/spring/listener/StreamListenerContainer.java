package io.pgvs3.spring.listener;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.pgvs3.core.notify.NotificationHub;
import io.pgvs3.core.stream.StreamBatch;
import io.pgvs3.core.stream.StreamStore;
import io.pgvs3.spring.metrics.Pgvs3Metrics;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.transaction.PlatformTransactionManager;

/**
 * Consumes one queue as one consumer, with one thread per cooperative member.
 * <p>
 * Each member receives a batch, hands it to the listener method ({@link StreamBatchHandler}), asks the
 * {@link ListenerErrorHandler} what follows for every message whose handling failed ({@link StreamMessageFailures}),
 * and acks the batch: with the next receive, in one call and one commit ({@link StreamStore#ackAndReceive}), or on
 * its own when the member pauses or stops first ({@link PendingBatchAck}). While batches keep coming it receives
 * again at once; when one comes back empty it waits for a {@code LISTEN} notification on the queue's channel, or
 * polls with a growing interval when notifications are off or unavailable.
 * <p>
 * In transactional mode the listener's own database work, the nacks and the ack commit in one transaction; each
 * message runs in a savepoint, so a failing message rolls back only its own work.
 */
public class StreamListenerContainer extends AbstractPgvs3ListenerContainer {

    private static final Logger log = LoggerFactory.getLogger(StreamListenerContainer.class);

    private final StreamListenerEndpoint endpoint;
    private final StreamStore store;
    private final Pgvs3Metrics metrics;
    private final StreamBatchHandler handler;
    private final List<String> members;

    private List<Thread> threads = List.of();

    public StreamListenerContainer(StreamListenerEndpoint endpoint, StreamListenerMethodAdapter adapter,
            StreamStore store, NotificationHub notifications, PollingSettings polling,
            ListenerErrorHandler errorHandler, PlatformTransactionManager transactionManager, Pgvs3Metrics metrics, String memberPrefix) {
        super(notifications, polling);
        this.endpoint = endpoint;
        this.store = store;
        this.metrics = metrics;
        this.handler = new StreamBatchHandler(endpoint, adapter, store,
                new StreamMessageFailures(endpoint, store, errorHandler, metrics), transactionManager, metrics,
                this::isAbandoned);
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
        PendingBatchAck pending = new PendingBatchAck(endpoint, store, metrics);
        try {
            consume(member, idle, pending);
        }
        finally {
            pending.flush();
        }
    }

    private void consume(String member, IdlePolicy idle, PendingBatchAck pending) {
        while (isRunning()) {
            long seen = wakeUps();
            try {
                if (isPaused()) {
                    pending.flush();
                }
                if (waitWhilePaused(seen) || !isRunning()) {
                    continue;
                }
                StreamBatch batch = pending.receive(member);
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
                if (!handler.process(batch, pending)) {
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
                pending.flush();
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

    @Override
    public String toString() {
        return "StreamListenerContainer[" + endpoint.id() + " " + endpoint.queue() + "/" + endpoint.consumer() + "]";
    }
}
