package io.pgvs3.spring.web;

import java.util.LinkedHashMap;
import java.util.Map;

import io.pgvs3.core.error.ErrorCode;

/**
 * The OJS error body: {@code {"error":{"code","type","message","retryable","details","request_id","hint","docs_url"}}}.
 */
public record OjsErrorBody(Map<String, Object> error) {

    /** Where the error codes of the OJS HTTP binding are specified. */
    public static final String DOCS_URL = "https://github.com/openjobspec/spec";

    public static OjsErrorBody of(ErrorCode code, String message, Map<String, Object> details, String requestId) {
        Map<String, Object> error = new LinkedHashMap<>();
        error.put("code", code.code());
        error.put("type", code.type());
        error.put("message", message);
        error.put("retryable", code.retryable());
        error.put("details", details == null ? Map.of() : details);
        error.put("request_id", requestId);
        error.put("hint", code.hint());
        error.put("docs_url", DOCS_URL);
        return new OjsErrorBody(error);
    }
}
