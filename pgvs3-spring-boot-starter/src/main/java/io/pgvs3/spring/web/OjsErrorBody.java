package io.pgvs3.spring.web;

import java.util.LinkedHashMap;
import java.util.Map;

import io.pgvs3.core.error.ErrorCode;

/**
 * The OJS error body: {@code {"error":{"code","type","message","retryable","details","request_id"}}}.
 */
public record OjsErrorBody(Map<String, Object> error) {

    public static OjsErrorBody of(ErrorCode code, String message, Map<String, Object> details, String requestId) {
        Map<String, Object> error = new LinkedHashMap<>();
        error.put("code", code.code());
        error.put("type", code.type());
        error.put("message", message);
        error.put("retryable", code.retryable());
        error.put("details", details == null ? Map.of() : details);
        error.put("request_id", requestId);
        return new OjsErrorBody(error);
    }
}
