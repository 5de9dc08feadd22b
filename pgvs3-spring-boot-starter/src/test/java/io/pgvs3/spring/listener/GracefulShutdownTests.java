package io.pgvs3.spring.listener;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import com.zaxxer.hikari.HikariDataSource;
import io.pgvs3.core.catalog.QueueCatalog;
import io.pgvs3.core.job.Job;
import io.pgvs3.core.job.JobState;
import io.pgvs3.core.job.JobStore;
import io.pgvs3.spring.annotation.JobHandler;
import io.pgvs3.spring.annotation.StreamListener;
import io.pgvs3.spring.it.TestApps;
import io.pgvs3.spring.template.JobOptions;
import io.pgvs3.spring.template.JobTemplate;
import io.pgvs3.spring.template.StreamTemplate;
import io.pgvs3.test.TestDatabase;
import io.pgvs3.test.TestPostgres;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DelegatingDataSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Stopping an application in the middle of work loses nothing and leaves no job waiting for its lease to expire.
 */
@Tag("slow")
class GracefulShutdownTests {

    private static final Set<String> completedJobs = ConcurrentHashMap.newKeySet();
    private static final AtomicInteger runningJobs = new AtomicInteger();
    private static final Set<Integer> seenEvents = ConcurrentHashMap.newKeySet();
    private static volatile long jobMillis;
    private static volatile boolean connectionsRefused;

    private final TestDatabase database = TestPostgres.get().newDatabase();

    private final HikariDataSource dataSource = database.newDataSource(2);

    /** Looks at jobs from outside the applications, which close their own pools. */
    private JobStore observer(HikariDataSource dataSource) {
        JdbcTemplate jdbc = new JdbcTemplate(dataSource);
        return new JobStore(jdbc, new QueueCatalog(jdbc));
    }

    private ConfigurableApplicationContext start(String... more) {
        List<String> args = new ArrayList<>(List.of(more));
        for (String fallback : List.of("--pgvs3.handler.visibility-timeout=5m", "--pgvs3.handler.heartbeat-interval=1m")) {
            String key = fallback.substring(0, fallback.indexOf('=') + 1);
            if (args.stream().noneMatch(arg -> arg.startsWith(key))) {
                args.add(fallback);
            }
        }
        args.addAll(List.of(TestApps.properties(database, "--spring.main.web-application-type=none",
                "--pgvs3.handler.prefetch=2")));
        return new SpringApplicationBuilder(ShutdownApp.class).run(args.toArray(String[]::new));
    }

    @AfterEach
    void close() {
        dataSource.close();
    }

    @Test
    void jobsInFlightFinishAndTheRestAreReleasedAtOnce() {
        jobMillis = 700;
        ConfigurableApplicationContext first = start("--pgvs3.listener.shutdown-timeout=10s");
        JobStore jobs = observer(dataSource);
        JobTemplate template = first.getBean(JobTemplate.class);
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            ids.add(template.enqueue("slow.job", i, JobOptions.queue("slow")).id());
        }
        await().atMost(Duration.ofSeconds(20)).until(() -> runningJobs.get() == 2);
        first.close();
        List<Job> after = ids.stream().map(id -> jobs.get(id).orElseThrow()).toList();
        assertThat(after).noneMatch(job -> job.state() == JobState.ACTIVE);
        assertThat(after.stream().filter(job -> job.state() == JobState.COMPLETED).map(Job::id))
                .containsExactlyInAnyOrderElementsOf(completedJobs).isNotEmpty();
        assertThat(after).allMatch(job -> job.state() == JobState.COMPLETED || job.state() == JobState.AVAILABLE);

        ConfigurableApplicationContext second = start();
        try {
            await().atMost(Duration.ofSeconds(30)).until(() -> ids.stream()
                    .allMatch(id -> jobs.get(id).orElseThrow().state() == JobState.COMPLETED));
        }
        finally {
            second.close();
        }
    }

    @Test
    void aHandlerThatOutlivesTheTimeoutIsInterruptedAndItsJobReleased() {
        jobMillis = 60_000;
        ConfigurableApplicationContext first = start("--pgvs3.listener.shutdown-timeout=300ms");
        JobStore jobs = observer(dataSource);
        String id = first.getBean(JobTemplate.class).enqueue("slow.job", 1, JobOptions.queue("slow")).id();
        await().atMost(Duration.ofSeconds(20)).until(() -> runningJobs.get() == 1);
        long start = System.nanoTime();
        first.close();
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
        Job job = jobs.get(id).orElseThrow();
        assertThat(job.state()).isEqualTo(JobState.AVAILABLE);
        assertThat(job.attempt()).isZero();
    }

    @Test
    void aStopWithNoConnectionToBeHadWaitsForOneNotOnePerHeldJob() {
        jobMillis = 60_000;
        ConfigurableApplicationContext app = new SpringApplicationBuilder(ShutdownApp.class).run(TestApps.properties(
                database, "--pgvs3.handler.visibility-timeout=5m", "--pgvs3.handler.heartbeat-interval=1m",
                "--pgvs3.handler.prefetch=8", "--pgvs3.listener.shutdown-timeout=300ms",
                "--spring.datasource.hikari.connection-timeout=2000"));
        JdbcTemplate observer = new JdbcTemplate(dataSource);
        try {
            JobTemplate template = app.getBean(JobTemplate.class);
            for (int i = 0; i < 10; i++) {
                template.enqueue("slow.job", i, JobOptions.queue("slow"));
            }
            await().atMost(Duration.ofSeconds(20)).until(() -> runningJobs.get() == 2 && observer.queryForObject(
                    "SELECT count(*) FROM s3q_slow.jobs WHERE state = 'active'", Long.class) == 10);
            // every connection now takes 2 s to fail, as a pool's wait does with the database gone
            connectionsRefused = true;
            long start = System.nanoTime();
            app.close();
            // ten held jobs: a release per job would wait 2 s each for a connection
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(12));
            assertThat(observer.queryForObject("SELECT count(*) FROM s3q_slow.jobs WHERE state = 'active'",
                    Long.class)).as("left to their leases").isEqualTo(10);
        }
        finally {
            connectionsRefused = false;
            app.close();
        }
    }

    @Test
    void streamBatchesInFlightAreFinishedOrDeliveredAgain() {
        jobMillis = 0;
        ConfigurableApplicationContext first = start("--pgvs3.listener.shutdown-timeout=200ms");
        StreamTemplate streams = first.getBean(StreamTemplate.class);
        for (int i = 0; i < 200; i++) {
            streams.append("events", "n", Map.of("n", i));
        }
        await().atMost(Duration.ofSeconds(20)).until(() -> seenEvents.size() > 5);
        first.close();
        ConfigurableApplicationContext second = start();
        try {
            await().atMost(Duration.ofSeconds(60)).until(() -> seenEvents.size() == 200);
        }
        finally {
            second.close();
        }
    }

    @Test
    void heartbeatsRenewOnlyLeasesThatWouldRunOutAndKeepLongJobsLeased() {
        jobMillis = 2_500;
        try (ConfigurableApplicationContext app = start("--pgvs3.handler.visibility-timeout=6s",
                "--pgvs3.handler.heartbeat-interval=1s")) {
            assertThat(leasesSeenWhileRunning(app)).as("a lease far from running out is not rewritten").hasSize(1);
        }
        jobMillis = 4_500;
        try (ConfigurableApplicationContext app = start("--pgvs3.handler.visibility-timeout=3s",
                "--pgvs3.handler.heartbeat-interval=1s")) {
            assertThat(leasesSeenWhileRunning(app)).as("a lease about to run out is renewed").hasSizeGreaterThan(1);
        }
    }

    /** Runs one slow job to completion and answers the distinct lease expiries seen while it ran. */
    private Set<String> leasesSeenWhileRunning(ConfigurableApplicationContext app) {
        JobStore jobs = observer(dataSource);
        String id = app.getBean(JobTemplate.class).enqueue("slow.job", 1, JobOptions.queue("slow")).id();
        Set<String> leases = ConcurrentHashMap.newKeySet();
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100)).until(() -> {
            Job job = jobs.get(id).orElseThrow();
            if (job.state() == JobState.ACTIVE) {
                leases.add(job.envelope().path("lease_expires_at").asString());
            }
            return job.state() == JobState.COMPLETED;
        });
        Job done = jobs.get(id).orElseThrow();
        assertThat(done.attempt()).as("the job ran once, its lease never ran out").isEqualTo(1);
        assertThat(completedJobs).contains(id);
        return leases;
    }

    @SpringBootApplication
    static class ShutdownApp {

        /** The application's data source, made to refuse connections while {@code connectionsRefused}. */
        @Bean
        static BeanPostProcessor refusableConnections() {
            return new BeanPostProcessor() {
                @Override
                public Object postProcessAfterInitialization(Object bean, String name) {
                    return bean instanceof HikariDataSource pool ? new RefusableDataSource(pool) : bean;
                }
            };
        }

        @Bean
        Handlers handlers() {
            return new Handlers();
        }
    }

    static final class RefusableDataSource extends DelegatingDataSource implements AutoCloseable {

        RefusableDataSource(HikariDataSource pool) {
            super(pool);
        }

        @Override
        public Connection getConnection() throws SQLException {
            if (connectionsRefused) {
                try {
                    Thread.sleep(2_000);
                }
                catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                }
                throw new SQLTransientConnectionException("connection is not available, request timed out");
            }
            return super.getConnection();
        }

        @Override
        public void close() {
            ((HikariDataSource) getTargetDataSource()).close();
        }
    }

    static class Handlers {

        @JobHandler(type = "slow.job", queue = "slow", concurrency = "2")
        void slow(int n, JobContext context) throws InterruptedException {
            runningJobs.incrementAndGet();
            try {
                Thread.sleep(jobMillis);
                completedJobs.add(context.id());
            }
            finally {
                runningJobs.decrementAndGet();
            }
        }

        @StreamListener(queue = "events", consumer = "slow-reader", maxBatchSize = "10")
        void read(Map<String, Integer> event) throws InterruptedException {
            Thread.sleep(30);
            seenEvents.add(event.get("n"));
        }
    }
}
