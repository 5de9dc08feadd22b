package io.pgvs3.core.job;

import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import io.pgvs3.core.catalog.QueueCatalog;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.SingleConnectionDataSource;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A claim resumes where the session's previous claim started taking jobs instead of at the head of the claim order
 * (see claim_rows). These tests pin what that point must never do: break priority and FIFO order, hide a job made
 * available again, or hide any job for longer than the resume bound.
 */
class JobClaimResumeTest extends JobStoreTestSupport {

    /** The bound claim_rows trusts a resume point for, after the scan from the head that took it. */
    private static final Duration RESUME_BOUND = Duration.ofSeconds(1);

    @Test
    void claimsKeepPriorityThenFifoOrderWhileResuming() {
        String queue = "resume-order";
        List<Job> first = enqueue(queue, 0, 3);
        assertThat(fetchOne(queue, "w")).isEqualTo(first.get(0).id());
        assertThat(fetchOne(queue, "w")).isEqualTo(first.get(1).id());
        // higher priority than the resume point: taken first, though its seq is after every other job's
        Job urgent = enqueue(queue, 5, 1).get(0);
        Job low = enqueue(queue, -5, 1).get(0);
        List<Job> later = enqueue(queue, 0, 2);
        assertThat(fetchOne(queue, "w")).isEqualTo(urgent.id());
        assertThat(fetchOne(queue, "w")).isEqualTo(first.get(2).id());
        assertThat(fetchOne(queue, "w")).isEqualTo(later.get(0).id());
        assertThat(fetchOne(queue, "w")).isEqualTo(later.get(1).id());
        assertThat(fetchOne(queue, "w")).isEqualTo(low.id());
        assertThat(store.fetch(List.of(queue), 5, "w", null)).isEmpty();
        // a level drained below the point, then a job at that level again
        Job back = enqueue(queue, 0, 1).get(0);
        assertThat(fetchOne(queue, "w")).isEqualTo(back.id());
    }

    @Test
    void aJobMadeAvailableAgainBehindThePointIsClaimedNext() {
        String queue = "resume-rewind";
        List<Job> jobs = enqueue(queue, 0, 6);
        String released = fetchOne(queue, "w");
        String requeued = fetchOne(queue, "w");
        String expired = store.fetch(List.of(queue), 1, "w", Duration.ofMillis(200)).get(0).id();
        assertThat(fetchOne(queue, "w")).isEqualTo(jobs.get(3).id());

        store.release(released, "w");
        assertThat(fetchOne(queue, "w")).isEqualTo(released);

        store.nack(requeued, "w", JobError.of("again", "requeue me"), true);
        assertThat(fetchOne(queue, "w")).isEqualTo(requeued);

        sleep(Duration.ofMillis(300));
        maintenance.maintain();
        assertThat(fetchOne(queue, "w")).isEqualTo(expired);

        // a retry with back-off, promoted by the claim itself when due
        String retried = fetchOne(queue, "w");
        assertThat(retried).isEqualTo(jobs.get(4).id());
        store.nack(retried, "w", JobError.of("later", "retry me"), false);
        jdbc.update("UPDATE \"s3q_" + queue + "\".jobs SET scheduled_at = now() WHERE id = ?::uuid", retried);
        assertThat(fetchOne(queue, "w")).isEqualTo(retried);
        assertThat(fetchOne(queue, "w")).isEqualTo(jobs.get(5).id());
    }

    @Test
    void aJobThatCommitsBehindThePointIsClaimedWithinTheBound() {
        String queue = "resume-late-commit";
        enqueue(queue, 0, 1);
        TransactionTemplate transaction = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
        List<Job> late = new ArrayList<>();
        List<Job> after = new ArrayList<>();
        // the late job takes its seq first but commits after jobs with later seqs were enqueued and claimed (by
        // other sessions: the transaction's own session would see its uncommitted job)
        transaction.executeWithoutResult(status -> {
            late.add(store.enqueue(NewJob.builder("test.resume").queue(queue).build()));
            Thread other = new Thread(() -> {
                after.addAll(enqueue(queue, 0, 3));
                fetchOne(queue, "w");
                assertThat(fetchOne(queue, "w")).isEqualTo(after.get(0).id());
            });
            other.start();
            join(other);
            assertThat(after).hasSize(3);
        });
        long committed = System.nanoTime();
        String found = null;
        List<String> before = new ArrayList<>();
        while (found == null) {
            List<Job> jobs = store.fetch(List.of(queue), 1, "w", null);
            if (!jobs.isEmpty() && jobs.get(0).id().equals(late.get(0).id())) {
                found = jobs.get(0).id();
            }
            else {
                jobs.forEach(job -> before.add(job.id()));
                sleep(Duration.ofMillis(50));
            }
            assertThat(Duration.ofNanos(System.nanoTime() - committed))
                    .isLessThan(RESUME_BOUND.plusMillis(500));
        }
        assertThat(found).isEqualTo(late.get(0).id());
        assertThat(before).isSubsetOf(after.stream().map(Job::id).toList());
    }

    @Test
    void aJobThatCommitsBehindThePointIsClaimedByTheNextClaimWhenNothingIsAheadOfIt() throws Exception {
        String queue = "resume-late-commit-alone";
        // one session for every claim, so that each claim sees the point the previous one left
        try (Connection connection = dataSource.getConnection()) {
            JdbcTemplate session = new JdbcTemplate(new SingleConnectionDataSource(connection, true));
            JobStore claimer = new JobStore(session, new QueueCatalog(session));
            Job first = enqueue(queue, 0, 1).get(0);
            assertThat(claimer.fetch(List.of(queue), 1, "w", null)).extracting(Job::id).containsExactly(first.id());
            TransactionTemplate transaction = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
            List<Job> late = new ArrayList<>();
            List<String> after = new ArrayList<>();
            List<String> claimedMeanwhile = new ArrayList<>();
            transaction.executeWithoutResult(status -> {
                late.add(store.enqueue(NewJob.builder("test.resume").queue(queue).build()));
                Thread other = new Thread(() -> {
                    after.add(enqueue(queue, 0, 1).get(0).id());
                    claimer.fetch(List.of(queue), 1, "w", null).forEach(job -> claimedMeanwhile.add(job.id()));
                });
                other.start();
                join(other);
            });
            assertThat(claimedMeanwhile).isEqualTo(after);
            // the point now lies past the late job, and is fresh: resuming finds nothing, the head has the job
            assertThat(claimer.fetch(List.of(queue), 5, "w", null)).extracting(Job::id)
                    .containsExactly(late.get(0).id());
        }
    }

    @Test
    void concurrentClaimsUnderAHeldSnapshotTakeEveryJobOnceAndLeaveNoneBehind() throws Exception {
        String queue = "resume-concurrent";
        enqueue(queue, 0, 1);
        Set<String> enqueued = ConcurrentHashMap.newKeySet();
        Set<String> claimed = ConcurrentHashMap.newKeySet();
        List<String> twice = Collections.synchronizedList(new ArrayList<>());
        AtomicInteger producing = new AtomicInteger(2);
        Set<String> released = ConcurrentHashMap.newKeySet();
        try (Connection holder = dataSource.getConnection()) {
            holder.setAutoCommit(false);
            holder.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
            try (Statement statement = holder.createStatement()) {
                statement.execute("SELECT count(*) FROM pg_class");
            }
            List<Callable<Object>> tasks = new ArrayList<>();
            for (int p = 0; p < 2; p++) {
                int priority = p * 3;
                tasks.add(() -> {
                    for (int i = 0; i < 60; i++) {
                        enqueue(queue, priority - (i % 2), 1 + i % 3).forEach(job -> enqueued.add(job.id()));
                    }
                    producing.decrementAndGet();
                    return null;
                });
            }
            for (int w = 0; w < 6; w++) {
                String worker = "w" + w;
                tasks.add(() -> {
                    int round = 0;
                    long idleSince = 0;
                    while (true) {
                        List<Job> jobs = store.fetch(List.of(queue), 1 + round++ % 4, worker, null);
                        for (Job job : jobs) {
                            if (job.id().hashCode() % 7 == 0 && released.add(job.id())) {
                                store.release(job.id(), worker);
                                continue;
                            }
                            if (!claimed.add(job.id())) {
                                twice.add(job.id());
                            }
                            store.ack(job.id(), worker, null);
                        }
                        if (!jobs.isEmpty() || producing.get() > 0) {
                            idleSince = 0;
                        }
                        else if (idleSince == 0) {
                            idleSince = System.nanoTime();
                        }
                        else if (System.nanoTime() - idleSince > RESUME_BOUND.multipliedBy(2).toNanos()) {
                            return null;
                        }
                    }
                });
            }
            runTogether(tasks);
            holder.rollback();
        }
        Set<String> expected = new HashSet<>(enqueued);
        assertThat(twice).isEmpty();
        assertThat(claimed).containsAll(expected);
        assertThat(released).isNotEmpty();
        assertThat(jdbc.queryForObject("SELECT count(*) FROM \"s3q_" + queue + "\".jobs WHERE state <> 'completed'",
                Long.class)).isZero();
    }

    private String fetchOne(String queue, String worker) {
        List<Job> jobs = store.fetch(List.of(queue), 1, worker, null);
        assertThat(jobs).hasSize(1);
        return jobs.get(0).id();
    }

    private List<Job> enqueue(String queue, int priority, int count) {
        List<NewJob> jobs = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            jobs.add(NewJob.builder("test.resume").queue(queue).priority(priority).build());
        }
        return store.enqueueBatch(jobs);
    }

    private static void join(Thread thread) {
        try {
            thread.join();
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(ex);
        }
    }

    private static void sleep(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(ex);
        }
    }
}
