package io.pgvs3.core.cluster;

import java.util.Objects;
import java.util.Optional;
import java.util.UUID;

import javax.sql.DataSource;

import io.pgvs3.core.catalog.QueueCatalog;
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
 * @param jobs          its job store
 * @param streams       its stream store
 * @param notifications its LISTEN connection
 */
public record Cluster(String name, DataSource dataSource, QueueCatalog catalog, JobStore jobs, StreamStore streams,
        NotificationHub notifications) {

    public static final String DEFAULT = "default";

    /** Whether the job's id is in this cluster's job locator (ids are unique within one catalog only). */
    static final String LOCATE_SQL = "SELECT EXISTS (SELECT 1 FROM s3p.job_locator WHERE id = ?)";

    public Cluster {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(dataSource, "dataSource");
        Objects.requireNonNull(catalog, "catalog");
        Objects.requireNonNull(jobs, "jobs");
        Objects.requireNonNull(streams, "streams");
        Objects.requireNonNull(notifications, "notifications");
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
