package io.pgvs3.spring.cluster;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import com.zaxxer.hikari.HikariDataSource;
import io.pgvs3.core.cluster.ClusterRouter;
import io.pgvs3.core.job.CronStore;
import io.pgvs3.core.job.Job;
import io.pgvs3.core.job.JobState;
import io.pgvs3.embedded.EmbeddedPostgres;
import io.pgvs3.spring.annotation.JobHandler;
import io.pgvs3.spring.annotation.StreamListener;
import io.pgvs3.spring.it.TestApps;
import io.pgvs3.spring.maintenance.ClusterMaintenance;
import io.pgvs3.spring.metrics.QueueStatsSampler;
import io.pgvs3.spring.template.JobOptions;
import io.pgvs3.spring.template.JobTemplate;
import io.pgvs3.spring.template.StreamTemplate;
import io.pgvs3.test.OjsClient;
import io.pgvs3.test.TestDatabase;
import io.pgvs3.test.TestPostgres;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * An application with the starter on two PostgreSQL servers: the tests' server as the default cluster and a second
 * embedded server as cluster {@code second}, holding the queues {@code orders-*} and {@code audit}. Every check of
 * where something lives reads the two servers directly.
 */
@Tag("slow")
class ClusterRoutingTests {

    private static Path secondDirectory;
    private static EmbeddedPostgres secondServer;
    private static TestDatabase database;
    private static ConfigurableApplicationContext context;
    private static JdbcTemplate first;
    private static JdbcTemplate second;
    private static HikariDataSource secondInspector;
    private static OjsClient http;

    @BeforeAll
    static void start() throws IOException {
        secondDirectory = Files.createTempDirectory("pgvs3-second-cluster-");
        secondServer = EmbeddedPostgres.builder().dataDirectory(secondDirectory)
                .serverConfig("fsync", "off").serverConfig("synchronous_commit", "off")
                .serverConfig("max_connections", "50").start();
        database = TestPostgres.get().newDatabase();
        context = new SpringApplicationBuilder(RoutedApp.class).run(properties(
                "--pgvs3.clusters.second.url=" + secondServer.jdbcUrl("postgres"),
                "--pgvs3.clusters.second.username=" + secondServer.username(),
                "--pgvs3.clusters.second.password=" + secondServer.password(),
                "--pgvs3.clusters.second.maximum-pool-size=8",
                "--pgvs3.clusters.second.queues=orders-*,audit"));
        first = new JdbcTemplate(context.getBean(javax.sql.DataSource.class));
        secondInspector = new HikariDataSource();
        secondInspector.setJdbcUrl(secondServer.jdbcUrl("postgres"));
        secondInspector.setUsername(secondServer.username());
        secondInspector.setPassword(secondServer.password());
        secondInspector.setMaximumPoolSize(2);
        second = new JdbcTemplate(secondInspector);
        http = OjsClient.forPort(((WebServerApplicationContext) context).getWebServer().getPort());
    }

    static String[] properties(String... more) {
        List<String> args = new ArrayList<>(List.of("--spring.datasource.hikari.maximum-pool-size=8",
                "--pgvs3.maintenance.interval=100ms", "--pgvs3.listener.listen-poll-interval=60s"));
        args.addAll(List.of(more));
        return TestApps.webProperties(database, args.toArray(String[]::new));
    }

    @AfterAll
    static void stop() throws IOException {
        if (context != null) {
            context.close();
        }
        if (secondInspector != null) {
            secondInspector.close();
        }
        if (secondServer != null) {
            secondServer.close();
        }
        try (Stream<Path> paths = Files.walk(secondDirectory)) {
            paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        }
    }

    @Test
    void aJobOnARoutedQueueLivesOnTheSecondServerFromEnqueueToAck() {
        OjsClient.Response enqueued = http.post("/ojs/v1/jobs",
                Map.of("type", "invoice.send", "args", List.of(1), "queue", "orders-eu"));
        assertThat(enqueued.status()).isEqualTo(201);
        String id = enqueued.json().path("job").path("id").asString();
        assertThat(located(second, id)).isEqualTo("orders-eu");
        assertThat(located(first, id)).isNull();
        assertThat(schemaExists(second, "orders-eu")).isTrue();
        assertThat(schemaExists(first, "orders-eu")).isFalse();

        OjsClient.Response byId = http.get("/ojs/v1/jobs/" + id);
        assertThat(byId.status()).isEqualTo(200);
        assertThat(byId.json().path("job").path("queue").asString()).isEqualTo("orders-eu");

        OjsClient.Response fetched = http.post("/ojs/v1/workers/fetch",
                Map.of("queues", List.of("orders-eu"), "worker_id", "w1"));
        assertThat(fetched.json().path("jobs").get(0).path("id").asString()).isEqualTo(id);
        OjsClient.Response acked = http.post("/ojs/v1/workers/ack",
                Map.of("job_id", id, "worker_id", "w1", "result", Map.of("ok", true)));
        assertThat(acked.status()).isEqualTo(200);
        assertThat(http.get("/ojs/v1/jobs/" + id).json().path("job").path("state").asString())
                .isEqualTo("completed");
        assertThat(second.queryForObject("SELECT state FROM \"s3q_orders-eu\".jobs WHERE id = ?::uuid", String.class,
                id)).isEqualTo("completed");

        String failing = enqueue("orders-eu", "w");
        http.post("/ojs/v1/workers/fetch", Map.of("queues", List.of("orders-eu"), "worker_id", "w1"));
        OjsClient.Response nacked = http.post("/ojs/v1/workers/nack", Map.of("job_id", failing, "worker_id", "w1",
                "error", Map.of("code", "boom", "message", "failed"), "requeue", true));
        assertThat(nacked.status()).isEqualTo(200);
        assertThat(second.queryForObject("SELECT state FROM \"s3q_orders-eu\".jobs WHERE id = ?::uuid", String.class,
                failing)).isEqualTo("available");
        assertThat(http.delete("/ojs/v1/jobs/" + failing).status()).isEqualTo(200);
        assertThat(second.queryForObject("SELECT state FROM \"s3q_orders-eu\".jobs WHERE id = ?::uuid", String.class,
                failing)).isEqualTo("cancelled");

        String unknown = java.util.UUID.randomUUID().toString();
        assertThat(http.get("/ojs/v1/jobs/" + unknown).status()).isEqualTo(404);
        OjsClient.Response ackUnknown = http.post("/ojs/v1/workers/ack", Map.of("job_id", unknown));
        assertThat(ackUnknown.status()).isEqualTo(404);
        assertThat(ackUnknown.errorCode()).isEqualTo("not_found");
    }

    @Test
    void aFetchAcrossClustersVisitsThemInTheOrderOfTheFirstQueueEachHolds() {
        String plain = enqueue("plain-x", "w");
        String routed = enqueue("orders-x", "w");
        String plainLater = enqueue("plain-y", "w");
        assertThat(located(first, plain)).isEqualTo("plain-x");
        assertThat(located(second, routed)).isEqualTo("orders-x");

        // the default cluster holds the first queue named, so its two queues are drained before the second cluster
        JsonNode jobs = http.post("/ojs/v1/workers/fetch", Map.of("queues", List.of("plain-x", "orders-x", "plain-y"),
                "count", 10, "worker_id", "w2")).json().path("jobs");
        assertThat(jobs.valueStream().map(job -> job.path("id").asString()).toList())
                .containsExactly(plain, plainLater, routed);

        OjsClient.Response heartbeat = http.post("/ojs/v1/workers/heartbeat",
                Map.of("worker_id", "w2", "active_jobs", List.of(plain, routed, plainLater)));
        assertThat(heartbeat.json().path("jobs_extended").valueStream().map(JsonNode::asString).toList())
                .containsExactlyInAnyOrder(plain, routed, plainLater);
        for (String id : List.of(plain, routed, plainLater)) {
            assertThat(http.post("/ojs/v1/workers/ack", Map.of("job_id", id, "worker_id", "w2")).status())
                    .isEqualTo(200);
        }

        String routedFirst = enqueue("orders-x", "w");
        String plainSecond = enqueue("plain-x", "w");
        JsonNode one = http.post("/ojs/v1/workers/fetch", Map.of("queues", List.of("orders-x", "plain-x"),
                "count", 1, "worker_id", "w3")).json().path("jobs");
        assertThat(one.valueStream().map(job -> job.path("id").asString()).toList()).containsExactly(routedFirst);
        JsonNode rest = http.post("/ojs/v1/workers/fetch", Map.of("queues", List.of("orders-x", "plain-x"),
                "count", 5, "worker_id", "w3")).json().path("jobs");
        assertThat(rest.valueStream().map(job -> job.path("id").asString()).toList()).containsExactly(plainSecond);
    }

    @Test
    void streamEventsOfARoutedQueueAreAppendedReceivedAndAckedOnTheSecondServer() {
        assertThat(http.post("/ojs/v1/queues/orders-s/consumers", Map.of("consumer", "c1")).status()).isEqualTo(201);
        OjsClient.Response appended = http.post("/ojs/v1/queues/orders-s/messages/batch", Map.of("messages",
                List.of(Map.of("type", "t", "payload", Map.of("n", 1)), Map.of("type", "t", "payload", Map.of("n", 2)))));
        assertThat(appended.status()).isEqualTo(201);
        assertThat(schemaExists(second, "orders-s")).isTrue();
        assertThat(schemaExists(first, "orders-s")).isFalse();

        // the appends become visible with the second cluster's next tick
        JsonNode batch = http.post("/ojs/v1/queues/orders-s/receive", Map.of("consumer", "c1", "max", 10,
                "wait_ms", 5000)).json();
        assertThat(batch.path("messages").size()).isEqualTo(2);
        long batchId = batch.path("batch_id").asLong();
        assertThat(second.queryForObject("SELECT count(*) FROM \"s3q_orders-s\".stream_events", Long.class))
                .isEqualTo(2);
        assertThat(http.get("/ojs/v1/queues/orders-s/batches/" + batchId).status()).isEqualTo(200);
        OjsClient.Response acked = http.post("/ojs/v1/streams/ack", Map.of("queue", "orders-s", "batch_id", batchId));
        assertThat(acked.json().path("acked").asBoolean()).isTrue();
        assertThat(http.get("/ojs/v1/queues/orders-s/batches/" + batchId).status()).isEqualTo(404);
    }

    @Test
    void aLongPollOnARoutedQueueIsWokenByAnAppend() throws Exception {
        http.post("/ojs/v1/queues/orders-lp/consumers", Map.of("consumer", "waiter"));
        long started = System.nanoTime();
        CompletableFuture<OjsClient.Response> waiting = CompletableFuture.supplyAsync(() -> http.post(
                "/ojs/v1/queues/orders-lp/receive", Map.of("consumer", "waiter", "wait_ms", 20_000)));
        // the receive is waiting once the second cluster's hub LISTENs to the queue's channel
        await().atMost(Duration.ofSeconds(10)).until(() -> second.queryForObject(
                "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'pgvs3-notifications'",
                Long.class) > 0 && !waiting.isDone());
        Thread.sleep(300);
        assertThat(waiting).isNotDone();
        long appended = System.nanoTime();
        context.getBean(StreamTemplate.class).append("orders-lp", "ping", Map.of("n", 7));
        OjsClient.Response answer = waiting.get(15, TimeUnit.SECONDS);
        assertThat(answer.json().path("messages").size()).isEqualTo(1);
        // woken by the second cluster's notifications, well before the wait (capped at pgvs3.streams.max-wait, 5s)
        // would have ended it
        assertThat(Duration.ofNanos(System.nanoTime() - appended)).isLessThan(Duration.ofSeconds(3));
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofMillis(4_500));
    }

    @Test
    void theSampledJobDepthCoversQueuesOfBothClusters() {
        enqueue("plain-sampled", "w");
        enqueue("orders-sampled", "w");
        enqueue("orders-sampled", "w");
        QueueStatsSampler.Snapshot sample = context.getBean(QueueStatsSampler.class).sample();
        assertThat(sample.jobDepth().get("plain-sampled")).containsEntry("available", 1L);
        assertThat(sample.jobDepth().get("orders-sampled")).containsEntry("available", 2L);
    }

    @Test
    void theQueueListMergesBothClusters() {
        enqueue("plain-listed", "w");
        enqueue("orders-listed", "w");
        JsonNode queues = http.get("/ojs/v1/queues?limit=1000").json().path("queues");
        Map<String, String> clusters = new java.util.HashMap<>();
        queues.forEach(queue -> clusters.put(queue.path("name").asString(), queue.path("cluster").asString()));
        assertThat(clusters).containsEntry("plain-listed", "default").containsEntry("orders-listed", "second");
        List<String> names = queues.valueStream().map(queue -> queue.path("name").asString()).toList();
        assertThat(names).isSorted();
        long total = first.queryForObject("SELECT count(*) FROM s3p.queues", Long.class)
                + second.queryForObject("SELECT count(*) FROM s3p.queues", Long.class);
        assertThat(http.get("/ojs/v1/queues?limit=1").json().path("pagination").path("total").asLong())
                .isEqualTo(total);
        assertThat(http.get("/ojs/v1/queues/orders-listed/stats").status()).isEqualTo(200);
    }

    @Test
    void listenersOfRoutedQueuesConsumeFromTheSecondServer() {
        Handled handled = context.getBean(Handled.class);
        JobTemplate jobs = context.getBean(JobTemplate.class);
        Job job = jobs.enqueue("audit.record", "entry-1", JobOptions.queue("audit"));
        assertThat(located(second, job.id())).isEqualTo("audit");
        context.getBean(StreamTemplate.class).append("orders-feed", "order", Map.of("id", "o-1"));
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
            assertThat(handled.jobs).containsExactly("entry-1");
            assertThat(handled.events).containsExactly("o-1");
            assertThat(jobs.get(job.id())).map(Job::state).contains(JobState.COMPLETED);
        });
        assertThat(second.queryForObject("SELECT count(*) FROM \"s3q_orders-feed\".stream_subscriptions", Long.class))
                .isEqualTo(1);
    }

    @Test
    void onlyTheDefaultClusterJoinsTheCallersTransaction() {
        JobTemplate jobs = context.getBean(JobTemplate.class);
        List<String> ids = new CopyOnWriteArrayList<>();
        TransactionTemplate transaction = new TransactionTemplate(
                new org.springframework.jdbc.datasource.DataSourceTransactionManager(
                        context.getBean(javax.sql.DataSource.class)));
        transaction.executeWithoutResult(status -> {
            ids.add(jobs.enqueue("t", 1, JobOptions.queue("plain-tx")).id());
            ids.add(jobs.enqueue("t", 2, JobOptions.queue("orders-tx")).id());
            status.setRollbackOnly();
        });
        assertThat(jobs.get(ids.get(0))).isEmpty();
        assertThat(jobs.get(ids.get(1))).isPresent();
    }

    @Test
    void whatMustStayOnOneClusterIsRefusedWhenItSpansTwo() {
        OjsClient.Response batch = http.post("/ojs/v1/jobs/batch", Map.of("jobs", List.of(
                Map.of("type", "t", "args", List.of(), "queue", "plain-b"),
                Map.of("type", "t", "args", List.of(), "queue", "orders-b"))));
        assertThat(batch.status()).isEqualTo(400);
        assertThat(batch.errorCode()).isEqualTo("invalid_request");
        assertThat(schemaExists(first, "plain-b")).isFalse();
        assertThat(schemaExists(second, "orders-b")).isFalse();

        OjsClient.Response workflow = http.post("/ojs/v1/workflows", Map.of("type", "chain", "steps", List.of(
                Map.of("type", "t", "args", List.of(), "queue", "plain-w"),
                Map.of("type", "t", "args", List.of(), "queue", "orders-w"))));
        assertThat(workflow.status()).isEqualTo(400);
        assertThat(workflow.text()).contains("orders-w").contains("second");
        assertThat(first.queryForObject("SELECT count(*) FROM s3p.workflows", Long.class)).isZero();
    }

    @Test
    void aCronOfARoutedQueueEnqueuesOnTheSecondServer() {
        CronStore crons = context.getBean(CronStore.class);
        crons.register("nightly-orders", "0 3 * * *", "UTC", "allow",
                OjsClient.mapper().readTree("{\"type\":\"report\",\"args\":[],\"queue\":\"orders-cron\"}"));
        first.update("UPDATE s3p.crons SET next_run_at = now() - interval '1 second' WHERE name = 'nightly-orders'");
        await().atMost(Duration.ofSeconds(10)).until(() -> second.queryForObject(
                "SELECT count(*) FROM s3p.job_locations() WHERE queue = 'orders-cron'", Long.class) == 1);
        assertThat(first.queryForObject("SELECT count(*) FROM s3p.job_locations() WHERE queue = 'orders-cron'",
                Long.class)).isZero();
    }

    @Test
    void eachClusterIsMaintainedAndReportsItsHealth() {
        ClusterMaintenance maintenance = context.getBean(ClusterMaintenance.class);
        await().atMost(Duration.ofSeconds(10))
                .until(() -> maintenance.scheduler("second").lastCompletedAt() != null);
        // a delayed job on the second cluster is made available by that cluster's pass
        String id = context.getBean(JobTemplate.class)
                .enqueue("later", 1, JobOptions.queue("orders-delayed").delay(Duration.ofMillis(200))).id();
        await().atMost(Duration.ofSeconds(10)).until(() -> "available".equals(second.queryForObject(
                "SELECT state FROM \"s3q_orders-delayed\".jobs WHERE id = ?::uuid", String.class, id)));
        CompositeHealthContributor clusters = context.getBean("pgvs3ClustersHealthContributor",
                CompositeHealthContributor.class);
        assertThat(((HealthIndicator) clusters.getContributor("second")).health().getStatus()).isEqualTo(Status.UP);
        assertThat(context.getBean(ClusterRouter.class).clusters()).extracting(c -> c.name())
                .containsExactly("default", "second");
    }

    @Test
    void badClusterConfigurationStopsStartup() {
        String url = "--pgvs3.clusters.b.url=" + secondServer.jdbcUrl("postgres");
        assertStartupFails("queue pattern 'orders-*' is listed under two clusters",
                "--pgvs3.clusters.a.url=" + secondServer.jdbcUrl("postgres"), "--pgvs3.clusters.a.queues=orders-*",
                url, "--pgvs3.clusters.b.queues=orders-*");
        assertStartupFails("'Orders_*' is not a queue name or pattern", url, "--pgvs3.clusters.b.queues=Orders_*");
    }

    @Test
    void aTransactionalListenerOfARoutedQueueDoesNotStart() {
        String[] args = properties("--pgvs3.clusters.second.url=" + secondServer.jdbcUrl("postgres"),
                "--pgvs3.clusters.second.username=" + secondServer.username(),
                "--pgvs3.clusters.second.password=" + secondServer.password(),
                "--pgvs3.clusters.second.queues=orders-*", "--spring.main.web-application-type=none");
        assertThatThrownBy(() -> new SpringApplicationBuilder(TransactionalApp.class).run(args)
                .close()).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("is transactional, but its queue orders-tx-listened is on cluster 'second'");
    }

    private static void assertStartupFails(String message, String... clusterProperties) {
        List<String> args = new ArrayList<>(List.of(clusterProperties));
        args.add("--spring.main.web-application-type=none");
        String[] arguments = properties(args.toArray(String[]::new));
        assertThatThrownBy(() -> new SpringApplicationBuilder(BareApp.class).run(arguments)
                .close()).hasRootCauseInstanceOf(ClusterConfigurationException.class)
                .rootCause().hasMessageContaining(message);
    }

    private static String enqueue(String queue, String type) {
        OjsClient.Response response = http.post("/ojs/v1/jobs", Map.of("type", type, "args", List.of(), "queue", queue));
        assertThat(response.status()).isEqualTo(201);
        return response.json().path("job").path("id").asString();
    }

    private static String located(JdbcTemplate jdbc, String id) {
        List<String> queues = jdbc.queryForList("SELECT queue FROM s3p.job_locations() WHERE id = ?::uuid", String.class,
                id);
        return queues.isEmpty() ? null : queues.get(0);
    }

    private static boolean schemaExists(JdbcTemplate jdbc, String queue) {
        return Boolean.TRUE.equals(jdbc.queryForObject(
                "SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = ?)", Boolean.class, "s3q_" + queue));
    }

    @SpringBootApplication
    static class RoutedApp {

        @Bean
        Handled handled() {
            return new Handled();
        }
    }

    /** The same application without listeners, for the configurations that must not start. */
    @SpringBootApplication
    static class BareApp {
    }

    /** An application whose transactional listener consumes a queue of the second cluster. */
    @SpringBootApplication
    static class TransactionalApp {

        @Bean
        TransactionalListener transactionalListener() {
            return new TransactionalListener();
        }
    }

    static class TransactionalListener {

        @StreamListener(queue = "orders-tx-listened", consumer = "writer", transactional = true)
        void write(Map<String, String> order) {
        }
    }

    static class Handled {

        final List<String> jobs = new CopyOnWriteArrayList<>();
        final List<String> events = new CopyOnWriteArrayList<>();

        @JobHandler(type = "audit.record", queue = "audit")
        void record(String entry) {
            jobs.add(entry);
        }

        @StreamListener(queue = "orders-feed", consumer = "shipping", startFrom = "earliest")
        void ship(Map<String, String> order) {
            events.add(order.get("id"));
        }
    }
}
