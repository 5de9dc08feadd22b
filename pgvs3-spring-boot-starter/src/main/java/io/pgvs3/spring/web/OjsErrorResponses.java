package io.pgvs3.spring.web;

import java.util.Map;

import jakarta.servlet.http.HttpServletRequest;
import io.pgvs3.core.error.ErrorCode;
import io.pgvs3.core.error.Pgvs3Exception;

import org.springframework.http.ResponseEntity;

/** Builds OJS error responses. */
public final class OjsErrorResponses {

    private OjsErrorResponses() {
    }

    public static ResponseEntity<OjsErrorBody> of(ErrorCode code, String message, Map<String, Object> details,
            HttpServletRequest request) {
        return ResponseEntity.status(code.status())
                .contentType(OjsMediaTypes.OJS_JSON)
                .body(OjsErrorBody.of(code, message, details, RequestIds.of(request)));
    }

    public static ResponseEntity<OjsErrorBody> of(Pgvs3Exception ex, HttpServletRequest request) {
        return of(ex.code(), ex.getMessage(), ex.details(), request);
    }
}
