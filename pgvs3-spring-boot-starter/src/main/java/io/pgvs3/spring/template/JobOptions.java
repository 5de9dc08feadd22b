package io.pgvs3.spring.template;

import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

import io.pgvs3.core.job.UniqueOptions;

/**
 * Options of one enqueue, built fluently: {@code JobOptions.queue("emails").priority(5).delay(Duration.ofMinutes(1))}.
 * Unset options take the server's defaults (queue {@code default}, priority 0, immediate, default retry policy).
 * Instances are immutable; every method returns a copy.
 */
public final class JobOptions {

    private static final JobOptions DEFAULTS = new JobOptions(new Values());

    private final String queue;
    private final Integer priority;
    private final Duration delay;
    private final Instant scheduledAt;
    private final String id;
    private final Integer maxAttempts;
    private final Retry retry;
    private final UniqueOptions unique;
    private final Map<String, Object> meta;

    private JobOptions(Values values) {
        this.queue = values.queue;
        this.priority = values.priority;
        this.delay = values.delay;
        this.scheduledAt = values.scheduledAt;
        this.id = values.id;
        this.maxAttempts = values.maxAttempts;
        this.retry = values.retry;
        this.unique = values.unique;
        this.meta = values.meta;
    }

    public static JobOptions defaults() {
        return DEFAULTS;
    }

    public static JobOptions queue(String queue) {
        return DEFAULTS.onQueue(queue);
    }

    public JobOptions onQueue(String queue) {
        return with(v -> v.queue = queue);
    }

    public JobOptions priority(int priority) {
        return with(v -> v.priority = priority);
    }

    /** Runs the job no earlier than {@code delay} from now. */
    public JobOptions delay(Duration delay) {
        return with(v -> {
            v.delay = delay;
            v.scheduledAt = null;
        });
    }

    /** Runs the job no earlier than {@code time}. */
    public JobOptions scheduledAt(Instant time) {
        return with(v -> {
            v.delay = null;
            v.scheduledAt = time;
        });
    }

    /** A client-chosen job id (UUID); generated when unset. */
    public JobOptions id(String id) {
        return with(v -> v.id = id);
    }

    /** Attempts in total before the job is discarded, keeping the default back-off. */
    public JobOptions maxAttempts(int maxAttempts) {
        return with(v -> v.maxAttempts = maxAttempts);
    }

    /** The full retry policy. */
    public JobOptions retry(Retry retry) {
        return with(v -> {
            v.maxAttempts = retry.maxAttempts();
            v.retry = retry;
        });
    }

    /**
     * Makes the job unique in its queue: while an equal job (by the key parts, or an explicit key) is in one of the
     * given states, the enqueue is rejected, ignored (answering the existing job) or replaces it.
     */
    public JobOptions unique(UniqueOptions unique) {
        return with(v -> v.unique = unique);
    }

    public JobOptions meta(String key, Object value) {
        Map<String, Object> copy = new LinkedHashMap<>(meta);
        copy.put(key, value);
        return with(v -> v.meta = Map.copyOf(copy));
    }

    /** A copy of these options with what {@code change} sets on their values. */
    private JobOptions with(Consumer<Values> change) {
        Values values = new Values(this);
        change.accept(values);
        return new JobOptions(values);
    }

    public String queue() {
        return queue;
    }

    public Integer priority() {
        return priority;
    }

    public Duration delay() {
        return delay;
    }

    public Instant scheduledAt() {
        return scheduledAt;
    }

    public String id() {
        return id;
    }

    public Integer maxAttempts() {
        return maxAttempts;
    }

    public Retry retry() {
        return retry;
    }

    public UniqueOptions unique() {
        return unique;
    }

    public Map<String, Object> meta() {
        return meta;
    }

    /** The options being copied by {@link #with}; unset (and {@code meta} empty) when new. */
    private static final class Values {
        String queue;
        Integer priority;
        Duration delay;
        Instant scheduledAt;
        String id;
        Integer maxAttempts;
        Retry retry;
        UniqueOptions unique;
        Map<String, Object> meta = Map.of();

        Values() {
        }

        Values(JobOptions options) {
            queue = options.queue;
            priority = options.priority;
            delay = options.delay;
            scheduledAt = options.scheduledAt;
            id = options.id;
            maxAttempts = options.maxAttempts;
            retry = options.retry;
            unique = options.unique;
            meta = options.meta;
        }
    }

    /**
     * A job's retry policy, with every field of the OJS retry policy. The four-argument constructor keeps the
     * other fields at their OJS defaults (jitter on, exponential, no non-retryable errors, discard); the
     * {@code with…} methods change one field.
     *
     * @param maxAttempts        attempts in total, the first included
     * @param initialInterval    wait before the first retry
     * @param backoffCoefficient factor the strategy applies (at least 1.0)
     * @param maxInterval        longest wait
     * @param jitter             whether each wait is multiplied by a random factor in [0.5, 1.5)
     * @param backoffStrategy    {@code exponential}, {@code linear}, {@code constant} or {@code polynomial}
     * @param nonRetryableErrors error codes, types or {@code details.error_class} values (a trailing {@code *}
     *                           matches a prefix) that end the job at once; a {@code @JobHandler}'s error code is
     *                           the exception's simple class name
     * @param onExhaustion       {@code discard} or {@code dead_letter} once attempts are used up
     */
    public record Retry(int maxAttempts, Duration initialInterval, double backoffCoefficient, Duration maxInterval,
            boolean jitter, String backoffStrategy, List<String> nonRetryableErrors, String onExhaustion) {

        public Retry {
            nonRetryableErrors = nonRetryableErrors == null ? List.of() : List.copyOf(nonRetryableErrors);
        }

        public Retry(int maxAttempts, Duration initialInterval, double backoffCoefficient, Duration maxInterval) {
            this(maxAttempts, initialInterval, backoffCoefficient, maxInterval, true, "exponential", List.of(),
                    "discard");
        }

        public Retry withJitter(boolean jitter) {
            return new Retry(maxAttempts, initialInterval, backoffCoefficient, maxInterval, jitter, backoffStrategy,
                    nonRetryableErrors, onExhaustion);
        }

        public Retry withBackoffStrategy(String backoffStrategy) {
            return new Retry(maxAttempts, initialInterval, backoffCoefficient, maxInterval, jitter, backoffStrategy,
                    nonRetryableErrors, onExhaustion);
        }

        public Retry withNonRetryableErrors(String... errors) {
            return new Retry(maxAttempts, initialInterval, backoffCoefficient, maxInterval, jitter, backoffStrategy,
                    List.of(errors), onExhaustion);
        }

        /** {@code dead_letter} keeps an exhausted job in the dead-letter list; {@code discard} (default) does not. */
        public Retry withOnExhaustion(String onExhaustion) {
            return new Retry(maxAttempts, initialInterval, backoffCoefficient, maxInterval, jitter, backoffStrategy,
                    nonRetryableErrors, onExhaustion);
        }
    }
}
