package io.pgvs3.server.jobs;

import java.util.List;
import java.util.Map;

import io.pgvs3.server.ServerTestSupport;
import io.pgvs3.test.OjsClient.Response;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Workflows over HTTP: a chain's next step is enqueued by the ack of the previous one (no waiting for maintenance),
 * a graph runs a job only after all its dependencies, and a batch fires the right callbacks.
 */
class WorkflowRoutesTest extends ServerTestSupport {

    @BeforeEach
    void reset() {
        assertThat(http.post("/ojs/v1/admin/reset", "").status()).isEqualTo(200);
    }

    @Test
    void theAckOfAChainStepEnqueuesTheNextWithItsResult() {
        Response created = http.post("/ojs/v1/workflows", Map.of("type", "chain", "steps", List.of(
                job("etl.extract", "wf-chain"), job("etl.load", "wf-chain"))));
        assertThat(created.status()).isEqualTo(201);
        String id = created.json().path("workflow").path("id").asString();

        JsonNode first = fetch("wf-chain");
        assertThat(first.path("type").asString()).isEqualTo("etl.extract");
        assertThat(http.post("/ojs/v1/workers/ack", Map.of("job_id", first.path("id").asString(),
                "result", Map.of("rows", 7))).status()).isEqualTo(200);

        JsonNode second = fetch("wf-chain");
        assertThat(second.path("type").asString()).isEqualTo("etl.load");
        assertThat(second.path("parent_results").get(0).path("rows").asInt()).isEqualTo(7);
        http.post("/ojs/v1/workers/ack", Map.of("job_id", second.path("id").asString()));

        JsonNode workflow = http.get("/ojs/v1/workflows/" + id).json().path("workflow");
        assertThat(workflow.path("state").asString()).isEqualTo("completed");
        assertThat(workflow.path("steps_completed").asInt()).isEqualTo(2);
    }

    @Test
    void aGraphJobWaitsForAllItsDependencies() {
        http.post("/ojs/v1/workflows", Map.of("type", "graph", "jobs", List.of(
                Map.of("name", "a", "type", "g.a", "args", List.of(), "options", Map.of("queue", "wf-graph")),
                Map.of("name", "b", "type", "g.b", "args", List.of(), "options", Map.of("queue", "wf-graph")),
                Map.of("name", "c", "type", "g.c", "args", List.of(), "options", Map.of("queue", "wf-graph"),
                        "depends_on", List.of("a", "b")))));
        JsonNode a = fetch("wf-graph");
        JsonNode b = fetch("wf-graph");
        assertThat(List.of(a.path("type").asString(), b.path("type").asString())).containsExactly("g.a", "g.b");
        http.post("/ojs/v1/workers/ack", Map.of("job_id", a.path("id").asString(), "result", "A"));
        assertThat(http.post("/ojs/v1/workers/fetch", Map.of("queues", List.of("wf-graph"))).json().path("jobs")).isEmpty();
        http.post("/ojs/v1/workers/ack", Map.of("job_id", b.path("id").asString(), "result", "B"));
        JsonNode c = fetch("wf-graph");
        assertThat(c.path("type").asString()).isEqualTo("g.c");
        assertThat(c.path("parent_results").valueStream().map(JsonNode::asString).toList()).containsExactly("A", "B");
    }

    @Test
    void aBatchWithAFailureFiresOnFailureAndOnCompleteButNotOnSuccess() {
        http.post("/ojs/v1/workflows", Map.of("type", "batch", "jobs", List.of(job("b.ok", "wf-batch"),
                Map.of("type", "b.fail", "args", List.of(), "options", Map.of("queue", "wf-batch",
                        "retry", Map.of("max_attempts", 1)))),
                "callbacks", Map.of("on_success", job("cb.success", "wf-cb"), "on_failure", job("cb.failure", "wf-cb"),
                        "on_complete", job("cb.complete", "wf-cb"))));
        http.post("/ojs/v1/workers/ack", Map.of("job_id", fetch("wf-batch").path("id").asString()));
        http.post("/ojs/v1/workers/nack", Map.of("job_id", fetch("wf-batch").path("id").asString(),
                "error", Map.of("code", "boom", "message", "failed")));
        JsonNode callbacks = http.post("/ojs/v1/workers/fetch", Map.of("queues", List.of("wf-cb"), "count", 10))
                .json().path("jobs");
        assertThat(callbacks.valueStream().map(j -> j.path("type").asString()).toList())
                .containsExactlyInAnyOrder("cb.failure", "cb.complete");
    }

    private JsonNode fetch(String queue) {
        JsonNode jobs = http.post("/ojs/v1/workers/fetch", Map.of("queues", List.of(queue))).json().path("jobs");
        assertThat(jobs).hasSize(1);
        return jobs.get(0);
    }

    private static Map<String, Object> job(String type, String queue) {
        return Map.of("type", type, "args", List.of(), "options", Map.of("queue", queue));
    }
}
