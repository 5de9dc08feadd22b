package io.pgvs3.core.job;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.pgvs3.core.error.ErrorCode;
import io.pgvs3.core.error.Pgvs3Exception;

/**
 * Uniqueness of a job within its queue. The key is {@code key} when given, else a hash of the envelope parts named in
 * {@code keys} ({@code type}, {@code args}, {@code queue}, {@code meta}). Another job with the same key conflicts when it
 * is in one of {@code states} and, with a {@code period}, was created within it. On conflict the new job is rejected
 * (409), ignored (the existing job is answered) or replaces the existing one (which is cancelled).
 */
public record UniqueOptions(List<String> keys, String key, Duration period, Set<String> states, String onConflict) {

    public static final Set<String> KEY_PARTS = Set.of("type", "args", "queue", "meta");
    public static final Set<String> CONFLICT_MODES = Set.of("reject", "ignore", "replace");
    public static final Set<String> DEFAULT_STATES = Set.of("scheduled", "available", "pending", "active", "retryable");

    public UniqueOptions {
        keys = keys == null || keys.isEmpty() ? List.of("type", "args", "queue") : List.copyOf(keys);
        for (String part : keys) {
            if (!KEY_PARTS.contains(part)) {
                throw invalid("unique.keys may name type, args, queue and meta, not '" + part + "'", "keys");
            }
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
            throw invalid("unique.on_conflict must be reject, ignore or replace", "on_conflict");
        }
    }

    private static Pgvs3Exception invalid(String message, String field) {
        return new Pgvs3Exception(ErrorCode.VALIDATION_ERROR, message, Map.of("field", "options.unique." + field));
    }
}
