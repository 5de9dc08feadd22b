package io.pgvs3.spring.web.security;

import java.io.IOException;

import jakarta.servlet.DispatcherType;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import io.pgvs3.core.error.Pgvs3Exception;
import io.pgvs3.spring.web.BufferedBodyRequest;
import io.pgvs3.spring.web.OjsBodyReadFilter;
import io.pgvs3.spring.web.OjsRequestFilter;
import io.pgvs3.spring.web.OjsPaths;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.security.access.AccessDeniedException;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * For a token limited to queue patterns, checks the queues named in the body of enqueue, batch enqueue, fetch and
 * stream ack and nack, refuses a unique policy spanning every queue on enqueue, and refuses workflows and cron
 * creation, whose queues it does not check. It looks at the body once it is whole: a body still on its way is read
 * by {@link OjsBodyReadFilter} after this chain, and checked in the dispatch that follows. Tokens without queue
 * patterns are not slowed down.
 */
public class QueueBodyAccessFilter extends OncePerRequestFilter {

    private static final String CHECKED = QueueBodyAccessFilter.class.getName() + ".checked";

    private final JsonMapper mapper;
    private final OjsSecurityErrorHandler errors;

    public QueueBodyAccessFilter(JsonMapper mapper, OjsSecurityErrorHandler errors) {
        this.mapper = mapper;
        this.errors = errors;
    }

    @Override
    protected boolean shouldNotFilterAsyncDispatch() {
        // the dispatch after the body was read is where a body that came slowly is checked
        return false;
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        Authentication authentication = SecurityContextHolder.getContext().getAuthentication();
        String path = OjsPaths.of(request);
        if (!(authentication instanceof TokenAuthentication caller) || !caller.token().restrictedToQueues()
                || !request.getMethod().equals("POST") || request.getAttribute(CHECKED) != null) {
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
        if (request.getDispatcherType() == DispatcherType.REQUEST && OjsRequestFilter.bodyPending(request)) {
            // read without holding this thread after the chain; this filter checks it in the next dispatch
            chain.doFilter(request, response);
            return;
        }
        byte[] body = OjsRequestFilter.bufferedBody(request);
        if (body == null) {
            try {
                body = request.getInputStream().readAllBytes();
            }
            catch (Pgvs3Exception ex) {
                errors.write(request, response, ex.code(), ex.getMessage(), ex.details());
                return;
            }
            request = new BufferedBodyRequest(request, body);
        }
        request.setAttribute(CHECKED, Boolean.TRUE);
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
        String spanning = QueueAccess.queueSpanningUniquePolicy(path, json);
        if (spanning != null) {
            throw new AccessDeniedException("token '" + token.name() + "' is limited to queue patterns: a unique policy"
                    + " on queue '" + spanning + "' must include 'queue' in unique.keys (or use an explicit unique.key),"
                    + " else it would find jobs of other queues");
        }
        chain.doFilter(request, response);
    }
}
