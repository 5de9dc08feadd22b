package io.pgvs3.spring.web.security;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Map;
import java.util.Optional;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import io.pgvs3.core.error.ErrorCode;

import org.springframework.dao.DataAccessException;
import org.springframework.security.core.context.SecurityContext;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.security.core.context.SecurityContextHolderStrategy;
import org.springframework.security.web.context.RequestAttributeSecurityContextRepository;
import org.springframework.security.web.context.SecurityContextRepository;
import org.springframework.security.web.util.matcher.RequestMatcher;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Authenticates {@code Authorization: Bearer <token>}, or Basic whose password is the token (the user name is
 * ignored, for browsers). Wrong credentials are refused at once with 401; a request without any goes on
 * unauthenticated, unless the {@link AnonymousAccessPolicy} lets it in with every scope.
 */
public class TokenAuthenticationFilter extends OncePerRequestFilter {

    private final TokenRegistry tokens;
    private final AnonymousAccessPolicy anonymous;
    private final OjsSecurityErrorHandler entryPoint;
    private final RequestMatcher openRoutes;
    private final SecurityContextHolderStrategy contexts = SecurityContextHolder.getContextHolderStrategy();

    // kept in the request, so that the dispatch that completes a long poll (async) runs as the same caller
    private final SecurityContextRepository repository = new RequestAttributeSecurityContextRepository();

    /**
     * @param openRoutes the routes every caller may use (health, manifest): a request to them without credentials
     * does not wait for the database, which they must report on even when it does not answer
     */
    public TokenAuthenticationFilter(TokenRegistry tokens, AnonymousAccessPolicy anonymous,
            OjsSecurityErrorHandler entryPoint, RequestMatcher openRoutes) {
        this.tokens = tokens;
        this.anonymous = anonymous;
        this.entryPoint = entryPoint;
        this.openRoutes = openRoutes;
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        String header = request.getHeader("Authorization");
        ApiToken token;
        if (header == null || header.isBlank()) {
            if (openRoutes.matches(request)) {
                token = anonymous.anonymousAllowedAsLastKnown() && anonymous.refusal(request) == null
                        ? ApiToken.ANONYMOUS : null;
            }
            else if (anonymous.anonymousAllowed()) {
                String refusal = anonymous.refusal(request);
                if (refusal != null) {
                    entryPoint.write(request, response, ErrorCode.FORBIDDEN, refusal, Map.of());
                    return;
                }
                token = ApiToken.ANONYMOUS;
            }
            else {
                token = null;
            }
        }
        else {
            Optional<ApiToken> resolved;
            try {
                resolved = presented(header).flatMap(tokens::resolve);
            }
            catch (DataAccessException ex) {
                entryPoint.write(request, response, ErrorCode.UNAVAILABLE,
                        "the token could not be checked: the database did not answer", Map.of());
                return;
            }
            if (resolved.isEmpty()) {
                contexts.clearContext();
                entryPoint.commence(request, response, new OjsSecurityErrorHandler.InvalidTokenException(
                        "the token is not valid (unknown or revoked)"));
                return;
            }
            token = resolved.get();
        }
        if (token != null) {
            SecurityContext context = contexts.createEmptyContext();
            context.setAuthentication(new TokenAuthentication(token));
            contexts.setContext(context);
            repository.saveContext(context, request, response);
        }
        chain.doFilter(request, response);
    }

    /** The token in a Bearer or Basic header. */
    static Optional<String> presented(String header) {
        int space = header.indexOf(' ');
        if (space < 0) {
            return Optional.empty();
        }
        String scheme = header.substring(0, space);
        String value = header.substring(space + 1).trim();
        if (scheme.equalsIgnoreCase("Bearer")) {
            return Optional.of(value);
        }
        if (scheme.equalsIgnoreCase("Basic")) {
            try {
                String decoded = new String(Base64.getDecoder().decode(value), StandardCharsets.UTF_8);
                int colon = decoded.indexOf(':');
                return colon < 0 ? Optional.empty() : Optional.of(decoded.substring(colon + 1));
            }
            catch (IllegalArgumentException ex) {
                return Optional.empty();
            }
        }
        return Optional.empty();
    }
}
