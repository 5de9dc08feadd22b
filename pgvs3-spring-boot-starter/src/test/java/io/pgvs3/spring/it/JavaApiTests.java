package io.pgvs3.spring.it;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import io.pgvs3.core.job.Job;
import io.pgvs3.core.job.JobDeadLetters;
import io.pgvs3.core.job.JobState;
import io.pgvs3.core.job.JobStore;
import io.pgvs3.core.stream.AppendResult;
import io.pgvs3.spring.annotation.JobHandler;
import io.pgvs3.spring.annotation.StreamListener;
import io.pgvs3.spring.listener.JobContext;
import io.pgvs3.spring.listener.StreamMessage;
import io.pgvs3.spring.template.JobOptions;
import io.pgvs3.spring.template.JobTemplate;
import io.pgvs3.spring.template.StreamAdmin;
import io.pgvs3.spring.template.StreamDeadLetter;
import io.pgvs3.spring.template.StreamTemplate;
import io.pgvs3.test.TestPostgres;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The Java APIs for stream dead letters and settings, every field of a job's retry policy, and job retries that
 * run when their back-off says, not at the next idle poll.
 */
class JavaApiTests {

    private static final Map<String, List<StreamMessage<Map<String, Integer>>>> deliveries = new ConcurrentHashMap<>();
    private static final Map<String, List<long[]>> attempts = new ConcurrentHashMap<>();

    private static ConfigurableApplicationContext app;

    @BeforeAll
    static void start() {
        app = TestApps.run(ApiApp.class, TestPostgres.get().newDatabase(), "--pgvs3.handler.max-poll-interval=1s");
    }

    @AfterAll
    static void stop() {
        app.close();
    }

    @Test
    void deadLettersAreListedReplayedAndPurgedAndSettingsChangedFromJava() {
        StreamAdmin admin = app.getBean(StreamAdmin.class);
        StreamTemplate streams = app.getBean(StreamTemplate.class);
        assertThat(admin.setMaxRetries("letters", 0).maxRetries()).isZero();
        assertThat(admin.setRetention("letters", Duration.ofDays(2)).retention()).isEqualTo(Duration.ofDays(2));
        assertThat(admin.config("letters").maxRetries()).isZero();

        AppendResult first = streams.append("letters", "fail-once", Map.of("n", 1), Map.of("h", "v"));
        await().atMost(Duration.ofSeconds(20)).until(() -> admin.deadLetters("letters", 10, 0).total() == 1);
        StreamDeadLetter letter = admin.deadLetters("letters", 10, 0).deadLetters().get(0);
        assertThat(letter.messageId()).isEqualTo(first.id());
        assertThat(letter.type()).isEqualTo("fail-once");
        assertThat(letter.payload().path("n").asInt()).isEqualTo(1);
        assertThat(letter.headers()).containsEntry("h", "v");
        assertThat(letter.consumer()).isEqualTo("c");
        assertThat(letter.reason()).contains("IllegalStateException");
        assertThat(letter.deadAt()).isNotNull();

        assertThat(admin.replay("letters", letter.id())).isTrue();
        await().atMost(Duration.ofSeconds(20)).until(() -> deliveries.get(first.id()).size() == 2);
        assertThat(admin.deadLetters("letters", 10, 0).total()).isZero();

        AppendResult second = streams.append("letters", "fail-always", Map.of("n", 2));
        await().atMost(Duration.ofSeconds(20)).until(() -> admin.deadLetters("letters", 10, 0).total() == 1);
        assertThat(admin.purge("letters", Duration.ZERO)).isEqualTo(1);
        assertThat(admin.deadLetters("letters", 10, 0).total()).isZero();
        assertThat(deliveries.get(second.id())).hasSize(1);
    }

    @Test
    void everyFieldOfTheRetryPolicyReachesTheJob() {
        JobTemplate jobs = app.getBean(JobTemplate.class);
        JobStore store = app.getBean(JobStore.class);
        JobOptions.Retry retry = new JobOptions.Retry(2, Duration.ofMillis(100), 1.0, Duration.ofMillis(100))
                .withJitter(false).withBackoffStrategy("constant").withOnExhaustion("dead_letter")
                .withNonRetryableErrors("IllegalArgumentException");
        Job exhausted = jobs.enqueue("policy.job", "state", JobOptions.queue("policies").retry(retry));
        JsonNode policy = exhausted.envelope().path("retry");
        assertThat(policy.path("jitter").asBoolean()).isFalse();
        assertThat(policy.path("backoff_strategy").asString()).isEqualTo("constant");
        assertThat(policy.path("on_exhaustion").asString()).isEqualTo("dead_letter");
        assertThat(policy.path("non_retryable_errors").get(0).asString()).isEqualTo("IllegalArgumentException");
        assertThat(policy.path("max_attempts").asInt()).isEqualTo(2);

        Job refused = jobs.enqueue("policy.job", "argument", JobOptions.queue("policies").retry(retry));
        await().atMost(Duration.ofSeconds(20)).until(() -> store.get(exhausted.id()).orElseThrow().state().isTerminal()
                && store.get(refused.id()).orElseThrow().state().isTerminal());
        assertThat(store.get(exhausted.id()).orElseThrow().attempt()).isEqualTo(2);
        assertThat(store.get(refused.id()).orElseThrow().attempt()).as("a non-retryable error ends it").isEqualTo(1);
        assertThat(store.get(refused.id()).orElseThrow().state()).isEqualTo(JobState.DISCARDED);
        assertThat(app.getBean(JobDeadLetters.class).list("policies", 10, 0)).extracting(Job::id).contains(exhausted.id());
    }

    @Test
    void retriesRunWhenTheirBackOffEndsNotAtTheNextPoll() {
        JobStore store = app.getBean(JobStore.class);
        JobOptions.Retry retry = new JobOptions.Retry(4, Duration.ofMillis(300), 1.0, Duration.ofMillis(300))
                .withJitter(false).withBackoffStrategy("constant");
        Job job = app.getBean(JobTemplate.class).enqueue("timed.job", 1, JobOptions.queue("timed").retry(retry));
        await().atMost(Duration.ofSeconds(30)).until(() -> store.get(job.id()).orElseThrow().state().isTerminal());
        List<long[]> runs = attempts.get(job.id());
        assertThat(runs).hasSize(4);
        for (int i = 1; i < runs.size(); i++) {
            Duration gap = Duration.ofNanos(runs.get(i)[0] - runs.get(i - 1)[1]);
            assertThat(gap).as("gap before attempt " + (i + 1)).isBetween(Duration.ofMillis(250), Duration.ofMillis(800));
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class ApiApp {

        @Bean
        ApiListeners apiListeners() {
            return new ApiListeners();
        }
    }

    static class ApiListeners {

        @StreamListener(queue = "letters", consumer = "c")
        void letters(StreamMessage<Map<String, Integer>> message) {
            List<StreamMessage<Map<String, Integer>>> seen = deliveries.computeIfAbsent(message.id(),
                    id -> new CopyOnWriteArrayList<>());
            seen.add(message);
            if (message.type().equals("fail-always") || seen.size() == 1) {
                throw new IllegalStateException("cannot handle " + message.id());
            }
        }

        @JobHandler(type = "policy.job", queue = "policies")
        void policy(String how) {
            if (how.equals("argument")) {
                throw new IllegalArgumentException("refused");
            }
            throw new IllegalStateException("failed");
        }

        @JobHandler(type = "timed.job", queue = "timed")
        void timed(int n, JobContext context) {
            long start = System.nanoTime();
            attempts.computeIfAbsent(context.id(), id -> new CopyOnWriteArrayList<>())
                    .add(new long[] { start, System.nanoTime() });
            throw new IllegalStateException("again");
        }
    }
}
