package io.pgvs3.spring.web.jobs;

import java.util.LinkedHashMap;
import java.util.Map;

import jakarta.servlet.http.HttpServletRequest;
import io.pgvs3.core.error.ErrorCode;
import io.pgvs3.core.error.Pgvs3Exception;
import io.pgvs3.spring.web.OjsErrorBody;
import io.pgvs3.spring.web.OjsErrorResponses;

import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/**
 * Errors of the job routes: the OJS error body plus a {@code hint} on what to do and a {@code docs_url}.
 */
@RestControllerAdvice(basePackages = "io.pgvs3.spring.web.jobs")
@Order(Ordered.HIGHEST_PRECEDENCE)
public class JobErrorAdvice {

    static final String DOCS_URL = "https://github.com/openjobspec/spec";

    @ExceptionHandler(Pgvs3Exception.class)
    public ResponseEntity<OjsErrorBody> pgvs3(Pgvs3Exception ex, HttpServletRequest request) {
        ResponseEntity<OjsErrorBody> response = OjsErrorResponses.of(ex, request);
        Map<String, Object> error = new LinkedHashMap<>(response.getBody().error());
        error.put("hint", hint(ex.code()));
        error.put("docs_url", DOCS_URL);
        return ResponseEntity.status(response.getStatusCode()).headers(response.getHeaders()).body(new OjsErrorBody(error));
    }

    private static String hint(ErrorCode code) {
        return switch (code) {
            case NOT_FOUND -> "Check the id: jobs are deleted once their retention has passed.";
            case CONFLICT -> "GET the job to see its current state; only the transitions of the OJS lifecycle are allowed.";
            case DUPLICATE -> "Send a new id, or omit it to let the server generate one.";
            case VALIDATION_ERROR, INVALID_REQUEST, UNPROCESSABLE, INVALID_PAYLOAD ->
                    "Fix the field named in details.field and send the request again.";
            default -> "Retry later if the error is retryable.";
        };
    }
}
