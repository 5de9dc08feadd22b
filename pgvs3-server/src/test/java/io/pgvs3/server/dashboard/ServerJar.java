package io.pgvs3.server.dashboard;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.pgvs3.test.TestDatabase;

/**
 * The packaged server jar ({@code target/pgvs3-server.jar}, built by the package phase) running in its own JVM on
 * a database of the test PostgreSQL, as an operator would start it.
 */
final class ServerJar implements AutoCloseable {

    private final Process process;
    private final int port;
    private final Path log;

    private ServerJar(Process process, int port, Path log) {
        this.process = process;
        this.port = port;
        this.log = log;
    }

    static ServerJar start(TestDatabase database, String name, String... arguments) throws IOException, InterruptedException {
        Path jar = Path.of("target", "pgvs3-server.jar");
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException(jar.toAbsolutePath() + " is missing: run the package phase first (./mvnw verify)");
        }
        int port = freePort();
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> command = new ArrayList<>(List.of(java, "-Xmx256m", "-jar", jar.toString(), "--server.port=" + port,
                "--spring.datasource.url=" + database.jdbcUrl(), "--pgvs3.metrics.sample-interval=1s"));
        if (database.username() != null) {
            command.add("--spring.datasource.username=" + database.username());
        }
        if (database.password() != null) {
            command.add("--spring.datasource.password=" + database.password());
        }
        command.addAll(List.of(arguments));
        Path log = Path.of("target", "dashboard-" + name + ".log");
        Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        ServerJar server = new ServerJar(process, port, log);
        server.awaitHealthy(Duration.ofSeconds(120));
        return server;
    }

    String url(String path) {
        return "http://127.0.0.1:" + port + path;
    }

    private void awaitHealthy(Duration timeout) throws IOException, InterruptedException {
        HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        Instant deadline = Instant.now().plus(timeout);
        while (Instant.now().isBefore(deadline)) {
            if (!process.isAlive()) {
                throw new IllegalStateException("the server jar exited: " + tail());
            }
            try {
                HttpResponse<Void> response = client.send(HttpRequest.newBuilder(URI.create(url("/ojs/v1/health")))
                        .timeout(Duration.ofSeconds(2)).build(), HttpResponse.BodyHandlers.discarding());
                if (response.statusCode() == 200) {
                    return;
                }
            }
            catch (IOException notYet) {
                // not listening yet
            }
            Thread.sleep(250);
        }
        close();
        throw new IllegalStateException("the server jar did not become healthy within " + timeout + ": " + tail());
    }

    private String tail() throws IOException {
        List<String> lines = Files.readAllLines(log);
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        }
        catch (InterruptedException ex) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
