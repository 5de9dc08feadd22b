package io.pgvs3.server;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.pgvs3.test.OjsClient.Response;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import org.springframework.beans.factory.annotation.Value;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.withinPercentage;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * One queue used by both views at once: job workers and stream consumers work the same namespace concurrently over
 * HTTP, the catalog lists it once, everything of it lives in its own schema, and one DELETE removes both views.
 */
@Tag("slow")
class SharedQueueTest extends ServerTestSupport {

    private static final String QUEUE = "shared";
    private static final String SCHEMA = "s3q_" + QUEUE;
    private static final int JOBS = 300;
    private static final int MESSAGES = 300;
    private static final List<String> CONSUMERS = List.of("billing", "audit");

    @Value("${spring.datasource.password:}")
    private String password;

    /** Relations, functions and types outside the system schemas, as "kind namespace.name". */
    private static final String USER_OBJECTS = """
            SELECT 'class ' || n.nspname || '.' || c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
            WHERE n.nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast') AND n.nspname NOT LIKE 'pg_temp%'
              AND n.nspname NOT LIKE 'pg_toast_temp%'
            UNION ALL
            SELECT 'proc ' || n.nspname || '.' || p.proname || '(' || pg_get_function_identity_arguments(p.oid) || ')'
            FROM pg_proc p
            JOIN pg_namespace n ON n.oid = p.pronamespace
            WHERE n.nspname NOT IN ('pg_catalog', 'information_schema')
            UNION ALL
            SELECT 'type ' || n.nspname || '.' || t.typname FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace
            WHERE n.nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast') AND n.nspname NOT LIKE 'pg_temp%'
            """;

    @Test
    void jobWorkersAndStreamConsumersShareOneQueueAndOneDeleteRemovesBoth() throws Exception {
        assertThat(http.post("/ojs/v1/admin/reset", "").status()).isEqualTo(200);
        Set<String> before = new HashSet<>(jdbc.queryForList(USER_OBJECTS, String.class));
        for (String consumer : CONSUMERS) {
            assertThat(http.post("/ojs/v1/queues/" + QUEUE + "/consumers", Map.of("consumer", consumer)).status())
                    .isEqualTo(201);
        }

        Set<String> enqueued = ConcurrentHashMap.newKeySet();
        Set<String> acked = ConcurrentHashMap.newKeySet();
        Set<String> appended = ConcurrentHashMap.newKeySet();
        Map<String, Set<String>> received = new ConcurrentHashMap<>();
        CONSUMERS.forEach(consumer -> received.put(consumer, ConcurrentHashMap.newKeySet()));
        AtomicInteger redelivered = new AtomicInteger();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);

        List<Callable<Void>> work = new ArrayList<>();
        work.add(() -> {
            for (int i = 0; i < JOBS; i++) {
                Response response = http.post("/ojs/v1/jobs",
                        Map.of("type", "shared.work", "args", List.of(i), "options", Map.of("queue", QUEUE)));
                assertThat(response.status()).as("%s", response).isEqualTo(201);
                enqueued.add(response.json().path("job").path("id").asString());
            }
            return null;
        });
        work.add(() -> {
            for (int i = 0; i < MESSAGES; i++) {
                Response response = http.post("/ojs/v1/queues/" + QUEUE + "/messages",
                        Map.of("type", "shared.event", "payload", Map.of("n", i)));
                assertThat(response.status()).as("%s", response).isEqualTo(201);
                appended.add(response.json().path("message").path("id").asString());
            }
            return null;
        });
        for (int w = 0; w < 3; w++) {
            String worker = "worker-" + w;
            work.add(() -> {
                while (acked.size() < JOBS && System.nanoTime() < deadline) {
                    Response fetched = http.post("/ojs/v1/workers/fetch",
                            Map.of("queues", List.of(QUEUE), "count", 10, "worker_id", worker));
                    assertThat(fetched.status()).as("%s", fetched).isEqualTo(200);
                    for (JsonNode job : fetched.json().path("jobs")) {
                        String id = job.path("id").asString();
                        Response ack = http.post("/ojs/v1/workers/ack",
                                Map.of("job_id", id, "worker_id", worker, "result", Map.of("ok", true)));
                        assertThat(ack.status()).as("%s", ack).isEqualTo(200);
                        assertThat(acked.add(id)).as("job %s acked twice", id).isTrue();
                    }
                    if (fetched.json().path("jobs").isEmpty()) {
                        Thread.sleep(20);
                    }
                }
                return null;
            });
        }
        for (String consumer : CONSUMERS) {
            work.add(() -> {
                Set<String> seen = received.get(consumer);
                while (seen.size() < MESSAGES && System.nanoTime() < deadline) {
                    Response batch = http.post("/ojs/v1/queues/" + QUEUE + "/receive",
                            Map.of("consumer", consumer, "max", 1000));
                    assertThat(batch.status()).as("%s", batch).isEqualTo(200);
                    JsonNode batchId = batch.json().path("batch_id");
                    if (batchId.isNull() || batchId.isMissingNode()) {
                        Thread.sleep(20);
                        continue;
                    }
                    for (JsonNode message : batch.json().path("messages")) {
                        if (!seen.add(message.path("id").asString())) {
                            redelivered.incrementAndGet();
                        }
                    }
                    Response ack = http.post("/ojs/v1/streams/ack", Map.of("queue", QUEUE, "batch_id", batchId.asLong()));
                    assertThat(ack.status()).as("%s", ack).isEqualTo(200);
                    assertThat(ack.json().path("acked").asBoolean()).isTrue();
                }
                return null;
            });
        }
        ExecutorService pool = Executors.newFixedThreadPool(work.size());
        try {
            for (Future<Void> future : pool.invokeAll(work)) {
                future.get();
            }
        }
        finally {
            pool.shutdownNow();
        }

        assertThat(acked).hasSize(JOBS).isEqualTo(enqueued);
        assertThat(appended).hasSize(MESSAGES);
        for (String consumer : CONSUMERS) {
            assertThat(received.get(consumer)).as(consumer).isEqualTo(appended);
        }
        assertThat(redelivered).hasValue(0);
        assertThat(jdbc.queryForObject("SELECT count(*) FROM " + SCHEMA + ".jobs WHERE state = 'completed'", Long.class))
                .isEqualTo(JOBS);

        JsonNode listed = http.get("/ojs/v1/queues").json().path("queues");
        List<String> names = new ArrayList<>();
        listed.forEach(queue -> names.add(queue.path("name").asString()));
        assertThat(names).containsExactly(QUEUE);
        assertThat(listed.get(0).path("status").asString()).isEqualTo("active");
        assertThat(listed.get(0).path("paused").asBoolean()).isFalse();
        assertThat(http.post("/ojs/v1/queues/" + QUEUE + "/pause", "").status()).isEqualTo(200);
        JsonNode paused = http.get("/ojs/v1/queues").json().path("queues").get(0);
        assertThat(paused.path("status").asString()).isEqualTo("paused");
        assertThat(paused.path("paused").asBoolean()).isTrue();
        assertThat(http.post("/ojs/v1/queues/" + QUEUE + "/resume", "").status()).isEqualTo(200);
        assertEstimatedCounts(JOBS, MESSAGES);

        Set<String> created = new HashSet<>(jdbc.queryForList(USER_OBJECTS, String.class));
        created.removeAll(before);
        assertThat(created).as("objects the queue created").isNotEmpty()
                .allSatisfy(object -> assertThat(object).matches("(class|proc|type) " + SCHEMA + "\\..+"));
        assertThat(created).contains("class " + SCHEMA + ".jobs", "class " + SCHEMA + ".stream_events");
        assertThat(dependentsOutsideTheSchema()).isEmpty();
        assertThat(jdbc.queryForObject("SELECT count(*) FROM s3p.job_locations() WHERE queue = ?", Long.class, QUEUE))
                .isEqualTo(JOBS);

        Response deleted = http.delete("/ojs/v1/queues/" + QUEUE);
        assertThat(deleted.status()).as("%s", deleted).isEqualTo(200);
        assertThat(jdbc.queryForObject("SELECT count(*) FROM pg_namespace WHERE nspname = ?", Long.class, SCHEMA)).isZero();
        Set<String> left = new HashSet<>(jdbc.queryForList(USER_OBJECTS, String.class));
        left.removeAll(before);
        assertThat(left).as("objects left after the delete").isEmpty();
        assertThat(jdbc.queryForObject("SELECT count(*) FROM s3p.queues WHERE name = ?", Long.class, QUEUE)).isZero();
        assertThat(jdbc.queryForObject("SELECT count(*) FROM s3p.job_locations() WHERE queue = ?", Long.class, QUEUE)).isZero();
        for (String id : List.of(enqueued.iterator().next(), acked.iterator().next())) {
            assertThat(http.get("/ojs/v1/jobs/" + id).status()).isEqualTo(404);
            assertThat(http.post("/ojs/v1/workers/ack", Map.of("job_id", id)).status()).isEqualTo(404);
        }
        assertThat(http.get("/ojs/v1/queues/" + QUEUE + "/info").status()).isEqualTo(404);
        assertThat(http.get("/ojs/v1/queues/" + QUEUE + "/consumers").status()).isEqualTo(404);
        assertThat(http.post("/ojs/v1/queues/" + QUEUE + "/receive", Map.of("consumer", "billing")).status())
                .isEqualTo(404);
        assertThat(http.post("/ojs/v1/streams/ack", Map.of("queue", QUEUE, "batch_id", 1)).status()).isEqualTo(404);
        assertThat(http.get("/ojs/v1/queues").json().path("queues")).isEmpty();
        assertThat(http.delete("/ojs/v1/queues/" + QUEUE).status()).isEqualTo(404);
    }

    /**
     * The statistics behind the estimated counts reach the server's backends within seconds; an autovacuum ANALYZE
     * may replace the running count by a sampled estimate, so a count within 10% is what "estimated" promises.
     */
    private void assertEstimatedCounts(long jobs, long streamEvents) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        JsonNode counts;
        do {
            Thread.sleep(200);
            counts = http.get("/ojs/v1/queues").json().path("queues").get(0).path("estimated_counts");
        }
        while (!(near(counts.path("jobs").asLong(), jobs) && near(counts.path("stream_events").asLong(), streamEvents))
                && System.nanoTime() < deadline);
        assertThat(counts.path("jobs").asLong()).as("%s", counts).isCloseTo(jobs, withinPercentage(10));
        assertThat(counts.path("stream_events").asLong()).as("%s", counts).isCloseTo(streamEvents, withinPercentage(10));
    }

    private static boolean near(long actual, long expected) {
        return Math.abs(actual - expected) <= expected / 10;
    }

    /**
     * Objects outside the queue's schema that depend on an object inside it (say a trigger or a view elsewhere). A
     * dependent without a schema of its own (a column default) must name an object of the schema.
     */
    private List<String> dependentsOutsideTheSchema() {
        return jdbc.queryForList("""
                WITH inside AS (
                    SELECT 'pg_class'::regclass AS classid, c.oid FROM pg_class c
                    JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = ?
                    UNION ALL
                    SELECT 'pg_proc'::regclass, p.oid FROM pg_proc p
                    JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = ?
                    UNION ALL
                    SELECT 'pg_type'::regclass, t.oid FROM pg_type t
                    JOIN pg_namespace n ON n.oid = t.typnamespace WHERE n.nspname = ?
                    UNION ALL
                    SELECT 'pg_namespace'::regclass, n.oid FROM pg_namespace n WHERE n.nspname = ?
                )
                SELECT o.type || ' ' || o.identity
                FROM pg_depend d
                JOIN inside i ON i.classid = d.refclassid AND i.oid = d.refobjid
                CROSS JOIN LATERAL pg_identify_object(d.classid, d.objid, d.objsubid) o
                WHERE coalesce(o.schema <> ? AND o.schema <> 'pg_toast', o.identity NOT LIKE ?)
                """, String.class, SCHEMA, SCHEMA, SCHEMA, SCHEMA, SCHEMA, "%" + SCHEMA + ".%");
    }

    /** With a pg_dump of the server's major version on the PATH, a dump of the schema holds both views' tables. */
    @Test
    void aDumpOfTheQueueSchemaHoldsBothViews() throws IOException, InterruptedException, SQLException {
        String queue = "dumped";
        String schema = "s3q_" + queue;
        assertThat(http.post("/ojs/v1/jobs", Map.of("type", "t", "args", List.of(1), "options", Map.of("queue", queue)))
                .status()).isEqualTo(201);
        assertThat(http.post("/ojs/v1/queues/" + queue + "/messages", Map.of("type", "e", "payload", 1)).status())
                .isEqualTo(201);
        Integer serverMajor = jdbc.queryForObject("SELECT current_setting('server_version_num')::int / 10000",
                Integer.class);
        Integer dumpMajor = pgDumpMajorVersion();
        assumeTrue(dumpMajor != null && dumpMajor.equals(serverMajor),
                "no pg_dump " + serverMajor + " on the PATH (found " + dumpMajor + "); the dump check is skipped");
        String url;
        String user;
        try (Connection connection = jdbc.getDataSource().getConnection()) {
            url = connection.getMetaData().getURL();
            user = connection.getMetaData().getUserName();
        }
        URI uri = URI.create(url.substring("jdbc:".length()));
        String database = uri.getPath().substring(1);
        Path out = Files.createTempFile("pgvs3-shared-", ".sql");
        try {
            ProcessBuilder builder = new ProcessBuilder("pg_dump", "-w", "-h", uri.getHost(), "-p",
                    String.valueOf(uri.getPort() < 0 ? 5432 : uri.getPort()), "-U", user, "-n", schema, "-f",
                    out.toString(), database)
                    .redirectErrorStream(true);
            if (password != null && !password.isEmpty()) {
                // the embedded test PostgreSQL asks for its generated password
                builder.environment().put("PGPASSWORD", password);
            }
            Process dump = builder.start();
            String output = new String(dump.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(dump.waitFor(60, TimeUnit.SECONDS)).isTrue();
            assertThat(dump.exitValue()).as(output).isZero();
            String sql = Files.readString(out);
            assertThat(sql).contains("CREATE TABLE " + schema + ".jobs (", "CREATE TABLE " + schema + ".stream_events",
                    "CREATE FUNCTION " + schema + ".claim_rows(", "COPY " + schema + ".jobs ");
            assertThat(sql).doesNotContain("CREATE TABLE s3p.");
        }
        finally {
            Files.deleteIfExists(out);
        }
    }

    private static Integer pgDumpMajorVersion() throws InterruptedException {
        try {
            Process version = new ProcessBuilder("pg_dump", "--version").redirectErrorStream(true).start();
            String text = new String(version.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            version.waitFor(10, TimeUnit.SECONDS);
            java.util.regex.Matcher matcher = java.util.regex.Pattern.compile("(\\d+)(\\.\\d+)?").matcher(text);
            return matcher.find() ? Integer.valueOf(matcher.group(1)) : null;
        }
        catch (IOException ex) {
            return null;
        }
    }
}
