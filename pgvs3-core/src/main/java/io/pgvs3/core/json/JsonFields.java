package io.pgvs3.core.json;

import io.pgvs3.core.error.Pgvs3Exception;
import tools.jackson.databind.JsonNode;

/**
 * Typed access to the fields of a JSON request body, each failure a 400 {@code invalid_request} that names the field.
 */
public final class JsonFields {

    private JsonFields() {
    }

    /** The body as an object, or a 400 when it is anything else. */
    public static JsonNode object(JsonNode body) {
        if (body == null || body.isMissingNode() || body.isNull()) {
            throw Pgvs3Exception.invalidRequest("request body must be a JSON object");
        }
        if (!body.isObject()) {
            throw Pgvs3Exception.invalidRequest("request body must be a JSON object, not " + kind(body));
        }
        return body;
    }

    public static String requiredString(JsonNode body, String field) {
        String value = optionalString(body, field);
        if (value == null || value.isEmpty()) {
            throw Pgvs3Exception.invalidRequest("'" + field + "' is required", field);
        }
        return value;
    }

    public static String optionalString(JsonNode body, String field) {
        JsonNode node = body.get(field);
        if (node == null || node.isNull()) {
            return null;
        }
        if (!node.isString()) {
            throw Pgvs3Exception.invalidRequest("'" + field + "' must be a string, not " + kind(node), field);
        }
        return node.stringValue();
    }

    public static Long optionalLong(JsonNode body, String field) {
        JsonNode node = body.get(field);
        if (node == null || node.isNull()) {
            return null;
        }
        if (!node.isIntegralNumber() || !node.canConvertToLong()) {
            throw Pgvs3Exception.invalidRequest("'" + field + "' must be an integer, not " + kind(node), field);
        }
        return node.longValue();
    }

    public static Boolean optionalBoolean(JsonNode body, String field) {
        JsonNode node = body.get(field);
        if (node == null || node.isNull()) {
            return null;
        }
        if (!node.isBoolean()) {
            throw Pgvs3Exception.invalidRequest("'" + field + "' must be a boolean, not " + kind(node), field);
        }
        return node.booleanValue();
    }

    /** A JSON type name for error messages. */
    public static String kind(JsonNode node) {
        if (node == null || node.isMissingNode()) {
            return "missing";
        }
        return switch (node.getNodeType()) {
            case STRING -> "a string";
            case NUMBER -> "a number";
            case BOOLEAN -> "a boolean";
            case ARRAY -> "an array";
            case OBJECT -> "an object";
            case NULL -> "null";
            default -> node.getNodeType().name().toLowerCase(java.util.Locale.ROOT);
        };
    }
}
