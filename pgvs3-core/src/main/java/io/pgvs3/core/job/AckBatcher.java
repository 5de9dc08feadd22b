package io.pgvs3.core.job;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

import io.pgvs3.core.catalog.QueueName;

/**
 * Group commit for acks. Each caller queues its ack; whoever gets one of a few flush permits drains the queue and
 * completes everything pending in one statement and one commit, so concurrent acks share a commit instead of each
 * paying its own. A lone ack is flushed at once by its own caller, so it waits for nobody.
 */
final class AckBatcher {

    /** One ack; {@code queue} is where the job was fetched from, when known, else null. */
    record Request(UUID id, String workerId, String resultJson, QueueName queue,
            CompletableFuture<AckOutcome> outcome) {
    }

    /** The outcome of one ack: null job means no such job; ok false means it was not active under that lease. */
    record AckOutcome(Job job, boolean ok) {
    }

    private final ConcurrentLinkedQueue<Request> pending = new ConcurrentLinkedQueue<>();
    private final Semaphore flushers;
    private final int maxBatch;
    private final Function<List<Request>, Map<Integer, AckOutcome>> executor;

    AckBatcher(int maxBatch, int flushers, Function<List<Request>, Map<Integer, AckOutcome>> executor) {
        this.maxBatch = maxBatch;
        this.flushers = new Semaphore(flushers);
        this.executor = executor;
    }

    AckOutcome submit(UUID id, String workerId, String resultJson, QueueName queue) {
        Request request = new Request(id, workerId, resultJson, queue, new CompletableFuture<>());
        pending.add(request);
        while (true) {
            if (flushers.tryAcquire()) {
                try {
                    flush();
                }
                finally {
                    flushers.release();
                }
            }
            try {
                return request.outcome().get(1, TimeUnit.MILLISECONDS);
            }
            catch (TimeoutException ex) {
                // another flusher holds our ack or every permit is busy: look again
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for an ack to commit", ex);
            }
            catch (ExecutionException ex) {
                if (ex.getCause() instanceof RuntimeException runtime) {
                    throw runtime;
                }
                throw new IllegalStateException(ex.getCause());
            }
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
                }
            }
        }
    }

    private static void complete(List<Request> batch, Map<Integer, AckOutcome> outcomes) {
        for (int i = 0; i < batch.size(); i++) {
            AckOutcome outcome = outcomes.get(i + 1);
            batch.get(i).outcome().complete(outcome != null ? outcome : new AckOutcome(null, false));
        }
    }
}
