package io.pgvs3.embedded;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.postgresql.util.PasswordUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A PostgreSQL server run from the bundled binaries on a local data directory.
 * <p>
 * The data directory survives {@link #close()}: a later start on the same directory finds its databases again.
 * PostgreSQL refuses to run as root, so under root the server runs as an unprivileged OS user (see
 * {@link OsUser}).
 * <p>
 * The server listens on 127.0.0.1 only, with its Unix socket disabled, and every login needs a password
 * (SCRAM-SHA-256). The superuser's password is generated on the first start and kept in the file
 * {@value SuperuserPassword#FILE_NAME} of the data directory, readable by its owner only. A data directory of an
 * older version (with {@code trust} authentication) gets a password and a password-only {@code pg_hba.conf} on
 * its next start. A server left running by a JVM that died is stopped before the new one starts, and a watchdog
 * stops the server when this JVM dies without closing it.
 */
public final class EmbeddedPostgres implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(EmbeddedPostgres.class);

    public static final String SUPERUSER = "postgres";

    private final PostgresTools tools;
    private final Path dataDirectory;
    private final int port;
    private volatile String password;
    private volatile PostmasterWatchdog watchdog;
    private DataDirectoryLock lock;
    private volatile boolean running;

    private EmbeddedPostgres(PostgresTools tools, int port) {
        this.tools = tools;
        this.dataDirectory = tools.dataDirectory();
        this.port = port;
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

    /** The superuser's name, {@value #SUPERUSER}. */
    public String username() {
        return SUPERUSER;
    }

    /** The superuser's generated password (also in the file {@value SuperuserPassword#FILE_NAME} of the data directory). */
    public String password() {
        return password;
    }

    /**
     * A JDBC URL for {@code database} as the superuser {@value #SUPERUSER}, without the password: connect with
     * {@link #password()} as well, for example {@code DriverManager.getConnection(url, username(), password())}.
     */
    public String jdbcUrl(String database) {
        return "jdbc:postgresql://127.0.0.1:" + port + "/" + database + "?user=" + SUPERUSER;
    }

    @Override
    public synchronized void close() {
        if (!running) {
            return;
        }
        running = false;
        if (watchdog != null) {
            watchdog.cancel();
            watchdog = null;
        }
        try {
            tools.run(List.of(tools.bin("pg_ctl"), "-D", dataDirectory.toString(), "-m", "fast", "-w", "-t", "60", "stop"),
                    Duration.ofSeconds(90));
            log.info("Stopped embedded PostgreSQL on port {} (data directory {})", port, dataDirectory);
        }
        catch (RuntimeException ex) {
            log.warn("Could not stop embedded PostgreSQL cleanly", ex);
        }
        finally {
            releaseLock();
        }
    }

    private synchronized void start(Map<String, String> serverConfig) {
        try {
            Files.createDirectories(dataDirectory);
            tools.osUser().takeOwnership(dataDirectory);
            if (!Files.exists(dataDirectory.resolve("PG_VERSION"))) {
                Files.setPosixFilePermissions(dataDirectory, PosixFilePermissions.fromString("rwx------"));
                // "reject" until the password is set below; the server never runs with this pg_hba.conf
                tools.run(List.of(tools.bin("initdb"), "-D", dataDirectory.toString(), "-U", SUPERUSER, "-A", "reject",
                        "-E", "UTF8", "--locale=C", "--no-instructions"), Duration.ofMinutes(3));
                log.info("Initialised a new PostgreSQL data directory at {}", dataDirectory);
            }
            lock = DataDirectoryLock.acquire(dataDirectory);
            new LeftoverPostmaster(tools).stopIfRunning();
            secure();
            Path logFile = dataDirectory.resolve(PostgresTools.LOG_FILE);
            StringBuilder options = new StringBuilder("-p " + port + " -c listen_addresses=127.0.0.1 -c unix_socket_directories=");
            serverConfig.forEach((key, value) -> options.append(" -c ").append(key).append('=').append(value));
            tools.run(List.of(tools.bin("pg_ctl"), "-D", dataDirectory.toString(), "-l", logFile.toString(), "-o",
                    options.toString(), "-w", "-t", "120", "start"), Duration.ofMinutes(3));
            running = true;
            long postmasterPid = LeftoverPostmaster.recordedPid(dataDirectory)
                    .orElseThrow(() -> new IllegalStateException("PostgreSQL started without a postmaster.pid in " + dataDirectory));
            watchdog = PostmasterWatchdog.start(tools, postmasterPid);
            log.info("Started embedded PostgreSQL on 127.0.0.1:{} (PID {}, data directory {}, log {})", port,
                    postmasterPid, dataDirectory, logFile);
        }
        catch (IOException | RuntimeException ex) {
            if (running) {
                close();
            }
            releaseLock();
            throw ex instanceof IOException io
                    ? new UncheckedIOException("Could not prepare the PostgreSQL data directory " + dataDirectory, io)
                    : (RuntimeException) ex;
        }
    }

    private void releaseLock() {
        if (lock != null) {
            lock.close();
            lock = null;
        }
    }

    /**
     * Makes sure the superuser has the password of the password file and that {@code pg_hba.conf} asks every client
     * for a password. Runs while the server is stopped; on a data directory made by an older version (trust
     * authentication, no password) this is the upgrade in place.
     */
    private void secure() throws IOException {
        SuperuserPassword superuser = SuperuserPassword.loadOrGenerate(dataDirectory);
        tools.osUser().takeOwnership(dataDirectory.resolve(SuperuserPassword.FILE_NAME));
        boolean trust = ClientAuthentication.allowsTrust(dataDirectory);
        // The mark is written last: a start that died between storing the password and setting it does it again.
        if (superuser.generated() || trust || !SecuredMark.matches(dataDirectory, superuser.value())) {
            setSuperuserPassword(superuser.value());
            ClientAuthentication.write(dataDirectory);
            tools.osUser().takeOwnership(dataDirectory.resolve(ClientAuthentication.FILE_NAME));
            SecuredMark.write(dataDirectory, superuser.value());
            tools.osUser().takeOwnership(dataDirectory.resolve(SecuredMark.FILE_NAME));
            log.info("Set a generated superuser password (in {}) and password-only authentication (SCRAM-SHA-256) "
                    + "in {}{}", dataDirectory.resolve(SuperuserPassword.FILE_NAME),
                    dataDirectory.resolve(ClientAuthentication.FILE_NAME),
                    trust ? ", replacing the trust authentication of an earlier version" : "");
        }
        this.password = superuser.value();
    }

    /** Sets the password in single-user mode, so it works whatever {@code pg_hba.conf} says and needs no connection. */
    private void setSuperuserPassword(String plain) {
        // only the SCRAM verifier reaches PostgreSQL, never the password itself
        String verifier = PasswordUtil.encodeScramSha256(plain.toCharArray());
        String sql = "ALTER ROLE " + SUPERUSER + " WITH LOGIN PASSWORD '" + verifier + "'\n";
        tools.run(List.of(tools.bin("postgres"), "--single", "-D", dataDirectory.toString(), "-c", "exit_on_error=on",
                "-c", "password_encryption=scram-sha-256", "postgres"), sql, Duration.ofMinutes(3), false);
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
            Path directory = dataDirectory.toAbsolutePath().normalize();
            try {
                // before OsUser looks at the directories above it
                Files.createDirectories(directory);
            }
            catch (IOException ex) {
                throw new UncheckedIOException("Could not create the PostgreSQL data directory " + directory, ex);
            }
            PostgresTools tools = new PostgresTools(installation, directory,
                    OsUser.forServer(osUserName, List.of(directory, installation)));
            EmbeddedPostgres postgres = new EmbeddedPostgres(tools, port == 0 ? freePort() : port);
            postgres.start(serverConfig);
            return postgres;
        }
    }
}
