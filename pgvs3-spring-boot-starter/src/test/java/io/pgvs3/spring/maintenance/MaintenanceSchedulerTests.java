package io.pgvs3.spring.maintenance;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.pgvs3.core.maintenance.MaintenancePass;
import io.pgvs3.core.maintenance.MaintenanceTask;
import io.pgvs3.spring.it.TestDataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

class MaintenanceSchedulerTests {

    @RegisterExtension
    static final TestDataSource database = TestDataSource.withCatalog();

    /**
     * A stop during a pass waits for the task running at that moment, not for the rest: with the database gone each
     * task waits the pool's connection timeout in turn, and an application's close would wait one timeout per task.
     */
    @Test
    void aStopDuringAPassWaitsForTheRunningTaskOnly() throws Exception {
        CountDownLatch firstRunning = new CountDownLatch(1);
        AtomicInteger tasksRun = new AtomicInteger();
        List<MaintenanceTask> tasks = List.of(slowTask("first", firstRunning, tasksRun),
                slowTask("second", null, tasksRun), slowTask("third", null, tasksRun),
                slowTask("fourth", null, tasksRun));
        MaintenanceScheduler scheduler = new MaintenanceScheduler(new MaintenancePass(database.get(), tasks),
                Duration.ofMillis(10));
        scheduler.start();
        assertThat(firstRunning.await(10, TimeUnit.SECONDS)).isTrue();
        long start = System.nanoTime();
        scheduler.stop();
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofMillis(1_800));
        assertThat(tasksRun).as("tasks started").hasValue(1);
        assertThat(scheduler.lastCompletedAt()).as("a pass cut short is not a completed one").isNull();
        assertThat(scheduler.isRunning()).isFalse();
    }

    /** A task that takes a second, as one waiting for a connection that never comes does. */
    private static MaintenanceTask slowTask(String name, CountDownLatch started, AtomicInteger tasksRun) {
        return MaintenanceTask.of(name, () -> {
            tasksRun.incrementAndGet();
            if (started != null) {
                started.countDown();
            }
            try {
                Thread.sleep(1_000);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
            return 0;
        });
    }
}
