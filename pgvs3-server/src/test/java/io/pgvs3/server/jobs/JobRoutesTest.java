package io.pgvs3.server.jobs;

import java.util.List;
import java.util.Map;

import io.pgvs3.server.ServerTestSupport;
import io.pgvs3.test.OjsClient.Response;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.test.context.TestPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The job routes over HTTP: bad input is refused without writing anything, leases expire to another worker, and
 * the lifecycle shows up in the event log.
 */
@TestPropertySource(properties = "pgvs3.http.max-request-bytes=65536")
class JobRoutesTest extends ServerTestSupport {

    @BeforeEach
    void reset() {
        assertThat(http.post("/ojs/v1/admin/reset", "").status()).isEqualTo(200);
    }

    @Test
    void everyInvalidEnqueueIsRefusedWithTheOjsErrorBodyAndWritesNothing() {
        List<String> bodies = List.of(
                "{\"args\":[1]}",
                "{\"type\":\"Bad Type\",\"args\":[]}",
                "{\"type\":\"a.b\",\"args\":{\"x\":1}}",
                "{\"type\":\"a.b\",\"args\":[],\"id\":\"550e8400-e29b-41d4-a716-446655440000\"}",
                "{\"type\":\"a.b\",\"args\":[],\"options\":{\"queue\":\"Bad_Queue\"}}",
                "{\"type\":\"a.b\",\"args\":[],\"options\":{\"priority\":101}}",
                "{\"type\":\"a.b\",\"args\":[],\"options\":{\"retry\":{\"max_attempts\":-1}}}",
                "{\"type\":\"a.b\",\"args\":[],\"options\":{\"retry\":{\"backoff_coefficient\":0.5}}}",
                "{\"type\":\"a.b\",\"args\":[],\"options\":{\"retry\":{\"initial_interval\":\"soon\"}}}",
                "{\"type\":\"a.b\",\"args\":[],\"options\":{\"scheduled_at\":\"tomorrow\"}}",
                "{ not json",
                "[1,2]");
        for (String body : bodies) {
            Response response = http.post("/ojs/v1/jobs", body);
            assertThat(response.status()).as(body).isBetween(400, 422);
            assertThat(response.errorCode()).as(body).isNotBlank();
            assertThat(response.json().path("error").path("retryable").asBoolean(true)).as(body).isFalse();
        }
        assertThat(jdbc.queryForObject("SELECT count(*) FROM s3p.job_locations()", Long.class)).isZero();
        assertThat(jdbc.queryForObject("SELECT count(*) FROM s3p.job_events", Long.class)).isZero();
    }

    @Test
    void aBodyOverTheLimitIsRefusedWith413() {
        String big = "{\"type\":\"a.b\",\"args\":[\"" + "x".repeat(70_000) + "\"]}";
        Response response = http.post("/ojs/v1/jobs", big);
        assertThat(response.status()).isEqualTo(413);
        assertThat(response.errorCode()).isEqualTo("payload_too_large");
        assertThat(jdbc.queryForObject("SELECT count(*) FROM s3p.job_locations()", Long.class)).isZero();
    }

    @Test
    void aDuplicateIdIsAConflictAndKeepsTheFirstJob() {
        String id = "019539a4-aaaa-7000-8000-111111111111";
        assertThat(http.post("/ojs/v1/jobs", Map.of("id", id, "type", "a.b", "args", List.of(1))).status()).isEqualTo(201);
        Response second = http.post("/ojs/v1/jobs", Map.of("id", id, "type", "a.b", "args", List.of(2)));
        assertThat(second.status()).isEqualTo(409);
        assertThat(second.errorCode()).isEqualTo("duplicate");
        assertThat(http.get("/ojs/v1/jobs/" + id).json().path("job").path("args").get(0).asInt()).isEqualTo(1);
    }

    @Test
    void aGeneratedIdIsFoundWithoutALocatorRowAndCannotBeReusedInAnotherQueue() {
        String id = http.post("/ojs/v1/jobs", Map.of("type", "a.b", "args", List.of(), "options", Map.of("queue", "ids-a")))
                .json().path("job").path("id").asString();
        assertThat(jdbc.queryForObject("SELECT count(*) FROM s3p.job_locator", Long.class)).isZero();
        assertThat(http.get("/ojs/v1/jobs/" + id).json().path("job").path("queue").asString()).isEqualTo("ids-a");

        Response copy = http.post("/ojs/v1/jobs", Map.of("id", id, "type", "a.b", "args", List.of(2),
                "options", Map.of("queue", "ids-b")));
        assertThat(copy.status()).isEqualTo(409);
        assertThat(copy.errorCode()).isEqualTo("duplicate");
        assertThat(jdbc.queryForObject("SELECT count(*) FROM s3p.job_locations()", Long.class)).isEqualTo(1);

        Response fetched = http.post("/ojs/v1/workers/fetch", Map.of("queues", List.of("ids-a"), "worker_id", "w1"));
        assertThat(fetched.json().path("jobs").get(0).path("id").asString()).isEqualTo(id);
        assertThat(http.post("/ojs/v1/workers/ack", Map.of("job_id", id, "worker_id", "w1")).status()).isEqualTo(200);
        String cancelled = http.post("/ojs/v1/jobs", Map.of("type", "a.b", "args", List.of(),
                "options", Map.of("queue", "ids-a"))).json().path("job").path("id").asString();
        Response cancel = http.delete("/ojs/v1/jobs/" + cancelled);
        assertThat(cancel.status()).isEqualTo(200);
        assertThat(http.get("/ojs/v1/jobs/" + cancelled).json().path("job").path("state").asString()).isEqualTo("cancelled");
    }

    @Test
    void aLeaseThatExpiresIsHandedToAnotherWorkerAndTheLateAckIsRefused() throws Exception {
        String id = http.post("/ojs/v1/jobs", Map.of("type", "a.b", "args", List.of(), "options", Map.of("queue", "lease")))
                .json().path("job").path("id").asString();
        Response first = http.post("/ojs/v1/workers/fetch",
                Map.of("queues", List.of("lease"), "worker_id", "w1", "visibility_timeout_ms", 300));
        assertThat(first.json().path("jobs").get(0).path("id").asString()).isEqualTo(id);
        Thread.sleep(800);
        Response second = http.post("/ojs/v1/workers/fetch", Map.of("queues", List.of("lease"), "worker_id", "w2"));
        assertThat(second.json().path("jobs").get(0).path("id").asString()).isEqualTo(id);

        Response late = http.post("/ojs/v1/workers/ack", Map.of("job_id", id, "worker_id", "w1"));
        assertThat(late.status()).isEqualTo(409);
        assertThat(late.errorCode()).isEqualTo("conflict");
        Response ack = http.post("/ojs/v1/workers/ack", Map.of("job_id", id, "worker_id", "w2"));
        assertThat(ack.status()).isEqualTo(200);
        assertThat(ack.json().path("state").asString()).isEqualTo("completed");
    }

    @Test
    void theLifecycleIsRecordedAsEvents() {
        String id = http.post("/ojs/v1/jobs", Map.of("type", "a.b", "args", List.of(), "options", Map.of("queue", "ev")))
                .json().path("job").path("id").asString();
        http.post("/ojs/v1/workers/fetch", Map.of("queues", List.of("ev")));
        http.post("/ojs/v1/workers/ack", Map.of("job_id", id));
        Response events = http.get("/ojs/v1/events?queues=ev");
        assertThat(events.status()).isEqualTo(200);
        List<String> types = events.json().path("events").valueStream().map(e -> e.path("type").asString()).toList();
        assertThat(types).containsExactly("job.enqueued", "job.started", "job.completed");
        assertThat(events.json().path("events").get(2).path("data").path("duration_ms").isNumber()).isTrue();
    }
}
