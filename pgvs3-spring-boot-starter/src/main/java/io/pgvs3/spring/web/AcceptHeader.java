package io.pgvs3.spring.web;

import java.util.List;

import org.springframework.http.InvalidMediaTypeException;
import org.springframework.http.MediaType;

/**
 * Whether a request's {@code Accept} header allows the only bodies pgvs3 writes: JSON, labelled
 * {@code application/openjobspec+json} or {@code application/json}.
 */
final class AcceptHeader {

    private static final List<MediaType> ANSWERED = List.of(OjsMediaTypes.OJS_JSON, MediaType.APPLICATION_JSON);

    private AcceptHeader() {
    }

    /** True for a missing or empty header, and for any header with a non-zero-quality type that covers JSON. */
    static boolean allowsJson(String header) {
        if (header == null || header.isBlank()) {
            return true;
        }
        List<MediaType> accepted;
        try {
            accepted = MediaType.parseMediaTypes(header);
        }
        catch (InvalidMediaTypeException ex) {
            return false;
        }
        for (MediaType type : accepted) {
            if (type.getQualityValue() > 0 && ANSWERED.stream().anyMatch(type::includes)) {
                return true;
            }
        }
        return false;
    }
}
