package io.pgvs3.core.job;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.pgvs3.core.error.ErrorCode;
import io.pgvs3.core.error.Pgvs3Exception;
import io.pgvs3.core.json.JsonFields;
import tools.jackson.databind.JsonNode;

/**
 * The policies of a job request in their OJS form ({@code options.retry}, {@code options.unique}) as a
 * {@link RetryPolicy} and {@link UniqueOptions}, each invalid field a 400 naming it.
 */
public final class JobPolicies {

    private JobPolicies() {
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
        Set<String> states = stateNames == null ? null : new LinkedHashSet<>(stateNames);
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
        Matcher weeks = WEEKS.matcher(text);
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
    private static final Set<String> UNIQUE_FIELDS = new TreeSet<>(Set.of("keys", "args_keys", "meta_keys",
            "period", "period_ms", "states", "on_conflict", "key"));

    private static final Pattern WEEKS = Pattern.compile("P(\\d{1,9})W");

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

    private static Pgvs3Exception validation(String message, String field) {
        return new Pgvs3Exception(ErrorCode.VALIDATION_ERROR, "invalid retry policy: " + message, Map.of("field", field));
    }
}
