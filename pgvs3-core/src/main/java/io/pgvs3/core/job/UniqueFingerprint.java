package io.pgvs3.core.job;

import java.text.Normalizer;
import java.util.Map;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * The dimensions of a unique job's fingerprint (OJS unique jobs, section 4): an object of the job's {@code type}, and
 * as {@link UniqueOptions#keys()} names them its {@code queue}, its {@code args} (whole, or an object of the
 * {@code args_keys} taken from the argument objects) and an object of its {@code meta_keys}, every string in Unicode
 * NFC. The queue's {@code enqueue} function hashes the object's {@code jsonb} text, whose key order is fixed, so two
 * envelopes that differ only in key order or Unicode form get the same key.
 */
final class UniqueFingerprint {

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private UniqueFingerprint() {
    }

    static ObjectNode parts(UniqueOptions unique, NewJob job, JsonNode args, JsonNode meta) {
        ObjectNode parts = NODES.objectNode();
        parts.put("type", nfc(job.type()));
        if (unique.keys().contains("queue")) {
            parts.put("queue", job.queue().value());
        }
        if (unique.keys().contains("args")) {
            parts.set("args", unique.argsKeys() == null ? nfc(args) : selectedArgs(unique, args));
        }
        if (unique.keys().contains("meta")) {
            ObjectNode selected = NODES.objectNode();
            for (String key : unique.metaKeys()) {
                if (meta != null && meta.has(key)) {
                    selected.set(nfc(key), nfc(meta.get(key)));
                }
            }
            parts.set("meta", selected);
        }
        return parts;
    }

    /**
     * Each named key with its value from the first argument object that has it. OJS args are an array, so the
     * spec's "top-level keys within args" are the keys of the objects in it; a name no argument object has is refused,
     * as a fingerprint built on its absence would make unrelated jobs collide.
     */
    private static ObjectNode selectedArgs(UniqueOptions unique, JsonNode args) {
        ObjectNode selected = NODES.objectNode();
        for (String key : unique.argsKeys()) {
            JsonNode value = null;
            for (JsonNode arg : args) {
                if (arg.isObject() && arg.has(key)) {
                    value = arg.get(key);
                    break;
                }
            }
            if (value == null) {
                throw UniqueOptions.invalid("unique.args_keys names '" + key + "', which no object in args has",
                        "args_keys");
            }
            selected.set(nfc(key), nfc(value));
        }
        return selected;
    }

    private static JsonNode nfc(JsonNode node) {
        if (node == null) {
            return NODES.nullNode();
        }
        if (node.isString()) {
            return NODES.stringNode(nfc(node.stringValue()));
        }
        if (node.isArray()) {
            ArrayNode copy = NODES.arrayNode();
            node.forEach(element -> copy.add(nfc(element)));
            return copy;
        }
        if (node.isObject()) {
            ObjectNode copy = NODES.objectNode();
            for (Map.Entry<String, JsonNode> field : node.properties()) {
                copy.set(nfc(field.getKey()), nfc(field.getValue()));
            }
            return copy;
        }
        return node;
    }

    private static String nfc(String text) {
        return Normalizer.isNormalized(text, Normalizer.Form.NFC) ? text : Normalizer.normalize(text, Normalizer.Form.NFC);
    }
}
