package io.pgvs3.spring.web.security;

import java.io.IOException;
import java.util.Map;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import io.pgvs3.core.error.ErrorCode;
import io.pgvs3.spring.web.OjsErrorBody;
import io.pgvs3.spring.web.OjsMediaTypes;
import io.pgvs3.spring.web.RequestIds;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.security.access.AccessDeniedException;
import org.springframework.security.core.AuthenticationException;
import org.springframework.security.web.AuthenticationEntryPoint;
import org.springframework.security.web.access.AccessDeniedHandler;

/**
 * Answers a request without valid credentials with 401 and one without the needed scope with 403, both with the
 * OJS error body. A 401 under {@code /dashboard} asks for Basic credentials, so that a browser prompts for them.
 */
public class OjsSecurityErrorHandler implements AuthenticationEntryPoint, AccessDeniedHandler {

    static final String DASHBOARD = "/dashboard";

    private final JsonMapper mapper;

    public OjsSecurityErrorHandler(JsonMapper mapper) {
        this.mapper = mapper;
    }

    @Override
    public void commence(HttpServletRequest request, HttpServletResponse response, AuthenticationException ex)
            throws IOException {
        String path = request.getRequestURI().substring(request.getContextPath().length());
        boolean browser = path.equals(DASHBOARD) || path.startsWith(DASHBOARD + "/");
        response.setHeader("WWW-Authenticate", browser ? "Basic realm=\"pgvs3\", charset=\"UTF-8\"" : "Bearer realm=\"pgvs3\"");
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
