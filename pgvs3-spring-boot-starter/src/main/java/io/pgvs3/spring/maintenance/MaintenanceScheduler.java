package io.pgvs3.spring.maintenance;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import io.pgvs3.core.maintenance.MaintenancePass;
import io.pgvs3.core.maintenance.MaintenanceReport;
import io.pgvs3.spring.metrics.Pgvs3Metrics;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.context.SmartLifecycle;

/**
 * Runs the {@link MaintenancePass} on a fixed delay on a thread of its own, from context start to stop. It does not
 * rely on {@code @EnableScheduling}, so the application's own scheduling stays as the application configured it.
 */
public class MaintenanceScheduler implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(MaintenanceScheduler.class);

    private final MaintenancePass pass;
    private final Duration interval;
    private final Pgvs3Metrics metrics;
    private ScheduledExecutorService executor;
    private volatile Instant lastCompletedAt;
    private volatile boolean stopping;

    public MaintenanceScheduler(MaintenancePass pass, Duration interval) {
        this(pass, interval, Pgvs3Metrics.NOOP);
    }

    public MaintenanceScheduler(MaintenancePass pass, Duration interval, Pgvs3Metrics metrics) {
        this.pass = pass;
        this.interval = interval;
        this.metrics = metrics;
    }

    public Duration interval() {
        return interval;
    }

    /**
     * When the last pass completed without failures, here or (the lock being held) on another instance; null
     * before the first one.
     */
    public Instant lastCompletedAt() {
        return lastCompletedAt;
    }

    @Override
    public synchronized void start() {
        if (executor != null) {
            return;
        }
        stopping = false;
        executor = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "pgvs3-maintenance");
            thread.setDaemon(true);
            return thread;
        });
        executor.scheduleWithFixedDelay(this::runPass, interval.toMillis(), interval.toMillis(), TimeUnit.MILLISECONDS);
    }

    private void runPass() {
        try {
            MaintenanceReport report = pass.runOnce(() -> stopping);
            if (stopping) {
                // cut short by the stop: neither a failure to count nor a completed pass
                return;
            }
            metrics.maintenance(report);
            if (report.succeeded()) {
                lastCompletedAt = Instant.now();
            }
        }
        catch (RuntimeException ex) {
            log.warn("Maintenance pass failed: {}", ex.getMessage());
        }
    }

    @Override
    public synchronized void stop() {
        if (executor == null) {
            return;
        }
        // the pass running now ends after its current task instead of running the rest
        stopping = true;
        executor.shutdown();
        try {
            executor.awaitTermination(10, TimeUnit.SECONDS);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
        executor = null;
    }

    @Override
    public synchronized boolean isRunning() {
        return executor != null;
    }
}
