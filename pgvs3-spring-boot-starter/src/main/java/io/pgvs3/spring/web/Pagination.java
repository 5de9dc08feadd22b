package io.pgvs3.spring.web;

import java.util.LinkedHashMap;
import java.util.Map;

import io.pgvs3.core.error.Pgvs3Exception;

/** The {@code limit} and {@code offset} of a paginated route: their checks, and the {@code pagination} object. */
public final class Pagination {

    private Pagination() {
    }

    /** 400 unless {@code limit} is within 1 and {@code maxLimit}. */
    public static void checkLimit(int limit, int maxLimit) {
        if (limit < 1 || limit > maxLimit) {
            throw Pgvs3Exception.invalidRequest("limit must be between 1 and " + maxLimit, "limit");
        }
    }

    /** 400 unless {@code limit} is within 1 and {@code maxLimit} and {@code offset} is not negative. */
    public static void check(int limit, int offset, int maxLimit) {
        checkLimit(limit, maxLimit);
        if (offset < 0) {
            throw Pgvs3Exception.invalidRequest("offset must not be negative", "offset");
        }
    }

    /** {@code {total, limit, offset, has_more}} for a page of {@code returned} items. */
    public static Map<String, Object> view(long total, int limit, int offset, int returned) {
        Map<String, Object> view = new LinkedHashMap<>();
        view.put("total", total);
        view.put("limit", limit);
        view.put("offset", offset);
        view.put("has_more", offset + returned < total);
        return view;
    }
}
