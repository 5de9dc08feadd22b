package io.pgvs3.core.catalog;

import java.util.LinkedHashMap;
import java.util.Map;

import io.pgvs3.core.sql.QueueStatement;

import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The figures a statistics sampler reads from one queue's namespace: its stream consumers' lag and its job depth per
 * state. Both are cheap enough to run on a fixed interval: lag comes from the cursor rows and the sequence (no event
 * scan), and each job count goes through the partial index that holds only that state's rows.
 */
public class QueueStatsQuery {

    /** The consumers as a JSON array of {@code name}, {@code lag} and {@code lag_seconds}. */
    static final QueueStatement CONSUMERS_SQL = QueueStatement.of("SELECT {stream_consumers}()::text");

    /** Unfinished jobs per state and the dead letters. */
    static final QueueStatement JOB_DEPTH_SQL = QueueStatement.of(
            "SELECT (SELECT count(*) FROM {jobs} WHERE state = 'available'),"
            + " (SELECT count(*) FROM {jobs} WHERE state = 'active'),"
            + " (SELECT count(*) FROM {jobs} WHERE state = 'scheduled'),"
            + " (SELECT count(*) FROM {jobs} WHERE state = 'retryable'),"
            + " (SELECT count(*) FROM {jobs} WHERE dead_letter)");

    private final JdbcTemplate jdbc;

    public QueueStatsQuery(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
    }

    /**
     * The queue's stream consumers and their lag, as JSON text (null when the function answers nothing); fails with
     * a missing-namespace error ({@link QueueCatalog#isMissingNamespace}) when the queue was dropped meanwhile.
     */
    public String consumersJson(QueueName queue) {
        return jdbc.queryForObject(CONSUMERS_SQL.in(queue.schema()), String.class);
    }

    /** The queue's job depth; fails like {@link #consumersJson} when the queue was dropped meanwhile. */
    public JobDepth jobDepth(QueueName queue) {
        return jdbc.queryForObject(JOB_DEPTH_SQL.in(queue.schema()), (rs, row) -> new JobDepth(rs.getLong(1),
                rs.getLong(2), rs.getLong(3), rs.getLong(4), rs.getLong(5)));
    }

    /**
     * Jobs of one queue per state.
     *
     * @param available  ready to be fetched
     * @param active     fetched and not yet acknowledged
     * @param scheduled  waiting for their scheduled time
     * @param retryable  waiting for their next attempt
     * @param deadLetter in the dead letters
     */
    public record JobDepth(long available, long active, long scheduled, long retryable, long deadLetter) {

        /** State name ({@code available} … {@code dead_letter}) → number of jobs, in that order. */
        public Map<String, Long> byState() {
            Map<String, Long> depth = new LinkedHashMap<>();
            depth.put("available", available);
            depth.put("active", active);
            depth.put("scheduled", scheduled);
            depth.put("retryable", retryable);
            depth.put("dead_letter", deadLetter);
            return depth;
        }
    }
}
