package io.pgvs3.core.job;

import java.time.Duration;
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
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

import io.pgvs3.core.job.AckBatcher.AckOutcome;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class AckBatcherTest {

    private final ExecutorService threads = Executors.newFixedThreadPool(8);

    @AfterEach
    void stopThreads() {
        // also ends a held batch: its executor is interrupted while it waits
        threads.shutdownNow();
    }

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
        AckBatcher batcher = new AckBatcher(defaults.maxAckBatch(), defaults.ackFlushers(),
                firstBatchHeld(batchSizes, firstRunning, releaseFirst));
        List<Future<AckOutcome>> acks = new ArrayList<>();
        acks.add(ack(batcher));
        assertThat(firstRunning.await(10, TimeUnit.SECONDS)).isTrue();
        for (int i = 0; i < 7; i++) {
            acks.add(ack(batcher));
        }
        Thread.sleep(300);
        assertThat(batchSizes).as("batches started while the first one commits").containsExactly(1);
        releaseFirst.countDown();
        for (Future<AckOutcome> ack : acks) {
            assertThat(ack.get(10, TimeUnit.SECONDS).ok()).isTrue();
        }
        assertThat(batchSizes.stream().mapToInt(Integer::intValue).sum()).isEqualTo(8);
    }

    /**
     * Acks queued while a batch commits are flushed as soon as it has committed, by a caller the flusher wakes, and
     * each caller returns as soon as its ack has committed: with a safety-net look far longer than the test, every
     * ack completing shows that no caller waited for it.
     */
    @Test
    void acksQueuedDuringACommitAreFlushedWhenItEndsWithoutWaitingForATimer() throws Exception {
        CountDownLatch firstRunning = new CountDownLatch(1);
        CountDownLatch releaseFirst = new CountDownLatch(1);
        List<Integer> batchSizes = Collections.synchronizedList(new ArrayList<>());
        AckBatcher batcher = new AckBatcher(3, 1, firstBatchHeld(batchSizes, firstRunning, releaseFirst),
                Duration.ofHours(1));
        List<Future<AckOutcome>> acks = new ArrayList<>();
        acks.add(ack(batcher));
        assertThat(firstRunning.await(10, TimeUnit.SECONDS)).isTrue();
        for (int i = 0; i < 7; i++) {
            acks.add(ack(batcher));
        }
        // every caller is parked: none may come back on its own within the test
        Thread.sleep(200);
        releaseFirst.countDown();
        for (Future<AckOutcome> ack : acks) {
            assertThat(ack.get(10, TimeUnit.SECONDS).ok()).isTrue();
        }
        // 7 acks in batches of at most 3, one after another, each started by a woken caller
        assertThat(batchSizes).containsExactly(1, 3, 3, 1);
    }

    @Test
    void aFailedBatchIsRetriedAckByAckAndOnlyTheFailingAckFails() throws Exception {
        UUID bad = UUID.randomUUID();
        CountDownLatch firstRunning = new CountDownLatch(1);
        CountDownLatch releaseFirst = new CountDownLatch(1);
        AtomicInteger calls = new AtomicInteger();
        AckBatcher batcher = new AckBatcher(10, 1, batch -> {
            if (calls.incrementAndGet() == 1) {
                firstRunning.countDown();
                await(releaseFirst);
            }
            if (batch.stream().anyMatch(request -> request.id().equals(bad))) {
                throw new IllegalStateException("bad ack");
            }
            return Map.of(1, new AckOutcome(null, true));
        }, Duration.ofHours(1));
        Future<AckOutcome> first = ack(batcher);
        assertThat(firstRunning.await(10, TimeUnit.SECONDS)).isTrue();
        Future<AckOutcome> good = ack(batcher);
        Future<AckOutcome> failing = ack(batcher, bad);
        Thread.sleep(200);
        releaseFirst.countDown();
        assertThat(first.get(10, TimeUnit.SECONDS).ok()).isTrue();
        assertThat(good.get(10, TimeUnit.SECONDS).ok()).isTrue();
        assertThatThrownBy(() -> failing.get(10, TimeUnit.SECONDS)).hasRootCauseMessage("bad ack");
    }

    /**
     * A caller interrupted while its ack waits in the queue takes it back: nothing is written for it, and the ack
     * queued behind it still commits.
     */
    @Test
    void anInterruptedCallerWithdrawsAnAckNoFlushHasTaken() throws Exception {
        CountDownLatch firstRunning = new CountDownLatch(1);
        CountDownLatch releaseFirst = new CountDownLatch(1);
        List<UUID> written = Collections.synchronizedList(new ArrayList<>());
        AckBatcher batcher = new AckBatcher(10, 1, batch -> {
            batch.forEach(request -> written.add(request.id()));
            if (firstRunning.getCount() > 0) {
                firstRunning.countDown();
                await(releaseFirst);
            }
            return allOk(batch.size());
        }, Duration.ofHours(1));
        Future<AckOutcome> first = ack(batcher);
        assertThat(firstRunning.await(10, TimeUnit.SECONDS)).isTrue();
        UUID withdrawn = UUID.randomUUID();
        AtomicReference<RuntimeException> failure = new AtomicReference<>();
        AtomicBoolean keptInterrupt = new AtomicBoolean();
        Thread interrupted = new Thread(() -> {
            try {
                batcher.submit(withdrawn, "w", null, null);
            }
            catch (RuntimeException ex) {
                failure.set(ex);
                keptInterrupt.set(Thread.currentThread().isInterrupted());
            }
        });
        interrupted.setDaemon(true);
        interrupted.start();
        Thread.sleep(200);
        UUID behind = UUID.randomUUID();
        Future<AckOutcome> queuedBehind = ack(batcher, behind);
        Thread.sleep(200);
        interrupted.interrupt();
        interrupted.join(10_000);
        assertThat(failure.get()).hasMessageContaining("not applied");
        assertThat(keptInterrupt).isTrue();
        releaseFirst.countDown();
        assertThat(first.get(10, TimeUnit.SECONDS).ok()).isTrue();
        assertThat(queuedBehind.get(10, TimeUnit.SECONDS).ok()).isTrue();
        assertThat(written).contains(behind).doesNotContain(withdrawn);
    }

    /**
     * A caller interrupted once a flusher has taken its ack waits for that commit and gets its outcome, keeping its
     * interrupt status: it is never told that an ack failed which then commits.
     */
    @Test
    void anInterruptedCallerWhoseAckIsCommittingGetsItsOutcome() throws Exception {
        CountDownLatch firstRunning = new CountDownLatch(1);
        CountDownLatch releaseFirst = new CountDownLatch(1);
        CountDownLatch secondRunning = new CountDownLatch(1);
        CountDownLatch releaseSecond = new CountDownLatch(1);
        List<List<UUID>> batches = Collections.synchronizedList(new ArrayList<>());
        AckBatcher batcher = new AckBatcher(10, 1, batch -> {
            batches.add(batch.stream().map(AckBatcher.Request::id).toList());
            if (batches.size() == 1) {
                firstRunning.countDown();
                await(releaseFirst);
            }
            else if (batches.size() == 2) {
                secondRunning.countDown();
                await(releaseSecond);
            }
            return allOk(batch.size());
        }, Duration.ofHours(1));
        Future<AckOutcome> first = ack(batcher);
        assertThat(firstRunning.await(10, TimeUnit.SECONDS)).isTrue();
        Future<AckOutcome> flusher = ack(batcher);
        Thread.sleep(200);
        UUID committing = UUID.randomUUID();
        AtomicReference<AckOutcome> outcome = new AtomicReference<>();
        AtomicBoolean keptInterrupt = new AtomicBoolean();
        Thread interrupted = new Thread(() -> {
            outcome.set(batcher.submit(committing, "w", null, null));
            keptInterrupt.set(Thread.currentThread().isInterrupted());
        });
        interrupted.setDaemon(true);
        interrupted.start();
        Thread.sleep(200);
        releaseFirst.countDown();
        assertThat(secondRunning.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(batches.get(1)).contains(committing);
        interrupted.interrupt();
        interrupted.join(300);
        assertThat(interrupted.isAlive()).as("waits for the commit its ack is in").isTrue();
        releaseSecond.countDown();
        interrupted.join(10_000);
        assertThat(outcome.get().ok()).isTrue();
        assertThat(keptInterrupt).isTrue();
        assertThat(first.get(10, TimeUnit.SECONDS).ok()).isTrue();
        assertThat(flusher.get(10, TimeUnit.SECONDS).ok()).isTrue();
    }

    private Future<AckOutcome> ack(AckBatcher batcher) {
        return ack(batcher, UUID.randomUUID());
    }

    private Future<AckOutcome> ack(AckBatcher batcher, UUID id) {
        return threads.submit(() -> batcher.submit(id, "w", null, null));
    }

    /** Acks every batch, noting its size; the first one commits only once {@code releaseFirst} is counted down. */
    private static Function<List<AckBatcher.Request>, Map<Integer, AckOutcome>> firstBatchHeld(
            List<Integer> batchSizes, CountDownLatch firstRunning, CountDownLatch releaseFirst) {
        return batch -> {
            batchSizes.add(batch.size());
            if (batchSizes.size() == 1) {
                firstRunning.countDown();
                await(releaseFirst);
            }
            return allOk(batch.size());
        };
    }

    private static Map<Integer, AckOutcome> allOk(int size) {
        Map<Integer, AckOutcome> outcomes = new HashMap<>();
        for (int i = 1; i <= size; i++) {
            outcomes.put(i, new AckOutcome(null, true));
        }
        return outcomes;
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
