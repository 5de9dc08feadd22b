package io.pgvs3.core.job;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.Iterator;
import java.util.Map;
import java.util.TreeMap;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * Builds a {@link Job} and its OJS envelope from the columns of a job row, as {@code s3p.fetch_job_rows} returns
 * them. The envelope equals what the queue's SQL function {@code envelope} builds, key order included (jsonb orders
 * an object's keys by length, then bytewise), so a fetched job reads the same whichever side built it; building it
 * here spares the claim the most expensive part of its work.
 */
final class JobRows {

    private static final DateTimeFormatter SECONDS = DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss'Z'")
            .withZone(ZoneOffset.UTC);

    private static final DateTimeFormatter MILLIS = DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSS'Z'")
            .withZone(ZoneOffset.UTC);

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
        boolean active = "active".equals(state);
        // as in SQL: the unknown fields the client sent, overlaid by every system field that has a value
        Map<String, JsonNode> fields = new TreeMap<>(JsonbNodes.KEY_ORDER);
        String extra = rs.getString("extra");
        if (extra != null) {
            JsonNode unknown = mapper.readTree(extra);
            for (Iterator<Map.Entry<String, JsonNode>> it = unknown.properties().iterator(); it.hasNext();) {
                Map.Entry<String, JsonNode> field = it.next();
                fields.put(field.getKey(), field.getValue());
            }
        }
        fields.put("specversion", nodes.stringNode("1.0"));
        fields.put("id", nodes.stringNode(rs.getString("id")));
        fields.put("type", nodes.stringNode(rs.getString("type")));
        fields.put("queue", nodes.stringNode(rs.getString("queue")));
        fields.put("state", nodes.stringNode(state));
        fields.put("priority", JsonbNodes.number(rs.getLong("priority")));
        fields.put("attempt", JsonbNodes.number(rs.getLong("attempt")));
        fields.put("max_attempts", JsonbNodes.number(rs.getLong("max_attempts")));
        putNumber(fields, "timeout_ms", rs, "timeout_ms");
        putNumber(fields, "visibility_timeout_ms", rs, "visibility_timeout_ms");
        times[CREATED] = putTimestamp(fields, "created_at", rs, "created_at");
        putTimestamp(fields, "enqueued_at", rs, "enqueued_at");
        times[SCHEDULED] = putTimestamp(fields, "scheduled_at", rs, "scheduled_at");
        putTimestamp(fields, "expires_at", rs, "expires_at");
        times[STARTED] = putTimestamp(fields, "started_at", rs, "started_at");
        times[COMPLETED] = putTimestamp(fields, "completed_at", rs, "completed_at");
        putTimestamp(fields, "cancelled_at", rs, "cancelled_at");
        putTimestamp(fields, "discarded_at", rs, "discarded_at");
        if ("retryable".equals(state)) {
            putTimestamp(fields, "next_attempt_at", rs, "scheduled_at");
        }
        putNumber(fields, "retry_delay_ms", rs, "retry_delay_ms");
        if (active && rs.getString("worker_id") != null) {
            fields.put("worker_id", nodes.stringNode(rs.getString("worker_id")));
        }
        if (active) {
            putTimestamp(fields, "lease_expires_at", rs, "lease_until");
        }
        if (rs.getBoolean("dead_letter")) {
            fields.put("dead_letter", nodes.booleanNode(true));
        }
        String workflow = rs.getString("workflow_id");
        if (workflow != null) {
            fields.put("workflow_id", nodes.stringNode(workflow));
        }
        String retry = rs.getString("retry");
        if (retry != null) {
            fields.put("retry", retry(retry));
        }
        fields.put("args", mapper.readTree(rs.getString("args")));
        String errors = rs.getString("errors");
        fields.put("errors", "[]".equals(errors) ? nodes.arrayNode() : mapper.readTree(errors));
        putJson(fields, "meta", rs.getString("meta"));
        putJson(fields, "tags", rs.getString("tags"));
        putJson(fields, "result", rs.getString("result"));
        putJson(fields, "error", rs.getString("error"));
        ObjectNode envelope = nodes.objectNode();
        fields.forEach(envelope::set);
        return envelope;
    }

    private JsonNode retry(String json) {
        ParsedRetry last = lastRetry;
        if (last == null || !last.json().equals(json)) {
            last = new ParsedRetry(json, stripNulls(mapper.readTree(json)));
            lastRetry = last;
        }
        return last.tree().deepCopy();
    }

    private record ParsedRetry(String json, JsonNode tree) {
    }

    /** RFC 3339 in UTC with millisecond precision, without a fraction for whole seconds (as {@code s3p.ts}). */
    static String timestamp(Instant instant) {
        Instant micros = instant.truncatedTo(ChronoUnit.MICROS);
        return micros.getNano() == 0 ? SECONDS.format(micros) : MILLIS.format(micros);
    }

    private void putJson(Map<String, JsonNode> fields, String key, String json) {
        if (json != null) {
            fields.put(key, mapper.readTree(json));
        }
    }

    private void putNumber(Map<String, JsonNode> fields, String key, ResultSet rs, String column) throws SQLException {
        long value = rs.getLong(column);
        if (!rs.wasNull()) {
            fields.put(key, JsonbNodes.number(value));
        }
    }

    /** Puts the column's time as the envelope shows it and answers that instant (millisecond precision). */
    private Instant putTimestamp(Map<String, JsonNode> fields, String key, ResultSet rs, String column)
            throws SQLException {
        OffsetDateTime value = rs.getObject(column, OffsetDateTime.class);
        if (value == null) {
            return null;
        }
        Instant instant = value.toInstant();
        fields.put(key, nodes.stringNode(timestamp(instant)));
        return instant.truncatedTo(ChronoUnit.MILLIS);
    }

    /** What {@code jsonb_strip_nulls} does: drops null-valued object fields at every depth (array elements stay). */
    private JsonNode stripNulls(JsonNode node) {
        if (node.isObject()) {
            ObjectNode stripped = nodes.objectNode();
            for (Map.Entry<String, JsonNode> field : node.properties()) {
                if (!field.getValue().isNull()) {
                    stripped.set(field.getKey(), stripNulls(field.getValue()));
                }
            }
            return stripped;
        }
        if (node.isArray()) {
            var array = nodes.arrayNode();
            node.forEach(element -> array.add(stripNulls(element)));
            return array;
        }
        return node;
    }
}
