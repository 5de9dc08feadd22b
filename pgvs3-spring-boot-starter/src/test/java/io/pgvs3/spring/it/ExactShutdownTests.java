package io.pgvs3.spring.it;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

import io.pgvs3.spring.annotation.JobHandler;
import io.pgvs3.spring.annotation.StreamListener;
import io.pgvs3.spring.listener.Pgvs3ListenerContainer;
import io.pgvs3.spring.listener.Pgvs3ListenerEndpointRegistry;
import io.pgvs3.spring.listener.StreamMessage;
import io.pgvs3.spring.template.JobOptions;
import io.pgvs3.spring.template.JobTemplate;
import io.pgvs3.spring.template.OutgoingMessage;
import io.pgvs3.spring.template.StreamTemplate;
import io.pgvs3.test.TestDatabase;
import io.pgvs3.test.TestPostgres;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Shutdown is exact: once the shutdown timeout has passed no handler call starts and nothing is received, acked
 * or nacked; the batch in flight is delivered again after a restart, and only its messages can be seen twice.
 * Idle containers stop at once.
 */
@Tag("slow")
class ExactShutdownTests {

    private static final List<Call> calls = new CopyOnWriteArrayList<>();
    private static volatile int generation;
    private static volatile long handlerMillis;

    private final TestDatabase database = TestPostgres.get().newDatabase();

    @Test
    void pastTheTimeoutNoHandlerCallStartsAndOnlyTheBatchInFlightIsSeenTwice() {
        Duration timeout = Duration.ofMillis(500);
        handlerMillis = 300;
        generation = 1;
        ConfigurableApplicationContext first = TestApps.run(SlowApp.class, database,
                "--pgvs3.listener.shutdown-timeout=" + timeout.toMillis() + "ms");
        List<OutgoingMessage> events = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            events.add(OutgoingMessage.of("n", Map.of("n", i)));
        }
        // one atomic append: one tick range of 40, which the listener receives 10 (its maxBatchSize) at a time
        first.getBean(StreamTemplate.class).appendAll("slow-events", events);
        await().atMost(Duration.ofSeconds(30)).until(() -> calls.size() >= 3);
        long closing = System.nanoTime();
        first.close();
        long closed = System.nanoTime();
        List<Call> firstCalls = List.copyOf(calls);

        assertThat(Duration.ofNanos(closed - closing)).as("close waits the timeout, not for the batch")
                .isLessThan(timeout.plusSeconds(4));
        long lateStart = closing + timeout.toNanos() + TimeUnit.MILLISECONDS.toNanos(250);
        assertThat(firstCalls).as("no handler call starts after the shutdown timeout")
                .noneMatch(call -> call.generation() == 1 && call.startedNanos() > lateStart);
        sleep(700);
        assertThat(calls).as("nothing runs once close returned").hasSameSizeAs(firstCalls);

        Call last = firstCalls.get(firstCalls.size() - 1);
        long inFlightBatch = last.batchId();
        Set<Integer> inFlight = firstCalls.stream().filter(call -> call.batchId() == inFlightBatch)
                .map(Call::n).collect(Collectors.toSet());

        handlerMillis = 0;
        generation = 2;
        try (ConfigurableApplicationContext second = TestApps.run(SlowApp.class, database)) {
            await().atMost(Duration.ofSeconds(60)).until(() -> calls.stream().map(Call::n).distinct().count() == 40);
            sleep(300);
        }
        Map<Integer, Integer> deliveries = new HashMap<>();
        calls.forEach(call -> deliveries.merge(call.n(), 1, Integer::sum));
        Set<Integer> duplicates = deliveries.entrySet().stream().filter(entry -> entry.getValue() > 1)
                .map(Map.Entry::getKey).collect(Collectors.toSet());
        assertThat(deliveries.values()).allMatch(count -> count <= 2);
        assertThat(duplicates).as("only messages of the batch in flight are handled twice").isSubsetOf(inFlight);
        List<Integer> redelivered = calls.stream()
                .filter(call -> call.generation() == 2 && call.batchId() == inFlightBatch).map(Call::n).toList();
        assertThat(redelivered).as("the abandoned batch is delivered again whole").containsAll(inFlight);
        assertThat(redelivered).as("a batch holds at most maxBatchSize messages, so at most that many are seen twice")
                .hasSizeLessThanOrEqualTo(10);
        assertThat(firstCalls.stream().filter(call -> call.batchId() != inFlightBatch).map(Call::n))
                .as("the batches before it were acked and are not delivered again").doesNotContainAnyElementsOf(redelivered);
    }

    @Test
    void idleContainersStopInUnderOneSecond() {
        handlerMillis = 0;
        generation = 1;
        try (ConfigurableApplicationContext app = TestApps.run(IdleApp.class, database)) {
            Pgvs3ListenerEndpointRegistry registry = app.getBean(Pgvs3ListenerEndpointRegistry.class);
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> registry.getContainers().stream().allMatch(Pgvs3ListenerContainer::isRunning));
            assertThat(registry.getContainers()).hasSize(8);
            app.getBean(JobTemplate.class).enqueue("idle.job", 1, JobOptions.queue("idle-jobs"));
            await().atMost(Duration.ofSeconds(20)).until(() -> IdleApp.jobs.get() == 1);
            sleep(1_000);
            long start = System.nanoTime();
            registry.stop();
            Duration took = Duration.ofNanos(System.nanoTime() - start);
            assertThat(took).as("stopping 8 idle containers (measured in milliseconds; the bound allows for a loaded machine)")
                    .isLessThan(Duration.ofSeconds(2));
            assertThat(registry.getContainers()).noneMatch(Pgvs3ListenerContainer::isRunning);
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    record Call(int generation, int n, long batchId, long startedNanos) {
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class SlowApp {

        @Bean
        SlowListener slowListener() {
            return new SlowListener();
        }
    }

    static class SlowListener {

        @StreamListener(queue = "slow-events", consumer = "slow", maxBatchSize = "10")
        void handle(StreamMessage<Map<String, Integer>> message) throws InterruptedException {
            calls.add(new Call(generation, message.payload().get("n"), message.batchId(), System.nanoTime()));
            Thread.sleep(handlerMillis);
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class IdleApp {

        static final AtomicInteger jobs = new AtomicInteger();

        @Bean
        IdleListeners idleListeners() {
            return new IdleListeners();
        }
    }

    static class IdleListeners {

        @StreamListener(queue = "idle-1", consumer = "c")
        void one(String message) {
        }

        @StreamListener(queue = "idle-2", consumer = "c")
        void two(String message) {
        }

        @StreamListener(queue = "idle-3", consumer = "c")
        void three(String message) {
        }

        @StreamListener(queue = "idle-4", consumer = "c", concurrency = "2")
        void four(String message) {
        }

        @StreamListener(queue = "idle-5", consumer = "c")
        void five(String message) {
        }

        @StreamListener(queue = "idle-6", consumer = "c")
        void six(String message) {
        }

        @StreamListener(queue = "idle-7", consumer = "c")
        void seven(String message) {
        }

        @JobHandler(type = "idle.job", queue = "idle-jobs", concurrency = "2")
        void job(int n) {
            IdleApp.jobs.incrementAndGet();
        }
    }
}
