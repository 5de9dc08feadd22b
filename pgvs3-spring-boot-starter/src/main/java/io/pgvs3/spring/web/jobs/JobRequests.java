package io.pgvs3.spring.web.jobs;

import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.pgvs3.core.error.ErrorCode;
import io.pgvs3.core.error.Pgvs3Exception;
import io.pgvs3.core.job.NewJob;
import io.pgvs3.core.job.RetryPolicy;
import io.pgvs3.core.job.UniqueOptions;
import io.pgvs3.spring.web.JsonFields;
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

    private JobRequests() {
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
                .args(args.toString())
                .meta(meta == null || meta.isNull() ? null : meta.toString())
                .options(options.isEmpty() ? null : options.toString())
                .extra(extra.isEmpty() ? null : extra.toString());
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
            job.unique(uniqueOptions(unique));
        }
        JsonNode retry = options.has("retry") ? options.get("retry") : body.get("retry");
        if (retry != null && !retry.isNull()) {
            job.retry(retryPolicy(retry));
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

    /** A retry policy from its OJS form; ISO-8601 intervals or their {@code *_ms} aliases. */
    public static RetryPolicy retryPolicy(JsonNode retry) {
        if (!retry.isObject()) {
            throw validation("'options.retry' must be an object", "options.retry");
        }
        RetryPolicy defaults = RetryPolicy.DEFAULT;
        Integer maxAttempts = integer(retry, "max_attempts");
        Duration initial = interval(retry, "initial_interval");
        Duration max = interval(retry, "max_interval");
        JsonNode coefficient = retry.get("backoff_coefficient");
        if (coefficient != null && !coefficient.isNull() && !coefficient.isNumber()) {
            throw validation("backoff_coefficient must be a number", "options.retry.backoff_coefficient");
        }
        JsonNode jitter = retry.get("jitter");
        if (jitter != null && !jitter.isNull() && !jitter.isBoolean()) {
            throw validation("jitter must be a boolean", "options.retry.jitter");
        }
        String strategy = text(retry, "backoff_strategy");
        if (strategy == null) {
            strategy = text(retry, "backoff");
        }
        List<String> nonRetryable = new ArrayList<>();
        JsonNode patterns = retry.get("non_retryable_errors");
        if (patterns != null && !patterns.isNull()) {
            if (!patterns.isArray()) {
                throw validation("non_retryable_errors must be an array of strings", "options.retry.non_retryable_errors");
            }
            for (JsonNode pattern : patterns) {
                if (!pattern.isString()) {
                    throw validation("non_retryable_errors must be an array of strings",
                            "options.retry.non_retryable_errors");
                }
                nonRetryable.add(pattern.stringValue());
            }
        }
        String onExhaustion = text(retry, "on_exhaustion");
        Duration initialInterval = initial != null ? initial : defaults.initialInterval();
        Duration maxInterval = max != null ? max : defaults.maxInterval();
        if (max == null && maxInterval.compareTo(initialInterval) < 0) {
            maxInterval = initialInterval;
        }
        return new RetryPolicy(maxAttempts != null ? maxAttempts : defaults.maxAttempts(), initialInterval,
                coefficient != null && !coefficient.isNull() ? coefficient.doubleValue() : defaults.backoffCoefficient(),
                maxInterval, jitter != null && !jitter.isNull() ? jitter.booleanValue() : defaults.jitter(),
                strategy != null ? strategy : defaults.backoffStrategy(), nonRetryable,
                onExhaustion != null ? onExhaustion : defaults.onExhaustion());
    }

    /**
     * Unique options from their OJS form: {@code keys}, {@code args_keys}, {@code meta_keys}, {@code states},
     * {@code on_conflict}, and {@code period} as an ISO-8601 duration or {@code period_ms}. {@code key} is either an
     * explicit key (a string) or, as the client SDKs send it, an array: of dimensions when every element is one of
     * {@code type}, {@code queue}, {@code args} and {@code meta} (the Python SDK's {@code keys}), else of argument keys
     * (the Java and JavaScript SDKs' fields of the args to deduplicate on, meaning {@code keys: ["type", "args"]} with
     * those {@code args_keys}).
     */
    public static UniqueOptions uniqueOptions(JsonNode unique) {
        if (!unique.isObject()) {
            throw uniqueInvalid("'options.unique' must be an object", "");
        }
        for (String field : unique.propertyNames()) {
            if (!UNIQUE_FIELDS.contains(field)) {
                throw uniqueInvalid("unique has no field '" + field + "'; its fields are " + UNIQUE_FIELDS, "." + field);
            }
        }
        List<String> keys = strings(unique, "keys");
        List<String> argsKeys = strings(unique, "args_keys");
        List<String> metaKeys = strings(unique, "meta_keys");
        String explicitKey = null;
        JsonNode key = unique.get("key");
        if (key != null && !key.isNull()) {
            if (key.isString()) {
                explicitKey = key.stringValue();
            }
            else if (key.isArray()) {
                List<String> names = strings(unique, "key");
                if (keys != null || argsKeys != null) {
                    throw uniqueInvalid("send the unique dimensions either as 'key' or as 'keys' and 'args_keys', not both",
                            ".key");
                }
                if (names.isEmpty()) {
                    throw uniqueInvalid("unique.key must not be an empty array", ".key");
                }
                if (UniqueOptions.KEY_PARTS.containsAll(names)) {
                    keys = names;
                }
                else {
                    keys = List.of("type", "args");
                    argsKeys = names;
                }
            }
            else {
                throw uniqueInvalid("unique.key must be a string (an explicit key) or an array of strings, not "
                        + JsonFields.kind(key), ".key");
            }
        }
        List<String> stateNames = strings(unique, "states");
        Set<String> states = stateNames == null ? null : new java.util.LinkedHashSet<>(stateNames);
        if (stateNames != null && states.size() != stateNames.size()) {
            throw uniqueInvalid("unique.states must not repeat a state", ".states");
        }
        Duration period = null;
        JsonNode iso = unique.get("period");
        if (iso != null && !iso.isNull()) {
            period = period(iso);
        }
        JsonNode periodMs = unique.get("period_ms");
        if (period == null && periodMs != null && !periodMs.isNull()) {
            if (!periodMs.isIntegralNumber() || !periodMs.canConvertToLong()) {
                throw uniqueInvalid("unique.period_ms must be an integer number of milliseconds", ".period_ms");
            }
            period = Duration.ofMillis(periodMs.longValue());
        }
        JsonNode onConflict = unique.get("on_conflict");
        if (onConflict != null && !onConflict.isNull() && !onConflict.isString()) {
            throw uniqueInvalid("unique.on_conflict must be a string", ".on_conflict");
        }
        return new UniqueOptions(keys, argsKeys, metaKeys, explicitKey, period, states,
                onConflict == null || onConflict.isNull() ? null : onConflict.stringValue());
    }

    /** An ISO-8601 duration: days, hours, minutes and seconds, and weeks as 7 days; months and years vary in length. */
    private static Duration period(JsonNode iso) {
        if (!iso.isString()) {
            throw uniqueInvalid("unique.period must be an ISO-8601 duration such as PT1H, not " + JsonFields.kind(iso),
                    ".period");
        }
        String text = iso.stringValue();
        java.util.regex.Matcher weeks = WEEKS.matcher(text);
        try {
            if (weeks.matches()) {
                return Duration.ofDays(Math.multiplyExact(Long.parseLong(weeks.group(1)), 7));
            }
            return Duration.parse(text);
        }
        catch (DateTimeParseException | ArithmeticException | NumberFormatException ex) {
            throw uniqueInvalid("unique.period must be an ISO-8601 duration of weeks, days, hours, minutes or seconds "
                    + "such as PT1H or P7D, not '" + text + "'", ".period");
        }
    }

    /** The fields of the spec's UniquePolicy, and the SDKs' {@code key} and {@code period_ms}. */
    private static final Set<String> UNIQUE_FIELDS = new java.util.TreeSet<>(Set.of("keys", "args_keys", "meta_keys",
            "period", "period_ms", "states", "on_conflict", "key"));

    private static final java.util.regex.Pattern WEEKS = java.util.regex.Pattern.compile("P(\\d{1,9})W");

    /** An optional array of strings of the unique policy; null when absent. */
    private static List<String> strings(JsonNode unique, String field) {
        JsonNode node = unique.get(field);
        if (node == null || node.isNull()) {
            return null;
        }
        if (!node.isArray()) {
            throw uniqueInvalid("unique." + field + " must be an array of strings, not " + JsonFields.kind(node),
                    "." + field);
        }
        List<String> values = new ArrayList<>();
        for (JsonNode value : node) {
            if (!value.isString()) {
                throw uniqueInvalid("unique." + field + " must be an array of strings", "." + field);
            }
            values.add(value.stringValue());
        }
        return values;
    }

    private static Pgvs3Exception uniqueInvalid(String message, String field) {
        return Pgvs3Exception.invalidRequest(message, "options.unique" + field);
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

    private static Duration interval(JsonNode retry, String field) {
        JsonNode iso = retry.get(field);
        if (iso != null && !iso.isNull()) {
            if (!iso.isString()) {
                throw validation(field + " must be an ISO-8601 duration such as PT1S", "options.retry." + field);
            }
            try {
                return Duration.parse(iso.stringValue());
            }
            catch (DateTimeParseException ex) {
                throw validation(field + " must be an ISO-8601 duration such as PT1S, not '" + iso.stringValue() + "'",
                        "options.retry." + field);
            }
        }
        JsonNode ms = retry.get(field + "_ms");
        if (ms != null && !ms.isNull()) {
            if (!ms.isIntegralNumber() || ms.longValue() < 0) {
                throw validation(field + "_ms must be a non-negative integer", "options.retry." + field + "_ms");
            }
            return Duration.ofMillis(ms.longValue());
        }
        return null;
    }

    private static Integer integer(JsonNode node, String field) {
        JsonNode value = node.get(field);
        if (value == null || value.isNull()) {
            return null;
        }
        if (!value.isIntegralNumber() || !value.canConvertToInt()) {
            throw validation(field + " must be an integer", "options.retry." + field);
        }
        return value.intValue();
    }

    private static String text(JsonNode node, String field) {
        JsonNode value = node.get(field);
        if (value == null || value.isNull()) {
            return null;
        }
        if (!value.isString()) {
            throw validation(field + " must be a string", "options.retry." + field);
        }
        return value.stringValue();
    }

    private static String firstString(JsonNode options, JsonNode body, String field) {
        String value = JsonFields.optionalString(options, field);
        return value != null ? value : JsonFields.optionalString(body, field);
    }

    private static Long firstLong(JsonNode options, JsonNode body, String field) {
        Long value = JsonFields.optionalLong(options, field);
        return value != null ? value : JsonFields.optionalLong(body, field);
    }

    private static Pgvs3Exception validation(String message, String field) {
        return new Pgvs3Exception(ErrorCode.VALIDATION_ERROR, "invalid retry policy: " + message, Map.of("field", field));
    }
}
