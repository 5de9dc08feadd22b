package io.pgvs3.core.cluster;

import java.util.Objects;
import java.util.Optional;
import java.util.UUID;

import javax.sql.DataSource;

import io.pgvs3.core.catalog.QueueCatalog;
import io.pgvs3.core.job.JobDeadLetters;
import io.pgvs3.core.job.JobEventLog;
import io.pgvs3.core.job.JobQueues;
import io.pgvs3.core.job.JobStore;
import io.pgvs3.core.notify.NotificationHub;
import io.pgvs3.core.stream.StreamStore;

import org.springframework.jdbc.core.JdbcTemplate;

/**
 * One PostgreSQL database holding an {@code s3p} catalog and the queues routed to it, with the stores that work on
 * it. The {@link #DEFAULT default} cluster is the application's own {@code DataSource}; it also holds the crons,
 * workflows and API tokens.
 *
 * @param name          the cluster's name in the configuration ({@code default} for the application's)
 * @param dataSource    its connection pool
 * @param catalog       its queue catalog
 * @param jobs          its job store (the job lifecycle)
 * @param jobQueues     the administration of its job queues
 * @param deadLetters   its dead-lettered jobs
 * @param jobEvents     its job event log
 * @param streams       its stream store
 * @param notifications its LISTEN connection
 */
public record Cluster(String name, DataSource dataSource, QueueCatalog catalog, JobStore jobs, JobQueues jobQueues,
        JobDeadLetters deadLetters, JobEventLog jobEvents, StreamStore streams, NotificationHub notifications) {

    public static final String DEFAULT = "default";

    /** Whether this cluster holds the job: its locator, or the queue its id carries (ids are unique within one catalog only). */
    static final String LOCATE_SQL = "SELECT s3p.job_exists(?)";

    public Cluster {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(dataSource, "dataSource");
        Objects.requireNonNull(catalog, "catalog");
        Objects.requireNonNull(jobs, "jobs");
        Objects.requireNonNull(jobQueues, "jobQueues");
        Objects.requireNonNull(deadLetters, "deadLetters");
        Objects.requireNonNull(jobEvents, "jobEvents");
        Objects.requireNonNull(streams, "streams");
        Objects.requireNonNull(notifications, "notifications");
    }

    /** A cluster whose job queues, dead letters and event log are those of {@code jobs}' database and event log. */
    public Cluster(String name, DataSource dataSource, QueueCatalog catalog, JobStore jobs, StreamStore streams,
            NotificationHub notifications) {
        this(name, dataSource, catalog, jobs, new JobQueues(new JdbcTemplate(dataSource), catalog, jobs.eventLog()),
                new JobDeadLetters(new JdbcTemplate(dataSource), jobs.eventLog()), jobs.eventLog(), streams,
                notifications);
    }

    public boolean isDefault() {
        return DEFAULT.equals(name);
    }

    /** Whether this cluster's locator knows the job; an id that is not a UUID is nowhere. */
    public boolean holdsJob(String jobId) {
        Optional<UUID> id = uuid(jobId);
        return id.isPresent() && Boolean.TRUE.equals(
                new JdbcTemplate(dataSource).queryForObject(LOCATE_SQL, Boolean.class, id.get()));
    }

    private static Optional<UUID> uuid(String value) {
        try {
            return value == null ? Optional.empty() : Optional.of(UUID.fromString(value));
        }
        catch (IllegalArgumentException ex) {
            return Optional.empty();
        }
    }

    @Override
    public String toString() {
        return "Cluster[" + name + "]";
    }
}
