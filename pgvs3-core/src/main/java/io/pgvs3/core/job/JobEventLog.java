package io.pgvs3.core.job;

import java.sql.Array;
import java.sql.PreparedStatement;
import java.util.List;
import java.util.Set;

import io.pgvs3.core.catalog.QueueCatalog;

import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The job event log ({@code s3p.job_events}): every transition of a job recorded in its transaction, read oldest
 * first by id, and the opt-ins of queues into those events as a stream. The other job stores tell it when jobs
 * transitioned, so that the listeners of those streams wake.
 */
public class JobEventLog {

    static final String EVENTS_SQL = "SELECT id, occurred_at, type, queue, job_id::text, data::text FROM s3p.job_events"
            + " WHERE id > ? AND (cardinality(?::text[]) = 0 OR type = ANY (?::text[]))"
            + " AND (cardinality(?::text[]) = 0 OR queue = ANY (?::text[])) ORDER BY id LIMIT ?";

    private final JdbcTemplate jdbc;
    private final JobEventStreams eventStreams;

    public JobEventLog(JdbcTemplate jdbc, QueueCatalog catalog) {
        this.jdbc = jdbc;
        this.eventStreams = new JobEventStreams(jdbc, catalog);
    }

    /** Events after {@code afterId} (0 for the oldest kept), filtered by type and queue when the sets are non-empty. */
    public List<JobEvent> events(Set<String> types, Set<String> queues, long afterId, int limit) {
        return jdbc.query(connection -> {
            PreparedStatement statement = connection.prepareStatement(EVENTS_SQL);
            Array typeArray = connection.createArrayOf("text", types.toArray());
            Array queueArray = connection.createArrayOf("text", queues.toArray());
            statement.setLong(1, afterId);
            statement.setArray(2, typeArray);
            statement.setArray(3, typeArray);
            statement.setArray(4, queueArray);
            statement.setArray(5, queueArray);
            statement.setInt(6, limit);
            return statement;
        }, (rs, row) -> new JobEvent(rs.getLong(1), rs.getTimestamp(2).toInstant(), rs.getString(3), rs.getString(4),
                rs.getString(5), rs.getString(6)));
    }

    /** The opt-ins of job queues into job lifecycle events as a stream. */
    public JobEventStreams eventStreams() {
        return eventStreams;
    }

    /** Called after job transitions: see {@link JobEventStreams#transitioned()}. */
    void transitioned() {
        eventStreams.transitioned();
    }
}
