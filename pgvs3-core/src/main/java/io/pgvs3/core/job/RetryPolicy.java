package io.pgvs3.core.job;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.pgvs3.core.error.ErrorCode;
import io.pgvs3.core.error.Pgvs3Exception;

/**
 * How a failed job is retried. The delay before retry {@code n} (the attempt that failed) is
 * {@code initial * coefficient^(n-1)} (exponential), {@code initial * n} (linear), {@code initial} (constant) or
 * {@code initial * n^coefficient} (polynomial), capped at {@code maxInterval}; with jitter it is multiplied by a
 * random factor in [0.5, 1.5) and capped again. An error that is not retryable, or whose code, type or
 * {@code details.error_class} matches {@code nonRetryableErrors} (exactly, or by prefix for an entry ending in
 * {@code *}), ends the job at once. Once attempts are exhausted the job is discarded; with
 * {@code onExhaustion = dead_letter} it also lands in the dead-letter list.
 */
public record RetryPolicy(int maxAttempts, Duration initialInterval, double backoffCoefficient, Duration maxInterval,
        boolean jitter, String backoffStrategy, List<String> nonRetryableErrors, String onExhaustion) {

    public static final String DISCARD = "discard";
    public static final String DEAD_LETTER = "dead_letter";

    public static final Set<String> STRATEGIES = Set.of("exponential", "linear", "constant", "polynomial");

    /** OJS defaults: 3 attempts, 1 s initial interval doubling up to 5 min, with jitter, discard when exhausted. */
    public static final RetryPolicy DEFAULT = new RetryPolicy(3, Duration.ofSeconds(1), 2.0, Duration.ofMinutes(5),
            true, "exponential", List.of(), DISCARD);

    public RetryPolicy {
        if (maxAttempts < 1) {
            throw invalid("max_attempts must be at least 1, not " + maxAttempts, "max_attempts");
        }
        if (initialInterval == null || initialInterval.isNegative()) {
            throw invalid("initial_interval must not be negative", "initial_interval");
        }
        if (!(backoffCoefficient >= 1.0) || Double.isInfinite(backoffCoefficient)) {
            throw invalid("backoff_coefficient must be a number of at least 1.0, not " + backoffCoefficient,
                    "backoff_coefficient");
        }
        if (maxInterval == null || maxInterval.compareTo(initialInterval) < 0) {
            throw invalid("max_interval must not be shorter than initial_interval", "max_interval");
        }
        if (maxInterval.compareTo(NewJob.MAX_DURATION) > 0) {
            throw invalid("max_interval must be at most " + NewJob.MAX_DURATION.toMillis() + " ms", "max_interval");
        }
        if (backoffStrategy == null || !STRATEGIES.contains(backoffStrategy)) {
            throw invalid("backoff_strategy must be one of exponential, linear, constant, polynomial", "backoff_strategy");
        }
        nonRetryableErrors = nonRetryableErrors == null ? List.of() : List.copyOf(nonRetryableErrors);
        if (!DISCARD.equals(onExhaustion) && !DEAD_LETTER.equals(onExhaustion)) {
            throw invalid("on_exhaustion must be discard or dead_letter", "on_exhaustion");
        }
    }

    public RetryPolicy withMaxAttempts(int maxAttempts) {
        return new RetryPolicy(maxAttempts, initialInterval, backoffCoefficient, maxInterval, jitter, backoffStrategy,
                nonRetryableErrors, onExhaustion);
    }

    /** The policy as stored with the job and shown in its envelope. */
    public Map<String, Object> toMap() {
        Map<String, Object> map = new LinkedHashMap<>();
        map.put("max_attempts", maxAttempts);
        map.put("initial_interval", initialInterval.toString());
        map.put("initial_interval_ms", initialInterval.toMillis());
        map.put("backoff_coefficient", backoffCoefficient);
        map.put("backoff_strategy", backoffStrategy);
        map.put("max_interval", maxInterval.toString());
        map.put("max_interval_ms", maxInterval.toMillis());
        map.put("jitter", jitter);
        map.put("non_retryable_errors", nonRetryableErrors);
        map.put("on_exhaustion", onExhaustion);
        return map;
    }

    private static Pgvs3Exception invalid(String message, String field) {
        return new Pgvs3Exception(ErrorCode.VALIDATION_ERROR, "invalid retry policy: " + message,
                Map.of("field", "options.retry." + field));
    }
}
