package io.pgvs3.core.catalog;

import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import com.zaxxer.hikari.HikariDataSource;
import io.pgvs3.core.error.ErrorCode;
import io.pgvs3.core.error.Pgvs3Exception;
import io.pgvs3.test.TestPostgres;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class QueueCatalogTest {

    private static HikariDataSource dataSource;
    private static JdbcTemplate jdbc;
    private QueueCatalog catalog;

    @BeforeAll
    static void database() {
        dataSource = TestPostgres.get().newDatabase().newDataSource(20);
        new CatalogMigrator(dataSource).migrate();
        jdbc = new JdbcTemplate(dataSource);
    }

    @AfterAll
    static void close() {
        dataSource.close();
    }

    @BeforeEach
    void emptyCatalog() {
        catalog = new QueueCatalog(jdbc);
        catalog.dropAll();
    }

    @Test
    void createIsIdempotent() {
        assertThat(catalog.ensure(QueueName.of("orders"))).isEqualTo("s3q_orders");
        new QueueCatalog(jdbc).ensure(QueueName.of("orders"));
        assertThat(catalog.names()).containsExactly("orders");
        assertThat(schemaExists("s3q_orders")).isTrue();
        assertThat(catalog.describe(QueueName.of("orders"))).hasValueSatisfying(summary -> {
            assertThat(summary.schema()).isEqualTo("s3q_orders");
            assertThat(summary.createdAt()).isNotNull();
        });
    }

    @Test
    void concurrentCreatesOfOneNameAllSucceedAndLeaveOneSchema() throws Exception {
        int threads = 12;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<String>> results = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            QueueCatalog independent = new QueueCatalog(jdbc);
            results.add(pool.submit(() -> {
                start.await();
                return independent.ensure(QueueName.of("race.queue-1"));
            }));
        }
        start.countDown();
        for (Future<String> result : results) {
            assertThat(result.get()).isEqualTo("s3q_race.queue-1");
        }
        pool.shutdown();
        assertThat(catalog.names()).containsExactly("race.queue-1");
        assertThat(jdbc.queryForObject("SELECT count(*) FROM pg_namespace WHERE nspname = 's3q_race.queue-1'",
                Integer.class)).isEqualTo(1);
    }

    @Test
    void dropRemovesSchemaAndCatalogRowTogether() {
        catalog.ensure(QueueName.of("to-drop"));
        jdbc.execute("CREATE TABLE \"s3q_to-drop\".extra (id int)");
        assertThat(catalog.drop(QueueName.of("to-drop"))).isTrue();
        assertThat(schemaExists("s3q_to-drop")).isFalse();
        assertThat(catalog.exists(QueueName.of("to-drop"))).isFalse();
        assertThat(catalog.drop(QueueName.of("to-drop"))).isFalse();
    }

    @Test
    void aQueueDroppedElsewhereIsRecreatedByWithQueue() {
        QueueName name = QueueName.of("recreated");
        catalog.ensure(name);
        new QueueCatalog(jdbc).drop(name);
        String value = catalog.withQueue(name, () -> jdbc.queryForObject(
                "SELECT singleton::text FROM \"s3q_recreated\".queue_settings", String.class));
        assertThat(value).isEqualTo("true");
    }

    @Test
    void listPagesInNameOrder() {
        for (String name : List.of("c", "a", "b", "d")) {
            catalog.ensure(QueueName.of(name));
        }
        assertThat(catalog.list(2, 0)).extracting(QueueSummary::name).containsExactly("a", "b");
        assertThat(catalog.list(2, 2)).extracting(QueueSummary::name).containsExactly("c", "d");
        assertThat(catalog.count()).isEqualTo(4);
    }

    @ParameterizedTest
    @ValueSource(strings = { "", "Orders", "-lead", ".lead", "under_score", "spa ce", "semi;colon", "quote\"d",
            "ünïcode", "this-queue-name-is-far-too-long-for-a-postgresql-identifier-x" })
    void invalidNamesAreRefusedBeforeAnythingIsCreated(String bad) {
        assertThatThrownBy(() -> QueueName.of(bad)).isInstanceOfSatisfying(Pgvs3Exception.class,
                ex -> assertThat(ex.code()).isEqualTo(ErrorCode.INVALID_REQUEST));
        assertThat(catalog.names()).isEmpty();
    }

    @Test
    void theDatabaseRefusesInvalidNamesToo() {
        assertThatThrownBy(() -> jdbc.queryForObject("SELECT s3p.ensure_queue_schema('Bad Name')", String.class))
                .hasMessageContaining("invalid queue name");
        assertThat(catalog.names()).isEmpty();
    }

    @Test
    void longestAllowedNameFitsAnIdentifier() {
        String longest = "q".repeat(QueueName.MAX_BYTES);
        assertThat(catalog.ensure(QueueName.of(longest))).hasSize(63);
        assertThat(schemaExists("s3q_" + longest)).isTrue();
    }

    @Test
    void aDropThatLosesADeadlockIsRunAgain() throws Exception {
        catalog.ensure(QueueName.of("locked"));
        try (Connection holder = dataSource.getConnection()) {
            holder.setAutoCommit(false);
            try (Statement statement = holder.createStatement()) {
                statement.execute("LOCK TABLE s3q_locked.jobs IN ACCESS SHARE MODE");
            }
            ExecutorService pool = Executors.newSingleThreadExecutor();
            Future<Boolean> drop = pool.submit(() -> catalog.drop(QueueName.of("locked")));
            // Once the drop waits for the table held here, ask for one the drop already holds: a deadlock that
            // PostgreSQL resolves by aborting the drop, which waited first.
            String held = null;
            for (int i = 0; i < 200 && held == null; i++) {
                held = jdbc.query("""
                        SELECT format('%I.%I', n.nspname, c.relname) FROM pg_locks l
                        JOIN pg_class c ON c.oid = l.relation JOIN pg_namespace n ON n.oid = c.relnamespace
                        JOIN pg_locks w ON w.pid = l.pid AND NOT w.granted
                        WHERE l.granted AND l.mode = 'AccessExclusiveLock' AND n.nspname = 's3q_locked'
                          AND c.relkind = 'r' AND c.relname <> 'jobs' LIMIT 1""",
                        rs -> rs.next() ? rs.getString(1) : null);
                if (held == null) {
                    Thread.sleep(25);
                }
            }
            assertThat(held).as("the drop waits for the held table while holding another").isNotNull();
            try (Statement statement = holder.createStatement()) {
                statement.execute("LOCK TABLE " + held + " IN ACCESS SHARE MODE");
            }
            holder.commit();
            assertThat(drop.get(30, TimeUnit.SECONDS)).isTrue();
            pool.shutdown();
        }
        assertThat(catalog.names()).doesNotContain("locked");
        assertThat(schemaExists("s3q_locked")).isFalse();
    }

    private boolean schemaExists(String schema) {
        return Boolean.TRUE.equals(jdbc.queryForObject(
                "SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = ?)", Boolean.class, schema));
    }
}
