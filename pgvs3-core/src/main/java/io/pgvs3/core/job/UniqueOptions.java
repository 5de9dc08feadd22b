package io.pgvs3.core.job;

import java.time.Duration;
import java.util.List;
import java.util.Set;

import io.pgvs3.core.error.Pgvs3Exception;

/**
 * Uniqueness of a job (OJS unique jobs). The key is {@code key} when given (unique within the job's queue), else a
 * hash of the job's {@code type} and the envelope parts named in {@code keys} ({@code queue}, {@code args},
 * {@code meta}); with {@code argsKeys} only those keys of the argument objects count, and {@code meta} counts only the
 * {@code metaKeys} of the job's meta. Without {@code queue} in {@code keys} the key is unique across all queues.
 * Another job with the same key conflicts when it is in one of {@code states} and, with a {@code period}, was created
 * within it. On conflict the new job is rejected (409), ignored (the existing job is answered), replaces the
 * existing one (which is cancelled), or replaces it keeping its schedule
 * ({@code replace_except_schedule}: a new job replacing a scheduled one runs at the time the old one was due).
 */
public record UniqueOptions(List<String> keys, List<String> argsKeys, List<String> metaKeys, String key,
        Duration period, Set<String> states, String onConflict) {

    public static final Set<String> KEY_PARTS = Set.of("type", "args", "queue", "meta");
    public static final Set<String> CONFLICT_MODES = Set.of("reject", "ignore", "replace", "replace_except_schedule");
    public static final Set<String> DEFAULT_STATES = Set.of("scheduled", "available", "pending", "active", "retryable");

    public UniqueOptions {
        argsKeys = argsKeys == null ? null : List.copyOf(argsKeys);
        metaKeys = metaKeys == null ? null : List.copyOf(metaKeys);
        if (keys == null || keys.isEmpty()) {
            // the spec's default is the type alone; selecting argument or meta keys implies their dimension
            keys = argsKeys != null && metaKeys != null ? List.of("type", "args", "meta")
                    : argsKeys != null ? List.of("type", "args")
                    : metaKeys != null ? List.of("type", "meta") : List.of("type");
        }
        else {
            keys = List.copyOf(keys);
        }
        for (String part : keys) {
            if (!KEY_PARTS.contains(part)) {
                throw invalid("unique.keys may name type, args, queue and meta, not '" + part + "'", "keys");
            }
        }
        requireDistinct(keys, "keys");
        if (argsKeys != null) {
            if (!keys.contains("args")) {
                throw invalid("unique.args_keys selects argument keys, so unique.keys must contain 'args'", "args_keys");
            }
            if (argsKeys.isEmpty()) {
                throw invalid("unique.args_keys must name at least one argument key; omit it to use all of args",
                        "args_keys");
            }
            requireDistinct(argsKeys, "args_keys");
        }
        if (keys.contains("meta") && (metaKeys == null || metaKeys.isEmpty())) {
            throw invalid("unique.keys contains 'meta', so unique.meta_keys must name the meta keys to use", "meta_keys");
        }
        if (metaKeys != null) {
            if (!keys.contains("meta")) {
                throw invalid("unique.meta_keys selects meta keys, so unique.keys must contain 'meta'", "meta_keys");
            }
            requireDistinct(metaKeys, "meta_keys");
        }
        if (key != null && key.isEmpty()) {
            throw invalid("unique.key must not be empty", "key");
        }
        if (period != null && (period.isNegative() || period.isZero() || period.compareTo(NewJob.MAX_DURATION) > 0)) {
            throw invalid("unique.period must be positive and at most " + NewJob.MAX_DURATION.toMillis() + " ms", "period");
        }
        states = states == null || states.isEmpty() ? DEFAULT_STATES : Set.copyOf(states);
        for (String state : states) {
            try {
                JobState.fromWire(state);
            }
            catch (IllegalArgumentException ex) {
                throw invalid("unique.states contains an unknown state '" + state + "'", "states");
            }
        }
        onConflict = onConflict == null ? "reject" : onConflict;
        if (!CONFLICT_MODES.contains(onConflict)) {
            throw invalid("unique.on_conflict must be reject, ignore, replace or replace_except_schedule, not '"
                    + onConflict + "'", "on_conflict");
        }
    }

    /** Uniqueness over whole envelope parts, without argument or meta key selection. */
    public UniqueOptions(List<String> keys, String key, Duration period, Set<String> states, String onConflict) {
        this(keys, null, null, key, period, states, onConflict);
    }

    private static void requireDistinct(List<String> values, String field) {
        if (Set.copyOf(values).size() != values.size()) {
            throw invalid("unique." + field + " must not repeat a value", field);
        }
    }

    static Pgvs3Exception invalid(String message, String field) {
        return Pgvs3Exception.invalidRequest(message, "options.unique." + field);
    }
}
