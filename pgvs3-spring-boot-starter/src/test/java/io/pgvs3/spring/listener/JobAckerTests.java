package io.pgvs3.spring.listener;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import com.zaxxer.hikari.HikariDataSource;
import io.pgvs3.core.catalog.CatalogMigrator;
import io.pgvs3.core.catalog.QueueCatalog;
import io.pgvs3.core.job.AckResult;
import io.pgvs3.core.job.Job;
import io.pgvs3.core.job.JobCompletion;
import io.pgvs3.core.job.JobState;
import io.pgvs3.core.job.JobStore;
import io.pgvs3.core.job.NewJob;
import io.pgvs3.spring.metrics.Pgvs3Metrics;
import io.pgvs3.test.TestPostgres;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.dao.DataIntegrityViolationException;
import org.springframework.dao.PessimisticLockingFailureException;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The acker of a job handler container against a real database, with a store whose acks fail the way a deadlock,
 * a lost connection or a bug makes them fail.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class JobAckerTests {

    private HikariDataSource dataSource;
    private JdbcTemplate jdbc;
    private QueueCatalog catalog;

    private final Set<String> finished = ConcurrentHashMap.newKeySet();
    private final AtomicInteger completedCount = new AtomicInteger();
    private final Pgvs3Metrics metrics = new Pgvs3Metrics() {
        @Override
        public void jobsFinished(String queue, String type, String outcome, int count) {
            completedCount.addAndGet(count);
        }
    };

    @BeforeAll
    void database() {
        dataSource = TestPostgres.get().newDatabase().newDataSource(4);
        new CatalogMigrator(dataSource).migrate();
        jdbc = new JdbcTemplate(dataSource);
        catalog = new QueueCatalog(jdbc);
    }

    @AfterAll
    void close() {
        dataSource.close();
    }

    @Test
    void anAckThatLostToADeadlockIsTriedAgainAndCompletesTheJobOnce() {
        FailingAcks store = new FailingAcks(2, () -> new PessimisticLockingFailureException("deadlock detected"), false);
        Job job = fetchOne(store, "acker-deadlock");

        ackThroughAcker(store, job, Duration.ofSeconds(30));

        assertThat(store.calls).hasValue(3);
        assertThat(state(store, job)).isEqualTo(JobState.COMPLETED);
        assertThat(attempt(job)).isEqualTo(1);
        assertThat(completedCount).hasValue(1);
    }

    @Test
    void anAckWhoseConnectionFailedAfterItsCommitCountsTheJobAsCompleted() {
        FailingAcks store = new FailingAcks(1, () -> new DataAccessResourceFailureException("connection reset"), true);
        Job job = fetchOne(store, "acker-lost-reply");

        ackThroughAcker(store, job, Duration.ofSeconds(30));

        assertThat(store.calls).hasValue(2);
        assertThat(state(store, job)).isEqualTo(JobState.COMPLETED);
        assertThat(completedCount).hasValue(1);
    }

    @Test
    void anAckThatKeepsFailingIsGivenUpWhenTheLeaseWouldRunOutAndTheJobIsNotCompleted() {
        FailingAcks store = new FailingAcks(Integer.MAX_VALUE, () -> new PessimisticLockingFailureException("deadlock"),
                false);
        Job job = fetchOne(store, "acker-gives-up");
        long start = System.nanoTime();

        ackThroughAcker(store, job, Duration.ofMillis(300));

        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isLessThan(5_000);
        assertThat(store.calls.get()).isGreaterThan(1);
        assertThat(state(store, job)).isEqualTo(JobState.ACTIVE);
        assertThat(completedCount).hasValue(0);
    }

    @Test
    void anAckThatFailsForAnotherReasonIsNotTriedAgain() {
        FailingAcks store = new FailingAcks(1, () -> new DataIntegrityViolationException("bad row"), false);
        Job job = fetchOne(store, "acker-no-retry");

        ackThroughAcker(store, job, Duration.ofSeconds(30));

        assertThat(store.calls).hasValue(1);
        assertThat(state(store, job)).isEqualTo(JobState.ACTIVE);
    }

    private Job fetchOne(JobStore store, String queue) {
        finished.clear();
        completedCount.set(0);
        store.enqueue(NewJob.builder("test.acker").queue(queue).build());
        List<Job> jobs = store.fetch(List.of(queue), 1, "acker-worker", Duration.ofMinutes(5));
        assertThat(jobs).hasSize(1);
        return jobs.get(0);
    }

    /** Hands the job's ack to a new acker and waits until the acker lets go of the job. */
    private void ackThroughAcker(JobStore store, Job job, Duration retryFor) {
        JobAcker acker = new JobAcker("test", job.queue(), "acker-worker", store, metrics, retryFor,
                finishedJob -> finished.add(finishedJob.id()));
        acker.start();
        acker.acknowledge(job, null);
        await().atMost(Duration.ofSeconds(20)).until(() -> finished.contains(job.id()));
        acker.stop(System.nanoTime() + TimeUnit.SECONDS.toNanos(5));
    }

    private static JobState state(JobStore store, Job job) {
        return store.get(job.id()).orElseThrow().state();
    }

    private int attempt(Job job) {
        return jdbc.queryForObject("SELECT attempt FROM \"s3q_" + job.queue() + "\".jobs WHERE id = ?::uuid",
                Integer.class, job.id());
    }

    /** A store whose first acks fail; with {@code afterCommit} a failing ack commits before it fails. */
    private final class FailingAcks extends JobStore {

        final AtomicInteger calls = new AtomicInteger();
        private final int failures;
        private final Supplier<RuntimeException> failure;
        private final boolean afterCommit;

        FailingAcks(int failures, Supplier<RuntimeException> failure, boolean afterCommit) {
            super(jdbc, catalog);
            this.failures = failures;
            this.failure = failure;
            this.afterCommit = afterCommit;
        }

        @Override
        public List<AckResult> ackAll(String queue, List<JobCompletion> completions) {
            if (calls.incrementAndGet() > failures) {
                return super.ackAll(queue, completions);
            }
            if (afterCommit) {
                super.ackAll(queue, completions);
            }
            throw failure.get();
        }
    }
}
