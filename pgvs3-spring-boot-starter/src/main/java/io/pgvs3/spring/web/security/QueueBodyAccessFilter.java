package io.pgvs3.spring.web.security;

import java.io.IOException;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import io.pgvs3.core.error.Pgvs3Exception;
import io.pgvs3.spring.web.BufferedBodyRequest;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.security.access.AccessDeniedException;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * For a token limited to queue patterns, checks the queues named in the body of enqueue, batch enqueue and fetch,
 * and refuses workflows and cron creation, whose queues it does not check. The body (already bounded by the
 * request filter) is read once and handed on unchanged. Tokens without queue patterns are not slowed down.
 */
public class QueueBodyAccessFilter extends OncePerRequestFilter {

    private final JsonMapper mapper;
    private final OjsSecurityErrorHandler errors;

    public QueueBodyAccessFilter(JsonMapper mapper, OjsSecurityErrorHandler errors) {
        this.mapper = mapper;
        this.errors = errors;
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        Authentication authentication = SecurityContextHolder.getContext().getAuthentication();
        String path = request.getRequestURI().substring(request.getContextPath().length());
        if (!(authentication instanceof TokenAuthentication caller) || !caller.token().restrictedToQueues()
                || !request.getMethod().equals("POST")) {
            chain.doFilter(request, response);
            return;
        }
        ApiToken token = caller.token();
        if (QueueAccess.uncheckedBodyQueues(path)) {
            throw new AccessDeniedException("token '" + token.name()
                    + "' is limited to queue patterns, and " + path + " names queues that are not checked");
        }
        if (!QueueAccess.namesQueuesInBody(path)) {
            chain.doFilter(request, response);
            return;
        }
        byte[] body;
        try {
            body = request.getInputStream().readAllBytes();
        }
        catch (Pgvs3Exception ex) {
            errors.write(request, response, ex.code(), ex.getMessage(), ex.details());
            return;
        }
        JsonNode json = null;
        try {
            json = body.length == 0 ? null : mapper.readTree(body);
        }
        catch (JacksonException ex) {
            // not JSON: the controller answers 400 and writes nothing
        }
        for (String queue : QueueAccess.queues(path, json)) {
            if (!token.allowsQueue(queue)) {
                throw QueueAccess.denied(token, queue);
            }
        }
        chain.doFilter(new BufferedBodyRequest(request, body), response);
    }
}
