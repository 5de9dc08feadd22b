package io.pgvs3.spring.web.jobs;

import java.util.List;
import java.util.Map;

import io.pgvs3.test.OjsClient;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import static io.pgvs3.spring.web.jobs.JobRoutesApp.assertError;
import static org.assertj.core.api.Assertions.assertThat;

/** {@code /ojs/v1/workflows}: create, read, list and cancel over HTTP, and a chain's jobs running in order. */
class WorkflowControllerTests {

    private static final JobRoutesApp app = JobRoutesApp.shared();
    private static final OjsClient http = app.http();

    @Test
    void aChainIsCreatedReadAndRunsItsStepsInOrder() {
        OjsClient.Response created = http.post("/ojs/v1/workflows", Map.of("type", "chain", "name", "wf-order",
                "steps", List.of(step("wf-chain", "first"), step("wf-chain", "second"))));
        assertThat(created.status()).as(created.toString()).isEqualTo(201);
        JsonNode workflow = created.json().path("workflow");
        String id = workflow.path("id").asString();
        assertThat(id).isNotBlank();
        assertThat(workflow.path("type").asString()).isEqualTo("chain");
        assertThat(created.json().path("id").asString()).isEqualTo(id);
        assertThat(created.json().path("metadata").path("job_count").asInt()).isEqualTo(2);

        OjsClient.Response read = http.get("/ojs/v1/workflows/" + id);
        assertThat(read.status()).isEqualTo(200);
        assertThat(read.json().path("workflow").path("id").asString()).isEqualTo(id);
        assertThat(read.json().path("name").asString()).isEqualTo("wf-order");

        JsonNode first = app.fetchOne("wf-chain", "w");
        assertThat(first.path("type").asString()).isEqualTo("first");
        assertThat(http.post("/ojs/v1/workers/fetch", Map.of("queues", List.of("wf-chain"))).json().path("jobs").size())
                .isZero();
        assertThat(http.post("/ojs/v1/workers/ack", Map.of("job_id", first.path("id").asString())).status())
                .isEqualTo(200);
        assertThat(app.fetchOne("wf-chain", "w").path("type").asString()).isEqualTo("second");
        assertThat(http.get("/ojs/v1/workflows/" + id).json().path("metadata").path("completed_count").asInt())
                .isEqualTo(1);

        OjsClient.Response list = http.get("/ojs/v1/workflows?limit=200");
        assertThat(list.status()).isEqualTo(200);
        assertThat(list.json().path("workflows").valueStream().map(w -> w.path("id").asString())).contains(id);
    }

    @Test
    void aGroupHandsOutAllItsJobsAtOnceAndIsCancelledOnce() {
        OjsClient.Response created = http.post("/ojs/v1/workflows", Map.of("type", "group",
                "jobs", List.of(step("wf-group", "a"), step("wf-group", "b"), step("wf-group", "c"))));
        assertThat(created.status()).as(created.toString()).isEqualTo(201);
        String id = created.json().path("workflow").path("id").asString();
        OjsClient.Response all = http.post("/ojs/v1/workers/fetch", Map.of("queues", List.of("wf-group"), "count", 10));
        assertThat(all.json().path("jobs").size()).as(all.toString()).isEqualTo(3);

        OjsClient.Response cancelled = http.delete("/ojs/v1/workflows/" + id);
        assertThat(cancelled.status()).as(cancelled.toString()).isEqualTo(200);
        assertThat(cancelled.json().path("state").asString()).isEqualTo("cancelled");
        assertError(http.delete("/ojs/v1/workflows/" + id), 409, "conflict");
    }

    @Test
    void aGraphResolvesDependenciesByStepName() {
        OjsClient.Response created = http.post("/ojs/v1/workflows", Map.of("type", "graph", "jobs", List.of(
                Map.of("name", "fetch", "type", "g.fetch", "options", Map.of("queue", "wf-graph")),
                Map.of("name", "report", "type", "g.report", "options", Map.of("queue", "wf-graph"),
                        "depends_on", List.of("fetch")))));
        assertThat(created.status()).as(created.toString()).isEqualTo(201);
        OjsClient.Response ready = http.post("/ojs/v1/workers/fetch", Map.of("queues", List.of("wf-graph"), "count", 10));
        assertThat(ready.json().path("jobs").valueStream().map(job -> job.path("type").asString()))
                .containsExactly("g.fetch");
    }

    @Test
    void aWorkflowWithoutTypeRunsUnnamedStepsAtOnceAndTakesCallbackStepsForABatch() {
        OjsClient.Response unnamed = http.post("/ojs/v1/workflows", Map.of("steps", List.of(step("wf-untyped", "a"),
                step("wf-untyped", "b"))));
        assertThat(unnamed.status()).as(unnamed.toString()).isEqualTo(201);
        assertThat(unnamed.json().path("type").asString()).isEqualTo("graph");
        OjsClient.Response both = http.post("/ojs/v1/workers/fetch", Map.of("queues", List.of("wf-untyped"), "count", 10));
        assertThat(both.json().path("jobs").size()).as(both.toString()).isEqualTo(2);

        OjsClient.Response batch = http.post("/ojs/v1/workflows", Map.of("steps", List.of(
                Map.of("id", "work", "type", "u.work", "args", List.of(), "options", Map.of("queue", "wf-untyped")),
                Map.of("id", "on_success", "type", "u.done", "args", List.of(), "depends_on", List.of("work"),
                        "options", Map.of("queue", "wf-untyped")))));
        assertThat(batch.status()).as(batch.toString()).isEqualTo(201);
        assertThat(batch.json().path("type").asString()).isEqualTo("batch");
        assertThat(batch.json().path("metadata").path("job_count").asInt()).isEqualTo(1);
    }

    @Test
    void anInvalidWorkflowIs400() {
        Map<String, Object> job = step("wf-bad", "x");
        for (Object body : List.of(
                Map.of("type", "chain"),
                Map.of("type", "chain", "steps", List.of()),
                Map.of("type", "chain", "steps", List.of(job, "not a job")),
                Map.of("type", "chain", "steps", List.of(Map.of("args", List.of()))),
                Map.of("type", "graph", "jobs", List.of(Map.of("type", "x", "depends_on", List.of("nowhere")))),
                Map.of("type", "graph", "jobs", List.of(Map.of("type", "x", "depends_on", "first"))),
                Map.of("type", "graph", "jobs", List.of(Map.of("name", "a", "type", "x"), Map.of("name", "a", "type", "y"))),
                Map.of("type", "batch", "jobs", List.of(job), "callbacks", List.of(job)),
                Map.of("type", "bogus", "jobs", List.of(job)),
                Map.of("type", 7, "jobs", List.of(job)),
                Map.of("type", "graph", "jobs", List.of(Map.of("type", "x", "depends_on", List.of(99_999_999_999L)))),
                Map.of("steps", List.of(Map.of("id", "a", "type", "x"),
                        Map.of("id", "on_success", "type", "y", "depends_on", List.of(Map.of("id", "a"))))),
                Map.of("steps", List.of(Map.of("id", "a", "type", "x"),
                        Map.of("id", "b", "type", "y", "depends_on", List.of(List.of("a"))))),
                "[]")) {
            OjsClient.Response refused = http.post("/ojs/v1/workflows", body);
            assertThat(refused.status()).as(body + " → " + refused).isIn(400, 422);
            assertThat(refused.errorCode()).as(refused.toString()).isEqualTo("invalid_request");
        }
        assertThat(http.post("/ojs/v1/workers/fetch", Map.of("queues", List.of("wf-bad"))).json().path("jobs").size())
                .isZero();
    }

    @Test
    void anUnknownWorkflowIs404AndAnOutOfRangePage400() {
        assertError(http.get("/ojs/v1/workflows/019300aa-0000-7000-8000-000000000006"), 404, "not_found");
        assertError(http.get("/ojs/v1/workflows/not-an-id"), 404, "not_found");
        assertError(http.delete("/ojs/v1/workflows/019300aa-0000-7000-8000-000000000006"), 404, "not_found");
        assertError(http.get("/ojs/v1/workflows?limit=201"), 400, "invalid_request");
        assertError(http.get("/ojs/v1/workflows?offset=-1"), 400, "invalid_request");
    }

    private static Map<String, Object> step(String queue, String type) {
        return Map.of("type", type, "args", List.of(1), "options", Map.of("queue", queue));
    }
}
