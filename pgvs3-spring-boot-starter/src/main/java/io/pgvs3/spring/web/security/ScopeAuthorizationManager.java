package io.pgvs3.spring.web.security;

import io.pgvs3.spring.web.OjsPaths;
import java.util.function.Supplier;

import jakarta.servlet.http.HttpServletRequest;

import org.springframework.security.access.AccessDeniedException;
import org.springframework.security.authorization.AuthorizationDecision;
import org.springframework.security.authorization.AuthorizationManager;
import org.springframework.security.authorization.AuthorizationResult;
import org.springframework.security.core.Authentication;
import org.springframework.security.web.access.intercept.RequestAuthorizationContext;

/**
 * Grants a request when its token has the scope the route needs ({@link RouteScopes}) and, for a route whose path
 * names a queue, when the token's queue patterns allow that queue. A route that needs {@code admin} and names no
 * queue (tokens, cron, dead letters by id) needs a token without queue patterns.
 */
public class ScopeAuthorizationManager implements AuthorizationManager<RequestAuthorizationContext> {

    /**
     * @throws AccessDeniedException with the reason, when the caller is authenticated but not allowed
     */
    @Override
    public AuthorizationResult authorize(Supplier<? extends Authentication> authentication,
            RequestAuthorizationContext context) {
        if (!(authentication.get() instanceof TokenAuthentication caller)) {
            return new AuthorizationDecision(false);
        }
        HttpServletRequest request = context.getRequest();
        String path = OjsPaths.of(request);
        RouteScopes.Requirement needed = RouteScopes.of(request.getMethod(), path);
        ApiToken token = caller.token();
        if (!token.has(needed.scope())) {
            throw new AccessDeniedException("token '" + token.name() + "' lacks the scope '" + needed.scope().value()
                    + "' that " + request.getMethod() + " " + path + " needs");
        }
        if (needed.queue() != null && !token.allowsQueue(needed.queue())) {
            throw QueueAccess.denied(token, needed.queue());
        }
        if (needed.scope() == Scope.ADMIN && needed.queue() == null && token.restrictedToQueues()) {
            // token and cron administration, dead letters by id: none is tied to one queue the patterns could check
            throw new AccessDeniedException("token '" + token.name() + "' is limited to queue patterns, and "
                    + request.getMethod() + " " + path + " is not tied to a queue: it needs an admin token without"
                    + " queue patterns");
        }
        return new AuthorizationDecision(true);
    }
}
