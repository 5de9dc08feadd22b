package io.pgvs3.spring.it;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import io.pgvs3.core.job.Job;
import io.pgvs3.core.job.JobState;
import io.pgvs3.core.job.JobStore;
import io.pgvs3.core.stream.AppendResult;
import io.pgvs3.core.stream.StreamStore;
import io.pgvs3.spring.annotation.JobHandler;
import io.pgvs3.spring.annotation.StreamListener;
import io.pgvs3.spring.listener.DefaultListenerErrorHandler;
import io.pgvs3.spring.listener.DeliveryFailure;
import io.pgvs3.spring.listener.ListenerErrorHandler;
import io.pgvs3.spring.listener.StreamMessage;
import io.pgvs3.spring.template.JobOptions;
import io.pgvs3.spring.template.JobTemplate;
import io.pgvs3.spring.template.StreamTemplate;
import io.pgvs3.test.TestPostgres;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.util.backoff.FixedBackOff;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Per-listener error handlers: exception classification, a back-off that ends, a recoverer, dead-lettering at
 * once, and one log line per failed delivery, for stream listeners and job handlers alike.
 */
@ExtendWith(OutputCaptureExtension.class)
class ErrorHandlingTests {

    private static final List<DeliveryFailure> recovered = new CopyOnWriteArrayList<>();
    private static final Map<String, AtomicInteger> attempts = new ConcurrentHashMap<>();

    private static ConfigurableApplicationContext app;

    @BeforeAll
    static void start() {
        app = TestApps.run(ErrorApp.class, TestPostgres.get().newDatabase());
        StreamStore store = app.getBean(StreamStore.class);
        store.updateConfig("classified", 10, null);
        store.updateConfig("dlq-now", 10, null);
    }

    @AfterAll
    static void stop() {
        app.close();
    }

    private static int attemptsOf(String id) {
        return attempts.getOrDefault(id, new AtomicInteger()).get();
    }

    @Test
    void aNotRetryableExceptionGoesToTheRecovererAtOnce(CapturedOutput output) {
        AppendResult message = app.getBean(StreamTemplate.class).append("classified", "bad-arg", Map.of("n", 1));
        await().atMost(Duration.ofSeconds(20))
                .until(() -> recovered.stream().anyMatch(failure -> failure.messageId().equals(message.id())));
        DeliveryFailure failure = recovered.stream().filter(f -> f.messageId().equals(message.id())).findFirst()
                .orElseThrow();
        assertThat(failure.kind()).isEqualTo(DeliveryFailure.Kind.STREAM);
        assertThat(failure.attempt()).isEqualTo(1);
        assertThat(failure.error()).isInstanceOf(IllegalArgumentException.class);
        assertThat(failure.consumer()).isEqualTo("c");
        sleepMillis(500);
        assertThat(attemptsOf(message.id())).isEqualTo(1);
        assertThat(app.getBean(StreamStore.class).deadLetters("classified", 10, 0).path("total").asInt()).isZero();
        assertThat(output.getAll()).contains("failed on message " + message.id()
                + " (queue classified, consumer c, attempt 1): java.lang.IllegalArgumentException: bad argument; recovered");
    }

    @Test
    void aRetryableExceptionIsRetriedUntilTheBackOffEndsThenRecovered(CapturedOutput output) {
        AppendResult message = app.getBean(StreamTemplate.class).append("classified", "flaky", Map.of("n", 2));
        await().atMost(Duration.ofSeconds(30))
                .until(() -> recovered.stream().anyMatch(failure -> failure.messageId().equals(message.id())));
        DeliveryFailure failure = recovered.stream().filter(f -> f.messageId().equals(message.id())).findFirst()
                .orElseThrow();
        assertThat(failure.attempt()).as("FixedBackOff(0, 2): two retries").isEqualTo(3);
        assertThat(attemptsOf(message.id())).isEqualTo(3);
        for (int attempt = 1; attempt <= 2; attempt++) {
            assertThat(output.getAll()).contains("failed on message " + message.id() + " (queue classified, consumer c, "
                    + "attempt " + attempt + "): java.lang.IllegalStateException: flaky; retry in 0 ms");
        }
        assertThat(output.getAll()).contains("failed on message " + message.id()
                + " (queue classified, consumer c, attempt 3): java.lang.IllegalStateException: flaky; recovered");
    }

    @Test
    void withoutARecovererANotRetryableMessageIsDeadLetteredAtOnce() {
        StreamStore store = app.getBean(StreamStore.class);
        AppendResult message = app.getBean(StreamTemplate.class).append("dlq-now", "bad-arg", Map.of("n", 3));
        await().atMost(Duration.ofSeconds(20))
                .until(() -> store.deadLetters("dlq-now", 10, 0).path("total").asInt() == 1);
        var letter = store.deadLetters("dlq-now", 10, 0).path("dead_letters").get(0);
        assertThat(letter.path("event_id").asString(letter.path("id").asString())).isNotNull();
        assertThat(letter.toString()).contains(message.id()).contains("IllegalArgumentException");
        assertThat(attemptsOf(message.id())).as("max_retries is 10, yet no retry").isEqualTo(1);
    }

    @Test
    void aJobHandlersErrorHandlerClassifiesAndRecovers(CapturedOutput output) {
        JobStore jobs = app.getBean(JobStore.class);
        Job job = app.getBean(JobTemplate.class).enqueue("classified.job", 1,
                JobOptions.queue("cj").maxAttempts(5));
        await().atMost(Duration.ofSeconds(20)).until(() -> jobs.get(job.id()).orElseThrow().state().isTerminal());
        assertThat(jobs.get(job.id()).orElseThrow().state()).isEqualTo(JobState.DISCARDED);
        assertThat(jobs.get(job.id()).orElseThrow().attempt()).isEqualTo(1);
        assertThat(recovered).anyMatch(failure -> failure.kind() == DeliveryFailure.Kind.JOB
                && failure.messageId().equals(job.id()) && failure.attempt() == 1 && failure.maxAttempts() == 5);
        assertThat(output.getAll()).contains("failed on job " + job.id()
                + " (queue cj, type classified.job, attempt 1 of 5): java.lang.IllegalArgumentException: bad job; "
                + "recovered and discarded");
    }

    @Test
    void everyFailedJobAttemptIsLogged(CapturedOutput output) {
        JobStore jobs = app.getBean(JobStore.class);
        Job job = app.getBean(JobTemplate.class).enqueue("flaky.job", 1, JobOptions.queue("cj")
                .retry(new JobOptions.Retry(3, Duration.ofMillis(10), 1.0, Duration.ofMillis(10))));
        await().atMost(Duration.ofSeconds(30)).until(() -> jobs.get(job.id()).orElseThrow().state().isTerminal());
        assertThat(attemptsOf(job.id())).isEqualTo(3);
        assertThat(output.getAll()).contains("failed on job " + job.id()
                + " (queue cj, type flaky.job, attempt 1 of 3): java.lang.IllegalStateException: flaky job; "
                + "retried by its retry policy");
        // the container logs the last failure after its nack has committed, so the job may be terminal first
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(output.getAll()).contains("failed on job "
                + job.id() + " (queue cj, type flaky.job, attempt 3 of 3): java.lang.IllegalStateException: flaky job; "
                + "discarded"));
    }

    private static void sleepMillis(long millis) {
        try {
            Thread.sleep(millis);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class ErrorApp {

        @Bean
        ListenerErrorHandler noRetryThenRecover() {
            return new DefaultListenerErrorHandler(new FixedBackOff(0, 2), recovered::add)
                    .addNotRetryableExceptions(IllegalArgumentException.class);
        }

        @Bean
        ListenerErrorHandler deadLetterAtOnce() {
            return new DefaultListenerErrorHandler(new FixedBackOff(0, 5))
                    .addNotRetryableExceptions(IllegalArgumentException.class);
        }

        @Bean
        FailingListeners failingListeners() {
            return new FailingListeners();
        }
    }

    static class FailingListeners {

        @StreamListener(queue = "classified", consumer = "c", errorHandler = "noRetryThenRecover")
        void classified(StreamMessage<Map<String, Integer>> message) {
            attempts.computeIfAbsent(message.id(), id -> new AtomicInteger()).incrementAndGet();
            if (message.type().equals("bad-arg")) {
                throw new IllegalArgumentException("bad argument");
            }
            throw new IllegalStateException("flaky");
        }

        @StreamListener(queue = "dlq-now", consumer = "c", errorHandler = "deadLetterAtOnce")
        void deadLetterNow(StreamMessage<Map<String, Integer>> message) {
            attempts.computeIfAbsent(message.id(), id -> new AtomicInteger()).incrementAndGet();
            throw new IllegalArgumentException("bad argument");
        }

        @JobHandler(type = "classified.job", queue = "cj", errorHandler = "noRetryThenRecover")
        void classifiedJob(int n) {
            throw new IllegalArgumentException("bad job");
        }

        @JobHandler(type = "flaky.job", queue = "cj")
        void flakyJob(int n, io.pgvs3.spring.listener.JobContext context) {
            attempts.computeIfAbsent(context.id(), id -> new AtomicInteger()).incrementAndGet();
            throw new IllegalStateException("flaky job");
        }
    }
}
