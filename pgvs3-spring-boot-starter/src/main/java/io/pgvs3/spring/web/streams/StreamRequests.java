package io.pgvs3.spring.web.streams;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

import io.pgvs3.core.ResourceNames;
import io.pgvs3.core.error.ErrorCode;
import io.pgvs3.core.error.Pgvs3Exception;
import io.pgvs3.core.json.JsonFields;
import io.pgvs3.core.stream.NewStreamMessage;
import io.pgvs3.core.stream.StreamStore;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** Validation of the stream routes' request bodies; every failure is a 4xx naming the field. */
final class StreamRequests {

    private static final int MAX_TEXT = 255;

    private final JsonMapper mapper;
    private final long maxPayloadBytes;

    StreamRequests(JsonMapper mapper, long maxPayloadBytes) {
        this.mapper = mapper;
        this.maxPayloadBytes = maxPayloadBytes;
    }

    NewStreamMessage message(JsonNode node, String prefix) {
        if (node == null || !node.isObject()) {
            throw Pgvs3Exception.invalidRequest(prefix + "a message must be a JSON object, not " + JsonFields.kind(node),
                    "messages");
        }
        String type = JsonFields.requiredString(node, "type");
        if (type.length() > MAX_TEXT) {
            throw Pgvs3Exception.invalidRequest(prefix + "'type' must be at most " + MAX_TEXT + " characters", "type");
        }
        String id = JsonFields.optionalString(node, "id");
        if (id != null && (id.isEmpty() || id.length() > MAX_TEXT)) {
            throw Pgvs3Exception.invalidRequest(prefix + "'id' must be 1 to " + MAX_TEXT + " characters", "id");
        }
        JsonNode payload = node.get("payload");
        if (payload == null || payload.isNull()) {
            throw Pgvs3Exception.invalidRequest(prefix + "'payload' is required", "payload");
        }
        String payloadJson = mapper.writeValueAsString(payload);
        int bytes = payloadJson.getBytes(StandardCharsets.UTF_8).length;
        if (bytes > maxPayloadBytes) {
            throw new Pgvs3Exception(ErrorCode.PAYLOAD_TOO_LARGE, prefix + "payload of " + bytes
                    + " bytes exceeds the limit of " + maxPayloadBytes + " bytes",
                    Map.of("field", "payload", "limit_bytes", maxPayloadBytes));
        }
        return new NewStreamMessage(id, type, payloadJson, headers(node, prefix), dedupeKey(node, prefix));
    }

    private static String dedupeKey(JsonNode node, String prefix) {
        String key = JsonFields.optionalString(node, "dedupe_key");
        if (key == null) {
            return null;
        }
        if (key.isEmpty() || key.codePointCount(0, key.length()) > StreamStore.MAX_DEDUPE_KEY) {
            throw Pgvs3Exception.invalidRequest(prefix + "'dedupe_key' must be 1 to " + StreamStore.MAX_DEDUPE_KEY
                    + " characters", "dedupe_key");
        }
        if (key.indexOf('\0') >= 0) {
            throw Pgvs3Exception.invalidRequest(prefix + "'dedupe_key' must not contain NUL characters", "dedupe_key");
        }
        return key;
    }

    private static Map<String, String> headers(JsonNode node, String prefix) {
        JsonNode headers = node.get("headers");
        if (headers == null || headers.isNull()) {
            return Map.of();
        }
        if (!headers.isObject()) {
            throw Pgvs3Exception.invalidRequest(prefix + "'headers' must be an object of strings", "headers");
        }
        Map<String, String> values = new LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> header : headers.properties()) {
            if (!header.getValue().isString()) {
                throw Pgvs3Exception.invalidRequest(prefix + "header '" + header.getKey() + "' must be a string, not "
                        + JsonFields.kind(header.getValue()), "headers");
            }
            values.put(header.getKey(), header.getValue().stringValue());
        }
        return values;
    }

    static String name(String value, String field) {
        return ResourceNames.require(value, field);
    }

    static int intInRange(JsonNode body, String field, int defaultValue, int min, int max) {
        Long value = JsonFields.optionalLong(body, field);
        if (value == null) {
            return defaultValue;
        }
        if (value < min || value > max) {
            throw Pgvs3Exception.invalidRequest("'" + field + "' must be between " + min + " and " + max, field);
        }
        return value.intValue();
    }

    static long requiredLong(JsonNode body, String field) {
        Long value = JsonFields.optionalLong(body, field);
        if (value == null) {
            throw Pgvs3Exception.invalidRequest("'" + field + "' is required", field);
        }
        return value;
    }
}
