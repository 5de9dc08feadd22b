package io.pgvs3.spring.web;

import tools.jackson.databind.JsonNode;

/**
 * Typed access to the fields of a JSON request body, each failure a 400 {@code invalid_request} that names the field:
 * the web layer's name for {@link io.pgvs3.core.json.JsonFields}, which the job format in core reads with too.
 */
public final class JsonFields {

    private JsonFields() {
    }

    /** The body as an object, or a 400 when it is anything else. */
    public static JsonNode object(JsonNode body) {
        return io.pgvs3.core.json.JsonFields.object(body);
    }

    public static String requiredString(JsonNode body, String field) {
        return io.pgvs3.core.json.JsonFields.requiredString(body, field);
    }

    public static String optionalString(JsonNode body, String field) {
        return io.pgvs3.core.json.JsonFields.optionalString(body, field);
    }

    public static Long optionalLong(JsonNode body, String field) {
        return io.pgvs3.core.json.JsonFields.optionalLong(body, field);
    }

    public static Boolean optionalBoolean(JsonNode body, String field) {
        return io.pgvs3.core.json.JsonFields.optionalBoolean(body, field);
    }

    /** A JSON type name for error messages. */
    public static String kind(JsonNode node) {
        return io.pgvs3.core.json.JsonFields.kind(node);
    }
}
