package io.pgvs3.server.dashboard;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import io.pgvs3.server.ServerTestSupport;
import io.pgvs3.test.OjsClient.Response;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import org.springframework.test.context.TestPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The read routes the dashboard added (queue storage and history, workflow list) and the cron switch, over HTTP.
 */
@TestPropertySource(properties = "pgvs3.metrics.sample-interval=200ms")
class DashboardRoutesTest extends ServerTestSupport {

    @BeforeEach
    void reset() {
        assertThat(http.post("/ojs/v1/admin/reset", "").status()).isEqualTo(200);
    }

    @Test
    void storageListsTheQueueTablesWithTheirDeadTuples() {
        http.post("/ojs/v1/queues/bloat/messages", Map.of("type", "t", "payload", Map.of()));
        jdbc.execute("ANALYZE s3q_bloat.stream_config");
        Response storage = http.get("/ojs/v1/queues/bloat/storage");
        assertThat(storage.status()).isEqualTo(200);
        JsonNode tables = storage.json().path("tables");
        assertThat(tables.size()).isGreaterThan(3);
        List<String> names = tables.valueStream().map(t -> t.path("table").asString()).toList();
        assertThat(names).contains("jobs", "stream_config");
        for (JsonNode table : tables) {
            assertThat(table.path("dead_tuples").isIntegralNumber()).isTrue();
            assertThat(table.path("total_bytes").asLong()).isGreaterThanOrEqualTo(0);
        }
        assertThat(storage.json().path("dead_tuples").isIntegralNumber()).isTrue();

        Response missing = http.get("/ojs/v1/queues/nowhere/storage");
        assertThat(missing.status()).isEqualTo(404);
        assertThat(missing.errorCode()).isEqualTo("not_found");
        assertThat(http.get("/ojs/v1/queues/Bad%20Name/storage").status()).isEqualTo(400);
    }

    @Test
    void historyKeepsSamplesOfJobStatesOverTime() throws InterruptedException {
        http.post("/ojs/v1/jobs", Map.of("type", "h", "args", List.of(), "options", Map.of("queue", "hist")));
        http.post("/ojs/v1/jobs", Map.of("type", "h", "args", List.of(), "options", Map.of("queue", "hist")));
        JsonNode body = awaitHistory("hist", samples -> samples.size() >= 2
                && samples.get(samples.size() - 1).path("jobs").path("available").asLong() == 2);
        assertThat(body.path("sampling").asBoolean()).isTrue();
        assertThat(body.path("interval_seconds").asDouble()).isEqualTo(0.2);
        JsonNode samples = body.path("samples");
        Instant first = Instant.parse(samples.get(0).path("time").asString());
        Instant last = Instant.parse(samples.get(samples.size() - 1).path("time").asString());
        assertThat(last).isAfter(first);

        Response bad = http.get("/ojs/v1/queues/NOPE/history");
        assertThat(bad.status()).isEqualTo(400);
    }

    @Test
    void aCronCanBeDisabledAndEnabledAgain() {
        http.post("/ojs/v1/cron", Map.of("name", "nightly", "expression", "0 2 * * *",
                "job_template", Map.of("type", "report", "args", List.of(), "options", Map.of("queue", "crons"))));
        Response disabled = http.post("/ojs/v1/cron/nightly/disable", "");
        assertThat(disabled.status()).isEqualTo(200);
        assertThat(disabled.json().path("cron").path("enabled").asBoolean()).isFalse();
        assertThat(http.get("/ojs/v1/cron/nightly").json().path("cron").path("enabled").asBoolean()).isFalse();
        assertThat(jdbc.queryForObject("SELECT enabled FROM s3p.crons WHERE name = 'nightly'", Boolean.class)).isFalse();

        // a cron that missed its run while off is scheduled from now, not fired at once
        jdbc.update("UPDATE s3p.crons SET next_run_at = now() - interval '2 days' WHERE name = 'nightly'");
        Response enabled = http.post("/ojs/v1/cron/nightly/enable", "");
        assertThat(enabled.status()).isEqualTo(200);
        assertThat(enabled.json().path("cron").path("enabled").asBoolean()).isTrue();
        assertThat(Instant.parse(enabled.json().path("cron").path("next_run_at").asString())).isAfter(Instant.now());

        Response unknown = http.post("/ojs/v1/cron/ghost/disable", "");
        assertThat(unknown.status()).isEqualTo(404);
        assertThat(unknown.errorCode()).isEqualTo("not_found");
    }

    @Test
    void workflowsAreListedNewestFirstWithTheirSteps() {
        String first = createWorkflow("first");
        String second = createWorkflow("second");
        Response list = http.get("/ojs/v1/workflows?limit=1");
        assertThat(list.status()).isEqualTo(200);
        assertThat(list.json().path("workflows").size()).isEqualTo(1);
        assertThat(list.json().path("workflows").get(0).path("id").asString()).isEqualTo(second);
        assertThat(list.json().path("workflows").get(0).path("jobs").size()).isEqualTo(2);
        assertThat(list.json().path("pagination").path("total").asLong()).isEqualTo(2);
        assertThat(list.json().path("pagination").path("has_more").asBoolean()).isTrue();
        assertThat(http.get("/ojs/v1/workflows?limit=1&offset=1").json().path("workflows").get(0).path("id").asString())
                .isEqualTo(first);
        assertThat(http.get("/ojs/v1/workflows?limit=0").status()).isEqualTo(400);
        assertThat(http.get("/ojs/v1/workflows?offset=-1").status()).isEqualTo(400);
    }

    private String createWorkflow(String name) {
        Response created = http.post("/ojs/v1/workflows", Map.of("type", "chain", "name", name, "steps", List.of(
                Map.of("type", "a", "args", List.of(), "options", Map.of("queue", "wf-list")),
                Map.of("type", "b", "args", List.of(), "options", Map.of("queue", "wf-list")))));
        assertThat(created.status()).isEqualTo(201);
        return created.json().path("workflow").path("id").asString();
    }

    private JsonNode awaitHistory(String queue, java.util.function.Predicate<JsonNode> done) throws InterruptedException {
        Instant deadline = Instant.now().plus(Duration.ofSeconds(30));
        JsonNode body = null;
        while (Instant.now().isBefore(deadline)) {
            body = http.get("/ojs/v1/queues/" + queue + "/history").json();
            if (done.test(body.path("samples"))) {
                return body;
            }
            Thread.sleep(100);
        }
        throw new AssertionError("history never matched: " + body);
    }
}
