package io.pgvs3.core.maintenance;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import com.zaxxer.hikari.HikariDataSource;
import io.pgvs3.core.catalog.CatalogMigrator;
import io.pgvs3.test.TestPostgres;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import static org.assertj.core.api.Assertions.assertThat;

@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MaintenancePassTest {

    private HikariDataSource dataSource;

    @BeforeAll
    void database() {
        dataSource = TestPostgres.get().newDatabase().newDataSource(4);
        new CatalogMigrator(dataSource).migrate();
    }

    @AfterAll
    void close() {
        dataSource.close();
    }

    @Test
    void aPassRunsEveryTaskAndReportsWhatEachHandledAndWhichFailed() {
        MaintenancePass pass = new MaintenancePass(dataSource, List.of(MaintenanceTask.of("first", () -> 3),
                MaintenanceTask.of("broken", () -> {
                    throw new IllegalStateException("no luck");
                }), MaintenanceTask.of("last", () -> 1)));
        MaintenanceReport report = pass.runOnce();
        assertThat(report.ran()).isTrue();
        assertThat(report.handled()).containsEntry("first", 3L).containsEntry("last", 1L).doesNotContainKey("broken");
        assertThat(report.failures()).containsEntry("broken", "no luck").hasSize(1);
        assertThat(pass.lastReport()).isSameAs(report);
    }

    /**
     * A stop asked for while a task runs ends the pass after that task: with the database unreachable each task
     * waits for a connection in turn, and a stop that waited for the whole pass took one such wait per task.
     */
    @Test
    void aStopEndsThePassAfterTheTaskRunningAtThatMoment() throws Exception {
        CountDownLatch firstRunning = new CountDownLatch(1);
        CountDownLatch releaseFirst = new CountDownLatch(1);
        AtomicBoolean stopRequested = new AtomicBoolean();
        AtomicInteger laterRuns = new AtomicInteger();
        MaintenancePass pass = new MaintenancePass(dataSource, List.of(MaintenanceTask.of("slow", () -> {
            firstRunning.countDown();
            await(releaseFirst);
            return 1;
        }), MaintenanceTask.of("second", laterRuns::incrementAndGet),
                MaintenanceTask.of("third", laterRuns::incrementAndGet)));
        CompletableFuture<MaintenanceReport> running = CompletableFuture.supplyAsync(
                () -> pass.runOnce(stopRequested::get));
        assertThat(firstRunning.await(10, TimeUnit.SECONDS)).isTrue();
        stopRequested.set(true);
        releaseFirst.countDown();
        MaintenanceReport report = running.get(10, TimeUnit.SECONDS);
        assertThat(laterRuns).hasValue(0);
        assertThat(report.handled()).containsOnlyKeys("slow");
        assertThat(report.failures()).containsOnlyKeys("second", "third").containsValue(MaintenancePass.STOPPED);
        assertThat(report.succeeded()).isFalse();
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await(10, TimeUnit.SECONDS);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }
}
