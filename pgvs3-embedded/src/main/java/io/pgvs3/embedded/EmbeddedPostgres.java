package io.pgvs3.embedded;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A PostgreSQL server run from the bundled binaries on a local data directory.
 * <p>
 * The data directory survives {@link #close()}: a later start on the same directory finds its databases again.
 * PostgreSQL refuses to run as root, so under root the server runs as an unprivileged OS user (see
 * {@link OsUser}).
 */
public final class EmbeddedPostgres implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(EmbeddedPostgres.class);

    public static final String SUPERUSER = "postgres";

    private final Path installation;
    private final Path dataDirectory;
    private final int port;
    private final OsUser osUser;
    private volatile boolean running;

    private EmbeddedPostgres(Path installation, Path dataDirectory, int port, OsUser osUser) {
        this.installation = installation;
        this.dataDirectory = dataDirectory;
        this.port = port;
        this.osUser = osUser;
    }

    public static Builder builder() {
        return new Builder();
    }

    public int port() {
        return port;
    }

    public Path dataDirectory() {
        return dataDirectory;
    }

    /** A JDBC URL for {@code database} as the superuser {@value #SUPERUSER} (trust authentication, loopback only). */
    public String jdbcUrl(String database) {
        return "jdbc:postgresql://127.0.0.1:" + port + "/" + database + "?user=" + SUPERUSER;
    }

    @Override
    public synchronized void close() {
        if (!running) {
            return;
        }
        running = false;
        try {
            run(List.of(bin("pg_ctl"), "-D", dataDirectory.toString(), "-m", "fast", "-w", "-t", "60", "stop"),
                    Duration.ofSeconds(90));
            log.info("Stopped embedded PostgreSQL on port {} (data directory {})", port, dataDirectory);
        }
        catch (RuntimeException ex) {
            log.warn("Could not stop embedded PostgreSQL cleanly", ex);
        }
    }

    private synchronized void start(Map<String, String> serverConfig) {
        try {
            Files.createDirectories(dataDirectory);
            osUser.takeOwnership(dataDirectory);
            if (!Files.exists(dataDirectory.resolve("PG_VERSION"))) {
                Files.setPosixFilePermissions(dataDirectory, PosixFilePermissions.fromString("rwx------"));
                run(List.of(bin("initdb"), "-D", dataDirectory.toString(), "-U", SUPERUSER, "-A", "trust",
                        "-E", "UTF8", "--locale=C", "--no-instructions"), Duration.ofMinutes(3));
                log.info("Initialised a new PostgreSQL data directory at {}", dataDirectory);
            }
            Path logFile = dataDirectory.resolve("postgres.log");
            StringBuilder options = new StringBuilder("-p " + port + " -c listen_addresses=127.0.0.1 -c unix_socket_directories=");
            serverConfig.forEach((key, value) -> options.append(" -c ").append(key).append('=').append(value));
            run(List.of(bin("pg_ctl"), "-D", dataDirectory.toString(), "-l", logFile.toString(), "-o",
                    options.toString(), "-w", "-t", "120", "start"), Duration.ofMinutes(3));
            running = true;
            log.info("Started embedded PostgreSQL on 127.0.0.1:{} (data directory {}, log {})", port, dataDirectory, logFile);
        }
        catch (IOException ex) {
            throw new UncheckedIOException("Could not prepare the PostgreSQL data directory " + dataDirectory, ex);
        }
    }

    private String bin(String program) {
        return installation.resolve("bin").resolve(program).toString();
    }

    private void run(List<String> command, Duration timeout) {
        List<String> full = new ArrayList<>(osUser.commandPrefix());
        full.addAll(command);
        ProcessBuilder builder = new ProcessBuilder(full).redirectErrorStream(true);
        builder.environment().put("LC_ALL", "C");
        builder.environment().remove("PGDATA");
        try {
            Process process = builder.start();
            String output = new String(process.getInputStream().readAllBytes());
            if (!process.waitFor(timeout.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS)) {
                process.destroyForcibly();
                throw new IllegalStateException("Timed out: " + String.join(" ", command));
            }
            if (process.exitValue() != 0) {
                throw new IllegalStateException("PostgreSQL command failed (exit " + process.exitValue() + "): "
                        + String.join(" ", command) + System.lineSeparator() + output.strip()
                        + logTail());
            }
        }
        catch (IOException ex) {
            throw new UncheckedIOException("Could not run " + command.get(0), ex);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while running " + command.get(0), ex);
        }
    }

    private String logTail() {
        Path logFile = dataDirectory.resolve("postgres.log");
        try {
            if (Files.exists(logFile)) {
                List<String> lines = Files.readAllLines(logFile);
                return System.lineSeparator() + String.join(System.lineSeparator(),
                        lines.subList(Math.max(0, lines.size() - 20), lines.size()));
            }
        }
        catch (IOException ignored) {
            // the log is only a hint for the error message
        }
        return "";
    }

    static int freePort() {
        try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            socket.setReuseAddress(true);
            return socket.getLocalPort();
        }
        catch (IOException ex) {
            throw new UncheckedIOException("No free TCP port for PostgreSQL", ex);
        }
    }

    public static final class Builder {

        private Path dataDirectory;
        private int port;
        private Path binariesCache = Path.of(System.getProperty("java.io.tmpdir"));
        private String osUserName;
        private final Map<String, String> serverConfig = new LinkedHashMap<>();

        private Builder() {
        }

        public Builder dataDirectory(Path dataDirectory) {
            this.dataDirectory = dataDirectory;
            return this;
        }

        /** The TCP port on 127.0.0.1; 0 (the default) picks a free one. */
        public Builder port(int port) {
            this.port = port;
            return this;
        }

        public Builder binariesCache(Path binariesCache) {
            this.binariesCache = binariesCache;
            return this;
        }

        /** The OS user that runs PostgreSQL when this JVM runs as root; by default {@code postgres}, else {@code nobody}. */
        public Builder osUser(String osUserName) {
            this.osUserName = osUserName;
            return this;
        }

        public Builder serverConfig(String name, String value) {
            serverConfig.put(name, value);
            return this;
        }

        public EmbeddedPostgres start() {
            if (dataDirectory == null) {
                throw new IllegalStateException("A data directory is required");
            }
            Path installation = PostgresBinaries.install(binariesCache);
            EmbeddedPostgres postgres = new EmbeddedPostgres(installation, dataDirectory.toAbsolutePath().normalize(),
                    port == 0 ? freePort() : port, OsUser.forServer(osUserName));
            postgres.start(serverConfig);
            return postgres;
        }
    }
}
