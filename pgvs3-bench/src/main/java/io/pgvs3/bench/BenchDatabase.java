package io.pgvs3.bench;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;

/**
 * A database created for one scenario. Connections choose {@code synchronous_commit} per session, so one server
 * measures both settings. Closing it closes its pools and drops the database.
 */
public final class BenchDatabase implements AutoCloseable {

    private final BenchPostgres server;
    private final String name;
    private final String jdbcUrl;
    private final List<HikariDataSource> pools = new CopyOnWriteArrayList<>();

    BenchDatabase(BenchPostgres server, String name, String jdbcUrl) {
        this.server = server;
        this.name = name;
        this.jdbcUrl = jdbcUrl;
    }

    public String name() {
        return name;
    }

    public String jdbcUrl() {
        return jdbcUrl;
    }

    /** A JDBC URL whose sessions start with the given {@code synchronous_commit}. */
    public String jdbcUrl(boolean synchronousCommit) {
        String option = "options=-c%20synchronous_commit%3D" + (synchronousCommit ? "on" : "off");
        return jdbcUrl + (jdbcUrl.contains("?") ? "&" : "?") + option;
    }

    public Connection connect(boolean synchronousCommit) throws SQLException {
        return DriverManager.getConnection(jdbcUrl(synchronousCommit));
    }

    public DataSource pool(int size, boolean synchronousCommit) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(jdbcUrl(synchronousCommit));
        config.setMaximumPoolSize(size);
        config.setMinimumIdle(size);
        config.setPoolName("bench-" + name + "-" + pools.size());
        HikariDataSource pool = new HikariDataSource(config);
        pools.add(pool);
        return pool;
    }

    public void execute(String... statements) {
        try (Connection connection = connect(true); Statement statement = connection.createStatement()) {
            for (String sql : statements) {
                statement.execute(sql);
            }
        }
        catch (SQLException ex) {
            throw new IllegalStateException("Failed on " + name + ": " + String.join("; ", statements), ex);
        }
    }

    public long queryLong(String sql) {
        try (Connection connection = connect(true); Statement statement = connection.createStatement();
                var rows = statement.executeQuery(sql)) {
            rows.next();
            return rows.getLong(1);
        }
        catch (SQLException ex) {
            throw new IllegalStateException("Failed on " + name + ": " + sql, ex);
        }
    }

    public List<BenchPostgres.StatementStat> topStatements(int limit) {
        return server.topStatements(name, limit);
    }

    @Override
    public void close() {
        pools.forEach(HikariDataSource::close);
        pools.clear();
        server.dropDatabase(name);
    }
}
