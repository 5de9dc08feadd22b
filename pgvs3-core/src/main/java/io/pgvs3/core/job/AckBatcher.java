package io.pgvs3.core.job;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;

import io.pgvs3.core.catalog.QueueName;

/**
 * Group commit for acks. Each caller queues its ack; whoever gets one of a few flush permits drains the queue and
 * completes everything pending in one statement and one commit, so concurrent acks share a commit instead of each
 * paying its own. A lone ack is flushed at once by its own caller, so it waits for nobody.
 * <p>
 * A caller whose ack is still queued when a flusher releases its permit is woken by that flusher to flush the next
 * batch, and a caller whose ack a flusher completed is woken by it: nobody looks again on a timer. Waiting acks used
 * to look every millisecond, so after each commit the queue sat idle until one of them happened to look, which made
 * an ack's round trip about twice the time of the commits it waited for.
 */
final class AckBatcher {

    /** How long a waiting caller parks before it looks again without being woken; only a safety net. */
    static final Duration IDLE_LOOK = Duration.ofMillis(100);

    /** One ack; {@code queue} is where the job was fetched from, when known, else null. */
    record Request(UUID id, String workerId, String resultJson, QueueName queue, Thread waiter,
            CompletableFuture<AckOutcome> outcome) {
    }

    /** The outcome of one ack: null job means no such job; ok false means it was not active under that lease. */
    record AckOutcome(Job job, boolean ok) {
    }

    private final ConcurrentLinkedQueue<Request> pending = new ConcurrentLinkedQueue<>();
    private final Semaphore flushers;
    private final int maxBatch;
    private final Function<List<Request>, Map<Integer, AckOutcome>> executor;
    private final long idleLookNanos;

    AckBatcher(int maxBatch, int flushers, Function<List<Request>, Map<Integer, AckOutcome>> executor) {
        this(maxBatch, flushers, executor, IDLE_LOOK);
    }

    AckBatcher(int maxBatch, int flushers, Function<List<Request>, Map<Integer, AckOutcome>> executor,
            Duration idleLook) {
        this.maxBatch = maxBatch;
        this.flushers = new Semaphore(flushers);
        this.executor = executor;
        this.idleLookNanos = idleLook.toNanos();
    }

    AckOutcome submit(UUID id, String workerId, String resultJson, QueueName queue) {
        Request request = new Request(id, workerId, resultJson, queue, Thread.currentThread(),
                new CompletableFuture<>());
        pending.add(request);
        while (!request.outcome().isDone()) {
            if (flushers.tryAcquire()) {
                try {
                    flush();
                }
                finally {
                    flushers.release();
                }
                // after the release: an ack queued while this flush ran found no permit and waits to be woken
                Request next = pending.peek();
                if (next != null) {
                    LockSupport.unpark(next.waiter());
                }
            }
            else {
                LockSupport.parkNanos(this, idleLookNanos);
                if (Thread.interrupted()) {
                    withdraw(request);
                    // a flusher has taken it: wait for its outcome below
                    break;
                }
            }
        }
        return outcome(request);
    }

    /**
     * An interrupted caller withdraws its ack if no flusher has taken it, so that nothing is written for a caller told
     * that its ack failed; the wake-up meant for the head of the queue is passed on, in case it was this caller's. A
     * flusher that has taken the ack may be committing it already: then the caller waits for the outcome (one
     * statement) and returns it with its interrupt status kept, and is never told of a failure after its ack has
     * committed.
     */
    private void withdraw(Request request) {
        boolean withdrawn = pending.remove(request);
        Request next = pending.peek();
        if (next != null) {
            LockSupport.unpark(next.waiter());
        }
        Thread.currentThread().interrupt();
        if (withdrawn) {
            throw new IllegalStateException("interrupted while waiting for an ack to commit; the ack was not applied");
        }
    }

    private static AckOutcome outcome(Request request) {
        try {
            // not interruptible: an ack a flusher has taken is waited for to the end
            return request.outcome().join();
        }
        catch (CompletionException ex) {
            if (ex.getCause() instanceof RuntimeException runtime) {
                throw runtime;
            }
            throw new IllegalStateException(ex.getCause());
        }
    }

    private void flush() {
        List<Request> batch = new ArrayList<>();
        Request next;
        while (batch.size() < maxBatch && (next = pending.poll()) != null) {
            batch.add(next);
        }
        if (batch.isEmpty()) {
            return;
        }
        try {
            complete(batch, executor.apply(batch));
        }
        catch (RuntimeException batchFailure) {
            // isolate the ack that broke the batch (or ride out a transient failure) by going one by one
            for (Request request : batch) {
                try {
                    complete(List.of(request), executor.apply(List.of(request)));
                }
                catch (RuntimeException ex) {
                    request.outcome().completeExceptionally(ex);
                    wake(request);
                }
            }
        }
    }

    private static void complete(List<Request> batch, Map<Integer, AckOutcome> outcomes) {
        for (int i = 0; i < batch.size(); i++) {
            AckOutcome outcome = outcomes.get(i + 1);
            batch.get(i).outcome().complete(outcome != null ? outcome : new AckOutcome(null, false));
            wake(batch.get(i));
        }
    }

    private static void wake(Request request) {
        if (request.waiter() != Thread.currentThread()) {
            LockSupport.unpark(request.waiter());
        }
    }
}
