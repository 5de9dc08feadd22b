package io.pgvs3.spring.web;

import java.io.IOException;
import java.util.Map;

import jakarta.servlet.http.HttpServletResponse;
import io.pgvs3.core.error.ErrorCode;
import tools.jackson.databind.json.JsonMapper;

/** Writes an OJS error body straight to a servlet response, for refusals made before any controller runs. */
final class OjsErrorWriter {

    private final JsonMapper mapper;

    OjsErrorWriter(JsonMapper mapper) {
        this.mapper = mapper;
    }

    void write(HttpServletResponse response, ErrorCode code, String message, Map<String, Object> details,
            String requestId) throws IOException {
        if (response.isCommitted()) {
            return;
        }
        response.resetBuffer();
        response.setStatus(code.status());
        response.setContentType(OjsMediaTypes.OJS_JSON_VALUE);
        byte[] body = mapper.writeValueAsBytes(OjsErrorBody.of(code, message, details, requestId));
        response.setContentLength(body.length);
        response.getOutputStream().write(body);
        response.flushBuffer();
    }
}
