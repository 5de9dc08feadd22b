package io.pgvs3.core.job;

import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.pgvs3.core.error.ErrorCode;
import io.pgvs3.core.error.Pgvs3Exception;
import io.pgvs3.core.json.JsonFields;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * Turns an OJS job envelope (the body of {@code POST /ojs/v1/jobs}) into a {@link NewJob}, validating every field.
 * Top-level fields the binding does not define are kept verbatim; system-managed fields a client sends are ignored.
 */
public final class JobRequests {

    /** Top-level fields read from the request. */
    private static final Set<String> CONSUMED = Set.of("id", "type", "args", "meta", "options", "specversion",
            "queue", "priority", "timeout_ms", "scheduled_at", "delay_until", "expires_at", "retry", "tags");

    /** Fields the server manages; a value sent by the client is dropped. */
    private static final Set<String> SYSTEM = Set.of("state", "attempt", "max_attempts", "created_at", "enqueued_at",
            "started_at", "completed_at", "cancelled_at", "discarded_at", "next_attempt_at", "retry_delay_ms",
            "result", "error", "errors", "worker_id", "lease_expires_at", "dead_letter", "visibility_timeout_ms");

    /** The most jobs one batch request may enqueue. */
    public static final int MAX_BATCH = 10_000;

    private JobRequests() {
    }

    /**
     * The jobs of a batch request, {@code {"jobs": [...]}}, each validated; a bad job is reported with its index,
     * and a batch of more than {@link #MAX_BATCH} jobs is 413 {@code batch_too_large}.
     */
    public static List<NewJob> parseBatch(JsonNode body) {
        body(body);
        JsonNode jobs = body.get("jobs");
        if (jobs == null || !jobs.isArray() || jobs.isEmpty()) {
            throw Pgvs3Exception.invalidRequest("'jobs' must be a non-empty array of job envelopes", "jobs");
        }
        if (jobs.size() > MAX_BATCH) {
            throw new Pgvs3Exception(ErrorCode.BATCH_TOO_LARGE, "a batch holds at most " + MAX_BATCH + " jobs",
                    Map.of("max_batch", MAX_BATCH));
        }
        List<NewJob> parsed = new ArrayList<>(jobs.size());
        for (int i = 0; i < jobs.size(); i++) {
            try {
                parsed.add(parse(jobs.get(i)));
            }
            catch (Pgvs3Exception ex) {
                Map<String, Object> details = new LinkedHashMap<>(ex.details());
                details.put("index", i);
                throw new Pgvs3Exception(ex.code(), "jobs[" + i + "]: " + ex.getMessage(), details);
            }
        }
        return parsed;
    }

    public static NewJob parse(JsonNode body) {
        body(body);
        JsonNode typeNode = body.get("type");
        if (typeNode == null || typeNode.isNull()) {
            throw Pgvs3Exception.invalidRequest("'type' is required", "type");
        }
        String type = JsonFields.requiredString(body, "type");
        JsonNode args = body.get("args");
        if (args == null || !args.isArray()) {
            throw Pgvs3Exception.invalidRequest("'args' is required and must be an array, not "
                    + JsonFields.kind(args), "args");
        }
        JsonNode meta = body.get("meta");
        if (meta != null && !meta.isNull() && !meta.isObject()) {
            throw Pgvs3Exception.invalidRequest("'meta' must be an object", "meta");
        }
        JsonNode options = body.get("options");
        if (options == null || options.isNull()) {
            options = JsonNodeFactory.instance.objectNode();
        }
        else if (!options.isObject()) {
            throw Pgvs3Exception.invalidRequest("'options' must be an object", "options");
        }
        ObjectNode extra = JsonNodeFactory.instance.objectNode();
        for (Map.Entry<String, JsonNode> field : body.properties()) {
            if (!CONSUMED.contains(field.getKey()) && !SYSTEM.contains(field.getKey())) {
                extra.set(field.getKey(), field.getValue());
            }
        }
        NewJob.Builder job = NewJob.builder(type)
                .id(idOf(body))
                .parsed(args, meta == null || meta.isNull() ? null : meta, options.isEmpty() ? null : options,
                        extra.isEmpty() ? null : extra);
        String queue = firstString(options, body, "queue");
        if (queue != null) {
            job.queue(queue);
        }
        Long priority = firstLong(options, body, "priority");
        if (priority != null) {
            if (priority < Integer.MIN_VALUE || priority > Integer.MAX_VALUE) {
                throw Pgvs3Exception.invalidRequest("priority must be between " + NewJob.MIN_PRIORITY + " and "
                        + NewJob.MAX_PRIORITY, "options.priority");
            }
            job.priority(priority.intValue());
        }
        Long timeoutMs = firstLong(options, body, "timeout_ms");
        if (timeoutMs != null) {
            job.timeout(Duration.ofMillis(timeoutMs));
        }
        Long visibilityMs = JsonFields.optionalLong(options, "visibility_timeout_ms");
        if (visibilityMs != null) {
            job.visibilityTimeout(Duration.ofMillis(visibilityMs));
        }
        String scheduled = firstString(options, body, "scheduled_at");
        if (scheduled == null) {
            scheduled = firstString(options, body, "delay_until");
        }
        if (scheduled != null) {
            job.scheduledAt(instant(scheduled, "options.scheduled_at"));
        }
        Long delayMs = JsonFields.optionalLong(options, "delay_ms");
        if (delayMs != null && scheduled == null) {
            job.delay(Duration.ofMillis(delayMs));
        }
        String expires = firstString(options, body, "expires_at");
        if (expires != null) {
            job.expiresAt(instant(expires, "options.expires_at"));
        }
        JsonNode unique = options.get("unique");
        if (unique != null && !unique.isNull()) {
            job.unique(JobPolicies.uniqueOptions(unique));
        }
        JsonNode retry = options.has("retry") ? options.get("retry") : body.get("retry");
        if (retry != null && !retry.isNull()) {
            job.retry(JobPolicies.retryPolicy(retry));
        }
        return job.build();
    }

    private static String idOf(JsonNode body) {
        JsonNode id = body.get("id");
        if (id == null || id.isNull()) {
            return null;
        }
        if (!id.isString()) {
            throw Pgvs3Exception.invalidRequest("'id' must be a string", "id");
        }
        return id.stringValue();
    }

    /** The request body as an object: a missing body is 400 {@code invalid_payload}, any other kind 400. */
    public static JsonNode body(JsonNode body) {
        if (body == null || body.isMissingNode()) {
            throw new Pgvs3Exception(ErrorCode.INVALID_PAYLOAD, "request body is missing");
        }
        return JsonFields.object(body);
    }

    /** An ISO-8601 instant, or a duration from now written {@code +PT5S}. */
    public static Instant instant(String value, String field) {
        try {
            if (value.startsWith("+")) {
                return Instant.now().plus(Duration.parse(value.substring(1)));
            }
            return java.time.OffsetDateTime.parse(value).toInstant();
        }
        catch (DateTimeException | ArithmeticException ex) {
            throw Pgvs3Exception.invalidRequest("'" + field + "' must be an RFC 3339 timestamp or +<ISO-8601 duration>, not '"
                    + value + "'", field);
        }
    }

    private static String firstString(JsonNode options, JsonNode body, String field) {
        String value = JsonFields.optionalString(options, field);
        return value != null ? value : JsonFields.optionalString(body, field);
    }

    private static Long firstLong(JsonNode options, JsonNode body, String field) {
        Long value = JsonFields.optionalLong(options, field);
        return value != null ? value : JsonFields.optionalLong(body, field);
    }


}
