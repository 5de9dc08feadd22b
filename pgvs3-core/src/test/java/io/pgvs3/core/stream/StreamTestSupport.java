package io.pgvs3.core.stream;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;

import com.zaxxer.hikari.HikariDataSource;
import io.pgvs3.core.catalog.CatalogMigrator;
import io.pgvs3.core.catalog.QueueCatalog;
import io.pgvs3.test.TestDatabase;
import io.pgvs3.test.TestPostgres;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import org.springframework.jdbc.core.JdbcTemplate;

/** A fresh database per test class, migrated, with a {@link StreamStore} on a connection pool. */
abstract class StreamTestSupport {

    static TestDatabase database;
    static HikariDataSource dataSource;
    static JdbcTemplate jdbc;
    static QueueCatalog catalog;
    static StreamStore streams;

    @BeforeAll
    static void database() {
        database = TestPostgres.get().newDatabase();
        dataSource = database.newDataSource(24);
        new CatalogMigrator(dataSource).migrate();
        jdbc = new JdbcTemplate(dataSource);
        catalog = new QueueCatalog(jdbc);
        streams = new StreamStore(jdbc, catalog);
    }

    @AfterAll
    static void close() {
        dataSource.close();
    }

    static AppendResult append(String queue, String type, String payloadJson) {
        return streams.append(queue, NewStreamMessage.of(type, payloadJson));
    }

    static List<AppendResult> appendMany(String queue, int count) {
        List<NewStreamMessage> messages = IntStream.range(0, count)
                .mapToObj(i -> NewStreamMessage.of("test", "{\"i\":" + i + "}")).toList();
        return streams.append(queue, messages);
    }

    static List<String> ids(StreamBatch batch) {
        return batch.messages().stream().map(ReceivedMessage::id).toList();
    }

    static List<String> ids(List<AppendResult> appended) {
        return new ArrayList<>(appended.stream().map(AppendResult::id).toList());
    }

    static long count(String sql, Object... args) {
        Long value = jdbc.queryForObject(sql, Long.class, args);
        return value == null ? 0 : value;
    }

    /**
     * Event rows the backend of {@code connection} has read from a queue's segments and not yet reported: compare two
     * readings in one transaction (PostgreSQL 15 and later also count earlier transactions of the backend here).
     */
    static long eventRowsRead(Connection connection, String schema) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(
                "SELECT coalesce(sum(coalesce(seq_tup_read, 0) + coalesce(idx_tup_fetch, 0)), 0) "
                        + "FROM pg_stat_xact_user_tables "
                        + "WHERE schemaname = ? AND relname LIKE 'stream\\_events\\__'")) {
            statement.setString(1, schema);
            try (ResultSet rows = statement.executeQuery()) {
                rows.next();
                return rows.getLong(1);
            }
        }
    }
}
