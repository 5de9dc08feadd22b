package io.pgvs3.core.catalog;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.List;

import io.pgvs3.core.error.Pgvs3Exception;

import org.springframework.jdbc.core.JdbcTemplate;

/**
 * PostgreSQL's statistics of a queue's tables (live and dead tuples, size, last vacuum), read from
 * {@code pg_stat_user_tables}: no table is scanned.
 */
public class QueueTableStats {

    static final String TABLES_SQL = """
            SELECT relname, n_live_tup, n_dead_tup, pg_total_relation_size(relid) AS total_bytes,
                   greatest(last_vacuum, last_autovacuum) AS last_vacuum,
                   greatest(last_analyze, last_autoanalyze) AS last_analyze
            FROM pg_stat_user_tables WHERE schemaname = ? ORDER BY relname""";

    private final JdbcTemplate jdbc;
    private final QueueCatalog catalog;

    public QueueTableStats(JdbcTemplate jdbc, QueueCatalog catalog) {
        this.jdbc = jdbc;
        this.catalog = catalog;
    }

    /** The queue's tables by name; 404 when the queue does not exist. */
    public List<Table> tables(String queue) {
        QueueName name = QueueName.of(queue);
        if (!catalog.exists(name)) {
            throw Pgvs3Exception.notFound("queue '" + queue + "' does not exist");
        }
        return jdbc.query(TABLES_SQL, QueueTableStats::table, name.schema());
    }

    private static Table table(ResultSet rs, int row) throws SQLException {
        return new Table(rs.getString("relname"), rs.getLong("n_live_tup"), rs.getLong("n_dead_tup"),
                rs.getLong("total_bytes"), instant(rs.getTimestamp("last_vacuum")),
                instant(rs.getTimestamp("last_analyze")));
    }

    private static Instant instant(Timestamp timestamp) {
        return timestamp == null ? null : timestamp.toInstant();
    }

    /**
     * One table of a queue.
     *
     * @param name        table name inside the queue's schema
     * @param liveTuples  estimated live rows
     * @param deadTuples  estimated dead rows not yet vacuumed
     * @param totalBytes  size with indexes and TOAST
     * @param lastVacuum  latest manual or automatic vacuum, or null
     * @param lastAnalyze latest manual or automatic analyze, or null
     */
    public record Table(String name, long liveTuples, long deadTuples, long totalBytes, Instant lastVacuum,
            Instant lastAnalyze) {
    }
}
