package io.pgvs3.spring.it;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.pgvs3.core.job.Job;
import io.pgvs3.core.job.JobEventLog;
import io.pgvs3.core.job.JobStore;
import io.pgvs3.spring.annotation.JobHandler;
import io.pgvs3.spring.annotation.StreamListener;
import io.pgvs3.spring.listener.JobContext;
import io.pgvs3.spring.listener.StreamMessage;
import io.pgvs3.spring.template.JobOptions;
import io.pgvs3.spring.template.JobTemplate.JobRequest;
import io.pgvs3.spring.template.JobTemplate;
import io.pgvs3.test.TestPostgres;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Job lifecycle events as a stream, end to end: a queue opted in by {@code pgvs3.jobs.event-streams}, a
 * {@code @JobHandler} that drains 10,000 jobs (every tenth fails once and is retried), and a {@code @StreamListener}
 * on the events stream that must see every transition exactly once and, per job, in commit order.
 */
@Tag("slow")
class JobEventStreamTests {

    private static final int JOBS = 10_000;

    private static final List<StreamMessage<Map<String, Object>>> seen = Collections.synchronizedList(new ArrayList<>());

    private static ConfigurableApplicationContext app;

    @BeforeAll
    static void start() {
        app = TestApps.run(EventsApp.class, TestPostgres.get().newDatabase(), "--pgvs3.maintenance.interval=100ms",
                "--pgvs3.jobs.event-streams.work=", "--pgvs3.handler.max-poll-interval=200ms",
                "--pgvs3.handler.prefetch=256");
    }

    @AfterAll
    static void stop() {
        app.close();
    }

    @Test
    void aStreamListenerSeesEveryTransitionOfTenThousandJobsOnceInCommitOrderPerJob() {
        JobStore store = app.getBean(JobStore.class);
        JdbcTemplate jdbc = new JdbcTemplate(app.getBean(javax.sql.DataSource.class));
        assertThat(app.getBean(JobEventLog.class).eventStreams().stream("work")).contains("work.events");
        JobTemplate jobs = app.getBean(JobTemplate.class);
        JobOptions options = JobOptions.queue("work").retry(new JobOptions.Retry(2, Duration.ofMillis(10), 1.0,
                Duration.ofMillis(10)).withJitter(false).withBackoffStrategy("constant"));
        List<String> ids = new ArrayList<>();
        for (int start = 0; start < JOBS; start += 1000) {
            List<JobRequest> batch = new ArrayList<>();
            for (int i = start; i < start + 1000; i++) {
                batch.add(new JobRequest("work.item", i, options));
            }
            jobs.enqueueAll(batch).forEach(job -> ids.add(job.id()));
        }

        // 3 events per job, 3 more (failed, retrying, started) for every tenth
        int expected = JOBS * 3 + JOBS / 10 * 3;
        await().atMost(Duration.ofMinutes(3)).until(() -> seen.size() >= expected);

        Map<String, List<String>> logged = new HashMap<>();
        jdbc.query("SELECT id, job_id::text FROM s3p.job_events WHERE queue = 'work' ORDER BY id",
                rs -> {
                    logged.computeIfAbsent(rs.getString(2), j -> new ArrayList<>()).add(Long.toString(rs.getLong(1)));
                });
        Map<String, List<String>> delivered = new LinkedHashMap<>();
        Map<String, List<String>> types = new HashMap<>();
        List<StreamMessage<Map<String, Object>>> delivery;
        synchronized (seen) {
            delivery = new ArrayList<>(seen);
        }
        for (StreamMessage<Map<String, Object>> message : delivery) {
            String job = (String) message.payload().get("job_id");
            delivered.computeIfAbsent(job, j -> new ArrayList<>()).add(message.id());
            types.computeIfAbsent(job, j -> new ArrayList<>()).add(message.type());
            assertThat(message.payload().get("queue")).isEqualTo("work");
        }
        // counts and the first few odd jobs, not the whole delivery, so that a failure says what went wrong
        assertThat(delivery.stream().map(StreamMessage::id).distinct().count()).as("distinct messages")
                .isEqualTo(delivery.size());
        List<String> plainJob = List.of("job.enqueued", "job.started", "job.completed");
        List<String> retriedJob = List.of("job.enqueued", "job.started", "job.failed", "job.retrying", "job.started",
                "job.completed");
        assertThat(types.entrySet().stream()
                .filter(job -> !job.getValue().equals(plainJob) && !job.getValue().equals(retriedJob))
                .limit(5).map(job -> job.getKey() + " " + job.getValue()).toList())
                .as("jobs whose transitions were not those of a job run once, or failed once and run again").isEmpty();
        assertThat(delivery.size()).as("messages delivered").isEqualTo(expected);
        assertThat(delivered.keySet()).containsExactlyInAnyOrderElementsOf(ids);
        assertThat(delivered.equals(logged)).as("the stream delivered each job's events in the order they were logged")
                .isTrue();
        assertThat(types.values().stream().filter(retriedJob::equals).count()).isEqualTo(JOBS / 10);
        assertThat(types.values().stream().filter(plainJob::equals).count()).isEqualTo(JOBS - JOBS / 10);

        // opting out removes the trigger: the next jobs add nothing to the stream
        assertThat(app.getBean(JobEventLog.class).eventStreams().disable("work")).contains("work.events");
        assertThat(jdbc.queryForObject("SELECT count(*) FROM pg_trigger WHERE tgrelid = 's3p.job_events'::regclass AND NOT tgisinternal",
                Long.class)).isZero();
        Job after = jobs.enqueue("work.item", 1, JobOptions.queue("work"));
        await().atMost(Duration.ofSeconds(30)).until(() -> store.get(after.id()).orElseThrow().state().isTerminal());
        assertThat(jdbc.queryForObject("SELECT count(*) FROM \"s3q_work.events\".stream_events", Long.class))
                .isLessThanOrEqualTo((long) expected);
        await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(3)).until(() -> seen.size() == expected);
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class EventsApp {

        @Bean
        EventsListeners eventsListeners() {
            return new EventsListeners();
        }
    }

    static class EventsListeners {

        @JobHandler(type = "work.item", queue = "work", concurrency = "8")
        void work(int n, JobContext context) {
            if (n % 10 == 0 && context.attempt() == 1) {
                throw new IllegalStateException("first attempt of " + n + " fails");
            }
        }

        @StreamListener(queue = "work.events", consumer = "audit")
        void events(StreamMessage<Map<String, Object>> message) {
            seen.add(message);
        }
    }
}
