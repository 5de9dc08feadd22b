package io.pgvs3.spring.web;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.SocketTimeoutException;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

import jakarta.servlet.AsyncContext;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServletResponse;
import io.pgvs3.core.error.ErrorCode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads a request body with non-blocking I/O, so that a client sending its body slowly (or not at all) holds no
 * request thread: the container calls back as bytes arrive, and once the body is complete the request is dispatched
 * again with the body in the {@link #BODY_ATTRIBUTE} attribute. A body over the limit is refused with 413, one not
 * complete within the async timeout with 408; neither reaches a controller.
 */
final class AsyncBodyReader implements ReadListener, AsyncListener {

    static final String BODY_ATTRIBUTE = AsyncBodyReader.class.getName() + ".body";

    /** The start of the body, already read from the connection before the rest was waited for. */
    static final String PREFIX_ATTRIBUTE = AsyncBodyReader.class.getName() + ".prefix";

    private static final Logger log = LoggerFactory.getLogger(AsyncBodyReader.class);

    private final AsyncContext async;
    private final ServletInputStream input;
    private final long limit;
    private final OjsErrorWriter errors;
    private final String requestId;
    private final ByteArrayOutputStream body = new ByteArrayOutputStream();
    private final byte[] buffer = new byte[8192];
    private final AtomicBoolean done = new AtomicBoolean();

    AsyncBodyReader(AsyncContext async, ServletInputStream input, long limit, OjsErrorWriter errors, String requestId,
            byte[] prefix) {
        this.async = async;
        this.input = input;
        this.limit = limit;
        this.errors = errors;
        this.requestId = requestId;
        if (prefix != null) {
            body.writeBytes(prefix);
        }
    }

    @Override
    public void onDataAvailable() throws IOException {
        while (!done.get() && input.isReady()) {
            int n = input.read(buffer);
            if (n < 0) {
                return;
            }
            if (body.size() + (long) n > limit) {
                fail(ErrorCode.PAYLOAD_TOO_LARGE, "request body exceeds the limit of " + limit + " bytes",
                        Map.of("limit_bytes", limit));
                return;
            }
            body.write(buffer, 0, n);
        }
    }

    @Override
    public void onAllDataRead() {
        if (done.compareAndSet(false, true)) {
            async.getRequest().setAttribute(BODY_ATTRIBUTE, body.toByteArray());
            async.dispatch();
        }
    }

    @Override
    public void onError(Throwable failure) {
        // The client broke off, or the read failed: nothing to answer on that connection in most cases.
        log.debug("Reading request {} failed: {}", requestId, String.valueOf(failure));
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof SocketTimeoutException) {
                fail(ErrorCode.REQUEST_TIMEOUT, "the request body did not arrive in time", Map.of());
                return;
            }
        }
        fail(ErrorCode.INVALID_REQUEST, "the request body could not be read", Map.of());
    }

    @Override
    public void onTimeout(AsyncEvent event) {
        fail(ErrorCode.REQUEST_TIMEOUT, "the request body did not arrive in time", Map.of());
    }

    @Override
    public void onComplete(AsyncEvent event) {
    }

    @Override
    public void onError(AsyncEvent event) {
        onError(event.getThrowable());
    }

    @Override
    public void onStartAsync(AsyncEvent event) {
    }

    private void fail(ErrorCode code, String message, Map<String, Object> details) {
        if (!done.compareAndSet(false, true)) {
            return;
        }
        try {
            HttpServletResponse response = (HttpServletResponse) async.getResponse();
            // the rest of the body is not read: the connection is closed after this answer
            response.setHeader("Connection", "close");
            errors.write(response, code, message, details, requestId);
        }
        catch (IOException | RuntimeException ex) {
            log.debug("Could not answer request {}: {}", requestId, ex.toString());
        }
        finally {
            async.complete();
        }
    }
}
