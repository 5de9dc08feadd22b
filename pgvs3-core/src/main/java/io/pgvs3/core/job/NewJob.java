package io.pgvs3.core.job;

import java.time.Duration;
import java.time.Instant;
import java.util.regex.Pattern;

import io.pgvs3.core.UuidV7;
import io.pgvs3.core.catalog.QueueName;
import io.pgvs3.core.error.Pgvs3Exception;
import tools.jackson.databind.JsonNode;

/**
 * A job to enqueue. JSON-valued parts ({@code argsJson}, {@code metaJson}, {@code optionsJson}, {@code extraJson})
 * are JSON text: args must be an array, meta an object; {@code optionsJson} is the options object as sent (kept for
 * tags and metadata), {@code extraJson} an object of unknown top-level envelope fields that are kept verbatim.
 * Build one with {@link #builder(String)}. A job read from a request by {@link JobRequests} also carries
 * {@link #parsed()}, the trees that text was written from, so that an enqueue checks and reads them instead of
 * parsing the text again.
 */
public record NewJob(String id, String type, String argsJson, QueueName queue, int priority, String metaJson,
        Instant scheduledAt, Instant expiresAt, Duration timeout, Duration visibilityTimeout, RetryPolicy retry,
        UniqueOptions unique, String optionsJson, String extraJson, Parsed parsed) {

    /** OJS job types: dot-separated lowercase segments. */
    public static final Pattern TYPE_PATTERN = Pattern.compile("^[a-z][a-z0-9_-]*(\\.[a-z][a-z0-9_-]*)*$");

    public static final int MIN_PRIORITY = -100;
    public static final int MAX_PRIORITY = 100;
    public static final int MAX_TYPE_LENGTH = 255;

    public static final QueueName DEFAULT_QUEUE = QueueName.of("default");

    /**
     * The longest timeout, lease, retry interval or unique period accepted: past any real use, and well inside what
     * PostgreSQL can add to a timestamp, so no such value can make a later claim, nack or maintenance pass fail.
     */
    public static final Duration MAX_DURATION = Duration.ofDays(36_500);

    /** The earliest and latest {@code scheduled_at} and {@code expires_at}: four-digit years, as RFC 3339 writes. */
    public static final Instant EARLIEST = Instant.parse("0001-01-01T00:00:00Z");
    public static final Instant LATEST = Instant.parse("9999-12-31T23:59:59.999Z");

    public NewJob {
        if (id != null && !UuidV7.isValid(id)) {
            throw Pgvs3Exception.invalidRequest("id must be a lowercase UUIDv7, not '" + id + "'", "id");
        }
        if (type == null || type.isEmpty()) {
            throw Pgvs3Exception.invalidRequest("'type' is required", "type");
        }
        if (type.length() > MAX_TYPE_LENGTH || !TYPE_PATTERN.matcher(type).matches()) {
            throw Pgvs3Exception.invalidRequest("type '" + type
                    + "' is invalid: use dot-separated segments of lowercase letters, digits, '_' and '-', each starting with a letter",
                    "type");
        }
        if (argsJson == null) {
            throw Pgvs3Exception.invalidRequest("'args' is required and must be an array", "args");
        }
        queue = queue == null ? DEFAULT_QUEUE : queue;
        if (priority < MIN_PRIORITY || priority > MAX_PRIORITY) {
            throw Pgvs3Exception.invalidRequest("priority must be between " + MIN_PRIORITY + " and " + MAX_PRIORITY
                    + ", not " + priority, "options.priority");
        }
        requirePositiveDuration(timeout, "options.timeout_ms");
        requirePositiveDuration(visibilityTimeout, "options.visibility_timeout_ms");
        requireTimestamp(scheduledAt, "options.scheduled_at");
        requireTimestamp(expiresAt, "options.expires_at");
        retry = retry == null ? RetryPolicy.DEFAULT : retry;
    }

    /**
     * The JSON parts of a job as trees, already checked for their kind: args an array, meta, options and extra each an
     * object or null when absent. Their text is what {@code argsJson}, {@code metaJson}, {@code optionsJson} and
     * {@code extraJson} hold.
     */
    public record Parsed(JsonNode args, JsonNode meta, JsonNode options, JsonNode extra) {
    }

    /** A 400 unless {@code duration} is null or positive and at most {@link #MAX_DURATION}. */
    public static void requirePositiveDuration(Duration duration, String field) {
        if (duration != null && (duration.isNegative() || duration.isZero() || duration.compareTo(MAX_DURATION) > 0)) {
            throw Pgvs3Exception.invalidRequest("'" + field + "' must be positive and at most " + MAX_DURATION.toMillis()
                    + " ms", field);
        }
    }

    private static void requireTimestamp(Instant instant, String field) {
        if (instant != null && (instant.isBefore(EARLIEST) || instant.isAfter(LATEST))) {
            throw Pgvs3Exception.invalidRequest("'" + field + "' must lie between " + EARLIEST + " and " + LATEST, field);
        }
    }

    public static Builder builder(String type) {
        return new Builder(type);
    }

    /** Builds a {@link NewJob}; everything but the type is optional (args default to {@code []}). */
    public static final class Builder {

        private final String type;
        private String id;
        private String argsJson = "[]";
        private QueueName queue;
        private int priority;
        private String metaJson;
        private Instant scheduledAt;
        private Instant expiresAt;
        private Duration timeout;
        private Duration visibilityTimeout;
        private RetryPolicy retry;
        private UniqueOptions unique;
        private String optionsJson;
        private String extraJson;
        private Parsed parsed;

        private Builder(String type) {
            this.type = type;
        }

        public Builder id(String id) {
            this.id = id;
            return this;
        }

        public Builder args(String argsJson) {
            this.argsJson = argsJson;
            this.parsed = null;
            return this;
        }

        public Builder queue(String queue) {
            this.queue = queue == null ? null : QueueName.of(queue);
            return this;
        }

        public Builder priority(int priority) {
            this.priority = priority;
            return this;
        }

        public Builder meta(String metaJson) {
            this.metaJson = metaJson;
            this.parsed = null;
            return this;
        }

        public Builder scheduledAt(Instant scheduledAt) {
            this.scheduledAt = scheduledAt;
            return this;
        }

        public Builder delay(Duration delay) {
            if (delay != null && delay.abs().compareTo(MAX_DURATION) > 0) {
                throw Pgvs3Exception.invalidRequest("a delay must be at most " + MAX_DURATION.toMillis() + " ms",
                        "options.delay_ms");
            }
            this.scheduledAt = delay == null ? null : Instant.now().plus(delay);
            return this;
        }

        public Builder expiresAt(Instant expiresAt) {
            this.expiresAt = expiresAt;
            return this;
        }

        public Builder timeout(Duration timeout) {
            this.timeout = timeout;
            return this;
        }

        public Builder visibilityTimeout(Duration visibilityTimeout) {
            this.visibilityTimeout = visibilityTimeout;
            return this;
        }

        public Builder retry(RetryPolicy retry) {
            this.retry = retry;
            return this;
        }

        public Builder unique(UniqueOptions unique) {
            this.unique = unique;
            return this;
        }

        public Builder options(String optionsJson) {
            this.optionsJson = optionsJson;
            this.parsed = null;
            return this;
        }

        public Builder extra(String extraJson) {
            this.extraJson = extraJson;
            this.parsed = null;
            return this;
        }

        /**
         * The JSON parts from trees checked by the caller (args an array, the others objects or null), their text
         * written once here.
         */
        Builder parsed(JsonNode args, JsonNode meta, JsonNode options, JsonNode extra) {
            this.parsed = new Parsed(args, meta, options, extra);
            this.argsJson = args.toString();
            this.metaJson = meta == null ? null : meta.toString();
            this.optionsJson = options == null ? null : options.toString();
            this.extraJson = extra == null ? null : extra.toString();
            return this;
        }

        public NewJob build() {
            return new NewJob(id, type, argsJson, queue, priority, metaJson, scheduledAt, expiresAt, timeout,
                    visibilityTimeout, retry, unique, optionsJson, extraJson, parsed);
        }
    }
}
