package io.pgvs3.core.job;

import java.sql.Array;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
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

    /**
     * A filtered read looks for its events among at most this many events after its cursor, and then answers a
     * cursor past them: a filter that matches few events reads a bounded part of the log per page, not every event
     * after the cursor (the log has no index by queue or type, which would cost every job transition its entry).
     */
    public static final int FILTER_SCAN = 5_000;

    /**
     * An event's data object: the events every job records keep their fields in columns, and the object is built here
     * (see V4__job_events_typed_columns.sql); any other event holds it whole.
     */
    static final String DATA = "s3p.job_event_data(type, queue, job_id, data, job_type, state, attempt, worker_id,"
            + " duration_ms)::text";

    static final String EVENTS_SQL = "SELECT id, occurred_at, type, queue, job_id::text, " + DATA
            + " FROM s3p.job_events WHERE id > ? ORDER BY id LIMIT ?";

    // The page stops pulling events once it has its limit, so a filter that matches the events right after the cursor
    // reads only those. A page short of its limit is followed by one row without an event that says how many events
    // after the cursor the page looked at (up to the bound) and the last of them, read again from the primary key.
    static final String FILTERED_EVENTS_SQL = "WITH page AS ("
            + "SELECT e.id, e.occurred_at, e.type, e.queue, e.job_id, " + DATA + " AS data"
            + " FROM (SELECT * FROM s3p.job_events WHERE id > ? ORDER BY id LIMIT ?) e"
            + " WHERE (cardinality(?::text[]) = 0 OR e.type = ANY (?::text[]))"
            + " AND (cardinality(?::text[]) = 0 OR e.queue = ANY (?::text[])) ORDER BY e.id LIMIT ?)"
            + " SELECT id, occurred_at, type, queue, job_id::text, data, NULL::bigint AS last_id,"
            + " NULL::bigint AS scanned FROM page"
            + " UNION ALL SELECT NULL, NULL, NULL, NULL, NULL, NULL, max(s.id), count(*)"
            + " FROM (SELECT id FROM s3p.job_events WHERE id > ? ORDER BY id LIMIT ?) s"
            + " WHERE (SELECT count(*) FROM page) < ? ORDER BY 1 NULLS LAST";

    private final JdbcTemplate jdbc;
    private final JobEventStreams eventStreams;

    public JobEventLog(JdbcTemplate jdbc, QueueCatalog catalog) {
        this.jdbc = jdbc;
        this.eventStreams = new JobEventStreams(jdbc, catalog);
    }

    /** The events of {@link #page}: a filtered read can answer fewer than the events that match after the cursor. */
    public List<JobEvent> events(Set<String> types, Set<String> queues, long afterId, int limit) {
        return page(types, queues, afterId, limit).events();
    }

    /**
     * At most {@code limit} events after {@code afterId} (0 for the oldest kept), filtered by type and queue when the
     * sets are non-empty, and the cursor to read on from. A filtered read looks only at the next
     * {@link #FILTER_SCAN} events (or {@code limit}, if more); when that many were looked at without filling the
     * page, the cursor is the last of them, past the page's events, and the page may even be empty.
     */
    public JobEventPage page(Set<String> types, Set<String> queues, long afterId, int limit) {
        if (types.isEmpty() && queues.isEmpty()) {
            List<JobEvent> events = jdbc.query(EVENTS_SQL, (rs, row) -> event(rs), afterId, limit);
            return new JobEventPage(events, events.isEmpty() ? afterId : events.get(events.size() - 1).id());
        }
        int scan = Math.max(FILTER_SCAN, limit);
        List<JobEvent> events = new ArrayList<>();
        long[] scanned = {afterId, 0};
        jdbc.query(connection -> {
            PreparedStatement statement = connection.prepareStatement(FILTERED_EVENTS_SQL);
            Array typeArray = connection.createArrayOf("text", types.toArray());
            Array queueArray = connection.createArrayOf("text", queues.toArray());
            statement.setLong(1, afterId);
            statement.setInt(2, scan);
            statement.setArray(3, typeArray);
            statement.setArray(4, typeArray);
            statement.setArray(5, queueArray);
            statement.setArray(6, queueArray);
            statement.setInt(7, limit);
            statement.setLong(8, afterId);
            statement.setInt(9, scan);
            statement.setInt(10, limit);
            return statement;
        }, (ResultSet rs) -> {
            if (rs.getObject(1) != null) {
                events.add(event(rs));
            }
            else if (rs.getObject(7) != null) {
                scanned[0] = rs.getLong(7);
                scanned[1] = rs.getLong(8);
            }
        });
        long last = events.isEmpty() ? afterId : events.get(events.size() - 1).id();
        boolean stoppedAtBound = events.size() < limit && scanned[1] == scan;
        return new JobEventPage(events, stoppedAtBound ? scanned[0] : last);
    }

    private static JobEvent event(ResultSet rs) throws SQLException {
        return new JobEvent(rs.getLong(1), rs.getTimestamp(2).toInstant(), rs.getString(3), rs.getString(4),
                rs.getString(5), rs.getString(6));
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
