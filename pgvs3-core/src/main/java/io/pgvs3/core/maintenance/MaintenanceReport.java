package io.pgvs3.core.maintenance;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;

/**
 * The outcome of one maintenance pass: whether this instance held the lock, what each task handled and which
 * tasks failed.
 */
public record MaintenanceReport(boolean ran, Instant startedAt, Duration duration, Map<String, Long> handled,
        Map<String, String> failures) {

    public static MaintenanceReport skipped(Instant startedAt, Duration duration) {
        return new MaintenanceReport(false, startedAt, duration, Map.of(), Map.of());
    }

    public boolean succeeded() {
        return failures.isEmpty();
    }
}
