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
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.web.cors.CorsConfiguration;
import org.springframework.web.cors.CorsUtils;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Keeps browsers on other origins from changing anything: a mutation under {@code /ojs} (POST, PUT, PATCH, DELETE)
 * must carry a JSON content type ({@code application/json} or {@code application/openjobspec+json}, any
 * parameters) when it has a content type or a body, else 415; and a mutation from another origin is refused with
 * 403 unless {@code pgvs3.http.cors} allows that origin. A text/plain or form POST from a web page, which a browser
 * sends without asking first, therefore never reaches a route.
 */
public class MutationGuardFilter extends OncePerRequestFilter implements Ordered {

    /** Right after {@link OjsRequestFilter}, before Spring Security. */
    public static final int ORDER = OjsRequestFilter.ORDER + 1;

    private final CorsConfiguration cors;
    private final JsonMapper mapper;

    /** @param cors the allowed cross-origin access, or null for none */
    public MutationGuardFilter(CorsConfiguration cors, JsonMapper mapper) {
        this.cors = cors;
        this.mapper = mapper;
    }

    @Override
    public int getOrder() {
        return ORDER;
    }

    @Override
    protected boolean shouldNotFilter(HttpServletRequest request) {
        String method = request.getMethod();
        boolean mutation = method.equals("POST") || method.equals("PUT") || method.equals("PATCH")
                || method.equals("DELETE");
        return !mutation || !OjsPaths.isOjs(request);
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        String contentType = request.getContentType();
        boolean hasBody = request.getContentLengthLong() > 0 || request.getHeader(HttpHeaders.TRANSFER_ENCODING) != null;
        if ((contentType != null || hasBody) && !isJson(contentType)) {
            refuse(request, response, ErrorCode.UNSUPPORTED_MEDIA_TYPE, "content type "
                    + (contentType == null ? "(none)" : contentType)
                    + " is not supported; send application/openjobspec+json or application/json");
            return;
        }
        if (CorsUtils.isCorsRequest(request) && !allowedOrigin(request.getHeader(HttpHeaders.ORIGIN))) {
            refuse(request, response, ErrorCode.FORBIDDEN,
                    "cross-origin requests are not allowed from " + request.getHeader(HttpHeaders.ORIGIN));
            return;
        }
        chain.doFilter(request, response);
    }

    private boolean allowedOrigin(String origin) {
        return cors != null && cors.checkOrigin(origin) != null;
    }

    static boolean isJson(String contentType) {
        if (contentType == null) {
            return false;
        }
        try {
            MediaType type = MediaType.parseMediaType(contentType);
            return type.getType().equals("application")
                    && (type.getSubtype().equals("json") || type.getSubtype().equals("openjobspec+json"));
        }
        catch (RuntimeException ex) {
            return false;
        }
    }

    private void refuse(HttpServletRequest request, HttpServletResponse response, ErrorCode code, String message)
            throws IOException {
        String requestId = RequestIds.of(request);
        response.setStatus(code.status());
        response.setHeader(OjsMediaTypes.VERSION_HEADER, OjsMediaTypes.VERSION);
        response.setHeader(OjsMediaTypes.REQUEST_ID_HEADER, requestId);
        response.setContentType(OjsMediaTypes.OJS_JSON_VALUE);
        response.getOutputStream().write(mapper.writeValueAsBytes(OjsErrorBody.of(code, message, Map.of(), requestId)));
    }

}
