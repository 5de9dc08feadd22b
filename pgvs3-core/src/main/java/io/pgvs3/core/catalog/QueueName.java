package io.pgvs3.core.catalog;

import java.nio.charset.StandardCharsets;
import java.util.regex.Pattern;

import io.pgvs3.core.error.Pgvs3Exception;

/**
 * A validated queue name. Names follow OJS ({@code ^[a-z0-9][a-z0-9.-]*$}) and must leave room for the
 * {@code s3q_} prefix inside PostgreSQL's 63-byte identifier limit.
 */
public record QueueName(String value) {

    public static final String SCHEMA_PREFIX = "s3q_";

    public static final int MAX_BYTES = 63 - SCHEMA_PREFIX.length();

    private static final Pattern PATTERN = Pattern.compile("^[a-z0-9][a-z0-9.-]*$");

    public QueueName {
        if (value == null || value.isEmpty()) {
            throw Pgvs3Exception.invalidRequest("queue name must not be empty", "queue");
        }
        if (!PATTERN.matcher(value).matches()) {
            throw Pgvs3Exception.invalidRequest("queue name '" + value
                    + "' is invalid: use lowercase letters, digits, '.' and '-', starting with a letter or digit", "queue");
        }
        if (value.getBytes(StandardCharsets.UTF_8).length > MAX_BYTES) {
            throw Pgvs3Exception.invalidRequest("queue name '" + value + "' is longer than " + MAX_BYTES + " bytes", "queue");
        }
    }

    public static QueueName of(String value) {
        return new QueueName(value);
    }

    public static boolean isValid(String value) {
        return value != null && PATTERN.matcher(value).matches()
                && value.getBytes(StandardCharsets.UTF_8).length <= MAX_BYTES;
    }

    /** The queue's schema name, unquoted: {@code s3q_<name>}. */
    public String schema() {
        return SCHEMA_PREFIX + value;
    }

    @Override
    public String toString() {
        return value;
    }
}
