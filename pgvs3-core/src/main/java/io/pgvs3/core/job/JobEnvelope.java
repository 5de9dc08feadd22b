package io.pgvs3.core.job;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * The OJS envelope of a job built in Java, equal to what the queue's SQL function {@code envelope(j)} builds for the
 * same row, key order included (see {@link JsonbNodes}): the unknown top-level fields the client sent, overlaid by
 * every system field that has a value, then args, errors, meta, tags, result and error. The fields, their conditions
 * and their formats live here; {@link JobRows} (a fetched row) and {@link EnqueueRows} (a row just inserted) only
 * say what the row holds. Not thread-safe: one instance per envelope.
 */
final class JobEnvelope {

    /** Every field the envelope has besides the extra ones, by its wire name. */
    enum Field {
        SPECVERSION("specversion"), ID("id"), TYPE("type"), QUEUE("queue"), STATE("state"), PRIORITY("priority"),
        ATTEMPT("attempt"), MAX_ATTEMPTS("max_attempts"), TIMEOUT_MS("timeout_ms"),
        VISIBILITY_TIMEOUT_MS("visibility_timeout_ms"), CREATED_AT("created_at"), ENQUEUED_AT("enqueued_at"),
        SCHEDULED_AT("scheduled_at"), EXPIRES_AT("expires_at"), STARTED_AT("started_at"),
        COMPLETED_AT("completed_at"), CANCELLED_AT("cancelled_at"), DISCARDED_AT("discarded_at"),
        NEXT_ATTEMPT_AT("next_attempt_at"), RETRY_DELAY_MS("retry_delay_ms"), WORKER_ID("worker_id"),
        LEASE_EXPIRES_AT("lease_expires_at"), DEAD_LETTER("dead_letter"), WORKFLOW_ID("workflow_id"),
        RETRY("retry"), ARGS("args"), ERRORS("errors"), META("meta"), TAGS("tags"), RESULT("result"),
        ERROR("error");

        private final String wireName;

        Field(String wireName) {
            this.wireName = wireName;
        }

        String wireName() {
            return wireName;
        }
    }

    /** The fields in {@code jsonb} key order, the order an envelope without extra fields is written in. */
    private static final Field[] ORDER = Arrays.stream(Field.values())
            .sorted(Comparator.comparing(Field::wireName, JsonbNodes.KEY_ORDER)).toArray(Field[]::new);

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private static final JsonNode SPEC_VERSION = NODES.stringNode("1.0");

    private static final DateTimeFormatter SECONDS = DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss'Z'")
            .withZone(ZoneOffset.UTC);

    private static final DateTimeFormatter MILLIS = DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSS'Z'")
            .withZone(ZoneOffset.UTC);

    private final JsonNode[] fields = new JsonNode[ORDER.length];
    private final String state;
    private JsonNode extra;

    /** An envelope of a job in {@code state}; {@code queue} is the queue's name as a string node. */
    JobEnvelope(String id, String type, JsonNode queue, String state) {
        this.state = state;
        fields[Field.SPECVERSION.ordinal()] = SPEC_VERSION;
        fields[Field.ID.ordinal()] = NODES.stringNode(id);
        fields[Field.TYPE.ordinal()] = NODES.stringNode(type);
        fields[Field.QUEUE.ordinal()] = queue;
        fields[Field.STATE.ordinal()] = NODES.stringNode(state);
    }

    /** Sets a field; a null value leaves it out (as {@code jsonb_strip_nulls} does). */
    JobEnvelope put(Field field, JsonNode value) {
        fields[field.ordinal()] = value;
        return this;
    }

    JobEnvelope putString(Field field, String value) {
        return put(field, value == null ? null : NODES.stringNode(value));
    }

    /** A whole number, as it reads back from {@code jsonb} text; null leaves the field out. */
    JobEnvelope putNumber(Field field, Long value) {
        return put(field, value == null ? null : JsonbNodes.number(value));
    }

    JobEnvelope putNumber(Field field, long value) {
        return put(field, JsonbNodes.number(value));
    }

    /** A time as {@link #timestamp(Instant)} writes it; null leaves the field out. */
    JobEnvelope putTimestamp(Field field, Instant value) {
        return put(field, value == null ? null : timestampNode(value));
    }

    /** The job's scheduled time, shown as {@code next_attempt_at} too while the job waits for a retry. */
    JobEnvelope scheduledAt(Instant value) {
        JsonNode time = value == null ? null : timestampNode(value);
        put(Field.SCHEDULED_AT, time);
        return "retryable".equals(state) ? put(Field.NEXT_ATTEMPT_AT, time) : this;
    }

    /** The worker holding the job and its lease, shown only while the job is active (see {@link #showsLease}). */
    JobEnvelope lease(String workerId, Instant leaseUntil) {
        if (showsLease(state)) {
            putString(Field.WORKER_ID, workerId);
            putTimestamp(Field.LEASE_EXPIRES_AT, leaseUntil);
        }
        return this;
    }

    /** Whether a job in {@code state} shows its worker and lease: a caller may skip reading them otherwise. */
    static boolean showsLease(String state) {
        return "active".equals(state);
    }

    /** {@code dead_letter} is shown only when true. */
    JobEnvelope deadLetter(boolean deadLetter) {
        return put(Field.DEAD_LETTER, deadLetter ? NODES.booleanNode(true) : null);
    }

    /** The tags of the job's options, shown when the options have a {@code tags} field (JSON null included). */
    JobEnvelope tagsOf(JsonNode options) {
        return put(Field.TAGS, options == null || !options.has("tags") ? null : options.get("tags").deepCopy());
    }

    /** The unknown top-level fields the client sent (an object), overlaid by the system fields; null for none. */
    JobEnvelope extra(JsonNode extra) {
        this.extra = extra;
        return this;
    }

    ObjectNode build() {
        // without extra fields the system fields, taken in ORDER, are already in jsonb key order
        Map<String, JsonNode> merged = extra == null ? new LinkedHashMap<>(48) : new TreeMap<>(JsonbNodes.KEY_ORDER);
        if (extra != null) {
            extra.properties().forEach(field -> merged.put(field.getKey(), field.getValue()));
        }
        for (Field field : ORDER) {
            JsonNode value = fields[field.ordinal()];
            if (value != null) {
                merged.put(field.wireName(), value);
            }
        }
        return extra == null ? new ObjectNode(NODES, merged) : JsonbNodes.object(merged);
    }

    /** RFC 3339 in UTC with millisecond precision, without a fraction for whole seconds (as {@code s3p.ts}). */
    static String timestamp(Instant instant) {
        Instant micros = instant.truncatedTo(ChronoUnit.MICROS);
        return micros.getNano() == 0 ? SECONDS.format(micros) : MILLIS.format(micros);
    }

    static JsonNode timestampNode(Instant instant) {
        return NODES.stringNode(timestamp(instant));
    }

    /**
     * A retry policy as the envelope shows it: {@code envelope(j)} passes it through {@code jsonb_strip_nulls}, which
     * drops null-valued object fields at every depth (array elements stay).
     */
    static JsonNode retry(JsonNode policy) {
        if (policy.isObject()) {
            ObjectNode stripped = NODES.objectNode();
            for (Map.Entry<String, JsonNode> field : policy.properties()) {
                if (!field.getValue().isNull()) {
                    stripped.set(field.getKey(), retry(field.getValue()));
                }
            }
            return stripped;
        }
        if (policy.isArray()) {
            ArrayNode array = NODES.arrayNode();
            policy.forEach(element -> array.add(retry(element)));
            return array;
        }
        return policy;
    }
}
