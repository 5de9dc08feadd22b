package io.pgvs3.spring.web.jobs;

import java.util.List;
import java.util.Map;

import io.pgvs3.test.OjsClient;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import static io.pgvs3.spring.web.jobs.JobRoutesApp.assertError;
import static org.assertj.core.api.Assertions.assertThat;

/** {@code /ojs/v1/jobs} and the job routes of a queue ({@code pause}, {@code resume}, {@code stats}) over HTTP. */
class JobControllerTests {

    private static final JobRoutesApp app = JobRoutesApp.shared();
    private static final OjsClient http = app.http();

    @Test
    void anEnqueuedJobIsCreatedAvailableAndReadByItsId() {
        OjsClient.Response created = http.post("/ojs/v1/jobs", Map.of("type", "email.send",
                "args", List.of("a@example.com", 2), "options", Map.of("queue", "jc-mail")));
        assertThat(created.status()).as(created.toString()).isEqualTo(201);
        JsonNode job = created.json().path("job");
        String id = job.path("id").asString();
        assertThat(id).isNotBlank();
        assertThat(job.path("type").asString()).isEqualTo("email.send");
        assertThat(job.path("queue").asString()).isEqualTo("jc-mail");
        assertThat(job.path("state").asString()).isEqualTo("available");
        assertThat(job.path("args").get(0).asString()).isEqualTo("a@example.com");
        assertThat(created.header("Location")).isEqualTo("/ojs/v1/jobs/" + id);

        OjsClient.Response read = http.get("/ojs/v1/jobs/" + id);
        assertThat(read.status()).isEqualTo(200);
        assertThat(read.json().path("job").path("id").asString()).isEqualTo(id);
        assertThat(read.json().path("job").path("state").asString()).isEqualTo("available");
    }

    @Test
    void anInvalidJobIsA400NamingTheProblemAndNothingIsEnqueued() {
        assertError(http.post("/ojs/v1/jobs", Map.of("args", List.of(1), "options", Map.of("queue", "jc-bad"))), 400,
                "invalid_request");
        assertError(http.post("/ojs/v1/jobs", Map.of("type", "t", "args", "not a list",
                "options", Map.of("queue", "jc-bad"))), 400, "invalid_request");
        assertError(http.post("/ojs/v1/jobs", Map.of("type", "t", "args", List.of(),
                "options", Map.of("queue", "bad queue name!"))), 400, "invalid_request");
        assertError(http.post("/ojs/v1/jobs", "[1, 2]"), 400, "invalid_request");
        assertError(http.post("/ojs/v1/jobs", "{\"type\": "), 400, "invalid_payload");
        assertError(http.postRaw("/ojs/v1/jobs", null, OjsClient.OJS_JSON), 400, "invalid_payload");
        assertThat(http.get("/ojs/v1/queues/jc-bad/stats").status()).isEqualTo(404);
    }

    @Test
    void anUnknownJobIs404ForReadAndCancel() {
        String unknown = "019300aa-0000-7000-8000-000000000001";
        assertError(http.get("/ojs/v1/jobs/" + unknown), 404, "not_found");
        assertError(http.delete("/ojs/v1/jobs/" + unknown), 404, "not_found");
        assertError(http.get("/ojs/v1/jobs/not-a-job-id"), 404, "not_found");
    }

    @Test
    void aUniqueJobRejectedOnConflictIs409AndIgnoredOnConflictAnswersTheExistingJob() {
        assertThat(unique("u.reject", 7, "reject").status()).isEqualTo(201);
        assertError(unique("u.reject", 7, "reject"), 409, "duplicate");
        assertThat(unique("u.reject", 8, "reject").status()).isEqualTo(201);

        OjsClient.Response created = unique("u.ignore", 1, "ignore");
        assertThat(created.status()).as(created.toString()).isEqualTo(201);
        OjsClient.Response existing = unique("u.ignore", 1, "ignore");
        assertThat(existing.status()).as(existing.toString()).isEqualTo(200);
        assertThat(existing.json().path("job").path("id").asString())
                .isEqualTo(created.json().path("job").path("id").asString());
    }

    @Test
    void aJobIsCancelledOnceAndAFinishedJobCannotBe() {
        String id = app.enqueue("jc-cancel", "c.job", Map.of());
        OjsClient.Response cancelled = http.delete("/ojs/v1/jobs/" + id);
        assertThat(cancelled.status()).as(cancelled.toString()).isEqualTo(200);
        assertThat(cancelled.json().path("job").path("state").asString()).isEqualTo("cancelled");
        assertError(http.delete("/ojs/v1/jobs/" + id), 409, "conflict");

        String done = app.enqueue("jc-cancel", "c.job", Map.of());
        assertThat(app.fetchOne("jc-cancel", "w1").path("id").asString()).isEqualTo(done);
        assertThat(http.post("/ojs/v1/workers/ack", Map.of("job_id", done, "worker_id", "w1")).status()).isEqualTo(200);
        assertError(http.delete("/ojs/v1/jobs/" + done), 409, "conflict");
        assertThat(http.get("/ojs/v1/jobs/" + done).json().path("job").path("state").asString()).isEqualTo("completed");
    }

    @Test
    void aBatchIsEnqueuedWholeOrNotAtAll() {
        OjsClient.Response batch = http.post("/ojs/v1/jobs/batch", Map.of("jobs", List.of(
                Map.of("type", "b.one", "args", List.of(1), "options", Map.of("queue", "jc-batch")),
                Map.of("type", "b.two", "args", List.of(2), "options", Map.of("queue", "jc-batch")))));
        assertThat(batch.status()).as(batch.toString()).isEqualTo(201);
        assertThat(batch.json().path("count").asInt()).isEqualTo(2);
        assertThat(batch.json().path("jobs").size()).isEqualTo(2);
        assertThat(batch.json().path("jobs").get(1).path("type").asString()).isEqualTo("b.two");

        OjsClient.Response invalid = http.post("/ojs/v1/jobs/batch", Map.of("jobs", List.of(
                Map.of("type", "b.three", "args", List.of(3), "options", Map.of("queue", "jc-batch")),
                Map.of("args", List.of(4), "options", Map.of("queue", "jc-batch")))));
        assertError(invalid, 400, "invalid_request");
        assertError(http.post("/ojs/v1/jobs/batch", Map.of("jobs", List.of())), 400, "invalid_request");
        OjsClient.Response stats = http.get("/ojs/v1/queues/jc-batch/stats");
        assertThat(available(stats)).isEqualTo(2);
        assertThat(stats.json().path("queue").path("estimated").isArray()).as("counts this small are exact").isTrue();
        assertThat(stats.json().path("queue").path("estimated").isEmpty()).isTrue();
    }

    @Test
    void aPausedQueueTakesJobsButGivesNoneUntilResumed() {
        String id = app.enqueue("jc-pause", "p.job", Map.of());
        OjsClient.Response paused = http.post("/ojs/v1/queues/jc-pause/pause", Map.of());
        assertThat(paused.status()).as(paused.toString()).isEqualTo(200);
        assertThat(paused.json().path("queue").path("paused").asBoolean()).as(paused.toString()).isTrue();
        app.enqueue("jc-pause", "p.job", Map.of());
        OjsClient.Response none = http.post("/ojs/v1/workers/fetch", Map.of("queues", List.of("jc-pause")));
        assertThat(none.json().path("jobs").size()).as(none.toString()).isZero();

        OjsClient.Response resumed = http.post("/ojs/v1/queues/jc-pause/resume", Map.of());
        assertThat(resumed.status()).isEqualTo(200);
        assertThat(resumed.json().path("queue").path("paused").asBoolean()).isFalse();
        assertThat(app.fetchOne("jc-pause", "w1").path("id").asString()).isEqualTo(id);

        OjsClient.Response stats = http.get("/ojs/v1/queues/jc-pause/stats");
        assertThat(stats.status()).isEqualTo(200);
        assertThat(available(stats)).as(stats.toString()).isEqualTo(1);
    }

    @Test
    void theStatsOfAnUnknownQueueAre404AndPausingOneCreatesItPaused() {
        assertError(http.get("/ojs/v1/queues/jc-nowhere/stats"), 404, "not_found");
        assertError(http.get("/ojs/v1/queues/bad%20name/stats"), 400, "invalid_request");
        OjsClient.Response paused = http.post("/ojs/v1/queues/jc-early/pause", Map.of());
        assertThat(paused.status()).as(paused.toString()).isEqualTo(200);
        assertThat(paused.json().path("queue").path("paused").asBoolean()).isTrue();
        app.enqueue("jc-early", "e.job", Map.of());
        assertThat(http.post("/ojs/v1/workers/fetch", Map.of("queues", List.of("jc-early"))).json().path("jobs").size())
                .isZero();
    }

    private static OjsClient.Response unique(String type, int arg, String onConflict) {
        return http.post("/ojs/v1/jobs", Map.of("type", type, "args", List.of(arg), "options", Map.of("queue",
                "jc-unique", "unique", Map.of("keys", List.of("type", "args"), "on_conflict", onConflict))));
    }

    private static int available(OjsClient.Response stats) {
        return stats.json().path("queue").path("available").asInt(-1);
    }
}
