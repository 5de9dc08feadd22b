package io.pgvs3.spring.web;

import java.io.IOException;
import java.time.Duration;

import jakarta.servlet.AsyncContext;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.core.Ordered;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Reads a request body under {@code /ojs} that did not come whole with the headers, without holding a request thread
 * (see {@link AsyncBodyReader}); the request is then dispatched again, and {@link OjsRequestFilter} hands the body on.
 * It runs after Spring Security's filter and the {@link MutationGuardFilter}, so that a request without valid
 * credentials, or a browser's cross-origin form, is refused from its headers before any byte of its body is waited
 * for, and the dispatch that follows runs as the caller authenticated the first time.
 */
public class OjsBodyReadFilter extends OncePerRequestFilter implements Ordered {

    /** After Spring Security's filter (order -100), whose checks need only the headers. */
    public static final int ORDER = -90;

    private final long maxRequestBytes;
    private final Duration bodyReadTimeout;
    private final OjsErrorWriter errors;

    public OjsBodyReadFilter(long maxRequestBytes, Duration bodyReadTimeout, JsonMapper mapper) {
        this.maxRequestBytes = maxRequestBytes;
        this.bodyReadTimeout = bodyReadTimeout;
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
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        if (!OjsRequestFilter.bodyPending(request)) {
            chain.doFilter(request, response);
            return;
        }
        // the container's own request and response: the wrappers of the filters passed so far end with this dispatch
        AsyncContext async = request.startAsync();
        async.setTimeout(bodyReadTimeout.toMillis());
        AsyncBodyReader reader = new AsyncBodyReader(async, request.getInputStream(), maxRequestBytes, errors,
                RequestIds.of(request), (byte[]) request.getAttribute(AsyncBodyReader.PREFIX_ATTRIBUTE));
        async.addListener(reader);
        request.getInputStream().setReadListener(reader);
    }
}
