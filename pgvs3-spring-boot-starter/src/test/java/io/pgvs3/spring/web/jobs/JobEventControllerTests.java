package io.pgvs3.spring.web.jobs;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.pgvs3.test.OjsClient;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import static io.pgvs3.spring.web.jobs.JobRoutesApp.assertError;
import static org.assertj.core.api.Assertions.assertThat;

/** {@code GET /ojs/v1/events} and a queue's {@code job-events} stream setting over HTTP. */
class JobEventControllerTests {

    private static final JobRoutesApp app = JobRoutesApp.shared();
    private static final OjsClient http = app.http();

    @Test
    void aJobsLifecycleIsListedInOrderAsCloudEventsAndReadOnFromTheCursor() {
        String id = app.enqueue("ev-life", "e.job", Map.of());
        app.fetchOne("ev-life", "w");
        assertThat(http.post("/ojs/v1/workers/ack", Map.of("job_id", id)).status()).isEqualTo(200);

        // a filtered page looks at a bounded stretch of the log, so the other tests' events may take pages to pass
        List<JsonNode> events = readToTheEnd("/ojs/v1/events?queues=ev-life");
        assertThat(types(events)).containsExactly("job.enqueued", "job.started", "job.completed");
        JsonNode enqueued = events.get(0);
        assertThat(enqueued.path("specversion").asString()).isEqualTo("1.0");
        assertThat(enqueued.path("subject").asString()).isEqualTo(id);
        assertThat(enqueued.path("source").asString()).isEqualTo("/ojs/queues/ev-life");
        assertThat(enqueued.path("time").asString()).isNotBlank();
        assertThat(enqueued.path("data").isObject()).isTrue();
        long before = Long.parseLong(enqueued.path("id").asString()) - 1;
        String last = events.get(2).path("id").asString();

        OjsClient.Response all = http.get("/ojs/v1/events?queues=ev-life&after=" + before);
        assertThat(all.status()).as(all.toString()).isEqualTo(200);
        assertThat(types(all.json().path("events")))
                .containsExactly("job.enqueued", "job.started", "job.completed");
        assertThat(all.json().path("next_after").asString()).isEqualTo(last);

        OjsClient.Response completed = http.get("/ojs/v1/events?queues=ev-life&types=job.completed&after=" + before);
        assertThat(types(completed.json().path("events"))).containsExactly("job.completed");

        OjsClient.Response firstOnly = http.get("/ojs/v1/events?queues=ev-life&limit=1&after=" + before);
        assertThat(types(firstOnly.json().path("events"))).containsExactly("job.enqueued");
        String cursor = firstOnly.json().path("next_after").asString();
        assertThat(types(http.get("/ojs/v1/events?queues=ev-life&after=" + cursor).json().path("events")))
                .containsExactly("job.started", "job.completed");

        OjsClient.Response none = http.get("/ojs/v1/events?queues=ev-life&after=" + last);
        assertThat(none.json().path("events").size()).isZero();
        assertThat(none.json().path("next_after").asString()).isEqualTo(last);
    }

    @Test
    void anOutOfRangeLimitOrABadCursorIs400() {
        for (String query : List.of("limit=0", "limit=1001", "after=soon")) {
            assertError(http.get("/ojs/v1/events?" + query), 400, "invalid_request");
        }
    }

    @Test
    void aQueuesJobEventsAreSentToAStreamUntilStopped() {
        app.enqueue("ev-stream", "s.job", Map.of());
        OjsClient.Response off = http.get("/ojs/v1/queues/ev-stream/job-events");
        assertThat(off.status()).as(off.toString()).isEqualTo(200);
        assertThat(off.json().path("job_events").path("enabled").asBoolean()).isFalse();

        OjsClient.Response byDefault = http.post("/ojs/v1/queues/ev-stream/job-events", Map.of());
        assertThat(byDefault.status()).as(byDefault.toString()).isEqualTo(200);
        assertThat(byDefault.json().path("job_events").path("stream").asString()).isEqualTo("ev-stream.events");
        assertThat(byDefault.json().path("job_events").path("enabled").asBoolean()).isTrue();

        OjsClient.Response named = http.post("/ojs/v1/queues/ev-stream/job-events", Map.of("stream", "ev-audit"));
        assertThat(named.json().path("job_events").path("stream").asString()).as(named.toString()).isEqualTo("ev-audit");
        assertThat(http.get("/ojs/v1/queues/ev-stream/job-events").json().path("job_events").path("stream").asString())
                .isEqualTo("ev-audit");

        OjsClient.Response stopped = http.delete("/ojs/v1/queues/ev-stream/job-events");
        assertThat(stopped.status()).isEqualTo(200);
        assertThat(stopped.json().path("job_events").path("enabled").asBoolean()).isFalse();
        assertThat(http.get("/ojs/v1/queues/ev-stream/job-events").json().path("job_events").path("enabled")
                .asBoolean()).isFalse();
    }

    @Test
    void anInvalidJobEventsRequestIs400() {
        app.enqueue("ev-bad", "s.job", Map.of());
        assertError(http.post("/ojs/v1/queues/ev-bad/job-events", "[1]"), 400, "invalid_request");
        assertError(http.post("/ojs/v1/queues/ev-bad/job-events", Map.of("stream", 5)), 400, "invalid_request");
        assertError(http.post("/ojs/v1/queues/ev-bad/job-events", Map.of("stream", "bad name!")), 400,
                "invalid_request");
        assertThat(http.get("/ojs/v1/queues/ev-bad/job-events").json().path("job_events").path("enabled").asBoolean())
                .isFalse();
    }

    /** Every event a filtered read finds, following next_after until a page is empty and keeps its cursor. */
    private static List<JsonNode> readToTheEnd(String query) {
        List<JsonNode> events = new ArrayList<>();
        String after = "0";
        while (true) {
            OjsClient.Response page = http.get(query + "&after=" + after);
            assertThat(page.status()).as(page.toString()).isEqualTo(200);
            page.json().path("events").valueStream().forEach(events::add);
            String next = page.json().path("next_after").asString();
            if (page.json().path("events").isEmpty() && next.equals(after)) {
                return events;
            }
            after = next;
        }
    }

    private static List<String> types(JsonNode events) {
        return types(events.valueStream().toList());
    }

    private static List<String> types(List<JsonNode> events) {
        return events.stream().map(event -> event.path("type").asString()).toList();
    }
}
