package io.pgvs3.test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.pgvs3.embedded.EmbeddedPostgres;

/**
 * The PostgreSQL server that tests run against, started once per JVM, handing out a fresh database per test class.
 * <p>
 * Where the server comes from:
 * <ul>
 * <li>{@code PGVS3_TEST_JDBC_URL} (environment or system property) names an existing server, e.g.
 * {@code jdbc:postgresql://127.0.0.1:5432/test?user=postgres}; test databases are created on it and dropped when
 * the JVM exits;</li>
 * <li>{@code PGVS3_TEST_DB=testcontainers} starts a {@code postgres:17} container (Docker required);</li>
 * <li>otherwise an embedded PostgreSQL 17 runs from a temporary data directory.</li>
 * </ul>
 */
public final class TestPostgres {

    private static final Pattern URL = Pattern.compile("^(jdbc:postgresql://[^/]+/)([^?]*)(\\?.*)?$");
    private static final AtomicInteger COUNTER = new AtomicInteger();
    private static volatile TestPostgres instance;

    private final String adminUrl;
    private final String username;
    private final String password;
    private final String prefix;
    private final List<String> created = new CopyOnWriteArrayList<>();

    private TestPostgres(String adminUrl, String username, String password) {
        this.adminUrl = adminUrl;
        this.username = username;
        this.password = password;
        this.prefix = "pgvs3_test_" + ProcessHandle.current().pid() + "_";
        Runtime.getRuntime().addShutdownHook(new Thread(this::dropCreated, "pgvs3-test-db-cleanup"));
    }

    public static TestPostgres get() {
        TestPostgres current = instance;
        if (current == null) {
            synchronized (TestPostgres.class) {
                current = instance;
                if (current == null) {
                    current = start();
                    instance = current;
                }
            }
        }
        return current;
    }

    /** Creates an empty database and returns how to reach it. */
    public TestDatabase newDatabase() {
        String name = prefix + COUNTER.incrementAndGet();
        execute("CREATE DATABASE " + name);
        created.add(name);
        return new TestDatabase(name, urlFor(name), username, password);
    }

    /** A description of where the tests run, for logs. */
    public String describe() {
        return adminUrl.replaceAll("password=[^&]*", "password=***");
    }

    String urlFor(String database) {
        Matcher matcher = URL.matcher(adminUrl);
        if (!matcher.matches()) {
            throw new IllegalStateException("Not a PostgreSQL JDBC URL: " + adminUrl);
        }
        return matcher.group(1) + database + (matcher.group(3) == null ? "" : matcher.group(3));
    }

    private void execute(String sql) {
        try (Connection connection = DriverManager.getConnection(adminUrl, username, password);
                Statement statement = connection.createStatement()) {
            statement.execute(sql);
        }
        catch (SQLException ex) {
            throw new IllegalStateException("Test database setup failed: " + sql, ex);
        }
    }

    private void dropCreated() {
        for (String name : created) {
            try {
                execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
            }
            catch (RuntimeException ignored) {
                // the server may already be gone at JVM exit
            }
        }
    }

    private static TestPostgres start() {
        String url = setting("PGVS3_TEST_JDBC_URL");
        if (url != null && !url.isBlank()) {
            return new TestPostgres(url, setting("PGVS3_TEST_JDBC_USER"), setting("PGVS3_TEST_JDBC_PASSWORD"));
        }
        if ("testcontainers".equalsIgnoreCase(setting("PGVS3_TEST_DB"))) {
            return TestcontainersPostgres.start();
        }
        return startEmbedded();
    }

    private static TestPostgres startEmbedded() {
        try {
            Path dataDirectory = Files.createTempDirectory("pgvs3-test-pg-");
            EmbeddedPostgres postgres = EmbeddedPostgres.builder()
                    .dataDirectory(dataDirectory)
                    // durability is not under test here; these keep the suites fast on small machines
                    .serverConfig("fsync", "off")
                    .serverConfig("synchronous_commit", "off")
                    .serverConfig("full_page_writes", "off")
                    .serverConfig("max_connections", "300")
                    .start();
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                postgres.close();
                deleteQuietly(dataDirectory);
            }, "pgvs3-test-pg-stop"));
            return new TestPostgres(postgres.jdbcUrl("postgres"), postgres.username(), postgres.password());
        }
        catch (java.io.IOException ex) {
            throw new java.io.UncheckedIOException(ex);
        }
    }

    static TestPostgres of(String adminUrl, String username, String password) {
        return new TestPostgres(adminUrl, username, password);
    }

    private static void deleteQuietly(Path root) {
        try (var paths = Files.walk(root)) {
            paths.sorted(java.util.Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        }
        catch (java.io.IOException ignored) {
            // temporary directory
        }
    }

    private static String setting(String name) {
        String value = System.getProperty(name);
        return value != null ? value : System.getenv(name);
    }
}
