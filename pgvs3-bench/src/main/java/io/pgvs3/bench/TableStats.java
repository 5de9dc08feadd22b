package io.pgvs3.bench;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * Row-version counters and sizes of tables, from {@code pg_stat_user_tables}. Backends report their counters
 * asynchronously, so {@link #settled} reads until two reads a moment apart agree.
 */
public final class TableStats {

    private static final String SQL = """
            SELECT schemaname, relname, n_live_tup, n_dead_tup, n_tup_ins, n_tup_upd, n_tup_del, n_tup_hot_upd,
                   pg_total_relation_size(relid) AS total_bytes
            FROM pg_stat_user_tables
            WHERE schemaname LIKE ?
            ORDER BY schemaname, relname
            """;

    private TableStats() {
    }

    /** One table's counters. */
    public record Table(String schema, String name, long live, long dead, long inserted, long updated, long deleted,
            long hotUpdated, long totalBytes) {

        public String qualifiedName() {
            return schema + "." + name;
        }
    }

    public static List<Table> settled(BenchDatabase database, String schemaPattern) throws Exception {
        List<Table> previous = read(database, schemaPattern);
        for (int attempt = 0; attempt < 80; attempt++) {
            Thread.sleep(250);
            List<Table> current = read(database, schemaPattern);
            if (current.equals(previous)) {
                return current;
            }
            previous = current;
        }
        return previous;
    }

    public static List<Table> read(BenchDatabase database, String schemaPattern) throws SQLException {
        List<Table> tables = new ArrayList<>();
        try (Connection connection = database.connect(true)) {
            connection.createStatement().execute("SELECT pg_stat_clear_snapshot()");
            try (PreparedStatement statement = connection.prepareStatement(SQL)) {
                statement.setString(1, schemaPattern);
                try (ResultSet rows = statement.executeQuery()) {
                    while (rows.next()) {
                        tables.add(new Table(rows.getString(1), rows.getString(2), rows.getLong(3), rows.getLong(4),
                                rows.getLong(5), rows.getLong(6), rows.getLong(7), rows.getLong(8), rows.getLong(9)));
                    }
                }
            }
        }
        return tables;
    }

    public static long sum(List<Table> tables, java.util.function.ToLongFunction<Table> field) {
        return tables.stream().mapToLong(field).sum();
    }
}
