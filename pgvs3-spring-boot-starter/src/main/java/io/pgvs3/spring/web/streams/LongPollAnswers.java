package io.pgvs3.spring.web.streams;

import java.io.IOException;
import java.util.Map;

import jakarta.servlet.AsyncContext;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import io.pgvs3.spring.web.OjsMediaTypes;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.web.context.request.async.DeferredResult;

/**
 * Writes a long-poll's answer on the thread that found it (the wake lane's, a long-poll worker's) and completes the
 * request there, instead of Spring MVC's async dispatch: that hands the result to a request thread, which runs the
 * filters and the dispatcher once more before it writes the same JSON. Under load each hand-off waits for a thread to
 * be scheduled, and a burst of answers at their deadline queues on the request threads.
 * <p>
 * Only a plain answer (200, JSON) of at most {@link #MAX_BYTES} is written so, and only while Spring's asynchronous request is under way and its
 * {@link DeferredResult} neither set nor expired; otherwise (a result found before the handler returned, a failure,
 * a request already ended) the caller sets the {@link DeferredResult} as before.
 */
final class LongPollAnswers {

    private static final Logger log = LoggerFactory.getLogger(LongPollAnswers.class);

    /**
     * Largest answer written so: a smaller one fits the socket's send buffer, so that writing it does not wait for
     * the client to read (a slow client would hold the lane or a worker); a larger one goes through the dispatch.
     */
    static final int MAX_BYTES = 16 * 1024;

    private final JsonMapper mapper;

    LongPollAnswers(JsonMapper mapper) {
        this.mapper = mapper;
    }

    /** Whether the answer was written (or the client was gone); {@code false}: set {@code result} instead. */
    boolean write(HttpServletRequest request, DeferredResult<?> result, Map<String, Object> body) {
        if (mapper == null || result.isSetOrExpired()) {
            return false;
        }
        AsyncContext async;
        try {
            if (!request.isAsyncStarted()) {
                return false;
            }
            async = request.getAsyncContext();
        }
        catch (RuntimeException ex) {
            // the request ended meanwhile (its timeout, the client gone)
            return false;
        }
        byte[] json = mapper.writeValueAsBytes(body);
        if (json.length > MAX_BYTES) {
            return false;
        }
        try {
            // Spring's wrapper of the response: it refuses writes once the request has ended
            HttpServletResponse response = (HttpServletResponse) async.getResponse();
            response.setStatus(HttpServletResponse.SC_OK);
            response.setContentType(OjsMediaTypes.OJS_JSON_VALUE);
            response.setContentLength(json.length);
            response.getOutputStream().write(json);
            // on the socket now: with its length known, the client has the answer before the container completes
            response.flushBuffer();
            async.complete();
        }
        catch (IOException | RuntimeException ex) {
            // the client went away, or the request ended meanwhile: nobody is left to answer
            log.debug("Writing a long-poll's answer failed: {}", ex.getMessage());
        }
        return true;
    }
}
