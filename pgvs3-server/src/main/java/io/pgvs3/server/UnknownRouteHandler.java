package io.pgvs3.server;

import java.util.Map;

import jakarta.servlet.http.HttpServletRequest;
import io.pgvs3.core.error.ErrorCode;
import io.pgvs3.spring.web.OjsErrorBody;
import io.pgvs3.spring.web.OjsErrorResponses;

import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.ResponseEntity;
import org.springframework.web.HttpRequestMethodNotSupportedException;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.servlet.NoHandlerFoundException;
import org.springframework.web.servlet.resource.NoResourceFoundException;

/**
 * Answers requests that match no route with the OJS error body: the server speaks only OJS.
 */
@RestControllerAdvice
@Order(Ordered.LOWEST_PRECEDENCE)
public class UnknownRouteHandler {

    @ExceptionHandler({ NoHandlerFoundException.class, NoResourceFoundException.class })
    public ResponseEntity<OjsErrorBody> noRoute(Exception ex, HttpServletRequest request) {
        return OjsErrorResponses.of(ErrorCode.NOT_FOUND,
                "no route for " + request.getMethod() + " " + request.getRequestURI(), Map.of(), request);
    }

    @ExceptionHandler(HttpRequestMethodNotSupportedException.class)
    public ResponseEntity<OjsErrorBody> method(HttpRequestMethodNotSupportedException ex, HttpServletRequest request) {
        return OjsErrorResponses.of(ErrorCode.METHOD_NOT_ALLOWED,
                "method " + ex.getMethod() + " is not allowed on " + request.getRequestURI(), Map.of(), request);
    }
}
