package io.pgvs3.core.job;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import io.pgvs3.core.catalog.QueueCatalog;
import io.pgvs3.core.catalog.QueueName;
import io.pgvs3.core.job.AckBatcher.AckOutcome;
import io.pgvs3.core.sql.QueueStatement;

import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The statements that complete jobs: one call for many acks, by {@code s3p.ack_jobs} (each job looked up in the
 * locator) or by one queue's own {@code ack_rows}. Answers are keyed by each request's position, from 1.
 */
final class JobAcks {

    /** Acks of jobs of any queues, each looked up in the locator. */
    static final String ACK_SQL = "SELECT a.ord, a.job::text, a.ok FROM s3p.ack_jobs(?, ?::jsonb[], ?, ?) a";

    /**
     * Acks of jobs of one queue, on its schema, by its {@code ack_rows}: each job's columns, as a fetch reads them,
     * from which {@link JobRows} builds the envelope, rather than one built in SQL and parsed again here. A row
     * without a job (a completed job not read back) has a null id.
     */
    static final QueueStatement QUEUE_ACK_SQL = QueueStatement.of(
            "SELECT a.ord, a.ok, " + JobRows.selectList("(a.job)") + " FROM {ack_rows}(?, ?::jsonb[], ?, ?) a");

    private final JdbcTemplate jdbc;
    private final QueueCatalog catalog;
    private final JobEventLog events;
    private final JobRows rows;

    JobAcks(JdbcTemplate jdbc, QueueCatalog catalog, JobEventLog events, JobRows rows) {
        this.jdbc = jdbc;
        this.catalog = catalog;
        this.events = events;
        this.rows = rows;
    }

    /**
     * Acks outside a caller's transaction, with envelopes. When every job was fetched here from the same queue, that
     * queue's {@code ack_rows} completes them; a job it does not answer for (not in that queue after all, or no such
     * job) and a queue dropped meanwhile go through {@code s3p.ack_jobs}, so the answers are the same either way.
     */
    Map<Integer, AckOutcome> executeLocated(List<AckBatcher.Request> requests) {
        QueueName queue = requests.get(0).queue();
        for (AckBatcher.Request request : requests) {
            if (queue == null || !queue.equals(request.queue())) {
                return execute(null, requests, true);
            }
        }
        Map<Integer, AckOutcome> outcomes;
        try {
            outcomes = execute(queue, requests, true);
        }
        catch (DataAccessException ex) {
            if (!QueueCatalog.isMissingNamespace(ex)) {
                throw ex;
            }
            catalog.forget(queue);
            return execute(null, requests, true);
        }
        if (outcomes.size() == requests.size()) {
            return outcomes;
        }
        List<AckBatcher.Request> rest = new ArrayList<>();
        List<Integer> positions = new ArrayList<>();
        for (int i = 0; i < requests.size(); i++) {
            if (!outcomes.containsKey(i + 1)) {
                rest.add(requests.get(i));
                positions.add(i + 1);
            }
        }
        Map<Integer, AckOutcome> found = execute(null, rest, true);
        Map<Integer, AckOutcome> merged = new HashMap<>(outcomes);
        found.forEach((ord, outcome) -> merged.put(positions.get(ord - 1), outcome));
        return merged;
    }

    /** The acks in one statement: by {@code s3p.ack_jobs}, or with a queue by that queue's {@code ack_rows}. */
    Map<Integer, AckOutcome> execute(QueueName queue, List<AckBatcher.Request> requests,
            boolean envelopes) {
        UUID[] ids = new UUID[requests.size()];
        String[] results = new String[requests.size()];
        String[] workers = new String[requests.size()];
        for (int i = 0; i < requests.size(); i++) {
            ids[i] = requests.get(i).id();
            results[i] = requests.get(i).resultJson();
            workers[i] = requests.get(i).workerId();
        }
        Map<Integer, AckOutcome> outcomes = new HashMap<>();
        if (queue == null) {
            jdbc.query(connection -> {
                PreparedStatement statement = connection.prepareStatement(ACK_SQL);
                bind(statement, 1, ids, results, workers, envelopes);
                return statement;
            }, rs -> {
                outcomes.put(rs.getInt(1), new AckOutcome(Job.fromEnvelopeText(rs.getString(2)), rs.getBoolean(3)));
            });
        }
        else {
            jdbc.query(connection -> {
                PreparedStatement statement = connection.prepareStatement(QUEUE_ACK_SQL.in(queue.schema()));
                statement.setString(1, queue.value());
                bind(statement, 2, ids, results, workers, envelopes);
                return statement;
            }, rs -> {
                Job job = rs.getString("id") == null ? null : rows.job(rs);
                outcomes.put(rs.getInt(1), new AckOutcome(job, rs.getBoolean(2)));
            });
        }
        events.transitioned();
        return outcomes;
    }

    private static void bind(PreparedStatement statement, int first, UUID[] ids, String[] results, String[] workers,
            boolean envelopes) throws SQLException {
        Connection connection = statement.getConnection();
        statement.setArray(first, connection.createArrayOf("uuid", ids));
        statement.setArray(first + 1, connection.createArrayOf("text", results));
        statement.setArray(first + 2, connection.createArrayOf("text", workers));
        statement.setBoolean(first + 3, envelopes);
    }
}
