package io.pgvs3.server.hostile;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import io.pgvs3.test.OjsClient;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * A deterministic corpus of hostile requests over every route: from a valid request per route, variants with
 * malformed JSON, wrong types, huge and deeply nested values, text PostgreSQL cannot store, invalid UTF-8, hostile
 * path names, negative and huge numbers, wrong content types and Accept headers.
 */
final class FuzzCorpus {

    /** A route and a request it accepts; {@code {name}} segments in the path are replaced by hostile names. */
    record Route(String method, String path, String body) {
    }

    /** One request of the corpus, with what it must get: {@code mustBe406} when its Accept header excludes JSON. */
    record Case(String label, String method, String path, Map<String, String> headers, byte[] body, boolean mustBe406) {
    }

    private static final String[] MALFORMED = { "", "{", "}", "{\"a\":}", "[1,]", "{\"a\":1,}", "nul", "{'a':1}",
            "{\"a\":1}}", "{\"a\" 1}", "123", "\"text\"", "null", "[]", "true", "{\"a\":NaN}", "{\"a\":Infinity}",
            "{\"a\":01}", "{\"a\":\"\\x41\"}", "{\"a\":\"\\u12\"}", "{\"a\":1}garbage", "\uFEFF{}", "{\"a\":/*c*/1}" };

    private static final String[] WRONG_TYPES = { "1", "-1", "0", "1.5", "true", "false", "null", "\"s\"", "\"\"",
            "[]", "{}", "[1,\"x\",null]", "{\"x\":{}}" };

    private static final String[] NUMBERS = { "-9223372036854775809", "9223372036854775808", "-9223372036854775808",
            "9223372036854775807", "99999999999999999999999999999", "1e400", "-1e400", "1e-400", "-0", "2147483648",
            "-2147483649", "1E+2147483647", "0.000000000000000000000000000001" };

    private static final String[] UNSTORABLE = { "\\u0000", "a\\u0000b", "\\ud800", "x\\udc00", "\\udbff\\u0041" };

    /** Raw bytes placed inside a JSON string: invalid or overlong UTF-8 (an overlong NUL among them). */
    private static final byte[][] BAD_UTF8 = { { (byte) 0xC3, 0x28 }, { (byte) 0xFF }, { (byte) 0xED, (byte) 0xA0,
            (byte) 0x80 }, { (byte) 0xC0, (byte) 0x80 }, { (byte) 0xF4, (byte) 0x90, (byte) 0x80, (byte) 0x80 },
            { (byte) 0xE2, (byte) 0x82 } };

    private static final String[] HOSTILE_NAMES = { "..", "../x", "%2e%2e", ".", "%00", "a%00b", "a%2Fb", "a%5Cb",
            "x".repeat(300), "%C3%28", "a%20b", "%E2%80%AE", "-", "_x", "%F0%9F%99%82", "%25", "%27%3B%20DROP%20TABLE%20x%3B--",
            "UPPER", "9".repeat(30), "-1", "00000000-0000-0000-0000-000000000000", "%FF" };

    private static final String[] CONTENT_TYPES = { "text/plain", "application/xml", "multipart/form-data; boundary=x",
            "application/x-www-form-urlencoded", "", "garbage", "application/json; charset=nope",
            "application/json; charset=ISO-8859-1", "application/octet-stream" };

    private static final String[] EXCLUDING_ACCEPT = { "application/xml", "text/html", "garbage;;", "application/json;q=0",
            "image/*" };

    private static final String[] ALLOWING_ACCEPT = { "*/*", "application/*", "text/html, */*;q=0.1",
            "application/json, text/plain" };

    private final Random random;
    private final List<Case> cases = new ArrayList<>();

    FuzzCorpus(long seed) {
        this.random = new Random(seed);
    }

    List<Case> generate(List<Route> routes) {
        for (Route route : routes) {
            names(route);
            accept(route);
            if (route.body() != null) {
                malformed(route);
                fields(route);
                contentTypes(route);
            }
        }
        return cases;
    }

    private void names(Route route) {
        if (!route.path().contains("{name}")) {
            return;
        }
        for (String name : pick(HOSTILE_NAMES, 6)) {
            add("name " + name, route, route.path().replace("{name}", name), Map.of(), body(route), false);
        }
    }

    private void accept(Route route) {
        String path = validPath(route);
        for (String accept : pick(EXCLUDING_ACCEPT, 2)) {
            // the 406 for an Accept excluding JSON is the OJS binding's rule, for its routes under /ojs
            add("accept " + accept, route, path, Map.of("Accept", accept), body(route), route.path().startsWith("/ojs"));
        }
        if (!route.method().equals("DELETE")) {
            String accept = ALLOWING_ACCEPT[random.nextInt(ALLOWING_ACCEPT.length)];
            add("accept " + accept, route, path, Map.of("Accept", accept), body(route), false);
        }
    }

    private void malformed(Route route) {
        for (String text : pick(MALFORMED, 5)) {
            add("malformed " + text, route, validPath(route), Map.of(), utf8(text), false);
        }
        byte[] noise = new byte[1 + random.nextInt(64)];
        random.nextBytes(noise);
        add("random bytes", route, validPath(route), Map.of(), noise, false);
        add("deep 100000", route, validPath(route), Map.of(), utf8("[".repeat(100_000)), false);
    }

    /** Variants that change one field of the valid body, for each field down to two levels. */
    private void fields(Route route) {
        JsonNode base = OjsClient.mapper().readTree(route.body());
        List<String[]> paths = new ArrayList<>();
        collect(base, "", paths);
        for (String[] path : paths) {
            List<String> values = new ArrayList<>();
            values.addAll(pick(WRONG_TYPES, 2));
            values.addAll(pick(NUMBERS, 1));
            values.add(pick(new String[] { nested(129), nested(600), nested(1200) }, 1).get(0));
            values.add(pick(new String[] { "\"" + "x".repeat(100_000) + "\"", "[" + "1,".repeat(30_000) + "1]",
                    hugeObject() }, 1).get(0));
            String text = pick(UNSTORABLE, 1).get(0);
            values.add(random.nextBoolean() ? "\"" + text + "\"" : "{\"" + text + "\":1}");
            for (String value : values) {
                add("field " + String.join(".", path) + " = " + abbreviate(value), route, validPath(route), Map.of(),
                        utf8(replace(route.body(), path, value)), false);
            }
            byte[] bad = BAD_UTF8[random.nextInt(BAD_UTF8.length)];
            String withMarker = replace(route.body(), path, "\"FUZZMARK\"");
            int at = withMarker.indexOf("FUZZMARK");
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            out.writeBytes(utf8(withMarker.substring(0, at)));
            out.writeBytes(bad);
            out.writeBytes(utf8(withMarker.substring(at + "FUZZMARK".length())));
            add("field " + String.join(".", path) + " = invalid UTF-8", route, validPath(route), Map.of(),
                    out.toByteArray(), false);
        }
    }

    private void contentTypes(Route route) {
        for (String type : pick(CONTENT_TYPES, 3)) {
            add("content type " + type, route, validPath(route), type.isEmpty() ? Map.of("Content-Type", "")
                    : Map.of("Content-Type", type), body(route), false);
        }
    }

    private static void collect(JsonNode node, String prefix, List<String[]> paths) {
        if (!node.isObject()) {
            return;
        }
        for (Iterator<Map.Entry<String, JsonNode>> it = node.properties().iterator(); it.hasNext();) {
            Map.Entry<String, JsonNode> field = it.next();
            String[] path = prefix.isEmpty() ? new String[] { field.getKey() } : new String[] { prefix, field.getKey() };
            paths.add(path);
            if (prefix.isEmpty()) {
                collect(field.getValue(), field.getKey(), paths);
            }
        }
    }

    private static String replace(String body, String[] path, String value) {
        ObjectNode root = (ObjectNode) OjsClient.mapper().readTree(body);
        ObjectNode parent = path.length == 1 ? root : (ObjectNode) root.get(path[0]);
        String marker = "@@FUZZ@@";
        parent.put(path[path.length - 1], marker);
        return root.toString().replace("\"" + marker + "\"", value);
    }

    private String hugeObject() {
        ObjectNode node = JsonNodeFactory.instance.objectNode();
        for (int i = 0; i < 10_000; i++) {
            node.put("k" + i, i);
        }
        return node.toString();
    }

    private static String nested(int depth) {
        return "[".repeat(depth) + "1" + "]".repeat(depth);
    }

    private static String validPath(Route route) {
        return route.path().replace("{name}", "fz-name");
    }

    private static byte[] body(Route route) {
        return route.body() == null ? null : utf8(route.body());
    }

    private void add(String label, Route route, String path, Map<String, String> headers, byte[] body,
            boolean mustBe406) {
        Map<String, String> all = new LinkedHashMap<>();
        if (body != null) {
            all.put("Content-Type", "application/json");
        }
        all.putAll(headers);
        if ("".equals(all.get("Content-Type"))) {
            all.remove("Content-Type");
        }
        cases.add(new Case(route.method() + " " + route.path() + ": " + label, route.method(), path, all, body, mustBe406));
    }

    private List<String> pick(String[] values, int count) {
        List<String> pool = new ArrayList<>(List.of(values));
        List<String> picked = new ArrayList<>();
        for (int i = 0; i < count && !pool.isEmpty(); i++) {
            picked.add(pool.remove(random.nextInt(pool.size())));
        }
        return picked;
    }

    private static String abbreviate(String value) {
        return value.length() > 40 ? value.substring(0, 40) + "...(" + value.length() + ")" : value;
    }

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
