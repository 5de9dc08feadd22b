package io.pgvs3.core.job;

import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import com.zaxxer.hikari.HikariDataSource;
import io.pgvs3.core.catalog.CatalogMigrator;
import io.pgvs3.core.catalog.QueueCatalog;
import io.pgvs3.test.TestPostgres;
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
}
