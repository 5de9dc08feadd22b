package io.pgvs3.core.job;

import java.util.function.Function;

import io.pgvs3.core.error.Pgvs3Exception;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonToken;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The checks of the JSON-text parts of a {@link NewJob} (args, meta, options, extra) and of an error's details, the
 * same for every enqueue path, against what {@code jsonb} will hold (see {@link JsonbNodes}): the rows path reads meta,
 * options and extra into the trees its envelopes need, the unique path only checks them, and neither builds the args'
 * tree to check them. A job read from a request brings its trees ({@link NewJob.Parsed}), which are checked by
 * walking them instead.
 */
final class JobJsonFields {

    private JobJsonFields() {
    }

    /**
     * Checks the args as {@code jsonb} will hold them (one JSON array, every number within {@code numeric}'s limits)
     * without building their tree.
     */
    static void checkArgs(String json, JsonMapper mapper) {
        if (check(json, "args", mapper) != JsonToken.START_ARRAY) {
            throw argsNotAnArray();
        }
    }

    /**
     * Checks an optional object as {@link #meta} and {@link #optionalObject} do, without building its tree; answers
     * whether it is there (JSON null is absent for options and extra, and refused for meta).
     */
    static boolean checkOptionalObject(String json, String field, boolean nullAbsent, JsonMapper mapper) {
        if (json == null) {
            return false;
        }
        JsonToken first = check(json, field, mapper);
        if (first == JsonToken.VALUE_NULL && nullAbsent) {
            return false;
        }
        if (first != JsonToken.START_OBJECT) {
            throw notAnObject(field);
        }
        return true;
    }

    /** The first token of {@code json}, checked as {@link JsonbNodes#check} does, or 400 naming the field. */
    static JsonToken check(String json, String field, JsonMapper mapper) {
        try {
            return JsonbNodes.check(json, mapper);
        }
        catch (JacksonException | IllegalArgumentException ex) {
            throw notJson(field);
        }
    }

    /**
     * A part of a job read from a request ({@link NewJob.Parsed}) as {@code jsonb} will hold it, null when absent;
     * a number beyond {@code numeric}'s limits is 400 naming the field, as it is for text.
     */
    static JsonNode jsonb(JsonNode tree, String field, JsonMapper mapper) {
        try {
            return tree == null ? null : JsonbNodes.of(mapper, tree);
        }
        catch (IllegalArgumentException ex) {
            throw notJson(field);
        }
    }

    /**
     * Checks the numbers of a part of a job read from a request against {@code numeric}'s limits, as the text is
     * checked; answers whether the part is there.
     */
    static boolean checkNumbers(JsonNode tree, String field) {
        try {
            return tree != null && JsonbNodes.checkNumbers(tree);
        }
        catch (IllegalArgumentException ex) {
            throw notJson(field);
        }
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
