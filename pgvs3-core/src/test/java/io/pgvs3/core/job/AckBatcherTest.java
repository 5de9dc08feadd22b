package io.pgvs3.core.job;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.pgvs3.core.job.AckBatcher.AckOutcome;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class AckBatcherTest {

    /**
     * With the default settings, acks that arrive while a batch commits do not start commits of their own: they wait
     * for it and share the next one. This is what makes eight HTTP workers acking one job each share commits.
     */
    @Test
    void byDefaultAcksArrivingWhileABatchCommitsShareTheNextCommit() throws Exception {
        CountDownLatch firstRunning = new CountDownLatch(1);
        CountDownLatch releaseFirst = new CountDownLatch(1);
        List<Integer> batchSizes = Collections.synchronizedList(new ArrayList<>());
        JobStoreSettings defaults = JobStoreSettings.DEFAULTS;
        AckBatcher batcher = new AckBatcher(defaults.maxAckBatch(), defaults.ackFlushers(), batch -> {
            batchSizes.add(batch.size());
            if (batchSizes.size() == 1) {
                firstRunning.countDown();
                await(releaseFirst);
            }
            Map<Integer, AckOutcome> outcomes = new HashMap<>();
            for (int i = 1; i <= batch.size(); i++) {
                outcomes.put(i, new AckOutcome(null, true));
            }
            return outcomes;
        });
        ExecutorService threads = Executors.newFixedThreadPool(8);
        try {
            List<Future<AckOutcome>> acks = new ArrayList<>();
            acks.add(threads.submit(() -> batcher.submit(UUID.randomUUID(), "w", null, null)));
            assertThat(firstRunning.await(10, TimeUnit.SECONDS)).isTrue();
            for (int i = 0; i < 7; i++) {
                acks.add(threads.submit(() -> batcher.submit(UUID.randomUUID(), "w", null, null)));
            }
            Thread.sleep(300);
            assertThat(batchSizes).as("batches started while the first one commits").containsExactly(1);
            releaseFirst.countDown();
            for (Future<AckOutcome> ack : acks) {
                assertThat(ack.get(10, TimeUnit.SECONDS).ok()).isTrue();
            }
            assertThat(batchSizes.stream().mapToInt(Integer::intValue).sum()).isEqualTo(8);
        }
        finally {
            releaseFirst.countDown();
            threads.shutdownNow();
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await(10, TimeUnit.SECONDS);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }
}
