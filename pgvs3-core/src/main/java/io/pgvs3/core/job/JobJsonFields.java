package io.pgvs3.core.job;

import java.util.function.Function;

import io.pgvs3.core.error.Pgvs3Exception;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;

/**
 * The checks of the JSON-text parts of a {@link NewJob} (args, meta, options, extra) and of an error's details, the
 * same for every enqueue path; each path reads the text with its own reader (the rows path as {@code jsonb} will hold
 * it, see {@link JsonbNodes}).
 */
final class JobJsonFields {

    private JobJsonFields() {
    }

    /** The args, which must be an array. */
    static JsonNode args(String json, Function<String, JsonNode> reader) {
        JsonNode args = read(json, "args", reader);
        if (!args.isArray()) {
            throw argsNotAnArray();
        }
        return args;
    }

    static Pgvs3Exception argsNotAnArray() {
        return Pgvs3Exception.invalidRequest("'args' must be an array", "args");
    }

    /** The meta, which must be an object when given (JSON null included); null when not given. */
    static JsonNode meta(String json, Function<String, JsonNode> reader) {
        JsonNode meta = json == null ? null : read(json, "meta", reader);
        if (meta != null && !meta.isObject()) {
            throw notAnObject("meta");
        }
        return meta;
    }

    /** An optional object (options, extra): null when not given or JSON null, else it must be an object. */
    static JsonNode optionalObject(String json, String field, Function<String, JsonNode> reader) {
        JsonNode value = json == null ? null : read(json, field, reader);
        if (value == null || value.isNull()) {
            return null;
        }
        if (!value.isObject()) {
            throw notAnObject(field);
        }
        return value;
    }

    /** The JSON text of a field, or 400 {@code invalid_request} naming it. */
    static JsonNode read(String json, String field, Function<String, JsonNode> reader) {
        try {
            return reader.apply(json);
        }
        catch (JacksonException | IllegalArgumentException ex) {
            throw notJson(field);
        }
    }

    static Pgvs3Exception notJson(String field) {
        return Pgvs3Exception.invalidRequest("'" + field + "' is not valid JSON", field);
    }

    private static Pgvs3Exception notAnObject(String field) {
        return Pgvs3Exception.invalidRequest("'" + field + "' must be an object", field);
    }
}
