package io.pgvs3.spring.web;

import org.springframework.http.MediaType;

/** Media types and headers of the OJS HTTP binding. */
public final class OjsMediaTypes {

    public static final String OJS_JSON_VALUE = "application/openjobspec+json";

    public static final MediaType OJS_JSON = MediaType.parseMediaType(OJS_JSON_VALUE);

    public static final String VERSION_HEADER = "OJS-Version";

    public static final String VERSION = "1.0";

    public static final String REQUEST_ID_HEADER = "X-Request-Id";

    /** The path prefix every pgvs3 route lives under. */
    public static final String ROOT = "/ojs";

    private OjsMediaTypes() {
    }
}
