package io.pgvs3.spring.web;

import java.io.IOException;
import java.util.Map;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import io.pgvs3.core.error.ErrorCode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.core.Ordered;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Applies the OJS binding's envelope to every exchange under {@code /ojs}: {@code OJS-Version} and
 * {@code X-Request-Id} on every response, and a ceiling on the request body size.
 */
public class OjsRequestFilter extends OncePerRequestFilter implements Ordered {

    /** Before Spring Security's filter (order -100), so that its answers carry the OJS headers too. */
    public static final int ORDER = -200;

    private final long maxRequestBytes;
    private final JsonMapper mapper;

    public OjsRequestFilter(long maxRequestBytes, JsonMapper mapper) {
        this.maxRequestBytes = maxRequestBytes;
        this.mapper = mapper;
    }

    @Override
    public int getOrder() {
        return ORDER;
    }

    @Override
    protected boolean shouldNotFilter(HttpServletRequest request) {
        String path = request.getRequestURI().substring(request.getContextPath().length());
        return !(path.equals(OjsMediaTypes.ROOT) || path.startsWith(OjsMediaTypes.ROOT + "/"));
    }

    @Override
    protected boolean shouldNotFilterErrorDispatch() {
        return false;
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        String requestId = RequestIds.of(request);
        response.setHeader(OjsMediaTypes.VERSION_HEADER, OjsMediaTypes.VERSION);
        response.setHeader(OjsMediaTypes.REQUEST_ID_HEADER, requestId);
        long length = request.getContentLengthLong();
        if (length > maxRequestBytes) {
            response.setStatus(ErrorCode.PAYLOAD_TOO_LARGE.status());
            response.setContentType(OjsMediaTypes.OJS_JSON_VALUE);
            response.getOutputStream().write(mapper.writeValueAsBytes(OjsErrorBody.of(ErrorCode.PAYLOAD_TOO_LARGE,
                    "request body of " + length + " bytes exceeds the limit of " + maxRequestBytes + " bytes",
                    Map.of("limit_bytes", maxRequestBytes), requestId)));
            return;
        }
        chain.doFilter(length < 0 ? new BoundedBodyRequest(request, maxRequestBytes) : request, response);
    }
}
