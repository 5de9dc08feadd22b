package io.pgvs3.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.pgvs3.embedded.EmbeddedPostgres;

/**
 * The PostgreSQL server the benchmark runs against: an embedded PostgreSQL 17 with durable default settings in a
 * temporary directory, or the server named by a JDBC URL. Every scenario gets a database of its own.
 */
public final class BenchPostgres implements AutoCloseable {

    /** Settings the report records, read from the server after it started. */
    static final List<String> REPORTED_SETTINGS = List.of("server_version", "fsync", "synchronous_commit",
            "full_page_writes", "wal_level", "shared_buffers", "work_mem", "max_wal_size", "checkpoint_timeout",
            "wal_buffers", "max_connections", "autovacuum", "autovacuum_naptime", "shared_preload_libraries",
            "pg_stat_statements.track", "jit");

    private static final Pattern URL = Pattern.compile("^(jdbc:postgresql://[^/]+/)([^?]*)(\\?.*)?$");

    private final String adminUrl;
    private final EmbeddedPostgres embedded;
    private final Path embeddedDirectory;
    private final String prefix = "pgvs3_bench_" + ProcessHandle.current().pid() + "_";
    private final AtomicInteger counter = new AtomicInteger();
    private final boolean statements;

    private BenchPostgres(String adminUrl, EmbeddedPostgres embedded, Path embeddedDirectory) {
        this.adminUrl = adminUrl;
        this.embedded = embedded;
        this.embeddedDirectory = embeddedDirectory;
        this.statements = enableStatements();
    }

    public static BenchPostgres start(String jdbcUrl) {
        if (jdbcUrl != null) {
            return new BenchPostgres(jdbcUrl, null, null);
        }
        try {
            Path directory = Files.createTempDirectory("pgvs3-bench-pg-");
            EmbeddedPostgres postgres = EmbeddedPostgres.builder()
                    .dataDirectory(directory)
                    .serverConfig("max_connections", "200")
                    .serverConfig("shared_preload_libraries", "pg_stat_statements")
                    .serverConfig("pg_stat_statements.track", "all")
                    .start();
            // the harness passes one URL everywhere (in this JVM only), so it carries the generated password
            String adminUrl = postgres.jdbcUrl("postgres") + "&password="
                    + URLEncoder.encode(postgres.password(), StandardCharsets.UTF_8);
            return new BenchPostgres(adminUrl, postgres, directory);
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    public boolean embedded() {
        return embedded != null;
    }

    public String describe() {
        return embedded != null ? "embedded PostgreSQL on 127.0.0.1:" + embedded.port() + " (data in "
                + embeddedDirectory + ")" : adminUrl.replaceAll("password=[^&]*", "password=***");
    }

    public BenchDatabase newDatabase(String purpose) {
        String name = prefix + counter.incrementAndGet() + "_" + purpose.replaceAll("[^a-z0-9]", "_");
        execute("CREATE DATABASE " + name);
        return new BenchDatabase(this, name, urlFor(name));
    }

    void dropDatabase(String name) {
        execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
    }

    public Connection adminConnection() throws SQLException {
        return DriverManager.getConnection(adminUrl);
    }

    /** The server settings the report shows, by name. */
    public Map<String, String> settings() {
        Map<String, String> settings = new LinkedHashMap<>();
        try (Connection connection = adminConnection(); Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery(
                        "SELECT name, setting, unit FROM pg_settings WHERE name = ANY(ARRAY['"
                                + String.join("','", REPORTED_SETTINGS) + "'])")) {
            Map<String, String> found = new LinkedHashMap<>();
            while (rows.next()) {
                String unit = rows.getString(3);
                found.put(rows.getString(1), rows.getString(2) + (unit == null ? "" : " × " + unit));
            }
            REPORTED_SETTINGS.forEach(name -> settings.put(name, found.getOrDefault(name, "–")));
        }
        catch (SQLException ex) {
            throw new IllegalStateException("Could not read the server settings", ex);
        }
        return settings;
    }

    public String version() {
        try (Connection connection = adminConnection(); Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("SELECT version()")) {
            rows.next();
            return rows.getString(1);
        }
        catch (SQLException ex) {
            throw new IllegalStateException("Could not read the server version", ex);
        }
    }

    public boolean statementsAvailable() {
        return statements;
    }

    public void resetStatements() {
        if (statements) {
            execute("SELECT pg_stat_statements_reset()");
        }
    }

    /** The statements of {@code database} that took the most execution time since the last reset. */
    public List<StatementStat> topStatements(String database, int limit) {
        List<StatementStat> top = new ArrayList<>();
        if (!statements) {
            return top;
        }
        String sql = "SELECT s.query, s.calls, s.total_exec_time, s.rows, s.toplevel FROM pg_stat_statements s "
                + "JOIN pg_database d ON d.oid = s.dbid WHERE d.datname = ? ORDER BY s.total_exec_time DESC LIMIT ?";
        try (Connection connection = adminConnection(); var statement = connection.prepareStatement(sql)) {
            statement.setString(1, database);
            statement.setInt(2, limit);
            try (ResultSet rows = statement.executeQuery()) {
                while (rows.next()) {
                    top.add(new StatementStat(rows.getString(1), rows.getLong(2), rows.getDouble(3), rows.getLong(4),
                            rows.getBoolean(5)));
                }
            }
        }
        catch (SQLException ex) {
            throw new IllegalStateException("Could not read pg_stat_statements", ex);
        }
        return top;
    }

    @Override
    public void close() {
        if (embedded != null) {
            embedded.close();
            try (var paths = Files.walk(embeddedDirectory)) {
                paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
            }
            catch (IOException ignored) {
                // a temporary directory
            }
        }
    }

    String urlFor(String database) {
        Matcher matcher = URL.matcher(adminUrl);
        if (!matcher.matches()) {
            throw new IllegalStateException("Not a PostgreSQL JDBC URL: " + adminUrl);
        }
        return matcher.group(1) + database + (matcher.group(3) == null ? "" : matcher.group(3));
    }

    private boolean enableStatements() {
        try {
            execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
            execute("SELECT pg_stat_statements_reset()");
            return true;
        }
        catch (RuntimeException ex) {
            return false;
        }
    }

    private void execute(String sql) {
        try (Connection connection = adminConnection(); Statement statement = connection.createStatement()) {
            statement.execute(sql);
        }
        catch (SQLException ex) {
            throw new IllegalStateException("Failed: " + sql, ex);
        }
    }

    /** One row of {@code pg_stat_statements}. */
    public record StatementStat(String query, long calls, double totalMillis, long rows, boolean topLevel) {
    }
}
