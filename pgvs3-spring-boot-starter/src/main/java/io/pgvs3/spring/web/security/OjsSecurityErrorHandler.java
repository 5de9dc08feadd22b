package io.pgvs3.spring.web.security;

import java.io.IOException;
import java.util.Map;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import io.pgvs3.core.error.ErrorCode;
import io.pgvs3.spring.web.OjsErrorBody;
import io.pgvs3.spring.web.OjsMediaTypes;
import io.pgvs3.spring.web.RequestIds;
import io.pgvs3.spring.web.OjsPaths;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.security.access.AccessDeniedException;
import org.springframework.security.core.AuthenticationException;
import org.springframework.security.web.AuthenticationEntryPoint;
import org.springframework.security.web.access.AccessDeniedHandler;

/**
 * Answers a request without valid credentials with 401 and one without the needed scope with 403, both with the
 * OJS error body. A 401 under {@code /dashboard} asks for Basic credentials, so that a browser prompts for them; any
 * other 401 asks for a Bearer token and then for Basic credentials of the same realm: a browser that has them for the
 * dashboard (whose pages call {@code /ojs} and {@code /v3/api-docs}, outside the path it entered them for) sends them
 * again without asking, and a browser opening an API route itself can prompt.
 */
public class OjsSecurityErrorHandler implements AuthenticationEntryPoint, AccessDeniedHandler {

    static final String DASHBOARD = "/dashboard";

    static final String BEARER_CHALLENGE = "Bearer realm=\"pgvs3\"";

    static final String BASIC_CHALLENGE = "Basic realm=\"pgvs3\", charset=\"UTF-8\"";

    private final JsonMapper mapper;

    public OjsSecurityErrorHandler(JsonMapper mapper) {
        this.mapper = mapper;
    }

    @Override
    public void commence(HttpServletRequest request, HttpServletResponse response, AuthenticationException ex)
            throws IOException {
        String path = OjsPaths.of(request);
        boolean browser = path.equals(DASHBOARD) || path.startsWith(DASHBOARD + "/");
        if (!browser) {
            response.setHeader("WWW-Authenticate", BEARER_CHALLENGE);
        }
        response.addHeader("WWW-Authenticate", BASIC_CHALLENGE);
        String message = ex instanceof InvalidTokenException ? ex.getMessage()
                : "authentication required: send 'Authorization: Bearer <token>'";
        write(request, response, ErrorCode.UNAUTHORIZED, message);
    }

    @Override
    public void handle(HttpServletRequest request, HttpServletResponse response, AccessDeniedException ex)
            throws IOException {
        String message = ex.getMessage() != null && ex.getMessage().startsWith("token ") ? ex.getMessage()
                : "the token does not allow " + request.getMethod() + " " + request.getRequestURI();
        write(request, response, ErrorCode.FORBIDDEN, message);
    }

    private void write(HttpServletRequest request, HttpServletResponse response, ErrorCode code, String message)
            throws IOException {
        write(request, response, code, message, Map.of());
    }

    void write(HttpServletRequest request, HttpServletResponse response, ErrorCode code, String message,
            Map<String, Object> details) throws IOException {
        String requestId = RequestIds.of(request);
        response.setStatus(code.status());
        response.setHeader(OjsMediaTypes.VERSION_HEADER, OjsMediaTypes.VERSION);
        response.setHeader(OjsMediaTypes.REQUEST_ID_HEADER, requestId);
        response.setContentType(OjsMediaTypes.OJS_JSON_VALUE);
        response.getOutputStream().write(mapper.writeValueAsBytes(OjsErrorBody.of(code, message, details, requestId)));
    }

    /** Credentials were presented but name no token. */
    public static class InvalidTokenException extends AuthenticationException {

        public InvalidTokenException(String message) {
            super(message);
        }
    }
}
