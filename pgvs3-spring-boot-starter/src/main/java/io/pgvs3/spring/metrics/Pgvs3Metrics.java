package io.pgvs3.spring.metrics;

import java.time.Duration;

import io.pgvs3.core.maintenance.MaintenanceReport;

/**
 * What templates, listener containers and the maintenance schedule report as they work. Every call is cheap and
 * made on the thread doing the work; the Micrometer implementation turns them into meters under {@code pgvs3.*}.
 * {@link #NOOP} is used when no metrics registry is present.
 */
public interface Pgvs3Metrics {

    Pgvs3Metrics NOOP = new Pgvs3Metrics() {
    };

    /** Messages appended to a stream through this application. */
    default void appended(String queue, int count) {
    }

    /** Messages a stream listener received in one batch. */
    default void received(String queue, String consumer, int count) {
    }

    /** Messages whose batch was acknowledged. */
    default void acked(String queue, String consumer, int count) {
    }

    /** A message that was nacked; {@code action} is {@code retry} or {@code dead_letter}. */
    default void nacked(String queue, String consumer, String action) {
    }

    /** One invocation of a listener or job handler method. */
    default void handled(String kind, String id, String queue, Duration duration, boolean success) {
    }

    /** Jobs enqueued through this application. */
    default void enqueued(String queue, int count) {
    }

    /** A job finished by a handler: {@code outcome} is {@code completed}, {@code failed} or {@code released}. */
    default void jobFinished(String queue, String type, String outcome) {
    }

    /** {@code count} jobs of one type finished with the same outcome at once (an acknowledgement batch). */
    default void jobsFinished(String queue, String type, String outcome, int count) {
        for (int i = 0; i < count; i++) {
            jobFinished(queue, type, outcome);
        }
    }

    /** One maintenance pass that this instance ran or found running elsewhere. */
    default void maintenance(MaintenanceReport report) {
    }
}
