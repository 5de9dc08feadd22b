package io.pgvs3.core.error;

import java.util.Map;

/**
 * A failure that a client can be told about: it carries the OJS error code and optional details.
 */
public class Pgvs3Exception extends RuntimeException {

    private final ErrorCode code;
    private final Map<String, Object> details;

    public Pgvs3Exception(ErrorCode code, String message) {
        this(code, message, Map.of(), null);
    }

    public Pgvs3Exception(ErrorCode code, String message, Map<String, Object> details) {
        this(code, message, details, null);
    }

    public Pgvs3Exception(ErrorCode code, String message, Map<String, Object> details, Throwable cause) {
        super(message, cause);
        this.code = code;
        this.details = details == null ? Map.of() : Map.copyOf(details);
    }

    public ErrorCode code() {
        return code;
    }

    public Map<String, Object> details() {
        return details;
    }

    public static Pgvs3Exception invalidRequest(String message) {
        return new Pgvs3Exception(ErrorCode.INVALID_REQUEST, message);
    }

    public static Pgvs3Exception invalidRequest(String message, String field) {
        return new Pgvs3Exception(ErrorCode.INVALID_REQUEST, message, Map.of("field", field));
    }

    public static Pgvs3Exception notFound(String message) {
        return new Pgvs3Exception(ErrorCode.NOT_FOUND, message);
    }

    public static Pgvs3Exception conflict(String message) {
        return new Pgvs3Exception(ErrorCode.CONFLICT, message);
    }
}
