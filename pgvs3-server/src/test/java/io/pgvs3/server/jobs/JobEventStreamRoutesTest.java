package io.pgvs3.server.jobs;

import java.util.List;
import java.util.Map;

import io.pgvs3.server.ServerTestSupport;
import io.pgvs3.test.OjsClient.Response;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code /ojs/v1/queues/{queue}/job-events}: opting a job queue in and out of job lifecycle events as a stream, the
 * events arriving at the stream's consumers, and the OJS errors for bad input.
 */
class JobEventStreamRoutesTest extends ServerTestSupport {

    @BeforeEach
    void reset() {
        assertThat(http.post("/ojs/v1/admin/reset", "").status()).isEqualTo(200);
    }

    @Test
    void aQueueIsOptedInAndOutAndItsJobEventsReachTheStream() {
        assertThat(http.post("/ojs/v1/jobs", Map.of("type", "mail.send", "args", List.of(1), "options",
                Map.of("queue", "mail"))).status()).isEqualTo(201);
        Response off = http.get("/ojs/v1/queues/mail/job-events");
        assertThat(off.status()).isEqualTo(200);
        assertThat(off.json().path("job_events").path("stream").isNull()).isTrue();
        assertThat(off.json().path("job_events").path("enabled").asBoolean()).isFalse();

        Response on = http.post("/ojs/v1/queues/mail/job-events", "");
        assertThat(on.status()).isEqualTo(200);
        assertThat(on.json().path("job_events").path("stream").asString()).isEqualTo("mail.events");
        Response named = http.post("/ojs/v1/queues/mail/job-events", Map.of("stream", "audit"));
        assertThat(named.json().path("job_events").path("stream").asString()).isEqualTo("audit");
        assertThat(http.get("/ojs/v1/queues/mail/job-events").json().path("job_events").path("enabled").asBoolean())
                .isTrue();
        assertThat(http.post("/ojs/v1/queues/audit/consumers", Map.of("consumer", "c")).status()).isBetween(200, 201);

        String id = http.post("/ojs/v1/jobs", Map.of("type", "mail.send", "args", List.of(2), "options",
                Map.of("queue", "mail"))).json().path("job").path("id").asString();
        Response received = http.post("/ojs/v1/queues/audit/receive", Map.of("consumer", "c", "max", 10));
        assertThat(received.status()).isEqualTo(200);
        var messages = received.json().path("messages");
        assertThat(messages.size()).isEqualTo(1);
        assertThat(messages.get(0).path("type").asString()).isEqualTo("job.enqueued");
        assertThat(messages.get(0).path("payload").path("job_id").asString()).isEqualTo(id);
        assertThat(messages.get(0).path("payload").path("queue").asString()).isEqualTo("mail");

        Response stopped = http.delete("/ojs/v1/queues/mail/job-events");
        assertThat(stopped.status()).isEqualTo(200);
        assertThat(stopped.json().path("job_events").path("enabled").asBoolean()).isFalse();
        assertThat(jdbc.queryForObject("SELECT count(*) FROM pg_trigger"
                + " WHERE tgrelid = 's3p.job_events'::regclass AND NOT tgisinternal", Long.class)).isZero();
    }

    @Test
    void badInputIsRefusedWithTheOjsErrorBody() {
        assertError(http.get("/ojs/v1/queues/nowhere/job-events"), 404, "not_found");
        assertError(http.post("/ojs/v1/queues/nowhere/job-events", ""), 404, "not_found");
        assertError(http.delete("/ojs/v1/queues/nowhere/job-events"), 404, "not_found");
        assertError(http.get("/ojs/v1/queues/Bad_Name/job-events"), 400, "invalid_request");

        assertThat(http.post("/ojs/v1/jobs", Map.of("type", "a.b", "args", List.of(), "options",
                Map.of("queue", "present"))).status()).isEqualTo(201);
        assertError(http.post("/ojs/v1/queues/present/job-events", Map.of("stream", "Not A Name")), 400,
                "invalid_request");
        assertError(http.post("/ojs/v1/queues/present/job-events", Map.of("stream", 7)), 400, "invalid_request");
        assertError(http.post("/ojs/v1/queues/present/job-events", List.of(1)), 400, "invalid_request");
        String longest = "q".repeat(59);
        assertThat(http.post("/ojs/v1/jobs", Map.of("type", "a.b", "args", List.of(), "options",
                Map.of("queue", longest))).status()).isEqualTo(201);
        assertError(http.post("/ojs/v1/queues/" + longest + "/job-events", ""), 400, "invalid_request");
        assertThat(jdbc.queryForObject("SELECT count(*) FROM s3p.job_event_streams", Long.class)).isZero();
    }

    private static void assertError(Response response, int status, String code) {
        assertThat(response.status()).as(response.text()).isEqualTo(status);
        assertThat(response.errorCode()).isEqualTo(code);
    }
}
