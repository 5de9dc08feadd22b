package io.pgvs3.server.security;

import java.io.File;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import io.pgvs3.server.Pgvs3ServerApplication;
import io.pgvs3.test.OjsClient;
import io.pgvs3.test.TestDatabase;
import io.pgvs3.test.TestPostgres;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.boot.SpringApplication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The server's safe defaults, seen from outside: it listens on 127.0.0.1 only unless told otherwise, and refuses to
 * start on another address without a token.
 */
@Tag("slow")
class StartupSafetyTest {

    @TempDir
    Path logs;

    @Test
    void byDefaultTheServerListensOnLoopbackOnly() throws Exception {
        assumeTrue(Files.isReadable(Path.of("/proc/net/tcp")), "needs Linux's /proc/net/tcp");
        int port;
        try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = probe.getLocalPort();
        }
        TestDatabase database = TestPostgres.get().newDatabase();
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), Pgvs3ServerApplication.class.getName(),
                "--server.port=" + port, "--spring.datasource.url=" + database.jdbcUrl(),
                "--pgvs3.maintenance.enabled=false"));
        if (database.username() != null) {
            command.add("--spring.datasource.username=" + database.username());
        }
        if (database.password() != null) {
            command.add("--spring.datasource.password=" + database.password());
        }
        File log = logs.resolve("server.log").toFile();
        Process server = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log).start();
        try {
            OjsClient http = OjsClient.forPort(port);
            long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
            while (!healthy(http)) {
                assertThat(server.isAlive()).as(() -> read(log)).isTrue();
                assertThat(System.nanoTime()).as("server not healthy in time: " + read(log)).isLessThan(deadline);
                Thread.sleep(250);
            }
            List<String> listeners = listeners(port);
            assertThat(listeners).as("listening sockets on port " + port).isNotEmpty()
                    .allMatch(address -> address.equals("0100007F")
                            || address.equals("0000000000000000FFFF00000100007F"), "is 127.0.0.1 (or IPv4-mapped)");
            assertThat(read(log)).contains("open to every caller on loopback");
        }
        finally {
            server.destroy();
            if (!server.waitFor(30, java.util.concurrent.TimeUnit.SECONDS)) {
                server.destroyForcibly();
            }
        }
    }

    @Test
    void anotherAddressWithoutATokenRefusesToStart() {
        TestDatabase database = TestPostgres.get().newDatabase();
        List<String> args = new ArrayList<>(List.of("--server.port=0", "--server.address=0.0.0.0",
                "--spring.datasource.url=" + database.jdbcUrl(), "--pgvs3.maintenance.enabled=false"));
        if (database.username() != null) {
            args.add("--spring.datasource.username=" + database.username());
        }
        if (database.password() != null) {
            args.add("--spring.datasource.password=" + database.password());
        }
        assertThatThrownBy(() -> new SpringApplication(Pgvs3ServerApplication.class).run(args.toArray(String[]::new)))
                .rootCause()
                .hasMessageContaining("refuses to serve its HTTP API on 0.0.0.0 without authentication")
                .hasMessageContaining("pgvs3.security.allow-anonymous=true");
    }

    private static boolean healthy(OjsClient http) {
        try {
            return http.get("/ojs/v1/health").status() == 200;
        }
        catch (RuntimeException ex) {
            return false;
        }
    }

    /** The local addresses (hex, as the kernel prints them) of the sockets listening on {@code port}. */
    private static List<String> listeners(int port) throws IOException {
        String hexPort = String.format(Locale.ROOT, "%04X", port);
        List<String> addresses = new ArrayList<>();
        for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
            Path path = Path.of(table);
            if (!Files.isReadable(path)) {
                continue;
            }
            List<String> lines = Files.readAllLines(path);
            for (String line : lines.subList(1, lines.size())) {
                String[] fields = line.trim().split("\\s+");
                String[] local = fields[1].split(":");
                if (local[1].equals(hexPort) && fields[3].equals("0A")) {
                    addresses.add(local[0]);
                }
            }
        }
        return addresses;
    }

    private static String read(File file) {
        try {
            return Files.readString(file.toPath());
        }
        catch (IOException ex) {
            return "(no log: " + ex.getMessage() + ")";
        }
    }
}
