package io.pgvs3.server;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.pgvs3.test.OjsClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The server on its embedded PostgreSQL, run in a JVM of its own the way {@code java -jar} runs it, killed with
 * {@code kill -9} together with everything it spawned, so that its PostgreSQL is left running as an orphan: the next
 * server on the same data directory stops that orphan, starts, and still has the data.
 */
@Tag("slow")
class EmbeddedServerKillTest {

    private static final Duration STARTUP = Duration.ofMinutes(4);

    @TempDir
    Path dataDir;

    @TempDir
    Path logs;

    private final List<Process> servers = new ArrayList<>();

    @AfterEach
    void stopServers() throws Exception {
        for (Process server : servers) {
            server.destroy();
            if (!server.waitFor(60, TimeUnit.SECONDS)) {
                server.destroyForcibly();
            }
        }
        // a PostgreSQL a failed run left behind on the temporary data directory
        Path pidFile = dataDir.resolve("postmaster.pid");
        if (Files.exists(pidFile)) {
            ProcessHandle.of(Long.parseLong(Files.readAllLines(pidFile).get(0).trim()))
                    .filter(process -> process.info().commandLine().orElse("").contains("postgres -D " + dataDir))
                    .ifPresent(ProcessHandle::destroyForcibly);
        }
    }

    @Test
    void aServerKilledWithKillDashNineIsFollowedByOneOnTheSameDataDirectory() throws Exception {
        int firstPort = freePort();
        Process first = startServer(firstPort, "first");
        OjsClient http = OjsClient.forPort(firstPort);
        var enqueued = http.post("/ojs/v1/jobs", Map.of("type", "kept.job", "args", List.of(42), "options",
                Map.of("queue", "kept")));
        assertThat(enqueued.status()).as(enqueued.text()).isEqualTo(201);
        String id = enqueued.json().path("job").path("id").asString();

        List<String> pidFile = Files.readAllLines(dataDir.resolve("postmaster.pid"));
        long postmaster = Long.parseLong(pidFile.get(0).trim());
        int databasePort = Integer.parseInt(pidFile.get(3).trim());
        String password = Files.readString(dataDir.resolve("pgvs3-superuser-password"), StandardCharsets.UTF_8).strip();
        assertThatThrownBy(() -> DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + databasePort
                + "/postgres?user=postgres")).as("no login without the password").isInstanceOf(SQLException.class);
        try (Connection connection = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + databasePort
                + "/postgres", "postgres", password)) {
            assertThat(connection.isValid(5)).isTrue();
        }

        first.toHandle().descendants().forEach(ProcessHandle::destroyForcibly);
        first.destroyForcibly();
        assertThat(first.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(ProcessHandle.of(postmaster).map(ProcessHandle::isAlive)).as("PostgreSQL outlived the killed server")
                .contains(true);

        int secondPort = freePort();
        startServer(secondPort, "second");
        OjsClient again = OjsClient.forPort(secondPort);
        assertThat(ProcessHandle.of(postmaster).map(ProcessHandle::isAlive).orElse(false))
                .as("the orphaned PostgreSQL was stopped").isFalse();
        var queues = again.get("/ojs/v1/queues").json().path("queues");
        assertThat(queues).hasSize(1);
        assertThat(queues.get(0).path("name").asString()).isEqualTo("kept");
        assertThat(again.get("/ojs/v1/jobs/" + id).json().path("job").path("args").get(0).asInt()).isEqualTo(42);
    }

    private Process startServer(int port, String name) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Path log = logs.resolve(name + ".log");
        Process server = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
                Pgvs3ServerApplication.class.getName(), "--server.port=" + port, "--pgvs3.embedded.data-dir=" + dataDir,
                "--pgvs3.maintenance.enabled=false").redirectErrorStream(true).redirectOutput(log.toFile()).start();
        servers.add(server);
        OjsClient http = OjsClient.forPort(port);
        long deadline = System.nanoTime() + STARTUP.toNanos();
        while (System.nanoTime() < deadline && server.isAlive()) {
            try {
                if (http.get("/ojs/v1/health").status() == 200) {
                    return server;
                }
            }
            catch (UncheckedIOException notYetListening) {
                // starting
            }
            Thread.sleep(500);
        }
        throw new AssertionError("The " + name + " server did not become healthy; its log:\n" + Files.readString(log));
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
