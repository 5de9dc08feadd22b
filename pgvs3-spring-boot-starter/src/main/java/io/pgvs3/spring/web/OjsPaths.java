package io.pgvs3.spring.web;

import jakarta.servlet.http.HttpServletRequest;

/** Where a request points within the application, and whether that is one of pgvs3's routes. */
public final class OjsPaths {

    private OjsPaths() {
    }

    /** The request's path without the context path. */
    public static String of(HttpServletRequest request) {
        return request.getRequestURI().substring(request.getContextPath().length());
    }

    /** Whether the request is for a route under {@value OjsMediaTypes#ROOT}. */
    public static boolean isOjs(HttpServletRequest request) {
        String path = of(request);
        return path.equals(OjsMediaTypes.ROOT) || path.startsWith(OjsMediaTypes.ROOT + "/");
    }
}
