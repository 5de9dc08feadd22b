package io.pgvs3.core.job;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * A job as stored. {@code envelope} is its full OJS envelope (the wire form, including unknown top-level fields
 * the client sent); the other components are typed views of it.
 */
public record Job(String id, String type, String queue, JobState state, String argsJson, int attempt, int maxAttempts,
        int priority, String metaJson, String resultJson, JobError error, List<JobError> errors, Instant createdAt,
        Instant scheduledAt, Instant startedAt, Instant completedAt, Long retryDelayMs, ObjectNode envelope) {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    /** The job of an envelope as the SQL functions answer it ({@code jsonb} as text); null for null. */
    static Job fromEnvelopeText(String envelope) {
        return envelope == null ? null : fromEnvelope((ObjectNode) JSON.readTree(envelope));
    }

    static Job fromEnvelope(ObjectNode envelope) {
        return fromEnvelope(envelope, instant(envelope.get("created_at")), instant(envelope.get("scheduled_at")),
                instant(envelope.get("started_at")), instant(envelope.get("completed_at")));
    }

    /** As {@link #fromEnvelope(ObjectNode)}, with the envelope's times given as the instants its fields show. */
    static Job fromEnvelope(ObjectNode envelope, Instant createdAt, Instant scheduledAt, Instant startedAt,
            Instant completedAt) {
        List<JobError> errors = new ArrayList<>();
        envelope.path("errors").forEach(node -> errors.add(error(node)));
        return new Job(envelope.path("id").asString(), envelope.path("type").asString(),
                envelope.path("queue").asString(), JobState.fromWire(envelope.path("state").asString()),
                json(envelope.get("args")), envelope.path("attempt").asInt(), envelope.path("max_attempts").asInt(),
                envelope.path("priority").asInt(), json(envelope.get("meta")), json(envelope.get("result")),
                envelope.hasNonNull("error") ? error(envelope.get("error")) : null, List.copyOf(errors),
                createdAt, scheduledAt, startedAt, completedAt,
                envelope.hasNonNull("retry_delay_ms") ? envelope.get("retry_delay_ms").asLong() : null, envelope);
    }

    private static JobError error(JsonNode node) {
        return new JobError(text(node.get("code")), text(node.get("message")), text(node.get("type")),
                node.hasNonNull("retryable") ? node.get("retryable").asBoolean() : null, json(node.get("details")),
                node.hasNonNull("attempt") ? node.get("attempt").asInt() : null, instant(node.get("occurred_at")));
    }

    private static String json(JsonNode node) {
        return node == null || node.isMissingNode() ? null : node.toString();
    }

    private static String text(JsonNode node) {
        return node == null || node.isNull() ? null : node.asString();
    }

    private static Instant instant(JsonNode node) {
        return node == null || node.isNull() ? null : Instant.parse(node.asString());
    }
}
