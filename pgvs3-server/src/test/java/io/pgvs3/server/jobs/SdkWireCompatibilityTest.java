package io.pgvs3.server.jobs;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import io.pgvs3.server.ServerTestSupport;
import io.pgvs3.test.OjsClient;
import io.pgvs3.test.OjsClient.Response;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.JsonNode;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Golden requests of the official OJS client SDKs (Java, JavaScript, Python, 0.4.x): each body under
 * {@code sdk-wire/<sdk>/<scenario>.json} is what that SDK sends for the scenario, sent with the headers the SDKs send
 * ({@code Content-Type} and {@code Accept: application/openjobspec+json}); each test asserts the status and the response
 * fields that SDK reads. {@code {{name}}} in a body stands for a value known only at run time (a job id, the test's
 * own queue or cron name).
 */
@Tag("slow")
class SdkWireCompatibilityTest extends ServerTestSupport {

    private static final AtomicInteger RUNS = new AtomicInteger();

    /** Each test's own queues and cron name, so that no test sees another's jobs. */
    private String queue;
    private String callbackQueue;
    private String cronName;

    @BeforeEach
    void names() {
        int run = RUNS.incrementAndGet();
        queue = "sdk-q" + run;
        callbackQueue = "sdk-q" + run + "-cb";
        cronName = "nightly-report-" + run;
    }

    @ParameterizedTest
    @CsvSource({ "java, enqueue-retry-ms", "js, enqueue-retry-iso", "python, enqueue-retry-iso" })
    void enqueueWithARetryPolicyInIsoOrMillisecondForm(String sdk, String scenario) {
        Response created = http.post("/ojs/v1/jobs", golden(sdk, scenario));
        assertThat(created.status()).as(created.toString()).isEqualTo(201);
        JsonNode job = created.json().path("job");
        assertThat(job.path("id").asString()).isNotBlank();
        assertThat(job.path("type").asString()).isEqualTo("email.send");
        assertThat(job.path("queue").asString()).isEqualTo(queue);
        assertThat(job.path("state").asString()).isEqualTo("available");
        assertThat(job.path("args").get(0).path("to").asString()).isEqualTo("ada@example.com");
        JsonNode retry = job.path("retry");
        assertThat(retry.path("max_attempts").asInt()).isEqualTo(5);
        // Python and JavaScript read the ISO intervals, Java the _ms ones
        assertThat(retry.path("initial_interval").asString()).isEqualTo("PT1S");
        assertThat(retry.path("max_interval").asString()).isEqualTo("PT5M");
        assertThat(retry.path("initial_interval_ms").asLong()).isEqualTo(1000);
        assertThat(retry.path("max_interval_ms").asLong()).isEqualTo(300_000);
        assertThat(retry.path("backoff_coefficient").asDouble()).isEqualTo(2.0);
        assertThat(http.get("/ojs/v1/jobs/" + job.path("id").asString()).json().path("job").path("id").asString())
                .isEqualTo(job.path("id").asString());
    }

    @ParameterizedTest
    @CsvSource({ "java, unique-args-key", "js, unique-args-key" })
    void javaAndJavaScriptDeduplicateOnTheArgumentNamesSentAsKey(String sdk, String scenario) {
        Response first = http.post("/ojs/v1/jobs", golden(sdk, scenario, Map.of("format", "pdf")));
        assertThat(first.status()).as(first.toString()).isEqualTo(201);
        // the same order_id with another format: a duplicate, as only order_id was named
        Response second = http.post("/ojs/v1/jobs", golden(sdk, scenario, Map.of("format", "csv")));
        assertThat(second.status()).as(second.toString()).isEqualTo(409);
        assertThat(second.errorCode()).isEqualTo("duplicate");
        assertThat(second.json().path("error").path("details").path("existing_job_id").asString())
                .isEqualTo(first.json().path("job").path("id").asString());
        Response other = http.post("/ojs/v1/jobs", golden(sdk, scenario, Map.of("format", "pdf", "order_id", "o2-" + queue)));
        assertThat(other.status()).as(other.toString()).isEqualTo(201);
    }

    @Test
    void pythonSendsTheDimensionsAsKey() {
        Response first = http.post("/ojs/v1/jobs", golden("python", "unique-dimensions", Map.of("format", "pdf")));
        assertThat(first.status()).as(first.toString()).isEqualTo(201);
        Response same = http.post("/ojs/v1/jobs", golden("python", "unique-dimensions", Map.of("format", "pdf")));
        assertThat(same.status()).as(same.toString()).isEqualTo(409);
        assertThat(same.errorCode()).isEqualTo("duplicate");
        // the whole args count: another format is another job
        Response otherArgs = http.post("/ojs/v1/jobs", golden("python", "unique-dimensions", Map.of("format", "csv")));
        assertThat(otherArgs.status()).as(otherArgs.toString()).isEqualTo(201);
    }

    @Test
    void aUniqueKeyOfAnotherKindIsRefusedNamingTheFullField() {
        Response refused = http.post("/ojs/v1/jobs", Map.of("type", "x.y", "args", List.of(),
                "options", Map.of("unique", Map.of("key", 42))));
        assertThat(refused.status()).isEqualTo(400);
        assertThat(refused.errorCode()).isEqualTo("invalid_request");
        assertThat(refused.json().path("error").path("details").path("field").asString()).isEqualTo("options.unique.key");
    }

    @ParameterizedTest
    @ValueSource(strings = { "java", "js", "python" })
    void batchEnqueue(String sdk) {
        Response created = http.post("/ojs/v1/jobs/batch", golden(sdk, "enqueue-batch"));
        assertThat(created.status()).as(created.toString()).isEqualTo(201);
        JsonNode jobs = created.json().path("jobs");
        assertThat(jobs).hasSize(2);
        assertThat(jobs.valueStream().map(job -> job.path("queue").asString()).toList()).containsOnly(queue);
        assertThat(jobs.get(1).path("retry").path("max_attempts").asInt()).isEqualTo(2);
        assertThat(jobs.valueStream().map(job -> job.path("id").asString()).distinct().count()).isEqualTo(2);
    }

    @ParameterizedTest
    @ValueSource(strings = { "java", "js", "python" })
    void fetchHeartbeatAckAndNackAsAWorkerSendsThem(String sdk) {
        String first = enqueue(queue, Map.of("max_attempts", 3));
        String second = enqueue(queue, Map.of("max_attempts", 3));

        Response fetched = http.post("/ojs/v1/workers/fetch", golden(sdk, "fetch"));
        assertThat(fetched.status()).as(fetched.toString()).isEqualTo(200);
        JsonNode job = fetched.json().path("jobs").get(0);
        assertThat(job.path("id").asString()).isEqualTo(first);
        assertThat(job.path("type").asString()).isEqualTo("sdk.work");
        assertThat(job.path("queue").asString()).isEqualTo(queue);
        assertThat(job.path("attempt").asInt()).isEqualTo(1);
        assertThat(job.path("state").asString()).isEqualTo("active");

        // Java and Python send active_jobs as a list of ids, JavaScript as a count beside active_job_ids
        Response beat = http.post("/ojs/v1/workers/heartbeat", golden(sdk, "heartbeat", Map.of("job_id", first)));
        assertThat(beat.status()).as(beat.toString()).isEqualTo(200);
        assertThat(beat.json().path("state").asString()).isEqualTo("running");
        assertThat(beat.json().path("jobs_extended").valueStream().map(JsonNode::asString).toList()).containsExactly(first);

        Response acked = http.post("/ojs/v1/workers/ack", golden(sdk, "ack", Map.of("job_id", first)));
        assertThat(acked.status()).as(acked.toString()).isEqualTo(200);
        JsonNode completed = http.get("/ojs/v1/jobs/" + first).json().path("job");
        assertThat(completed.path("state").asString()).isEqualTo("completed");
        assertThat(completed.path("result").path("sent").asBoolean()).isTrue();

        String nackId = http.post("/ojs/v1/workers/fetch", golden(sdk, "fetch"))
                .json().path("jobs").get(0).path("id").asString();
        assertThat(nackId).isEqualTo(second);
        Response nacked = http.post("/ojs/v1/workers/nack", golden(sdk, "nack", Map.of("job_id", second)));
        assertThat(nacked.status()).as(nacked.toString()).isEqualTo(200);
        JsonNode retrying = http.get("/ojs/v1/jobs/" + second).json().path("job");
        assertThat(retrying.path("state").asString()).isEqualTo("retryable");
        assertThat(retrying.path("error").path("message").asString()).isEqualTo("smtp down");
    }

    @Test
    void deadLetterListRetryAndDiscardAsTheSdksCallThem() {
        String retried = deadLetter(queue);
        String discarded = deadLetter(queue);

        // Java and Python send limit, offset and queue; JavaScript no parameters
        Response ofQueue = http.get("/ojs/v1/dead-letter?limit=50&offset=0&queue=" + queue);
        assertThat(ofQueue.status()).isEqualTo(200);
        assertThat(ofQueue.json().path("jobs").valueStream().map(job -> job.path("id").asString()).toList())
                .containsExactlyInAnyOrder(retried, discarded);
        Response all = http.get("/ojs/v1/dead-letter");
        assertThat(all.status()).isEqualTo(200);
        assertThat(all.json().path("jobs").valueStream().map(job -> job.path("id").asString()).toList())
                .contains(retried, discarded);

        Response retry = http.post("/ojs/v1/dead-letter/" + retried + "/retry", "{}");
        assertThat(retry.status()).as(retry.toString()).isEqualTo(200);
        assertThat(retry.json().path("job").path("id").asString()).isEqualTo(retried);
        assertThat(retry.json().path("job").path("state").asString()).isEqualTo("available");
        // JavaScript and Python post the retry without a body
        String second = deadLetter(callbackQueue);
        Response retryWithoutBody = http.postRaw("/ojs/v1/dead-letter/" + second + "/retry", null, null);
        assertThat(retryWithoutBody.status()).as(retryWithoutBody.toString()).isEqualTo(200);
        assertThat(retryWithoutBody.json().path("job").path("id").asString()).isEqualTo(second);

        Response discard = http.delete("/ojs/v1/dead-letter/" + discarded);
        assertThat(discard.status()).as(discard.toString()).isEqualTo(200);
        Response again = http.delete("/ojs/v1/dead-letter/" + discarded);
        assertThat(again.status()).isEqualTo(404);
        assertThat(again.errorCode()).isEqualTo("not_found");
        assertThat(again.json().path("error").path("message").asString()).contains(discarded);
        assertThat(again.header("Content-Type")).startsWith(OjsClient.OJS_JSON);
    }

    @ParameterizedTest
    @ValueSource(strings = { "java", "js", "python" })
    void cronRegisterGetListAndDeleteCarryTheConformanceAndTheBindingShapes(String sdk) {
        Response registered = http.post("/ojs/v1/cron", golden(sdk, "cron-register"));
        assertThat(registered.status()).as(registered.toString()).isEqualTo(201);
        for (JsonNode cron : List.of(registered.json().path("cron_job"), registered.json().path("cron"))) {
            assertThat(cron.path("name").asString()).isEqualTo(cronName);
            assertThat(cron.path("cron").asString()).isEqualTo("0 3 * * *");
            assertThat(cron.path("expression").asString()).isEqualTo("0 3 * * *");
            assertThat(cron.path("type").asString()).isEqualTo("report.nightly");
            assertThat(cron.path("args").get(0).path("format").asString()).isEqualTo("pdf");
            assertThat(cron.path("options").path("queue").asString()).isEqualTo(queue);
            assertThat(cron.path("queue").asString()).isEqualTo(queue);
            assertThat(cron.path("status").asString()).isEqualTo("active");
            assertThat(cron.path("enabled").asBoolean()).isTrue();
            assertThat(cron.path("job_template").path("type").asString()).isEqualTo("report.nightly");
            assertThat(cron.path("next_run_at").asString()).isNotBlank();
            assertThat(cron.path("created_at").asString()).isNotBlank();
        }

        JsonNode got = http.get("/ojs/v1/cron/" + cronName).json();
        assertThat(got.path("cron_job").path("cron").asString()).isEqualTo("0 3 * * *");
        assertThat(got.path("cron").path("expression").asString()).isEqualTo("0 3 * * *");

        JsonNode list = http.get("/ojs/v1/cron?limit=50&offset=0").json();
        assertThat(listed(list.path("cron_jobs")).path("cron").asString()).isEqualTo("0 3 * * *");
        assertThat(listed(list.path("crons")).path("expression").asString()).isEqualTo("0 3 * * *");

        Response deleted = http.delete("/ojs/v1/cron/" + cronName);
        assertThat(deleted.status()).isEqualTo(200);
        assertThat(deleted.json().path("cron_job").path("name").asString()).isEqualTo(cronName);
        assertThat(deleted.json().path("cron").path("name").asString()).isEqualTo(cronName);
        assertThat(deleted.json().path("deleted").asBoolean()).isTrue();
        assertThat(listed(http.get("/ojs/v1/cron").json().path("cron_jobs")).isMissingNode()).isTrue();
    }

    private JsonNode listed(JsonNode crons) {
        return crons.valueStream().filter(cron -> cron.path("name").asString().equals(cronName)).findFirst()
                .orElse(OjsClient.mapper().missingNode());
    }

    @ParameterizedTest
    @ValueSource(strings = { "java", "js", "python" })
    void aChainRunsItsStepsInOrder(String sdk) {
        JsonNode workflow = createWorkflow(sdk, "workflow-chain");
        assertThat(workflow.path("state").asString()).isEqualTo("running");
        assertThat(workflow.path("name").asString()).isEqualTo("etl");
        for (String type : List.of("etl.extract", "etl.transform", "etl.load")) {
            List<JsonNode> jobs = fetchAll(queue);
            assertThat(jobs).as("only the next step of the chain is available").hasSize(1);
            assertThat(jobs.get(0).path("type").asString()).isEqualTo(type);
            ack(jobs.get(0));
        }
        assertThat(workflowState(workflow)).isEqualTo("completed");
    }

    @ParameterizedTest
    @ValueSource(strings = { "java", "js", "python" })
    void aGroupRunsItsStepsAtOnce(String sdk) {
        JsonNode workflow = createWorkflow(sdk, "workflow-group");
        List<JsonNode> jobs = fetchAll(queue);
        assertThat(jobs.stream().map(job -> job.path("type").asString()).toList())
                .containsExactlyInAnyOrder("export.csv", "export.pdf", "export.xml");
        jobs.forEach(this::ack);
        assertThat(workflowState(workflow)).isEqualTo("completed");
    }

    @ParameterizedTest
    @ValueSource(strings = { "java", "js", "python" })
    void aBatchWithAFailedJobFiresOnFailureAndOnCompleteOnly(String sdk) {
        JsonNode workflow = createWorkflow(sdk, "workflow-batch");
        assertThat(workflow.path("type").asString()).isEqualTo("batch");
        List<JsonNode> jobs = fetchAll(queue);
        assertThat(jobs).hasSize(2);
        ack(jobs.get(0));
        Response nacked = http.post("/ojs/v1/workers/nack", Map.of("job_id", jobs.get(1).path("id").asString(),
                "error", Map.of("code", "boom", "message", "failed", "retryable", false)));
        assertThat(nacked.status()).as(nacked.toString()).isEqualTo(200);
        // the Java SDK sends its callbacks without options, so they go to the default queue
        List<String> kinds = fetchAll("java".equals(sdk) ? "default" : callbackQueue).stream()
                .map(job -> job.path("args").get(0).path("kind").asString()).toList();
        assertThat(kinds).containsExactlyInAnyOrder("failure", "complete");
    }

    @ParameterizedTest
    @ValueSource(strings = { "java", "python" })
    void aGraphWithoutTypeRunsAStepAfterItsDependencies(String sdk) {
        JsonNode workflow = createWorkflow(sdk, "workflow-graph");
        assertThat(workflow.path("type").asString()).isEqualTo("graph");
        List<JsonNode> first = fetchAll(queue);
        assertThat(first).hasSize(1);
        assertThat(first.get(0).path("type").asString()).isEqualTo("graph.fetch");
        ack(first.get(0));
        List<JsonNode> second = fetchAll(queue);
        assertThat(second).hasSize(1);
        assertThat(second.get(0).path("type").asString()).isEqualTo("graph.parse");
        assertThat(second.get(0).path("args").get(0).path("mode").asString()).isEqualTo("fast");
        ack(second.get(0));
        assertThat(workflowState(workflow)).isEqualTo("completed");
    }

    @Test
    void aStepDependingOnAnUnknownStepIsRefused() {
        Response refused = http.post("/ojs/v1/workflows", Map.of("name", "n", "steps", List.of(
                Map.of("id", "a", "type", "x.a", "args", List.of()),
                Map.of("id", "b", "type", "x.b", "args", List.of(), "depends_on", List.of("nope")))));
        assertThat(refused.status()).isEqualTo(400);
        assertThat(refused.json().path("error").path("message").asString()).contains("nope");
        assertThat(fetchAll("default").stream().map(job -> job.path("type").asString())).doesNotContain("x.a", "x.b");
    }

    /**
     * The HTTP binding (section 4.3) has servers answer {@code application/openjobspec+json} whatever the
     * {@code Accept} header, JSON being the only required format; {@code application/json} is an alias a client may
     * send and accept, not another format to negotiate. So success and error bodies keep the OJS type.
     */
    @ParameterizedTest
    @ValueSource(strings = { "application/json", "application/openjobspec+json", "*/*" })
    void bodiesAreLabelledOjsJsonWhateverTheAcceptHeader(String accept) throws Exception {
        java.net.http.HttpClient client = java.net.http.HttpClient.newHttpClient();
        java.net.http.HttpResponse<String> created = client.send(java.net.http.HttpRequest
                .newBuilder(java.net.URI.create("http://127.0.0.1:" + port + "/ojs/v1/jobs"))
                .header("Content-Type", "application/json").header("Accept", accept)
                .POST(java.net.http.HttpRequest.BodyPublishers.ofString(golden("python", "enqueue-retry-iso"))).build(),
                java.net.http.HttpResponse.BodyHandlers.ofString());
        assertThat(created.statusCode()).isEqualTo(201);
        assertThat(created.headers().firstValue("Content-Type")).hasValueSatisfying(
                type -> assertThat(type).startsWith(OjsClient.OJS_JSON));
        java.net.http.HttpResponse<String> missing = client.send(java.net.http.HttpRequest
                .newBuilder(java.net.URI.create("http://127.0.0.1:" + port + "/ojs/v1/dead-letter/"
                        + "01900000-0000-7000-8000-000000000000"))
                .header("Accept", accept).DELETE().build(), java.net.http.HttpResponse.BodyHandlers.ofString());
        assertThat(missing.statusCode()).isEqualTo(404);
        assertThat(missing.headers().firstValue("Content-Type")).hasValueSatisfying(
                type -> assertThat(type).startsWith(OjsClient.OJS_JSON));
        assertThat(OjsClient.mapper().readTree(missing.body()).path("error").path("message").asString())
                .contains("01900000-0000-7000-8000-000000000000");
    }

    @Test
    void aGraphRepeatingAStepNameIsRefused() {
        Response refused = http.post("/ojs/v1/workflows", Map.of("name", "n", "steps", List.of(
                Map.of("id", "a", "type", "x.a", "args", List.of(), "options", Map.of("queue", queue)),
                Map.of("id", "a", "type", "x.b", "args", List.of(), "options", Map.of("queue", queue)),
                Map.of("id", "c", "type", "x.c", "args", List.of(), "depends_on", List.of("a")))));
        assertThat(refused.status()).isEqualTo(400);
        assertThat(refused.json().path("error").path("message").asString()).contains("'a'");
        assertThat(fetchAll(queue)).isEmpty();
    }

    private JsonNode createWorkflow(String sdk, String scenario) {
        Response created = http.post("/ojs/v1/workflows", golden(sdk, scenario));
        assertThat(created.status()).as(created.toString()).isEqualTo(201);
        JsonNode workflow = created.json().path("workflow");
        // Python and Java read workflow.id, name and state; JavaScript the status at the top level
        assertThat(workflow.path("id").asString()).isNotBlank();
        assertThat(workflow.has("name")).isTrue();
        JsonNode status = created.json();
        assertThat(status.path("id").asString()).isEqualTo(workflow.path("id").asString());
        assertThat(status.path("type").asString()).isEqualTo(workflow.path("type").asString());
        assertThat(status.path("state").asString()).isEqualTo("running");
        assertThat(status.path("metadata").path("job_count").asInt()).isEqualTo(workflow.path("jobs_total").asInt())
                .isPositive();
        assertThat(status.path("metadata").path("completed_count").asInt()).isZero();
        assertThat(status.path("metadata").path("created_at").asString()).isNotBlank();
        return workflow;
    }

    private String workflowState(JsonNode workflow) {
        JsonNode status = http.get("/ojs/v1/workflows/" + workflow.path("id").asString()).json();
        assertThat(status.path("state").asString()).isEqualTo(status.path("workflow").path("state").asString());
        return status.path("workflow").path("state").asString();
    }

    private List<JsonNode> fetchAll(String queue) {
        Response fetched = http.post("/ojs/v1/workers/fetch", Map.of("queues", List.of(queue), "count", 10));
        assertThat(fetched.status()).as(fetched.toString()).isEqualTo(200);
        return fetched.json().path("jobs").valueStream().toList();
    }

    private void ack(JsonNode job) {
        Response acked = http.post("/ojs/v1/workers/ack", Map.of("job_id", job.path("id").asString()));
        assertThat(acked.status()).as(acked.toString()).isEqualTo(200);
    }

    private String enqueue(String queue, Map<String, Object> retry) {
        Response created = http.post("/ojs/v1/jobs", Map.of("type", "sdk.work", "args", List.of(),
                "options", Map.of("queue", queue, "retry", retry)));
        assertThat(created.status()).as(created.toString()).isEqualTo(201);
        return created.json().path("job").path("id").asString();
    }

    /** A job that failed its only attempt into the dead-letter list. */
    private String deadLetter(String queue) {
        String id = enqueue(queue, Map.of("max_attempts", 1, "on_exhaustion", "dead_letter"));
        JsonNode job = http.post("/ojs/v1/workers/fetch", Map.of("queues", List.of(queue))).json().path("jobs").get(0);
        assertThat(job.path("id").asString()).isEqualTo(id);
        assertThat(http.post("/ojs/v1/workers/nack", Map.of("job_id", id,
                "error", Map.of("code", "boom", "message", "failed"))).status()).isEqualTo(200);
        return id;
    }

    private String golden(String sdk, String scenario) {
        return golden(sdk, scenario, Map.of());
    }

    private String golden(String sdk, String scenario, Map<String, String> given) {
        Map<String, String> values = new java.util.HashMap<>(given);
        values.put("queue", queue);
        values.put("callback_queue", callbackQueue);
        values.put("name", cronName);
        // unique jobs without the queue dimension are unique across queues: each test its own order
        values.putIfAbsent("order_id", "o-" + queue);
        String resource = "/sdk-wire/" + sdk + "/" + scenario + ".json";
        try (InputStream in = SdkWireCompatibilityTest.class.getResourceAsStream(resource)) {
            assertThat(in).as(resource).isNotNull();
            String body = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            for (Map.Entry<String, String> value : values.entrySet()) {
                body = body.replace("{{" + value.getKey() + "}}", value.getValue());
            }
            assertThat(body).as("unfilled placeholder in " + resource).doesNotContain("{{");
            return body;
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }
}
