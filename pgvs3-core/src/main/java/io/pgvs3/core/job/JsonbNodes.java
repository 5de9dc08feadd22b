package io.pgvs3.core.job;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * JSON trees as PostgreSQL gives them back from a {@code jsonb} column: what {@code mapper.readTree} makes of the
 * text of a {@code jsonb} value. An enqueue builds the envelopes of the jobs it inserted with these, instead of
 * reading them back, and they must equal what a later read of the same job answers:
 * <ul>
 * <li>object keys in {@code jsonb} order (shorter keys first, then by their UTF-8 bytes), the last of duplicate keys
 * kept;</li>
 * <li>numbers as {@code numeric} prints them: {@code 1e2} is {@code 100} and so an integer, {@code 1.50e1} is
 * {@code 15.0}, {@code -0.0} is {@code 0.0}.</li>
 * </ul>
 */
final class JsonbNodes {

    /** The order of the keys of a {@code jsonb} object. */
    static final Comparator<String> KEY_ORDER = JsonbNodes::compareKeys;

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    /** Digits before the decimal point that {@code numeric} can hold. */
    private static final int NUMERIC_MAX_INTEGER_DIGITS = 131_072;

    /** Digits after the decimal point that {@code numeric} can hold. */
    private static final int NUMERIC_MAX_SCALE = 16_383;

    private JsonbNodes() {
    }

    /**
     * Reads one JSON value, as {@code jsonb} would store and return it.
     *
     * @throws tools.jackson.core.JacksonException when {@code json} is not exactly one JSON value
     */
    static JsonNode read(JsonMapper mapper, String json) {
        try (JsonParser parser = mapper.createParser(json)) {
            if (parser.nextToken() == null) {
                throw new IllegalArgumentException("no JSON value");
            }
            JsonNode value = value(mapper, parser);
            if (parser.nextToken() != null) {
                throw new IllegalArgumentException("more than one JSON value");
            }
            return value;
        }
    }

    /**
     * Checks that {@code json} is exactly one JSON value that {@link #read} accepts, without building its tree, and
     * answers the value's first token ({@code START_ARRAY} for an array).
     *
     * @throws tools.jackson.core.JacksonException when {@code json} is not exactly one JSON value
     */
    static JsonToken check(String json, JsonMapper mapper) {
        try (JsonParser parser = mapper.createParser(json)) {
            JsonToken first = parser.nextToken();
            if (first == null) {
                throw new IllegalArgumentException("no JSON value");
            }
            int depth = 0;
            JsonToken token = first;
            while (true) {
                if (token == JsonToken.START_OBJECT || token == JsonToken.START_ARRAY) {
                    depth++;
                }
                else if (token == JsonToken.END_OBJECT || token == JsonToken.END_ARRAY) {
                    depth--;
                }
                else if (token == JsonToken.VALUE_NUMBER_FLOAT) {
                    checkNumeric(parser.getDecimalValue());
                }
                if (depth == 0) {
                    break;
                }
                token = parser.nextToken();
            }
            if (parser.nextToken() != null) {
                throw new IllegalArgumentException("more than one JSON value");
            }
            return first;
        }
    }

    /**
     * A tree as {@code jsonb} would store and return the text it writes: keys in {@code jsonb} order, numbers as
     * {@code numeric} prints them. Walks the tree; nothing is parsed again.
     *
     * @throws IllegalArgumentException when a number lies outside {@code numeric}'s limits
     */
    static JsonNode of(JsonMapper mapper, JsonNode tree) {
        if (tree.isObject()) {
            List<Property> properties = new ArrayList<>(tree.size());
            for (Map.Entry<String, JsonNode> field : tree.properties()) {
                properties.add(new Property(field.getKey(), isAscii(field.getKey()), of(mapper, field.getValue())));
            }
            return object(properties);
        }
        if (tree.isArray()) {
            ArrayNode array = NODES.arrayNode(tree.size());
            for (JsonNode element : tree) {
                array.add(of(mapper, element));
            }
            return array;
        }
        if (tree.isIntegralNumber()) {
            return tree.canConvertToLong() ? number(tree.longValue()) : NODES.numberNode(tree.bigIntegerValue());
        }
        if (tree.isFloatingPointNumber()) {
            return numeric(mapper, decimal(tree));
        }
        return tree;
    }

    /**
     * Checks every number in the tree against {@code numeric}'s limits, as {@link #of} does, without building
     * anything; answers true.
     *
     * @throws IllegalArgumentException when a number lies outside them
     */
    static boolean checkNumbers(JsonNode tree) {
        if (tree.isContainer()) {
            for (JsonNode child : tree) {
                checkNumbers(child);
            }
        }
        else if (tree.isFloatingPointNumber()) {
            checkNumeric(decimal(tree));
        }
        return true;
    }

    /** A floating-point node's exact value; infinity and NaN, which {@code jsonb} cannot hold, are refused. */
    private static BigDecimal decimal(JsonNode number) {
        if (!number.isBigDecimal() && !Double.isFinite(number.doubleValue())) {
            throw new IllegalArgumentException("number out of range: " + number.doubleValue());
        }
        return number.decimalValue();
    }

    /** A whole number as it reads back from {@code jsonb} text: an int when it fits one. */
    static JsonNode number(long value) {
        return value == (int) value ? NODES.numberNode((int) value) : NODES.numberNode(value);
    }

    /** An object node holding the entries in {@code jsonb} key order. */
    static ObjectNode object(Map<String, JsonNode> entries) {
        Map<String, JsonNode> ordered = entries instanceof TreeMap<String, JsonNode> sorted
                && sorted.comparator() == KEY_ORDER ? entries : sorted(entries);
        return new ObjectNode(NODES, new LinkedHashMap<>(ordered));
    }

    private static TreeMap<String, JsonNode> sorted(Map<String, JsonNode> entries) {
        TreeMap<String, JsonNode> sorted = new TreeMap<>(KEY_ORDER);
        sorted.putAll(entries);
        return sorted;
    }

    private static JsonNode value(JsonMapper mapper, JsonParser parser) {
        JsonToken token = parser.currentToken();
        switch (token) {
            case START_OBJECT: {
                List<Property> properties = new ArrayList<>();
                while (parser.nextToken() == JsonToken.PROPERTY_NAME) {
                    String name = parser.currentName();
                    parser.nextToken();
                    properties.add(new Property(name, isAscii(name), value(mapper, parser)));
                }
                return object(properties);
            }
            case START_ARRAY: {
                ArrayNode array = NODES.arrayNode();
                while (parser.nextToken() != JsonToken.END_ARRAY) {
                    array.add(value(mapper, parser));
                }
                return array;
            }
            case VALUE_STRING:
                return NODES.stringNode(parser.getString());
            case VALUE_NUMBER_INT:
                return switch (parser.getNumberType()) {
                    case INT -> NODES.numberNode(parser.getIntValue());
                    case LONG -> NODES.numberNode(parser.getLongValue());
                    default -> NODES.numberNode(parser.getBigIntegerValue());
                };
            case VALUE_NUMBER_FLOAT:
                return numeric(mapper, parser.getDecimalValue());
            case VALUE_TRUE:
                return NODES.booleanNode(true);
            case VALUE_FALSE:
                return NODES.booleanNode(false);
            case VALUE_NULL:
                return NODES.nullNode();
            default:
                throw new IllegalArgumentException("unexpected JSON token " + token);
        }
    }

    /**
     * A number as {@code numeric} prints it (no exponent, no negative scale, no negative zero), read back the way
     * the text of a {@code jsonb} value is read.
     */
    private static JsonNode numeric(JsonMapper mapper, BigDecimal value) {
        checkNumeric(value);
        BigDecimal printed = value.scale() < 0 ? value.setScale(0) : value;
        return mapper.readTree(printed.toPlainString());
    }

    private static void checkNumeric(BigDecimal value) {
        // numeric's own limits; beyond them the plain form would be a huge string (1e999999999 is 12 characters)
        if (value.signum() != 0 && (value.precision() - value.scale() > NUMERIC_MAX_INTEGER_DIGITS
                || value.scale() > NUMERIC_MAX_SCALE)) {
            throw new IllegalArgumentException("number out of range: " + value);
        }
    }

    /** In {@code jsonb} key order, the last of equal keys winning (the sort is stable). */
    private static ObjectNode object(List<Property> properties) {
        properties.sort(Property.ORDER);
        Map<String, JsonNode> children = new LinkedHashMap<>(properties.size() * 2);
        for (Property property : properties) {
            children.put(property.name(), property.value());
        }
        return new ObjectNode(NODES, children);
    }

    private static int compareKeys(String a, String b) {
        return compareKeys(a, isAscii(a), b, isAscii(b));
    }

    private static int compareKeys(String a, boolean asciiA, String b, boolean asciiB) {
        if (asciiA && asciiB) {
            return a.length() != b.length() ? Integer.compare(a.length(), b.length()) : a.compareTo(b);
        }
        byte[] left = a.getBytes(StandardCharsets.UTF_8);
        byte[] right = b.getBytes(StandardCharsets.UTF_8);
        return left.length != right.length ? Integer.compare(left.length, right.length)
                : Arrays.compareUnsigned(left, right);
    }

    private record Property(String name, boolean ascii, JsonNode value) {

        static final Comparator<Property> ORDER = (a, b) -> compareKeys(a.name(), a.ascii(), b.name(), b.ascii());
    }

    private static boolean isAscii(String value) {
        for (int i = 0; i < value.length(); i++) {
            if (value.charAt(i) >= 0x80) {
                return false;
            }
        }
        return true;
    }
}
