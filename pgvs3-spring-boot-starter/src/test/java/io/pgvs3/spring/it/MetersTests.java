package io.pgvs3.spring.it;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.pgvs3.core.stream.AppendResult;
import io.pgvs3.core.stream.StreamStore;
import io.pgvs3.spring.annotation.JobHandler;
import io.pgvs3.spring.annotation.StreamListener;
import io.pgvs3.spring.listener.StreamMessage;
import io.pgvs3.spring.template.JobOptions;
import io.pgvs3.spring.template.JobTemplate;
import io.pgvs3.spring.template.OutgoingMessage;
import io.pgvs3.spring.template.StreamAdmin;
import io.pgvs3.spring.template.StreamTemplate;
import io.pgvs3.test.TestPostgres;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Meters count what happened: work counted after commit, HTTP enqueues and appends counted, lag read from the
 * events a consumer can see; and every meter docs/spring.md lists exists.
 */
@Tag("slow")
class MetersTests {

    private static final List<String> seen = new CopyOnWriteArrayList<>();

    private static ConfigurableApplicationContext app;
    private static MeterRegistry meters;

    @BeforeAll
    static void start() {
        app = TestApps.run(MeterApp.class, TestPostgres.get().newDatabase(), "--spring.main.web-application-type=servlet",
                "--server.port=0", "--server.address=127.0.0.1", "--pgvs3.http.enabled=true", "--pgvs3.maintenance.interval=100ms",
                "--pgvs3.metrics.sample-interval=200ms");
        meters = app.getBean(MeterRegistry.class);
    }

    @AfterAll
    static void stop() {
        app.close();
    }

    private static double count(String name, String queue) {
        Counter counter = meters.find(name).tag("queue", queue).counter();
        return counter == null ? 0 : counter.count();
    }

    @Test
    void rolledBackWorkIsNotCountedAndCommittedWorkIsCountedOnCommit() {
        TransactionTemplate transactions = app.getBean(TransactionTemplate.class);
        StreamTemplate streams = app.getBean(StreamTemplate.class);
        JobTemplate jobs = app.getBean(JobTemplate.class);
        transactions.executeWithoutResult(status -> {
            streams.append("tx-meter", "m", Map.of("n", 1));
            jobs.enqueue("tx.job", 1, JobOptions.queue("tx-jobs"));
            status.setRollbackOnly();
        });
        assertThat(count("pgvs3.stream.appended", "tx-meter")).isZero();
        assertThat(count("pgvs3.jobs.enqueued", "tx-jobs")).isZero();
        transactions.executeWithoutResult(status -> {
            streams.append("tx-meter", "m", Map.of("n", 2));
            jobs.enqueue("tx.job", 2, JobOptions.queue("tx-jobs"));
            assertThat(count("pgvs3.stream.appended", "tx-meter")).as("not before the commit").isZero();
        });
        assertThat(count("pgvs3.stream.appended", "tx-meter")).isEqualTo(1);
        assertThat(count("pgvs3.jobs.enqueued", "tx-jobs")).isEqualTo(1);
    }

    @Test
    void appendsWithARepeatedDedupeKeyAreAnsweredAndNotCounted() {
        StreamTemplate streams = app.getBean(StreamTemplate.class);
        AppendResult first = streams.append("idem-meter", OutgoingMessage.of("m", Map.of("n", 1)).withDedupeKey("k1"));
        AppendResult again = streams.append("idem-meter",
                OutgoingMessage.of("m", Map.of("n", 1)).withId("other").withDedupeKey("k1"));
        assertThat(first.duplicate()).isFalse();
        assertThat(again.duplicate()).isTrue();
        assertThat(again.id()).isEqualTo(first.id());
        assertThat(again.seq()).isEqualTo(first.seq());

        List<AppendResult> batch = streams.appendAll("idem-meter", List.of(
                OutgoingMessage.of("m", Map.of("n", 2)).withDedupeKey("k1"),
                OutgoingMessage.of("m", Map.of("n", 3)).withDedupeKey("k2"),
                OutgoingMessage.of("m", Map.of("n", 4))));
        assertThat(batch).extracting(AppendResult::duplicate).containsExactly(true, false, false);
        assertThat(batch.get(0).seq()).isEqualTo(first.seq());
        assertThat(count("pgvs3.stream.appended", "idem-meter")).isEqualTo(3);

        StreamAdmin admin = app.getBean(StreamAdmin.class);
        assertThat(admin.setDedupeWindow("idem-meter", Duration.ofMinutes(30)).dedupeWindow())
                .isEqualTo(Duration.ofMinutes(30));
        assertThat(admin.config("idem-meter").dedupeWindow()).isEqualTo(Duration.ofMinutes(30));
    }

    @Test
    void httpEnqueuesAndAppendsAreCounted() throws IOException, InterruptedException {
        int port = ((WebServerApplicationContext) app).getWebServer().getPort();
        HttpClient client = HttpClient.newHttpClient();
        HttpResponse<String> job = client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/ojs/v1/jobs"))
                .header("Content-Type", "application/openjobspec+json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"type\":\"http.job\",\"args\":[1],\"options\":{\"queue\":\"http-jobs\"}}"))
                .build(), HttpResponse.BodyHandlers.ofString());
        assertThat(job.statusCode()).as(job.body()).isEqualTo(201);
        HttpResponse<String> message = client.send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + port + "/ojs/v1/queues/http-stream/messages"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"type\":\"m\",\"payload\":{\"n\":1}}"))
                .build(), HttpResponse.BodyHandlers.ofString());
        assertThat(message.statusCode()).as(message.body()).isEqualTo(201);
        assertThat(count("pgvs3.jobs.enqueued", "http-jobs")).isEqualTo(1);
        assertThat(count("pgvs3.stream.appended", "http-stream")).isEqualTo(1);
    }

    @Test
    void lagCountsOnlyEventsTheConsumerCanSee() throws InterruptedException {
        StreamStore store = app.getBean(StreamStore.class);
        store.subscribe("lag-meter", "reader", null);
        TransactionTemplate transactions = app.getBean(TransactionTemplate.class);
        transactions.executeWithoutResult(status -> {
            app.getBean(StreamTemplate.class).append("lag-meter", "m", Map.of("n", 1));
            status.setRollbackOnly();
        });
        Thread.sleep(1_500);
        JsonNode reader = consumer(store, "lag-meter", "reader");
        assertThat(reader.path("lag").asLong()).as("a rolled-back append is no lag").isZero();
        assertThat(reader.path("lag_seconds").asLong()).as("no lag, no lag age, however old the cursor").isZero();
        app.getBean(StreamTemplate.class).append("lag-meter", "m", Map.of("n", 2));
        Thread.sleep(1_100);
        reader = consumer(store, "lag-meter", "reader");
        assertThat(reader.path("lag").asLong()).isEqualTo(1);
        assertThat(reader.path("lag_seconds").asLong()).isBetween(1L, 30L);
    }

    private static JsonNode consumer(StreamStore store, String queue, String name) {
        for (JsonNode consumer : store.consumers(queue)) {
            if (consumer.path("name").asString().equals(name)) {
                return consumer;
            }
        }
        throw new AssertionError("no consumer " + name);
    }

    @Test
    void everyMeterTheDocsListExists() throws IOException {
        List<String> documented = documentedMeters();
        assertThat(documented).hasSizeGreaterThanOrEqualTo(15);
        StreamStore store = app.getBean(StreamStore.class);
        app.getBean(StreamTemplate.class).append("docs-meter", "ok", Map.of("n", 1));
        store.updateConfig("docs-meter", 1, null);
        app.getBean(StreamTemplate.class).append("docs-meter", "bad", Map.of("n", 2));
        app.getBean(JobTemplate.class).enqueue("docs.job", 1, JobOptions.queue("docs-jobs"));
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            List<String> missing = new ArrayList<>();
            for (String name : documented) {
                if (meters.find(name).meters().isEmpty()) {
                    missing.add(name);
                }
            }
            assertThat(missing).as("documented meters that do not exist").isEmpty();
        });
        List<String> undocumented = meters.getMeters().stream().map(meter -> meter.getId().getName())
                .filter(name -> name.startsWith("pgvs3.")).distinct().filter(name -> !documented.contains(name))
                .toList();
        assertThat(undocumented).as("meters docs/spring.md does not list").isEmpty();
    }

    /** The meter names in the first column of the table under "## Meters" in docs/spring.md. */
    static List<String> documentedMeters() throws IOException {
        Path docs = Path.of("..", "docs", "spring.md");
        String text = Files.readString(docs);
        int start = text.indexOf("\n## Meters");
        assertThat(start).as("docs/spring.md has a Meters section").isPositive();
        int end = text.indexOf("\n## ", start + 1);
        String section = text.substring(start, end < 0 ? text.length() : end);
        List<String> names = new ArrayList<>();
        Matcher row = Pattern.compile("(?m)^\\| `(pgvs3\\.[a-z.]+)`").matcher(section);
        while (row.find()) {
            names.add(row.group(1));
        }
        return names;
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class MeterApp {

        @Bean
        MeterListeners meterListeners() {
            return new MeterListeners();
        }
    }

    static class MeterListeners {

        @StreamListener(queue = "docs-meter", consumer = "c")
        void handle(StreamMessage<Map<String, Integer>> message) {
            if (message.type().equals("bad")) {
                throw new IllegalStateException("bad");
            }
            seen.add(message.id());
        }

        @JobHandler(type = "docs.job", queue = "docs-jobs")
        void job(int n) {
        }
    }
}
