package io.pgvs3.core.stream;

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
}
