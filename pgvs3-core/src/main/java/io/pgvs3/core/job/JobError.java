package io.pgvs3.core.job;

import java.time.Instant;

/**
 * A job failure as a worker reports it ({@code code}, {@code message}, optionally {@code type}, whether it may be
 * retried, and free-form {@code details} as JSON) and, once recorded, the attempt it ended and when.
 */
public record JobError(String code, String message, String type, Boolean retryable, String detailsJson,
        Integer attempt, Instant occurredAt) {

    public static JobError of(String code, String message) {
        return new JobError(code, message, null, null, null, null, null);
    }

    public static JobError of(String code, String message, Boolean retryable, String detailsJson) {
        return new JobError(code, message, null, retryable, detailsJson, null, null);
    }
}
