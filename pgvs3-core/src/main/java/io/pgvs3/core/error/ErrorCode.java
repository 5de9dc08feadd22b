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
    UNAUTHORIZED("unauthorized", 401, false),
    FORBIDDEN("forbidden", 403, false),
    NOT_FOUND("not_found", 404, false),
    METHOD_NOT_ALLOWED("method_not_allowed", 405, false),
    /** The request's Accept header names no type the server answers with (JSON or OJS JSON). */
    NOT_ACCEPTABLE("not_acceptable", 406, false),
    /** The client did not send the whole request body in time; nothing was done. */
    REQUEST_TIMEOUT("request_timeout", 408, true),
    CONFLICT("conflict", 409, false),
    DUPLICATE("duplicate", 409, false),
    BATCH_TOO_LARGE("batch_too_large", 413, false),
    PAYLOAD_TOO_LARGE("payload_too_large", 413, false),
    UNSUPPORTED_MEDIA_TYPE("unsupported_media_type", 415, false),
    RATE_LIMITED("rate_limited", 429, true),
    INTERNAL("internal_error", 500, true),
    /** The work may have been committed but the answer could not be written: not to be retried blindly. */
    OUTCOME_UNKNOWN("internal_error", 500, false),
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

    /** What a client can do about an error with this code, for the {@code error.hint} field. */
    public String hint() {
        return switch (this) {
            case NOT_FOUND -> "Check the name or id; finished jobs and dead letters are deleted once their retention has passed.";
            case CONFLICT -> "Read the resource to see its current state; only the transitions of its lifecycle are allowed.";
            case DUPLICATE -> "Send a new id, or omit it to let the server generate one.";
            case INVALID_PAYLOAD -> "Send a JSON object with Content-Type application/openjobspec+json.";
            case VALIDATION_ERROR, INVALID_REQUEST, UNPROCESSABLE -> "Fix the field named in details.field and send the request again.";
            case BATCH_TOO_LARGE -> "Send fewer items in one request.";
            case PAYLOAD_TOO_LARGE -> "Send a smaller body, or split it into several requests.";
            case UNAUTHORIZED -> "Send a valid token as 'Authorization: Bearer <token>'.";
            case FORBIDDEN -> "Use a token whose scopes and queue patterns allow this request; a read-only server refuses every mutation.";
            case METHOD_NOT_ALLOWED, UNSUPPORTED_MEDIA_TYPE -> "Check the route's method and content type.";
            case NOT_ACCEPTABLE -> "Accept application/openjobspec+json or application/json.";
            case OUTCOME_UNKNOWN -> "The request may have been carried out; read the resource before sending it again.";
            case REQUEST_TIMEOUT -> "Send the whole request body without pausing, then retry.";
            default -> retryable ? "Retry later with backoff." : "Do not retry this request unchanged.";
        };
    }
}
