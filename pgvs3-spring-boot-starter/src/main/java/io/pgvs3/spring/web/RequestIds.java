package io.pgvs3.spring.web;

import java.util.UUID;
import java.util.regex.Pattern;

import jakarta.servlet.http.HttpServletRequest;

/** The request id of an HTTP exchange: the client's {@code X-Request-Id} when it is sane, else a new one. */
public final class RequestIds {

    static final String ATTRIBUTE = RequestIds.class.getName() + ".id";

    private static final Pattern SANE = Pattern.compile("^[A-Za-z0-9._:-]{1,128}$");

    private RequestIds() {
    }

    static String assign(HttpServletRequest request) {
        String given = request.getHeader(OjsMediaTypes.REQUEST_ID_HEADER);
        String id = given != null && SANE.matcher(given).matches() ? given : "req_" + UUID.randomUUID();
        request.setAttribute(ATTRIBUTE, id);
        return id;
    }

    public static String of(HttpServletRequest request) {
        Object id = request.getAttribute(ATTRIBUTE);
        return id != null ? id.toString() : assign(request);
    }
}
