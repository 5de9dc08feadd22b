package io.pgvs3.core.job;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.stream.Collectors;

import io.pgvs3.core.job.JobEnvelope.Field;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * Builds a {@link Job} and its OJS envelope ({@link JobEnvelope}) from the columns of a job row, as
 * {@code s3p.fetch_job_rows} returns them, so a fetched job reads the same whichever side built it; building it here
 * spares the claim the most expensive part of its work.
 */
final class JobRows {

    /** The columns this class reads, after the queue name: a job row's, with its tags taken out of its options. */
    private static final List<String> COLUMNS = List.of("id", "type", "state", "args", "meta",
            "options -> 'tags' AS tags", "extra", "priority", "attempt", "max_attempts", "retry", "timeout_ms",
            "visibility_timeout_ms", "scheduled_at", "expires_at", "worker_id", "lease_until", "created_at",
            "enqueued_at", "started_at", "completed_at", "cancelled_at", "discarded_at", "result", "error", "errors",
            "retry_delay_ms", "dead_letter", "workflow_id");

    private static final int CREATED = 0;
    private static final int SCHEDULED = 1;
    private static final int STARTED = 2;
    private static final int COMPLETED = 3;
    private static final int TIMES = 4;

    private final JsonMapper mapper;
    private final JsonNodeFactory nodes;

    /**
     * The last retry policy read and its tree: the jobs of one fetch mostly share their policy, and parsing it again
     * for every job was a good part of building the envelopes. Each envelope gets its own copy.
     */
    private volatile ParsedRetry lastRetry;

    /**
     * The select list of a statement whose rows this class reads: the queue name as a parameter, then the columns of
     * the job row {@code row} names (an alias such as {@code c}, or a composite such as {@code (a.job)}).
     */
    static String selectList(String row) {
        return COLUMNS.stream().map(column -> row + "." + column)
                .collect(Collectors.joining(", ", "?::text AS queue, ", ""));
    }

    JobRows(JsonMapper mapper) {
        this.mapper = mapper;
        this.nodes = mapper.getNodeFactory();
    }

    /** The job in the current row of a result of {@code s3p.fetch_job_rows}. */
    Job job(ResultSet rs) throws SQLException {
        Instant[] times = new Instant[TIMES];
        ObjectNode envelope = envelope(rs, times);
        return Job.fromEnvelope(envelope, times[CREATED], times[SCHEDULED], times[STARTED], times[COMPLETED]);
    }

    ObjectNode envelope(ResultSet rs) throws SQLException {
        return envelope(rs, new Instant[TIMES]);
    }

    /** The envelope; {@code times} gets the instants its created, scheduled, started and completed fields show. */
    private ObjectNode envelope(ResultSet rs, Instant[] times) throws SQLException {
        String state = rs.getString("state");
        JobEnvelope envelope = new JobEnvelope(rs.getString("id"), rs.getString("type"),
                nodes.stringNode(rs.getString("queue")), state)
                .putNumber(Field.PRIORITY, rs.getLong("priority"))
                .putNumber(Field.ATTEMPT, rs.getLong("attempt"))
                .putNumber(Field.MAX_ATTEMPTS, rs.getLong("max_attempts"))
                .putNumber(Field.TIMEOUT_MS, number(rs, "timeout_ms"))
                .putNumber(Field.VISIBILITY_TIMEOUT_MS, number(rs, "visibility_timeout_ms"));
        times[CREATED] = instant(rs, "created_at");
        times[SCHEDULED] = instant(rs, "scheduled_at");
        times[STARTED] = instant(rs, "started_at");
        times[COMPLETED] = instant(rs, "completed_at");
        envelope.putTimestamp(Field.CREATED_AT, times[CREATED])
                .putTimestamp(Field.ENQUEUED_AT, instant(rs, "enqueued_at"))
                .scheduledAt(times[SCHEDULED])
                .putTimestamp(Field.EXPIRES_AT, instant(rs, "expires_at"))
                .putTimestamp(Field.STARTED_AT, times[STARTED])
                .putTimestamp(Field.COMPLETED_AT, times[COMPLETED])
                .putTimestamp(Field.CANCELLED_AT, instant(rs, "cancelled_at"))
                .putTimestamp(Field.DISCARDED_AT, instant(rs, "discarded_at"))
                .putNumber(Field.RETRY_DELAY_MS, number(rs, "retry_delay_ms"))
                .deadLetter(rs.getBoolean("dead_letter"))
                .putString(Field.WORKFLOW_ID, rs.getString("workflow_id"))
                .put(Field.RETRY, retry(rs.getString("retry")))
                .put(Field.ARGS, mapper.readTree(rs.getString("args")))
                .put(Field.ERRORS, errors(rs.getString("errors")))
                .put(Field.META, json(rs.getString("meta")))
                .put(Field.TAGS, json(rs.getString("tags")))
                .put(Field.RESULT, json(rs.getString("result")))
                .put(Field.ERROR, json(rs.getString("error")))
                .extra(json(rs.getString("extra")));
        if (JobEnvelope.showsLease(state)) {
            envelope.lease(rs.getString("worker_id"), instant(rs, "lease_until"));
        }
        for (int i = 0; i < TIMES; i++) {
            times[i] = times[i] == null ? null : times[i].truncatedTo(ChronoUnit.MILLIS);
        }
        return envelope.build();
    }

    private JsonNode retry(String json) {
        if (json == null) {
            return null;
        }
        ParsedRetry last = lastRetry;
        if (last == null || !last.json().equals(json)) {
            last = new ParsedRetry(json, JobEnvelope.retry(mapper.readTree(json)));
            lastRetry = last;
        }
        return last.tree().deepCopy();
    }

    private record ParsedRetry(String json, JsonNode tree) {
    }

    private JsonNode errors(String json) {
        return "[]".equals(json) ? nodes.arrayNode() : mapper.readTree(json);
    }

    private JsonNode json(String json) {
        return json == null ? null : mapper.readTree(json);
    }

    private static Long number(ResultSet rs, String column) throws SQLException {
        long value = rs.getLong(column);
        return rs.wasNull() ? null : value;
    }

    private static Instant instant(ResultSet rs, String column) throws SQLException {
        OffsetDateTime value = rs.getObject(column, OffsetDateTime.class);
        return value == null ? null : value.toInstant();
    }
}
