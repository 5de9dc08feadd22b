package io.pgvs3.spring.web;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import io.pgvs3.core.error.ErrorCode;
import io.pgvs3.core.error.Pgvs3Exception;

import org.springframework.web.servlet.HandlerInterceptor;

/** In read-only mode, refuses every request that is not a read with 403 {@code forbidden}. */
public class ReadOnlyInterceptor implements HandlerInterceptor {

    @Override
    public boolean preHandle(HttpServletRequest request, HttpServletResponse response, Object handler) {
        String method = request.getMethod();
        if (method.equals("GET") || method.equals("HEAD") || method.equals("OPTIONS")) {
            return true;
        }
        throw new Pgvs3Exception(ErrorCode.FORBIDDEN, "this server is read-only; " + method + " is not allowed");
    }
}
