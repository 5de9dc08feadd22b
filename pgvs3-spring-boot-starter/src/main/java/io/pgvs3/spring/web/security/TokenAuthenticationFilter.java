package io.pgvs3.spring.web.security;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Optional;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import org.springframework.security.core.context.SecurityContext;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.security.core.context.SecurityContextHolderStrategy;
import org.springframework.security.web.AuthenticationEntryPoint;
import org.springframework.security.web.context.RequestAttributeSecurityContextRepository;
import org.springframework.security.web.context.SecurityContextRepository;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Authenticates {@code Authorization: Bearer <token>}, or Basic whose password is the token (the user name is
 * ignored, for browsers). Wrong credentials are refused at once with 401; a request without any goes on
 * unauthenticated, unless the {@link AnonymousAccessPolicy} lets it in with every scope.
 */
public class TokenAuthenticationFilter extends OncePerRequestFilter {

    private final TokenRegistry tokens;
    private final AnonymousAccessPolicy anonymous;
    private final AuthenticationEntryPoint entryPoint;
    private final SecurityContextHolderStrategy contexts = SecurityContextHolder.getContextHolderStrategy();

    // kept in the request, so that the dispatch that completes a long poll (async) runs as the same caller
    private final SecurityContextRepository repository = new RequestAttributeSecurityContextRepository();

    public TokenAuthenticationFilter(TokenRegistry tokens, AnonymousAccessPolicy anonymous,
            AuthenticationEntryPoint entryPoint) {
        this.tokens = tokens;
        this.anonymous = anonymous;
        this.entryPoint = entryPoint;
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        String header = request.getHeader("Authorization");
        ApiToken token;
        if (header == null || header.isBlank()) {
            token = anonymous.anonymousAllowed() ? ApiToken.ANONYMOUS : null;
        }
        else {
            Optional<ApiToken> resolved = presented(header).flatMap(tokens::resolve);
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
