package io.pgvs3.spring.web.jobs;

import java.util.List;
import java.util.Map;

import io.pgvs3.test.OjsClient;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import static io.pgvs3.spring.web.jobs.JobRoutesApp.assertError;
import static org.assertj.core.api.Assertions.assertThat;

/** The worker protocol over HTTP: {@code /ojs/v1/workers/fetch}, {@code ack}, {@code nack} and {@code heartbeat}. */
class WorkerControllerTests {

    private static final JobRoutesApp app = JobRoutesApp.shared();
    private static final OjsClient http = app.http();

    @Test
    void aJobIsFetchedKeptAliveByHeartbeatsAndAckedWithItsResult() {
        String id = app.enqueue("wc-round", "r.job", Map.of());
        JsonNode fetched = app.fetchOne("wc-round", "worker-1");
        assertThat(fetched.path("id").asString()).isEqualTo(id);
        assertThat(fetched.path("state").asString()).isEqualTo("active");
        assertThat(fetched.path("attempt").asInt()).isEqualTo(1);

        OjsClient.Response beat = http.post("/ojs/v1/workers/heartbeat", Map.of("worker_id", "worker-1",
                "active_jobs", List.of(id), "visibility_timeout_ms", 60_000));
        assertThat(beat.status()).as(beat.toString()).isEqualTo(200);
        assertThat(beat.json().path("jobs_extended").valueStream().map(JsonNode::asString)).containsExactly(id);
        assertThat(beat.json().path("directive").asString()).isNotBlank();
        assertThat(beat.json().path("server_time").asString()).isNotBlank();

        OjsClient.Response acked = http.post("/ojs/v1/workers/ack", Map.of("job_id", id, "worker_id", "worker-1",
                "result", Map.of("sent", true)));
        assertThat(acked.status()).as(acked.toString()).isEqualTo(200);
        assertThat(acked.json().path("id").asString()).isEqualTo(id);
        assertThat(acked.json().path("state").asString()).isEqualTo("completed");
        assertThat(acked.json().path("acknowledged").asBoolean()).isTrue();
        assertThat(acked.json().path("job").path("state").asString()).isEqualTo("completed");

        JsonNode job = http.get("/ojs/v1/jobs/" + id).json().path("job");
        assertThat(job.path("state").asString()).isEqualTo("completed");
        assertThat(job.path("result").path("sent").asBoolean()).as(job.toString()).isTrue();
    }

    @Test
    void aFetchOfAnEmptyQueueIsEmptyAndCountBoundsTheJobsHandedOut() {
        OjsClient.Response empty = http.post("/ojs/v1/workers/fetch", Map.of("queues", List.of("wc-empty")));
        assertThat(empty.status()).isEqualTo(200);
        assertThat(empty.json().path("jobs").isArray()).isTrue();
        assertThat(empty.json().path("jobs").size()).isZero();

        for (int i = 0; i < 3; i++) {
            app.enqueue("wc-count", "c.job", Map.of());
        }
        OjsClient.Response two = http.post("/ojs/v1/workers/fetch", Map.of("queues", List.of("wc-count"), "count", 2));
        assertThat(two.json().path("jobs").size()).as(two.toString()).isEqualTo(2);
        OjsClient.Response rest = http.post("/ojs/v1/workers/fetch", Map.of("queue", "wc-count", "count", 5));
        assertThat(rest.json().path("jobs").size()).as(rest.toString()).isEqualTo(1);
    }

    @Test
    void aNackRetriesUntilTheAttemptsAreSpentThenDiscards() {
        String retried = app.enqueue("wc-nack", "n.job", Map.of("retry", Map.of("max_attempts", 3)));
        app.fetchOne("wc-nack", "w");
        OjsClient.Response retry = http.post("/ojs/v1/workers/nack", Map.of("job_id", retried, "worker_id", "w",
                "error", Map.of("code", "boom", "message", "failed once", "retryable", true)));
        assertThat(retry.status()).as(retry.toString()).isEqualTo(200);
        assertThat(retry.json().path("state").asString()).isEqualTo("retryable");
        assertThat(retry.json().path("acknowledged").asBoolean()).isTrue();

        String last = app.enqueue("wc-nack-last", "n.job", Map.of("retry", Map.of("max_attempts", 1)));
        app.fetchOne("wc-nack-last", "w");
        OjsClient.Response discarded = http.post("/ojs/v1/workers/nack", Map.of("job_id", last,
                "error", Map.of("message", "no more")));
        assertThat(discarded.status()).as(discarded.toString()).isEqualTo(200);
        assertThat(discarded.json().path("state").asString()).isEqualTo("discarded");
    }

    @Test
    void ackAndNackOfAJobThatIsNotActiveAre409AndOfAnUnknownJob404() {
        String waiting = app.enqueue("wc-conflict", "x.job", Map.of());
        assertError(http.post("/ojs/v1/workers/ack", Map.of("job_id", waiting)), 409, "conflict");
        assertThat(http.get("/ojs/v1/jobs/" + waiting).json().path("job").path("state").asString())
                .isEqualTo("available");

        app.fetchOne("wc-conflict", "w");
        assertThat(http.post("/ojs/v1/workers/ack", Map.of("job_id", waiting)).status()).isEqualTo(200);
        assertError(http.post("/ojs/v1/workers/ack", Map.of("job_id", waiting)), 409, "conflict");
        assertError(http.post("/ojs/v1/workers/nack", Map.of("job_id", waiting, "error", Map.of("message", "late"))),
                409, "conflict");

        String unknown = "019300aa-0000-7000-8000-000000000002";
        assertError(http.post("/ojs/v1/workers/ack", Map.of("job_id", unknown)), 404, "not_found");
        assertError(http.post("/ojs/v1/workers/nack", Map.of("job_id", unknown)), 404, "not_found");
    }

    @Test
    void invalidWorkerRequestsAre400() {
        String fetch = "/ojs/v1/workers/fetch";
        assertError(http.post(fetch, Map.of("queues", List.of())), 400, "invalid_request");
        assertError(http.post(fetch, Map.of("queues", "wc-x")), 400, "invalid_request");
        assertError(http.post(fetch, Map.of("queues", List.of(1))), 400, "invalid_request");
        assertError(http.post(fetch, Map.of("queues", List.of("wc-x"), "count", 0)), 400, "invalid_request");
        assertError(http.post(fetch, Map.of("queues", List.of("wc-x"), "count", "two")), 400, "invalid_request");
        assertError(http.post(fetch, Map.of("queues", List.of("wc-x"), "visibility_timeout_ms", -5)), 400,
                "invalid_request");
        assertError(http.post(fetch, "[]"), 400, "invalid_request");
        assertError(http.post("/ojs/v1/workers/ack", Map.of("worker_id", "w")), 400, "invalid_request");
        assertError(http.post("/ojs/v1/workers/ack", Map.of("job_id", 5)), 400, "invalid_request");
        assertError(http.post("/ojs/v1/workers/nack", Map.of("job_id", "019300aa-0000-7000-8000-000000000003",
                "error", "a string")), 400, "invalid_request");
        assertError(http.post("/ojs/v1/workers/nack", Map.of()), 400, "invalid_request");
        assertError(http.post("/ojs/v1/workers/heartbeat", Map.of("active_jobs", "x")), 400, "invalid_request");
        assertError(http.post("/ojs/v1/workers/heartbeat", Map.of("job_ids", List.of(1, 2))), 400, "invalid_request");
        assertError(http.postRaw("/ojs/v1/workers/heartbeat", null, OjsClient.OJS_JSON), 400, "invalid_payload");
    }

    @Test
    void aHeartbeatForJobsTheWorkerDoesNotHoldExtendsNone() {
        OjsClient.Response beat = http.post("/ojs/v1/workers/heartbeat", Map.of("worker_id", "nobody",
                "active_job_ids", List.of("019300aa-0000-7000-8000-000000000004")));
        assertThat(beat.status()).as(beat.toString()).isEqualTo(200);
        assertThat(beat.json().path("jobs_extended").size()).isZero();
    }
}
