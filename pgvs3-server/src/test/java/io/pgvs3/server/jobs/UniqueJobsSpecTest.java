package io.pgvs3.server.jobs;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.pgvs3.server.ServerTestSupport;
import io.pgvs3.test.OjsClient.Response;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import tools.jackson.databind.JsonNode;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The dimensions of OJS unique jobs ({@code ojs-unique-jobs.md}) over HTTP: {@code args_keys}, {@code meta_keys},
 * the default of {@code type} alone, Unicode and key-order independence, {@code replace_except_schedule}, and the
 * invalid policies the spec has refused with 400 before anything is written.
 */
class UniqueJobsSpecTest extends ServerTestSupport {

    @Test
    void argsKeysDeduplicateOnTheNamedArgumentsOnly() {
        Map<String, Object> unique = Map.of("keys", List.of("type", "args"), "args_keys", List.of("order_id"));
        assertThat(enqueue("u-args", List.of(Map.of("order_id", 1, "x", 1)), null, unique).status()).isEqualTo(201);
        Response second = enqueue("u-args", List.of(Map.of("order_id", 1, "x", 2)), null, unique);
        assertThat(second.status()).as(second.toString()).isEqualTo(409);
        assertThat(second.errorCode()).isEqualTo("duplicate");
        assertThat(enqueue("u-args", List.of(Map.of("order_id", 2, "x", 1)), null, unique).status()).isEqualTo(201);
    }

    @Test
    void argsKeysAloneImplyTheArgsDimension() {
        Map<String, Object> unique = Map.of("args_keys", List.of("user_id"), "on_conflict", "ignore");
        String first = enqueue("u-implied", List.of(Map.of("user_id", 42, "template", "welcome")), null, unique)
                .json().path("job").path("id").asString();
        Response again = enqueue("u-implied", List.of(Map.of("user_id", 42, "template", "reminder")), null, unique);
        assertThat(again.status()).isEqualTo(200);
        assertThat(again.json().path("job").path("id").asString()).isEqualTo(first);
    }

    @Test
    void metaKeysDeduplicateOnTheNamedMetaOnly() {
        Map<String, Object> unique = Map.of("keys", List.of("type", "args", "meta"), "meta_keys", List.of("tenant_id"));
        List<Object> args = List.of(Map.of("resource", "products"));
        assertThat(enqueue("u-meta", args, Map.of("tenant_id", "acme", "trace_id", "t1"), unique).status()).isEqualTo(201);
        assertThat(enqueue("u-meta", args, Map.of("tenant_id", "acme", "trace_id", "t2"), unique).status()).isEqualTo(409);
        assertThat(enqueue("u-meta", args, Map.of("tenant_id", "globex", "trace_id", "t3"), unique).status())
                .isEqualTo(201);
    }

    @Test
    void withoutKeysTheTypeAloneIsTheFingerprint() {
        Map<String, Object> unique = Map.of("on_conflict", "reject");
        assertThat(enqueue("u-type", List.of(1), null, unique).status()).isEqualTo(201);
        assertThat(enqueue("u-type", List.of(2), null, unique).status()).isEqualTo(409);
    }

    @Test
    void theQueueDimensionKeepsQueuesApart() {
        Map<String, Object> unique = Map.of("keys", List.of("type", "queue"));
        assertThat(enqueue("u.queue", "u-queue-a", List.of(), null, unique).status()).isEqualTo(201);
        assertThat(enqueue("u.queue", "u-queue-b", List.of(), null, unique).status()).isEqualTo(201);
        assertThat(enqueue("u.queue", "u-queue-a", List.of(), null, unique).status()).isEqualTo(409);
    }

    @Test
    void withoutTheQueueDimensionAJobIsUniqueAcrossQueues() {
        Map<String, Object> reject = Map.of("keys", List.of("type", "args"));
        String first = enqueue("u.across", "u-across-a", List.of("r"), null, reject).json().path("job").path("id")
                .asString();
        Response elsewhere = enqueue("u.across", "u-across-b", List.of("r"), null, reject);
        assertThat(elsewhere.status()).as(elsewhere.toString()).isEqualTo(409);
        assertThat(elsewhere.json().path("error").path("details").path("existing_job_id").asString()).isEqualTo(first);

        Response ignored = enqueue("u.across", "u-across-b", List.of("r"), null,
                Map.of("keys", List.of("type", "args"), "on_conflict", "ignore"));
        assertThat(ignored.status()).isEqualTo(200);
        assertThat(ignored.json().path("job").path("id").asString()).isEqualTo(first);
        assertThat(ignored.json().path("job").path("queue").asString()).isEqualTo("u-across-a");

        Response replacing = enqueue("u.across", "u-across-b", List.of("r"), null,
                Map.of("keys", List.of("type", "args"), "on_conflict", "replace"));
        assertThat(replacing.status()).isEqualTo(201);
        assertThat(replacing.json().path("job").path("queue").asString()).isEqualTo("u-across-b");
        assertThat(http.get("/ojs/v1/jobs/" + first).json().path("job").path("state").asString()).isEqualTo("cancelled");
        Long cancelledEvents = jdbc.queryForObject("SELECT count(*) FROM s3p.job_events WHERE type = 'job.cancelled'"
                + " AND job_id = ?::uuid AND queue = 'u-across-a'", Long.class, first);
        assertThat(cancelledEvents).isEqualTo(1);
    }

    /** The advisory lock of a key unique across queues serialises enqueues into different queues. */
    @Test
    void concurrentEnqueuesOfOneKeyIntoDifferentQueuesLetExactlyOneThrough() throws Exception {
        int threads = 8;
        for (int i = 0; i < threads; i++) {
            assertThat(enqueue("u-race-" + i, List.of("warm-up"), null, Map.of("keys", List.of("type", "queue")))
                    .status()).isEqualTo(201);
        }
        Map<String, Object> reject = Map.of("keys", List.of("type", "args"));
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(threads);
        try {
            java.util.concurrent.CountDownLatch start = new java.util.concurrent.CountDownLatch(1);
            List<java.util.concurrent.Future<Integer>> statuses = new java.util.ArrayList<>();
            for (int i = 0; i < threads; i++) {
                String queue = "u-race-" + i;
                statuses.add(pool.submit(() -> {
                    start.await();
                    return enqueue("u.race", queue, List.of("race"), null, reject).status();
                }));
            }
            start.countDown();
            List<Integer> answered = new java.util.ArrayList<>();
            for (java.util.concurrent.Future<Integer> status : statuses) {
                answered.add(status.get(60, java.util.concurrent.TimeUnit.SECONDS));
            }
            assertThat(answered).containsOnly(201, 409);
            assertThat(answered.stream().filter(status -> status == 201).count()).isEqualTo(1);
        }
        finally {
            pool.shutdownNow();
        }
    }

    @Test
    void keyOrderAndUnicodeFormDoNotMakeAJobDifferent() {
        Map<String, Object> unique = Map.of("keys", List.of("type", "args"));
        Map<String, Object> ordered = new LinkedHashMap<>();
        ordered.put("name", "Ren\u00e9");
        ordered.put("city", "Caf\u00e9");
        Map<String, Object> reordered = new LinkedHashMap<>();
        reordered.put("city", "Cafe\u0301");
        reordered.put("name", "Rene\u0301");
        assertThat(enqueue("u-nfc", List.of(ordered), null, unique).status()).isEqualTo(201);
        Response decomposed = enqueue("u-nfc", List.of(reordered), null, unique);
        assertThat(decomposed.status()).as(decomposed.toString()).isEqualTo(409);
    }

    /** Jobs enqueued before args_keys existed keep their keys: a policy of whole parts hashes as it always did. */
    @Test
    void aPolicyOfWholePartsKeepsTheKeyOfEarlierVersions() {
        String id = enqueue("u-stable", List.of(Map.of("a", 1)), null, Map.of("keys", List.of("type", "args")))
                .json().path("job").path("id").asString();
        String stored = jdbc.queryForObject("SELECT unique_key FROM \"s3q_u-stable\".jobs WHERE id = ?::uuid",
                String.class, id);
        String earlier = jdbc.queryForObject(
                "SELECT md5(jsonb_build_object('type', 'u.u-stable', 'args', '[{\"a\": 1}]'::jsonb)::text)", String.class);
        assertThat(stored).isEqualTo(earlier);
    }

    @Test
    void replaceExceptScheduleKeepsTheTimeTheReplacedJobWasDue() {
        Map<String, Object> unique = Map.of("keys", List.of("type", "args"), "args_keys", List.of("user_id"),
                "on_conflict", "replace_except_schedule");
        Instant due = Instant.now().plus(Duration.ofHours(1)).truncatedTo(ChronoUnit.SECONDS);
        String first = enqueueScheduled(List.of(Map.of("user_id", 42, "message", "old")), due, unique)
                .json().path("job").path("id").asString();
        Response replacing = enqueueScheduled(List.of(Map.of("user_id", 42, "message", "new")),
                due.plus(Duration.ofHours(1)), unique);
        assertThat(replacing.status()).as(replacing.toString()).isEqualTo(201);
        JsonNode replacement = replacing.json().path("job");
        assertThat(replacement.path("args").get(0).path("message").asString()).isEqualTo("new");
        assertThat(replacement.path("state").asString()).isEqualTo("scheduled");
        assertThat(Instant.parse(replacement.path("scheduled_at").asString())).isEqualTo(due);
        assertThat(http.get("/ojs/v1/jobs/" + first).json().path("job").path("state").asString()).isEqualTo("cancelled");

        // an existing job that is not scheduled is replaced as by replace: the new job keeps its own schedule
        Map<String, Object> plain = Map.of("args_keys", List.of("user_id"), "on_conflict", "replace_except_schedule");
        String available = enqueue("u-res", List.of(Map.of("user_id", 7)), null, plain).json().path("job").path("id")
                .asString();
        Response later = enqueueScheduled(List.of(Map.of("user_id", 7)), due, plain);
        assertThat(later.status()).isEqualTo(201);
        assertThat(Instant.parse(later.json().path("job").path("scheduled_at").asString())).isEqualTo(due);
        assertThat(http.get("/ojs/v1/jobs/" + available).json().path("job").path("state").asString())
                .isEqualTo("cancelled");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "{\"keys\":[\"argz\"]}|options.unique.keys",
            "{\"keys\":[\"type\",\"meta\"]}|options.unique.meta_keys",
            "{\"keys\":[\"meta\"],\"meta_keys\":[]}|options.unique.meta_keys",
            "{\"keys\":[\"type\",\"args\"],\"args_keys\":[\"customer_id\"]}|options.unique.args_keys",
            "{\"keys\":[\"type\"],\"args_keys\":[\"order_id\"]}|options.unique.args_keys",
            "{\"keys\":[\"type\",\"type\"]}|options.unique.keys",
            "{\"keys\":\"type\"}|options.unique.keys",
            "{\"keys\":[1]}|options.unique.keys",
            "{\"states\":[\"bogus\"]}|options.unique.states",
            "{\"on_conflict\":\"explode\"}|options.unique.on_conflict",
            "{\"period\":\"P1M\"}|options.unique.period",
            "{\"period\":\"soon\"}|options.unique.period",
            "{\"period_ms\":\"300000\"}|options.unique.period_ms",
            "{\"arg_keys\":[\"order_id\"]}|options.unique.arg_keys",
            "{\"key\":[]}|options.unique.key",
            "{\"key\":[\"order_id\"],\"args_keys\":[\"order_id\"]}|options.unique.key",
            "{\"key\":{\"a\":1}}|options.unique.key" })
    void anInvalidPolicyIsA400NamingTheFieldAndWritesNothing(String unique, String field) {
        String body = "{\"type\":\"u.job\",\"args\":[{\"order_id\":\"o-1\"}],\"options\":{\"queue\":\"u-invalid\","
                + "\"unique\":" + unique + "}}";
        Response refused = http.post("/ojs/v1/jobs", body);
        assertThat(refused.status()).as(refused.toString()).isEqualTo(400);
        assertThat(refused.errorCode()).isEqualTo("invalid_request");
        assertThat(refused.json().path("error").path("details").path("field").asString()).isEqualTo(field);
        assertThat(http.post("/ojs/v1/workers/fetch", Map.of("queues", List.of("u-invalid"))).json().path("jobs"))
                .isEmpty();
        Response batch = http.post("/ojs/v1/jobs/batch", "{\"jobs\":[{\"type\":\"u.ok\",\"args\":[],\"options\":"
                + "{\"queue\":\"u-invalid\"}}," + body + "]}");
        assertThat(batch.status()).as(batch.toString()).isEqualTo(400);
        assertThat(http.post("/ojs/v1/workers/fetch", Map.of("queues", List.of("u-invalid"))).json().path("jobs"))
                .isEmpty();
    }

    @Test
    void theManifestDeclaresStrongUniqueness() {
        JsonNode unique = http.get("/ojs/manifest").json().path("capabilities").path("unique_jobs");
        assertThat(unique.path("strength").asString()).isEqualTo("strong");
        assertThat(unique.path("mechanism").asString()).contains("advisory lock");
    }

    @Test
    void aPeriodInWeeksIsSevenDaysEach() {
        Map<String, Object> unique = Map.of("period", "P1W");
        assertThat(enqueue("u-weeks", List.of(), null, unique).status()).isEqualTo(201);
        assertThat(enqueue("u-weeks", List.of(), null, unique).status()).isEqualTo(409);
    }

    /** A job of type {@code u.<queue>}, so that tests on other queues never share its fingerprint. */
    private Response enqueue(String queue, List<Object> args, Map<String, Object> meta, Map<String, Object> unique) {
        return enqueue("u." + queue, queue, args, meta, unique);
    }

    private Response enqueue(String type, String queue, List<Object> args, Map<String, Object> meta,
            Map<String, Object> unique) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("type", type);
        body.put("args", args);
        if (meta != null) {
            body.put("meta", meta);
        }
        body.put("options", Map.of("queue", queue, "unique", unique));
        return http.post("/ojs/v1/jobs", body);
    }

    private Response enqueueScheduled(List<Object> args, Instant at, Map<String, Object> unique) {
        return http.post("/ojs/v1/jobs", Map.of("type", "u.u-res", "args", args,
                "options", Map.of("queue", "u-res", "scheduled_at", at.toString(), "unique", unique)));
    }
}
