package io.pgvs3.core.error;

/**
 * The OJS error codes pgvs3 answers with, each with its HTTP status and whether a client may retry.
 */
public enum ErrorCode {

    INVALID_PAYLOAD("invalid_payload", 400, false),
    INVALID_REQUEST("invalid_request", 400, false),
    UNPROCESSABLE("invalid_request", 422, false),
    /** A request that is well formed but whose values break a rule (for example a retry policy), per the OJS suites. */
    VALIDATION_ERROR("invalid_request", 422, false, "validation_error"),
    FORBIDDEN("forbidden", 403, false),
    NOT_FOUND("not_found", 404, false),
    METHOD_NOT_ALLOWED("method_not_allowed", 405, false),
    CONFLICT("conflict", 409, false),
    DUPLICATE("duplicate", 409, false),
    BATCH_TOO_LARGE("batch_too_large", 413, false),
    PAYLOAD_TOO_LARGE("payload_too_large", 413, false),
    UNSUPPORTED_MEDIA_TYPE("unsupported_media_type", 415, false),
    RATE_LIMITED("rate_limited", 429, true),
    INTERNAL("internal_error", 500, true),
    UNAVAILABLE("backend_unavailable", 503, true);

    private final String code;
    private final int status;
    private final boolean retryable;
    private final String type;

    ErrorCode(String code, int status, boolean retryable) {
        this(code, status, retryable, null);
    }

    ErrorCode(String code, int status, boolean retryable, String type) {
        this.code = code;
        this.status = status;
        this.retryable = retryable;
        this.type = type;
    }

    /** The wire value of {@code error.code}. */
    public String code() {
        return code;
    }

    public int status() {
        return status;
    }

    public boolean retryable() {
        return retryable;
    }

    /** The wire value of {@code error.type}: the HTTP family the code belongs to, unless the code names its own. */
    public String type() {
        if (type != null) {
            return type;
        }
        return status >= 500 ? "server_error" : "client_error";
    }
}
