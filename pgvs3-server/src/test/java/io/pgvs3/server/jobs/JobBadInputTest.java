package io.pgvs3.server.jobs;

import java.util.Collections;
import java.util.List;
import java.util.Map;

import io.pgvs3.server.ServerTestSupport;
import io.pgvs3.test.OjsClient.Response;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Odd input on the job routes: wrong JSON types, numbers out of every range, negative counts, ids that are not
 * UUIDs, oversized batches. Each is a 4xx with the OJS error body, never a 500, and none leaves a job behind that a
 * later claim, nack or maintenance pass would trip over.
 */
@Tag("slow")
class JobBadInputTest extends ServerTestSupport {

    private static final String HUGE = "9223372036854775807";

    @BeforeEach
    void reset() {
        assertThat(http.post("/ojs/v1/admin/reset", "").status()).isEqualTo(200);
    }

    @Test
    void oddInputIsAClientErrorOnEveryJobRoute() {
        String job = "{\"type\":\"odd.input\",\"args\":[],\"options\":{\"queue\":\"odd\",%s}}";
        List<Object[]> cases = List.of(
                // route, body, expected status (422 for an invalid retry policy, as elsewhere; 400 for a unique policy,
                // which ojs-unique-jobs.md has refused as invalid_request with 400)
                post("/ojs/v1/jobs", job.formatted("\"timeout_ms\":" + HUGE), 400),
                post("/ojs/v1/jobs", job.formatted("\"visibility_timeout_ms\":" + HUGE), 400),
                post("/ojs/v1/jobs", job.formatted("\"delay_ms\":" + HUGE), 400),
                post("/ojs/v1/jobs", job.formatted("\"delay_ms\":1e400"), 400),
                post("/ojs/v1/jobs", job.formatted("\"scheduled_at\":\"-5000-01-01T00:00:00Z\""), 400),
                post("/ojs/v1/jobs", job.formatted("\"scheduled_at\":\"+10000-01-01T00:00:00Z\""), 400),
                post("/ojs/v1/jobs", job.formatted("\"expires_at\":\"+99999-01-01T00:00:00Z\""), 400),
                post("/ojs/v1/jobs", job.formatted("\"scheduled_at\":\"+P99999999999D\""), 400),
                post("/ojs/v1/jobs", job.formatted("\"retry\":{\"initial_interval_ms\":" + HUGE + ",\"max_interval_ms\":"
                        + HUGE + "}"), 422),
                post("/ojs/v1/jobs", job.formatted("\"retry\":{\"max_interval\":\"PT2562047788015215H\"}"), 422),
                post("/ojs/v1/jobs", job.formatted("\"unique\":{\"keys\":[\"type\"],\"period_ms\":" + HUGE + "}"), 400),
                post("/ojs/v1/jobs", job.formatted("\"priority\":\"high\""), 400),
                post("/ojs/v1/jobs", job.formatted("\"priority\":1e3"), 400),
                post("/ojs/v1/jobs", "{\"type\":\"odd.input\",\"args\":[],\"options\":[1]}", 400),
                post("/ojs/v1/jobs", "{\"type\":[\"odd.input\"],\"args\":[]}", 400),
                // valid JSON that jsonb refuses to store, on both enqueue paths (a unique job takes the other)
                post("/ojs/v1/jobs", "{\"type\":\"odd.input\",\"args\":[\"a\\u0000b\"]}", 400),
                post("/ojs/v1/jobs", "{\"type\":\"odd.input\",\"args\":[],\"meta\":{\"k\":\"\\u0000\"},"
                        + "\"options\":{\"unique\":{\"keys\":[\"type\"]}}}", 400),
                post("/ojs/v1/jobs/batch", Map.of("jobs", List.of()), 400),
                post("/ojs/v1/jobs/batch", Map.of("jobs", "x"), 400),
                post("/ojs/v1/jobs/batch", Map.of("jobs", Collections.nCopies(10_001,
                        Map.of("type", "odd.input", "args", List.of()))), 413),
                post("/ojs/v1/workers/fetch", Map.of("queues", List.of("odd"), "visibility_timeout_ms", Long.MAX_VALUE), 400),
                post("/ojs/v1/workers/fetch", Map.of("queues", List.of("odd"), "count", -1), 400),
                post("/ojs/v1/workers/fetch", Map.of("queues", List.of("odd"), "count", 0), 400),
                post("/ojs/v1/workers/fetch", "{\"queues\":[\"odd\"],\"count\":99999999999999999999}", 400),
                post("/ojs/v1/workers/fetch", "{\"queues\":[\"odd\"],\"count\":2.5}", 400),
                post("/ojs/v1/workers/fetch", Map.of("queues", List.of("odd"), "count", "3"), 400),
                post("/ojs/v1/workers/fetch", Map.of("queues", "odd"), 400),
                post("/ojs/v1/workers/fetch", Map.of("queues", List.of()), 400),
                post("/ojs/v1/workers/fetch", Map.of("queues", List.of(1)), 400),
                post("/ojs/v1/workers/fetch", Map.of("queues", List.of("Not A Queue")), 400),
                post("/ojs/v1/workers/heartbeat", Map.of("job_ids", List.of("x"), "visibility_timeout_ms", Long.MAX_VALUE),
                        400),
                post("/ojs/v1/workers/heartbeat", Map.of("job_ids", "x"), 400),
                post("/ojs/v1/workers/ack", Map.of("job_id", "not-a-uuid"), 404),
                post("/ojs/v1/workers/ack", Map.of("job_id", 42), 400),
                post("/ojs/v1/workers/ack", Map.of(), 400),
                post("/ojs/v1/workers/nack", Map.of("job_id", "not-a-uuid"), 404),
                post("/ojs/v1/workers/nack", Map.of("job_id", "0190a5c3-7b2e-7c3d-9e4f-5a6b7c8d9e0f", "error", "x"), 400),
                post("/ojs/v1/workers/nack", Map.of("job_id", "0190a5c3-7b2e-7c3d-9e4f-5a6b7c8d9e0f", "requeue", "yes"),
                        400),
                post("/ojs/v1/dead-letter/not-a-uuid/retry", "", 404));
        for (Object[] c : cases) {
            Response response = http.post((String) c[0], c[1]);
            assertThat(response.status()).as("%s %s -> %s", c[0], c[1], response).isEqualTo(c[2]);
            assertThat(response.errorCode()).as("%s %s", c[0], response).isNotBlank();
        }
        for (String path : List.of("/ojs/v1/jobs/not-a-uuid", "/ojs/v1/jobs/0190a5c3-7b2e-7c3d-9e4f-5a6b7c8d9e0f",
                "/ojs/v1/jobs/%20", "/ojs/v1/dead-letter?limit=-1", "/ojs/v1/dead-letter?limit=abc",
                "/ojs/v1/dead-letter?offset=-5", "/ojs/v1/events?limit=-1", "/ojs/v1/events?after=abc",
                "/ojs/v1/queues?limit=0", "/ojs/v1/queues?offset=-1", "/ojs/v1/queues?limit=" + HUGE + "0",
                "/ojs/v1/queues/missing/stats")) {
            Response response = http.get(path);
            assertThat(response.status()).as("%s -> %s", path, response).isBetween(400, 499);
        }
        assertThat(http.delete("/ojs/v1/jobs/not-a-uuid").status()).isEqualTo(404);
        assertThat(jdbc.queryForObject("SELECT count(*) FROM s3p.job_locations()", Long.class)).isZero();
    }

    @Test
    void aBatchOf1001JobsIsEnqueuedWhole() {
        Response response = http.post("/ojs/v1/jobs/batch", Map.of("jobs", Collections.nCopies(1001,
                Map.of("type", "odd.batch", "args", List.of(), "options", Map.of("queue", "odd")))));
        assertThat(response.status()).as("%s", response.status()).isEqualTo(201);
        assertThat(response.json().path("count").asInt()).isEqualTo(1001);
        Response fetched = http.post("/ojs/v1/workers/fetch", Map.of("queues", List.of("odd"), "count", 1000));
        assertThat(fetched.json().path("jobs")).hasSize(1000);
    }

    @Test
    void aBackOffCurveBeyondDoublePrecisionIsCappedInsteadOfFailingTheNack() {
        Response enqueued = http.post("/ojs/v1/jobs", Map.of("type", "odd.retry", "args", List.of(), "options",
                Map.of("queue", "odd", "retry", Map.of("max_attempts", 10, "initial_interval_ms", 0,
                        "max_interval_ms", 0, "backoff_coefficient", 1e300, "jitter", false))));
        assertThat(enqueued.status()).as("%s", enqueued).isEqualTo(201);
        String id = enqueued.json().path("job").path("id").asString();
        for (int attempt = 1; attempt <= 4; attempt++) {
            JsonNode jobs = http.post("/ojs/v1/workers/fetch", Map.of("queues", List.of("odd"), "worker_id", "w"))
                    .json().path("jobs");
            assertThat(jobs).as("attempt %s", attempt).hasSize(1);
            Response nack = http.post("/ojs/v1/workers/nack", Map.of("job_id", id, "worker_id", "w",
                    "error", Map.of("code", "boom", "message", "attempt " + attempt)));
            assertThat(nack.status()).as("attempt %s: %s", attempt, nack).isEqualTo(200);
        }
        // with a zero back-off the retry is due at once, so maintenance may already have made it available again
        assertThat(http.get("/ojs/v1/jobs/" + id).json().path("job").path("state").asString())
                .isIn("retryable", "available");
    }

    private static Object[] post(String path, Object body, int status) {
        return new Object[] { path, body, status };
    }
}
