package io.pgvs3.server.scaleout;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import com.zaxxer.hikari.HikariDataSource;
import io.pgvs3.test.OjsClient;
import io.pgvs3.test.OjsClient.Response;
import io.pgvs3.test.TestDatabase;
import io.pgvs3.test.TestPostgres;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Three server jars ({@code target/pgvs3-server.jar}, each in a JVM of its own) on one database, used the way a
 * load balancer spreads calls: every call may reach any server, so a job fetched from one server is acked on
 * another, an event appended through one is received through the others, and a receive waiting on one server is
 * woken by an append taken by another. Each server runs its own maintenance schedule; the passes take turns on the
 * maintenance lock, so the one cron entry fires once a minute, not once per server. An integration test, so that
 * it runs after the unit tests' JVM (and the connections of its cached application contexts) is gone.
 */
class ThreeServersOneDatabaseIT {

    private static final Duration STARTUP = Duration.ofMinutes(4);
    private static final Duration WORKLOAD = Duration.ofMinutes(3);
    private static final int SERVERS = 3;
    private static final int JOBS = 900;
    private static final int EVENTS = 900;
    private static final List<String> CONSUMERS = List.of("audit", "billing");

    @TempDir
    Path logs;

    private final List<Process> processes = new ArrayList<>();
    private final List<OjsClient> servers = new ArrayList<>();

    @AfterEach
    void stopServers() throws InterruptedException {
        for (Process process : processes) {
            process.destroy();
        }
        for (Process process : processes) {
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        }
    }

    @Test
    void jobsCompleteOnceEventsReachEveryConsumerAndCronFiresOnceWhateverServerTakesEachCall() throws Exception {
        TestDatabase database = TestPostgres.get().newDatabase();
        startServers(database);

        Response cron = server(0).post("/ojs/v1/cron", Map.of("name", "every-minute", "expression", "* * * * *",
                "job_template", Map.of("type", "minute.tick", "args", List.of(), "options", Map.of("queue", "ticks"))));
        assertThat(cron.status()).as(cron.text()).isEqualTo(201);
        Instant cronRegistered = Instant.now();

        for (String consumer : CONSUMERS) {
            Response subscribed = server(1).post("/ojs/v1/queues/events/consumers", Map.of("consumer", consumer));
            assertThat(subscribed.status()).as(subscribed.text()).isEqualTo(201);
        }
        assertAnAppendOnOneServerWakesAReceiveWaitingOnAnother();

        Set<String> enqueued = ConcurrentHashMap.newKeySet();
        Map<String, AtomicInteger> fetched = new ConcurrentHashMap<>();
        Set<String> completed = ConcurrentHashMap.newKeySet();
        Set<String> appended = ConcurrentHashMap.newKeySet();
        Map<String, Map<String, AtomicInteger>> delivered = new ConcurrentHashMap<>();
        CONSUMERS.forEach(consumer -> delivered.put(consumer, new ConcurrentHashMap<>()));
        AtomicBoolean producing = new AtomicBoolean(true);
        Instant deadline = Instant.now().plus(WORKLOAD);

        ExecutorService threads = Executors.newCachedThreadPool();
        List<Future<?>> producers = new ArrayList<>();
        List<Future<?>> consumers = new ArrayList<>();
        for (int s = 0; s < SERVERS; s++) {
            int index = s;
            producers.add(threads.submit(() -> enqueueJobs(server(index), index, enqueued)));
            producers.add(threads.submit(() -> appendEvents(server(index), index, appended)));
        }
        for (int s = 0; s < SERVERS; s++) {
            for (int w = 0; w < 2; w++) {
                int index = s;
                String worker = "worker-" + s + "-" + w;
                consumers.add(threads.submit(() -> work(index, worker, fetched, completed, deadline)));
            }
        }
        for (String consumer : CONSUMERS) {
            for (int m = 0; m < SERVERS; m++) {
                int index = m;
                consumers.add(threads.submit(() -> consume(index, consumer, "member-" + index, delivered.get(consumer),
                        appended, producing, deadline)));
            }
        }
        for (Future<?> producer : producers) {
            producer.get(WORKLOAD.toSeconds(), TimeUnit.SECONDS);
        }
        producing.set(false);
        for (Future<?> consumer : consumers) {
            consumer.get(WORKLOAD.toSeconds() + 60, TimeUnit.SECONDS);
        }
        threads.shutdown();

        assertThat(enqueued).hasSize(JOBS);
        assertThat(completed).as("every job completed").isEqualTo(enqueued);
        assertThat(fetched.entrySet()).as("no job handed out twice").allSatisfy(entry ->
                assertThat(entry.getValue().get()).as(entry.getKey()).isEqualTo(1));
        assertThat(appended).hasSize(EVENTS);
        for (String consumer : CONSUMERS) {
            Map<String, AtomicInteger> received = delivered.get(consumer);
            assertThat(received.keySet()).as("every event reached " + consumer).isEqualTo(appended);
            assertThat(received.entrySet()).as(consumer + " received each event once").allSatisfy(entry ->
                    assertThat(entry.getValue().get()).as(entry.getKey()).isEqualTo(1));
        }

        try (HikariDataSource dataSource = database.newDataSource(1)) {
            assertThat(count(dataSource, "SELECT count(*) FROM \"s3q_jobs\".jobs WHERE state = 'completed'"))
                    .isEqualTo(JOBS);
            assertCronFiredOncePerMinute(dataSource, cronRegistered);
        }
    }

    private void assertAnAppendOnOneServerWakesAReceiveWaitingOnAnother() throws Exception {
        server(2).post("/ojs/v1/queues/wake/consumers", Map.of("consumer", "c"));
        ExecutorService client = Executors.newSingleThreadExecutor();
        CountDownLatch sending = new CountDownLatch(1);
        Future<Response> waiting = client.submit(() -> {
            sending.countDown();
            return server(0).post("/ojs/v1/queues/wake/receive", Map.of("consumer", "c", "wait_ms", 25_000));
        });
        sending.await();
        Thread.sleep(1_000);
        assertThat(waiting.isDone()).as("the receive waits").isFalse();
        long appendedAt = System.nanoTime();
        assertThat(server(2).post("/ojs/v1/queues/wake/messages", Map.of("type", "t", "payload", 1)).status())
                .isEqualTo(201);
        Response woken = waiting.get(30, TimeUnit.SECONDS);
        long wokenAfterMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - appendedAt);
        client.shutdown();
        assertThat(woken.json().path("messages")).hasSize(1);
        // far below the 25 s wait: the waiting server was notified of the other server's append
        assertThat(wokenAfterMs).isLessThan(10_000);
    }

    private void enqueueJobs(OjsClient server, int index, Set<String> enqueued) {
        int perServer = JOBS / SERVERS;
        for (int sent = 0; sent < perServer; sent += 50) {
            List<Map<String, Object>> jobs = new ArrayList<>();
            for (int i = sent; i < sent + 50; i++) {
                jobs.add(Map.of("type", "spread.job", "args", List.of(index, i), "options", Map.of("queue", "jobs")));
            }
            Response response = server.post("/ojs/v1/jobs/batch", Map.of("jobs", jobs));
            assertThat(response.status()).as(response.text()).isEqualTo(201);
            response.json().path("jobs").forEach(job -> enqueued.add(job.path("id").asString()));
        }
    }

    private void appendEvents(OjsClient server, int index, Set<String> appended) {
        int perServer = EVENTS / SERVERS;
        for (int sent = 0; sent < perServer; sent += 20) {
            List<Map<String, Object>> messages = new ArrayList<>();
            for (int i = sent; i < sent + 20; i++) {
                messages.add(Map.of("type", "spread.event", "payload", Map.of("server", index, "n", i)));
            }
            Response response = server.post("/ojs/v1/queues/events/messages/batch", Map.of("messages", messages));
            assertThat(response.status()).as(response.text()).isEqualTo(201);
            response.json().path("messages").forEach(message -> appended.add(message.path("id").asString()));
        }
    }

    /** Fetches from one server and acks each job on the next, until every job has completed. */
    private void work(int index, String worker, Map<String, AtomicInteger> fetched, Set<String> completed,
            Instant deadline) {
        OjsClient fetchFrom = server(index);
        OjsClient ackOn = server((index + 1) % SERVERS);
        while (completed.size() < JOBS && Instant.now().isBefore(deadline)) {
            Response response = fetchFrom.post("/ojs/v1/workers/fetch", Map.of("queues", List.of("jobs"), "count", 5,
                    "worker_id", worker, "visibility_timeout_ms", 300_000));
            assertThat(response.status()).as(response.text()).isEqualTo(200);
            JsonNode jobs = response.json().path("jobs");
            if (jobs.isEmpty()) {
                sleep(50);
                continue;
            }
            for (JsonNode job : jobs) {
                String id = job.path("id").asString();
                fetched.computeIfAbsent(id, key -> new AtomicInteger()).incrementAndGet();
                Response ack = ackOn.post("/ojs/v1/workers/ack", Map.of("job_id", id, "worker_id", worker));
                assertThat(ack.status()).as(ack.text()).isEqualTo(200);
                completed.add(id);
            }
        }
    }

    /**
     * One member of a consumer: long-polls one server and acks each batch on the next, until the producers have
     * stopped and the consumer (all its members) has received every appended event.
     */
    private void consume(int index, String consumer, String member, Map<String, AtomicInteger> received,
            Set<String> appended, AtomicBoolean producing, Instant deadline) {
        OjsClient receiveFrom = server(index);
        OjsClient ackOn = server((index + 1) % SERVERS);
        while (Instant.now().isBefore(deadline) && (producing.get() || !received.keySet().containsAll(appended))) {
            Response response = receiveFrom.post("/ojs/v1/queues/events/receive", Map.of("consumer", consumer,
                    "member", member, "max", 50, "wait_ms", 1_000));
            assertThat(response.status()).as(response.text()).isEqualTo(200);
            JsonNode messages = response.json().path("messages");
            if (messages.isEmpty()) {
                continue;
            }
            messages.forEach(message -> received.computeIfAbsent(message.path("id").asString(),
                    key -> new AtomicInteger()).incrementAndGet());
            Response ack = ackOn.post("/ojs/v1/streams/ack", Map.of("queue", "events", "batch_id",
                    response.json().path("batch_id").asLong()));
            assertThat(ack.json().path("acked").asBoolean()).as(ack.text()).isTrue();
        }
    }

    /** Waits for the first minute the cron entry was due in to pass, then checks each due minute made one job. */
    private static void assertCronFiredOncePerMinute(HikariDataSource dataSource, Instant registered)
            throws SQLException, InterruptedException {
        Instant firstDue = registered.plusSeconds(60 - registered.getEpochSecond() % 60);
        // three servers' maintenance passes (every 200 ms each) have had several seconds past the minute to fire it
        Instant settled = firstDue.plusSeconds(8);
        while (Instant.now().isBefore(settled)) {
            Thread.sleep(500);
        }
        Map<Long, Long> perMinute = new HashMap<>();
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("SELECT extract(epoch FROM date_trunc('minute', created_at))"
                        + "::bigint, count(*) FROM \"s3q_ticks\".jobs GROUP BY 1")) {
            while (rows.next()) {
                perMinute.put(rows.getLong(1), rows.getLong(2));
            }
        }
        assertThat(perMinute).as("jobs made by the cron entry per minute").containsKey(firstDue.getEpochSecond());
        assertThat(perMinute.values()).as("one job per minute, not one per server").allMatch(jobs -> jobs == 1);
    }

    private static long count(HikariDataSource dataSource, String sql) throws SQLException {
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery(sql)) {
            rows.next();
            return rows.getLong(1);
        }
    }

    private OjsClient server(int index) {
        return servers.get(index);
    }

    private void startServers(TestDatabase database) throws Exception {
        List<Integer> ports = new ArrayList<>();
        for (int s = 0; s < SERVERS; s++) {
            int port = freePort();
            ports.add(port);
            processes.add(start(database, port, "server-" + s));
            servers.add(OjsClient.forPort(port));
        }
        for (int s = 0; s < SERVERS; s++) {
            awaitHealthy(processes.get(s), servers.get(s), logs.resolve("server-" + s + ".log"));
        }
    }

    private Process start(TestDatabase database, int port, String name) throws IOException {
        Path jar = Path.of("target", "pgvs3-server.jar");
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException(jar.toAbsolutePath() + " is missing: run the package phase first");
        }
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command = new ArrayList<>(List.of(java, "-Xmx384m", "-jar", jar.toString(), "--server.port=" + port,
                "--spring.datasource.url=" + database.jdbcUrl(), "--pgvs3.maintenance.interval=200ms",
                // three servers on a PostgreSQL of 100 connections
                "--spring.datasource.hikari.maximum-pool-size=6", "--spring.datasource.hikari.minimum-idle=1"));
        if (database.username() != null) {
            command.add("--spring.datasource.username=" + database.username());
        }
        if (database.password() != null) {
            command.add("--spring.datasource.password=" + database.password());
        }
        return new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(logs.resolve(name + ".log").toFile()).start();
    }

    private static void awaitHealthy(Process process, OjsClient http, Path log) throws Exception {
        long deadline = System.nanoTime() + STARTUP.toNanos();
        while (System.nanoTime() < deadline && process.isAlive()) {
            try {
                if (http.get("/ojs/v1/health").status() == 200) {
                    return;
                }
            }
            catch (UncheckedIOException notYetListening) {
                // starting
            }
            Thread.sleep(500);
        }
        throw new AssertionError("A server did not become healthy; its log:\n" + Files.readString(log));
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(ex);
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
