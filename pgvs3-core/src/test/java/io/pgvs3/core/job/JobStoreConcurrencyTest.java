package io.pgvs3.core.job;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

import io.pgvs3.core.catalog.QueueCatalog;
import io.pgvs3.core.error.ErrorCode;
import io.pgvs3.core.error.Pgvs3Exception;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;


import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The job store under real concurrency on a real PostgreSQL: exclusive claims, lease expiry, cancel racing ack,
 * and group-committed acks.
 */
@Tag("slow")
class JobStoreConcurrencyTest extends JobStoreTestSupport {

    @Test
    void sixteenWorkersNeverReceiveTheSameJobTwiceAndEveryJobIsDelivered() throws Exception {
        int jobs = 800;
        List<NewJob> batch = new ArrayList<>();
        for (int i = 0; i < jobs; i++) {
            batch.add(NewJob.builder("test.claim").args("[" + i + "]").queue("claims").build());
        }
        Set<String> enqueued = new HashSet<>();
        store.enqueueBatch(batch).forEach(job -> enqueued.add(job.id()));

        Set<String> delivered = ConcurrentHashMap.newKeySet();
        AtomicInteger duplicates = new AtomicInteger();
        List<Callable<Void>> workers = new ArrayList<>();
        for (int w = 0; w < 16; w++) {
            String worker = "worker-" + w;
            workers.add(() -> {
                while (true) {
                    List<Job> claimed = store.fetch(List.of("claims"), 3, worker, Duration.ofMinutes(5));
                    if (claimed.isEmpty()) {
                        return null;
                    }
                    for (Job job : claimed) {
                        if (!delivered.add(job.id())) {
                            duplicates.incrementAndGet();
                        }
                        store.ack(job.id(), worker, "{\"by\":\"" + worker + "\"}");
                    }
                }
            });
        }
        runTogether(workers);

        assertThat(duplicates).hasValue(0);
        assertThat(delivered).isEqualTo(enqueued);
        assertThat(jdbc.queryForObject("SELECT count(*) FROM s3q_claims.jobs WHERE state = 'completed'", Long.class))
                .isEqualTo(jobs);
    }

    @Test
    void anExpiredLeaseGoesToAnotherWorkerAndTheFirstWorkersLateAckIsAConflict() throws Exception {
        Job job = store.enqueue(NewJob.builder("test.lease").queue("leases").build());
        assertThat(store.fetch(List.of("leases"), 1, "slow-worker", Duration.ofMillis(200))).extracting(Job::id)
                .containsExactly(job.id());
        assertThat(store.fetch(List.of("leases"), 1, "fast-worker", null)).isEmpty();

        Thread.sleep(300);
        maintenance.maintain();
        assertThat(store.get(job.id())).get().extracting(Job::state).isEqualTo(JobState.AVAILABLE);

        List<Job> second = store.fetch(List.of("leases"), 1, "fast-worker", null);
        assertThat(second).extracting(Job::id).containsExactly(job.id());
        assertThat(second.get(0).attempt()).isEqualTo(2);

        assertThatThrownBy(() -> store.ack(job.id(), "slow-worker", null))
                .isInstanceOfSatisfying(Pgvs3Exception.class, ex -> assertThat(ex.code()).isEqualTo(ErrorCode.CONFLICT));
        assertThat(store.ack(job.id(), "fast-worker", "{\"ok\":true}").state()).isEqualTo(JobState.COMPLETED);
    }

    @Test
    void cancelRacingAckLeavesExactlyOneWinnerAndAConsistentState() throws Exception {
        int rounds = 60;
        List<NewJob> batch = new ArrayList<>();
        for (int i = 0; i < rounds; i++) {
            batch.add(NewJob.builder("test.race").queue("races").build());
        }
        store.enqueueBatch(batch);
        List<Job> active = store.fetch(List.of("races"), rounds, "racer", Duration.ofMinutes(5));
        assertThat(active).hasSize(rounds);

        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            for (Job job : active) {
                CountDownLatch start = new CountDownLatch(1);
                Future<Boolean> ack = pool.submit(() -> succeeded(start, () -> store.ack(job.id(), "racer", null)));
                Future<Boolean> cancel = pool.submit(() -> succeeded(start, () -> store.cancel(job.id())));
                start.countDown();
                boolean acked = ack.get();
                boolean cancelled = cancel.get();
                assertThat(acked ^ cancelled).as("exactly one of ack and cancel wins for %s", job.id()).isTrue();
                JobState state = store.get(job.id()).orElseThrow().state();
                assertThat(state).isEqualTo(acked ? JobState.COMPLETED : JobState.CANCELLED);
            }
        }
        finally {
            pool.shutdownNow();
        }
    }

    @Test
    void concurrentAcksAreGroupedAndEveryOneIsApplied() throws Exception {
        JobStore unbatched = new JobStore(jdbc, new QueueCatalog(jdbc), JobStoreSettings.DEFAULTS.withMaxAckBatch(1));
        long unbatchedMillis = ackAllConcurrently(unbatched, "acks-single", 2000, 32);
        long batchedMillis = ackAllConcurrently(store, "acks-grouped", 2000, 32);
        System.out.printf("2000 acks from 32 threads: one commit each %d ms (%.0f/s), grouped %d ms (%.0f/s)%n",
                unbatchedMillis, 2000_000.0 / unbatchedMillis, batchedMillis, 2000_000.0 / batchedMillis);
    }

    private long ackAllConcurrently(JobStore target, String queue, int jobs, int threads) throws Exception {
        List<NewJob> batch = new ArrayList<>();
        for (int i = 0; i < jobs; i++) {
            batch.add(NewJob.builder("test.ack").queue(queue).build());
        }
        target.enqueueBatch(batch);
        List<Job> claimed = new ArrayList<>();
        while (claimed.size() < jobs) {
            claimed.addAll(target.fetch(List.of(queue), JobStore.MAX_FETCH_COUNT, "acker", Duration.ofMinutes(5)));
        }
        assertThat(claimed).hasSize(jobs);
        List<String> ids = Collections.synchronizedList(new ArrayList<>(claimed.stream().map(Job::id).toList()));
        List<Callable<Void>> ackers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            ackers.add(() -> {
                while (true) {
                    String id;
                    synchronized (ids) {
                        if (ids.isEmpty()) {
                            return null;
                        }
                        id = ids.remove(ids.size() - 1);
                    }
                    assertThat(target.ack(id, "acker", "{}").state()).isEqualTo(JobState.COMPLETED);
                }
            });
        }
        long start = System.nanoTime();
        runTogether(ackers);
        long millis = Math.max(1, (System.nanoTime() - start) / 1_000_000);
        assertThat(jdbc.queryForObject("SELECT count(*) FROM \"s3q_" + queue + "\".jobs WHERE state = 'completed'", Long.class)).isEqualTo(jobs);
        return millis;
    }

    private static boolean succeeded(CountDownLatch start, Runnable action) throws InterruptedException {
        start.await();
        try {
            action.run();
            return true;
        }
        catch (Pgvs3Exception ex) {
            assertThat(ex.code()).isEqualTo(ErrorCode.CONFLICT);
            return false;
        }
    }
}
