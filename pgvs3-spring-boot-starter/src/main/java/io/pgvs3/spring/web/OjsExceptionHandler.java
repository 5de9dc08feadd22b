package io.pgvs3.spring.web;

import java.sql.SQLException;
import java.util.Map;

import jakarta.servlet.http.HttpServletRequest;
import io.pgvs3.core.error.ErrorCode;
import io.pgvs3.core.error.Pgvs3Exception;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.dao.DataAccessException;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.dao.TransientDataAccessResourceException;
import org.springframework.http.ResponseEntity;
import org.springframework.http.converter.HttpMessageNotReadableException;
import org.springframework.http.converter.HttpMessageNotWritableException;
import org.springframework.jdbc.CannotGetJdbcConnectionException;
import org.springframework.web.HttpMediaTypeNotAcceptableException;
import org.springframework.web.HttpMediaTypeNotSupportedException;
import org.springframework.web.HttpRequestMethodNotSupportedException;
import org.springframework.web.bind.MissingServletRequestParameterException;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.method.annotation.MethodArgumentTypeMismatchException;

/**
 * Turns every failure of a pgvs3 route into the OJS error body; nothing reaches the client as a stack trace.
 */
@RestControllerAdvice(basePackages = "io.pgvs3.spring.web")
public class OjsExceptionHandler {

    private static final Logger log = LoggerFactory.getLogger(OjsExceptionHandler.class);

    private static final String DATA_EXCEPTION_CLASS = "22";

    @ExceptionHandler(Pgvs3Exception.class)
    public ResponseEntity<OjsErrorBody> pgvs3(Pgvs3Exception ex, HttpServletRequest request) {
        return OjsErrorResponses.of(ex, request);
    }

    @ExceptionHandler(HttpMessageNotReadableException.class)
    public ResponseEntity<OjsErrorBody> unreadable(HttpMessageNotReadableException ex, HttpServletRequest request) {
        Pgvs3Exception cause = causeOfType(ex, Pgvs3Exception.class);
        if (cause != null) {
            return OjsErrorResponses.of(cause, request);
        }
        String message = ex.getMessage() != null && ex.getMessage().startsWith("Required request body is missing")
                ? "request body is missing" : "request body is not valid JSON";
        return OjsErrorResponses.of(ErrorCode.INVALID_PAYLOAD, message, Map.of(), request);
    }

    @ExceptionHandler(HttpMediaTypeNotSupportedException.class)
    public ResponseEntity<OjsErrorBody> mediaType(HttpMediaTypeNotSupportedException ex, HttpServletRequest request) {
        return OjsErrorResponses.of(ErrorCode.UNSUPPORTED_MEDIA_TYPE,
                "content type " + ex.getContentType() + " is not supported; send application/openjobspec+json",
                Map.of(), request);
    }

    @ExceptionHandler(HttpMediaTypeNotAcceptableException.class)
    public ResponseEntity<OjsErrorBody> notAcceptable(HttpMediaTypeNotAcceptableException ex,
            HttpServletRequest request) {
        return OjsErrorResponses.of(ErrorCode.NOT_ACCEPTABLE, "the Accept header allows neither "
                + OjsMediaTypes.OJS_JSON_VALUE + " nor application/json", Map.of(), request);
    }

    /**
     * PostgreSQL refused a value the client sent (SQLSTATE class 22, data exception): the statement failed, so nothing
     * was written. The database's own message is logged, not sent.
     */
    @ExceptionHandler(DataAccessException.class)
    public ResponseEntity<OjsErrorBody> dataAccess(DataAccessException ex, HttpServletRequest request) {
        SQLException sql = causeOfType(ex, SQLException.class);
        if (sql != null && sql.getSQLState() != null && sql.getSQLState().startsWith(DATA_EXCEPTION_CLASS)) {
            log.info("PostgreSQL refused a value of {} {} ({}): {}", request.getMethod(), request.getRequestURI(),
                    sql.getSQLState(), sql.getMessage());
            return OjsErrorResponses.of(ErrorCode.INVALID_REQUEST, "a value in the request cannot be stored or compared",
                    Map.of(), request);
        }
        if (ex instanceof CannotGetJdbcConnectionException || ex instanceof DataAccessResourceFailureException
                || ex instanceof TransientDataAccessResourceException || ex instanceof QueryTimeoutException) {
            return unavailable(ex, request);
        }
        return unexpected(ex, request);
    }

    /**
     * The controller finished (and may have committed) but its answer could not be serialised: a 500 that tells
     * the client not to retry blindly, since a retry could repeat the work.
     */
    @ExceptionHandler(HttpMessageNotWritableException.class)
    public ResponseEntity<OjsErrorBody> notWritable(HttpMessageNotWritableException ex, HttpServletRequest request) {
        log.error("Could not write the answer to {} {}", request.getMethod(), request.getRequestURI(), ex);
        return OjsErrorResponses.of(ErrorCode.OUTCOME_UNKNOWN, "the request may have been carried out, but its answer "
                + "could not be written; see the server log for request " + RequestIds.of(request), Map.of(), request);
    }

    @ExceptionHandler(HttpRequestMethodNotSupportedException.class)
    public ResponseEntity<OjsErrorBody> method(HttpRequestMethodNotSupportedException ex, HttpServletRequest request) {
        return OjsErrorResponses.of(ErrorCode.METHOD_NOT_ALLOWED, "method " + ex.getMethod() + " is not allowed here",
                Map.of(), request);
    }

    @ExceptionHandler({ MissingServletRequestParameterException.class, MethodArgumentTypeMismatchException.class })
    public ResponseEntity<OjsErrorBody> parameter(Exception ex, HttpServletRequest request) {
        String name = ex instanceof MethodArgumentTypeMismatchException mismatch ? mismatch.getName()
                : ((MissingServletRequestParameterException) ex).getParameterName();
        return OjsErrorResponses.of(ErrorCode.INVALID_REQUEST, "parameter '" + name + "' is missing or invalid",
                Map.of("field", name), request);
    }

    public ResponseEntity<OjsErrorBody> unavailable(Exception ex, HttpServletRequest request) {
        log.warn("PostgreSQL unavailable for {} {}: {}", request.getMethod(), request.getRequestURI(), ex.getMessage());
        return OjsErrorResponses.of(ErrorCode.UNAVAILABLE, "the database is unavailable; retry later", Map.of(), request);
    }

    @ExceptionHandler(Exception.class)
    public ResponseEntity<OjsErrorBody> unexpected(Exception ex, HttpServletRequest request) {
        Pgvs3Exception cause = causeOfType(ex, Pgvs3Exception.class);
        if (cause != null) {
            return OjsErrorResponses.of(cause, request);
        }
        log.error("Unexpected failure on {} {}", request.getMethod(), request.getRequestURI(), ex);
        return OjsErrorResponses.of(ErrorCode.INTERNAL, "internal error; see the server log for request "
                + RequestIds.of(request), Map.of(), request);
    }

    private static <T extends Throwable> T causeOfType(Throwable ex, Class<T> type) {
        for (Throwable t = ex; t != null; t = t.getCause()) {
            if (type.isInstance(t)) {
                return type.cast(t);
            }
        }
        return null;
    }
}
