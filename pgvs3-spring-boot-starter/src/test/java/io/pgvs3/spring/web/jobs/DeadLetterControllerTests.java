package io.pgvs3.spring.web.jobs;

import java.util.List;
import java.util.Map;

import io.pgvs3.test.OjsClient;
import org.junit.jupiter.api.Test;

import static io.pgvs3.spring.web.jobs.JobRoutesApp.assertError;
import static org.assertj.core.api.Assertions.assertThat;

/** {@code /ojs/v1/dead-letter}: the list, a retry and a delete over HTTP. */
class DeadLetterControllerTests {

    private static final JobRoutesApp app = JobRoutesApp.shared();
    private static final OjsClient http = app.http();

    @Test
    void aDiscardedJobIsListedAndARetryMakesItAvailableAgain() {
        String id = deadJob("dl-retry");
        OjsClient.Response list = http.get("/ojs/v1/dead-letter?queue=dl-retry");
        assertThat(list.status()).as(list.toString()).isEqualTo(200);
        assertThat(ids(list)).containsExactly(id);
        assertThat(list.json().path("jobs").get(0).path("state").asString()).isEqualTo("discarded");
        assertThat(list.json().path("pagination").path("limit").asInt()).isEqualTo(100);
        assertThat(list.json().path("pagination").path("has_more").asBoolean()).isFalse();

        OjsClient.Response retried = http.post("/ojs/v1/dead-letter/" + id + "/retry", Map.of());
        assertThat(retried.status()).as(retried.toString()).isEqualTo(200);
        assertThat(retried.json().path("job").path("id").asString()).isEqualTo(id);
        assertThat(retried.json().path("job").path("state").asString()).isEqualTo("available");
        assertThat(retried.json().path("job").path("attempt").asInt()).isZero();
        assertThat(ids(http.get("/ojs/v1/dead-letter?queue=dl-retry"))).isEmpty();
        assertThat(app.fetchOne("dl-retry", "w").path("id").asString()).isEqualTo(id);

        assertError(http.post("/ojs/v1/dead-letter/" + id + "/retry", Map.of()), 404, "not_found");
    }

    @Test
    void aDeletedDeadLetterIsGoneAndTheListPages() {
        String first = deadJob("dl-delete");
        String second = deadJob("dl-delete");
        OjsClient.Response page = http.get("/ojs/v1/dead-letter?queue=dl-delete&limit=1");
        assertThat(ids(page)).hasSize(1);
        assertThat(page.json().path("pagination").path("has_more").asBoolean()).isTrue();
        assertThat(ids(http.get("/ojs/v1/dead-letter?queue=dl-delete&limit=1&offset=1"))).hasSize(1);

        OjsClient.Response deleted = http.delete("/ojs/v1/dead-letter/" + first);
        assertThat(deleted.status()).as(deleted.toString()).isEqualTo(200);
        assertThat(deleted.json().path("deleted").asBoolean()).isTrue();
        assertThat(deleted.json().path("job_id").asString()).isEqualTo(first);
        assertThat(ids(http.get("/ojs/v1/dead-letter?queue=dl-delete"))).containsExactly(second);
        assertError(http.delete("/ojs/v1/dead-letter/" + first), 404, "not_found");
    }

    @Test
    void aJobThatIsNotDeadOrDoesNotExistIsNotFoundThere() {
        String discarded = discardedJob("dl-alive", "discard");
        assertThat(ids(http.get("/ojs/v1/dead-letter?queue=dl-alive"))).isEmpty();
        assertError(http.post("/ojs/v1/dead-letter/" + discarded + "/retry", Map.of()), 404, "not_found");
        String alive = app.enqueue("dl-alive", "a.job", Map.of());
        assertError(http.post("/ojs/v1/dead-letter/" + alive + "/retry", Map.of()), 404, "not_found");
        assertError(http.delete("/ojs/v1/dead-letter/" + alive), 404, "not_found");
        assertThat(http.get("/ojs/v1/jobs/" + alive).json().path("job").path("state").asString()).isEqualTo("available");
        String unknown = "019300aa-0000-7000-8000-000000000005";
        assertError(http.post("/ojs/v1/dead-letter/" + unknown + "/retry", Map.of()), 404, "not_found");
        assertError(http.delete("/ojs/v1/dead-letter/" + unknown), 404, "not_found");
    }

    @Test
    void anOutOfRangePageIs400() {
        for (String query : List.of("limit=0", "limit=1001", "offset=-1", "limit=many")) {
            assertError(http.get("/ojs/v1/dead-letter?" + query), 400, "invalid_request");
        }
    }

    private static String deadJob(String queue) {
        return discardedJob(queue, "dead_letter");
    }

    private static String discardedJob(String queue, String onExhaustion) {
        String id = app.enqueue(queue, "d.job", Map.of("retry", Map.of("max_attempts", 1,
                "on_exhaustion", onExhaustion)));
        app.fetchOne(queue, "w");
        OjsClient.Response nack = http.post("/ojs/v1/workers/nack", Map.of("job_id", id, "worker_id", "w",
                "error", Map.of("message", "fatal")));
        assertThat(nack.json().path("state").asString()).as(nack.toString()).isEqualTo("discarded");
        return id;
    }

    private static List<String> ids(OjsClient.Response list) {
        return list.json().path("jobs").valueStream().map(job -> job.path("id").asString()).toList();
    }
}
