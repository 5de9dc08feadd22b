package io.pgvs3.core.job;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import com.zaxxer.hikari.HikariDataSource;
import io.pgvs3.core.UuidV7;
import io.pgvs3.core.catalog.CatalogMigrator;
import io.pgvs3.core.catalog.QueueCatalog;
import io.pgvs3.core.catalog.QueueName;
import io.pgvs3.test.TestPostgres;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;

import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Base of the job store tests: a fresh migrated database per test class, a pool large enough for concurrent
 * clients, a {@link JobStore} with default settings and the job stores beside it, and a way to run clients at the same moment.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class JobStoreTestSupport {

    protected HikariDataSource dataSource;
    protected JdbcTemplate jdbc;
    protected JobStore store;
    protected JobEventLog events;
    protected JobQueues queues;
    protected JobDeadLetters deadLetters;
    protected JobMaintenanceTask maintenance;

    @BeforeAll
    void database() {
        dataSource = TestPostgres.get().newDatabase().newDataSource(40);
        new CatalogMigrator(dataSource).migrate();
        jdbc = new JdbcTemplate(dataSource);
        QueueCatalog catalog = new QueueCatalog(jdbc);
        events = new JobEventLog(jdbc, catalog);
        store = new JobStore(jdbc, catalog, JobStoreSettings.DEFAULTS, events);
        queues = new JobQueues(jdbc, catalog, events);
        deadLetters = new JobDeadLetters(jdbc, events);
        maintenance = new JobMaintenanceTask(jdbc, catalog, JobStoreSettings.DEFAULTS, events);
    }

    @AfterAll
    void close() {
        dataSource.close();
    }

    /**
     * A job with every optional part set (nested args and meta, tags, custom attributes, a priority, a timeout, a
     * visibility timeout and an expiry): for tests that compare the envelopes built from its row in Java and in SQL.
     */
    protected static NewJob richJob(String queue) {
        return NewJob.builder("rich.job").queue(queue).args("[1, \"two\", {\"three\": [3, null]}, null]")
                .meta("{\"trace_id\": \"t-1\", \"nested\": {\"a\": null}}").priority(7)
                .timeout(Duration.ofMillis(12_345)).visibilityTimeout(Duration.ofSeconds(90))
                .expiresAt(Instant.parse("2999-01-02T03:04:05.678Z"))
                .options("{\"tags\": [\"x\", \"y\"], \"metadata\": {\"k\": 1}}")
                .extra("{\"x_custom_field\": {\"v\": null}, \"zz\": 1, \"ä_unicode\": true, \"long_custom_key_name\": []}")
                .build();
    }

    /** The envelope the queue's SQL function {@code envelope} builds for the job's row, as text. */
    protected String sqlEnvelope(String queue, String id) {
        return jdbc.queryForObject("SELECT \"s3q_" + queue + "\".envelope(j)::text FROM \"s3q_" + queue
                + "\".jobs j WHERE j.id = ?::uuid", String.class, id);
    }

    /** Runs every task on its own thread, all released at once, and rethrows the first failure. */
    protected static void runTogether(List<? extends Callable<?>> tasks) throws Exception {
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(tasks.size());
        try {
            List<Future<Object>> futures = tasks.stream().map(task -> pool.submit(() -> {
                start.await();
                return (Object) task.call();
            })).toList();
            start.countDown();
            for (Future<Object> future : futures) {
                future.get();
            }
        }
        finally {
            pool.shutdownNow();
        }
    }

    /**
     * Migrates a new database to the catalog as it was before job ids carried their queue (the frozen copy under
     * {@code catalog-before-v3}), for tests that upgrade it.
     */
    protected static JdbcTemplate catalogBeforeV3(HikariDataSource dataSource) {
        Flyway.configure(JobStoreTestSupport.class.getClassLoader()).dataSource(dataSource).schemas("s3p")
                .defaultSchema("s3p").createSchemas(true).table("flyway_schema_history")
                .locations("classpath:catalog-before-v3").load().migrate();
        return new JdbcTemplate(dataSource);
    }

    /** Enqueues a job of type {@code old.job} through that catalog's own function, as its code did. */
    protected static UUID enqueueBeforeV3(JdbcTemplate jdbc, String queue) {
        UUID id = UuidV7.generate();
        jdbc.queryForList("SELECT * FROM \"" + QueueName.of(queue).schema() + "\".enqueue_job(?, 'old.job', '[]', NULL,"
                + " NULL, NULL, 0, 3, '{}', NULL, NULL, NULL, NULL, NULL, 0)", id);
        return id;
    }
}
