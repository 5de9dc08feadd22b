package io.pgvs3.spring.test;

import java.time.Duration;
import java.util.function.Supplier;

import io.pgvs3.core.job.Job;
import io.pgvs3.core.job.JobStore;
import io.pgvs3.core.stream.StreamStore;
import io.pgvs3.spring.listener.Pgvs3ListenerEndpointRegistry;
import tools.jackson.databind.JsonNode;

/**
 * Waits in tests for what pgvs3 does on threads of its own: listener containers started, a consumer caught up, a
 * job finished. Each method polls every 20 ms and throws {@link AssertionError} when the timeout passes.
 */
public final class Pgvs3Await {

    private static final long POLL_MILLIS = 20;

    private Pgvs3Await() {
    }

    /** Until the listener containers that start with the application have started. */
    public static void listenersStarted(Pgvs3ListenerEndpointRegistry registry, Duration timeout) {
        until(registry::isStarted, timeout, "the pgvs3 listener containers did not start");
    }

    /**
     * Until the consumer has received and acknowledged every message committed so far: no lag and no outstanding
     * batch.
     */
    public static void consumerCaughtUp(StreamStore store, String queue, String consumer, Duration timeout) {
        until(() -> {
            for (JsonNode entry : store.consumers(queue)) {
                if (entry.path("name").asString().equals(consumer)) {
                    return entry.path("lag").asLong() == 0 && outstanding(entry.path("batches")) == 0;
                }
            }
            return false;
        }, timeout, "consumer " + consumer + " of " + queue + " did not catch up");
    }

    private static int outstanding(JsonNode batches) {
        int count = 0;
        for (JsonNode batch : batches) {
            if (batch.path("acked_at").isNull() || batch.path("acked_at").isMissingNode()) {
                count++;
            }
        }
        return count;
    }

    /** Until the job reached a final state (completed, cancelled or discarded); returns it. */
    public static Job jobFinished(JobStore store, String jobId, Duration timeout) {
        Job[] last = new Job[1];
        until(() -> {
            last[0] = store.get(jobId).orElse(null);
            return last[0] != null && last[0].state().isTerminal();
        }, timeout, "job " + jobId + " did not finish");
        return last[0];
    }

    private static void until(Supplier<Boolean> condition, Duration timeout, String failure) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!Boolean.TRUE.equals(condition.get())) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError(failure + " within " + timeout);
            }
            try {
                Thread.sleep(POLL_MILLIS);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted while waiting: " + failure, ex);
            }
        }
    }
}
