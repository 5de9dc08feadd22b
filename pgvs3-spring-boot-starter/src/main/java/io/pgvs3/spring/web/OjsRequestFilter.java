package io.pgvs3.spring.web;

import java.io.IOException;
import java.util.Arrays;
import java.util.Map;

import jakarta.servlet.DispatcherType;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import io.pgvs3.core.error.ErrorCode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.http.HttpHeaders;
import org.springframework.core.Ordered;
import org.springframework.web.filter.OncePerRequestFilter;
import org.springframework.web.util.UriUtils;

/**
 * Applies the OJS binding's envelope to every exchange under {@code /ojs}, before any controller runs:
 * {@code OJS-Version} and {@code X-Request-Id} on every response; 406 for an {@code Accept} header that excludes
 * JSON; 400 for a path or query holding text PostgreSQL cannot store; 413 for a body over the size limit. A body
 * that came whole with the headers is buffered here (reading it cannot block); one still on its way is read later by
 * {@link OjsBodyReadFilter} (from the part that had arrived), after authentication and the mutation guard have
 * looked at the headers, and this filter hands the buffered body on in the dispatch that follows.
 */
public class OjsRequestFilter extends OncePerRequestFilter implements Ordered {

    /** Before Spring Security's filter (order -100), so that its answers carry the OJS headers too. */
    public static final int ORDER = -200;

    private final long maxRequestBytes;
    private final OjsErrorWriter errors;

    public OjsRequestFilter(long maxRequestBytes, JsonMapper mapper) {
        this.maxRequestBytes = maxRequestBytes;
        this.errors = new OjsErrorWriter(mapper);
    }

    @Override
    public int getOrder() {
        return ORDER;
    }

    @Override
    protected boolean shouldNotFilter(HttpServletRequest request) {
        return !OjsPaths.isOjs(request);
    }

    @Override
    protected boolean shouldNotFilterErrorDispatch() {
        return false;
    }

    @Override
    protected boolean shouldNotFilterAsyncDispatch() {
        return false;
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        String requestId = RequestIds.of(request);
        response.setHeader(OjsMediaTypes.VERSION_HEADER, OjsMediaTypes.VERSION);
        response.setHeader(OjsMediaTypes.REQUEST_ID_HEADER, requestId);
        if (request.getDispatcherType() != DispatcherType.REQUEST) {
            // the dispatch after the body was read, an async completion, or an error page
            Object body = request.getAttribute(AsyncBodyReader.BODY_ATTRIBUTE);
            chain.doFilter(body instanceof byte[] bytes ? new BufferedBodyRequest(request, bytes) : request, response);
            return;
        }
        if (!AcceptHeader.allowsJson(request.getHeader(HttpHeaders.ACCEPT))) {
            errors.write(response, ErrorCode.NOT_ACCEPTABLE, "the Accept header allows neither "
                    + OjsMediaTypes.OJS_JSON_VALUE + " nor application/json, the only types this server answers with",
                    Map.of("accept", String.valueOf(request.getHeader(HttpHeaders.ACCEPT))), requestId);
            return;
        }
        String unstorable = unstorableUrlPart(request);
        if (unstorable != null) {
            errors.write(response, ErrorCode.INVALID_REQUEST, "the request " + unstorable
                    + " holds text PostgreSQL cannot store (U+0000 or an unpaired surrogate)", Map.of("field", unstorable),
                    requestId);
            return;
        }
        long length = request.getContentLengthLong();
        if (length > maxRequestBytes) {
            response.setHeader("Connection", "close");
            errors.write(response, ErrorCode.PAYLOAD_TOO_LARGE, "request body of " + length
                    + " bytes exceeds the limit of " + maxRequestBytes + " bytes",
                    Map.of("limit_bytes", maxRequestBytes), requestId);
            return;
        }
        if (length > 0) {
            byte[] arrived = readArrived(request.getInputStream(), (int) length);
            if (arrived.length == length) {
                // the whole body came with the headers
                request.setAttribute(AsyncBodyReader.BODY_ATTRIBUTE, arrived);
                chain.doFilter(new BufferedBodyRequest(request, arrived), response);
                return;
            }
            if (arrived.length > 0) {
                request.setAttribute(AsyncBodyReader.PREFIX_ATTRIBUTE, arrived);
            }
        }
        chain.doFilter(request, response);
    }

    /**
     * The bytes of the body, up to {@code length}, that arrived with the headers: read only while the container
     * says some can be read without blocking. Tomcat's {@code available()} answers 1 rather than a count for bytes
     * still in its connection buffer, so it is asked again before every read; comparing it with the whole length
     * once sent almost every body through the asynchronous read and a second dispatch.
     */
    private static byte[] readArrived(ServletInputStream input, int length) throws IOException {
        byte[] body = new byte[length];
        int read = 0;
        while (read < length && input.available() > 0) {
            int n = input.read(body, read, length - read);
            if (n < 0) {
                break;
            }
            read += n;
        }
        return read == length ? body : Arrays.copyOf(body, read);
    }

    /** Whether the body of {@code request} is still to be read: it has one, and no filter buffered it yet. */
    public static boolean bodyPending(HttpServletRequest request) {
        if (request.getAttribute(AsyncBodyReader.BODY_ATTRIBUTE) != null) {
            return false;
        }
        long length = request.getContentLengthLong();
        return length > 0 || (length < 0 && request.getHeader(HttpHeaders.TRANSFER_ENCODING) != null);
    }

    /** The body buffered for {@code request} (whole), or null while it is still to be read. */
    public static byte[] bufferedBody(HttpServletRequest request) {
        return request.getAttribute(AsyncBodyReader.BODY_ATTRIBUTE) instanceof byte[] body ? body : null;
    }

    /** "path" or "query" when that part of the URL decodes to text PostgreSQL cannot store, else null. */
    private static String unstorableUrlPart(HttpServletRequest request) {
        String path = request.getRequestURI();
        if (path != null && !StorableText.isStorable(decode(path))) {
            return "path";
        }
        String query = request.getQueryString();
        if (query != null && !StorableText.isStorable(decode(query.replace('+', ' ')))) {
            return "query";
        }
        return null;
    }

    private static String decode(String raw) {
        try {
            return UriUtils.decode(raw, java.nio.charset.StandardCharsets.UTF_8);
        }
        catch (IllegalArgumentException ex) {
            return raw;
        }
    }
}
