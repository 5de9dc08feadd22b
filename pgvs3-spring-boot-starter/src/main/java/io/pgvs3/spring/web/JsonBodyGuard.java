package io.pgvs3.spring.web;

import java.lang.reflect.Type;
import java.math.BigDecimal;
import java.util.Map;

import io.pgvs3.core.error.ErrorCode;
import io.pgvs3.core.error.Pgvs3Exception;
import tools.jackson.databind.JsonNode;

import org.springframework.core.MethodParameter;
import org.springframework.http.HttpInputMessage;
import org.springframework.http.converter.HttpMessageConverter;
import org.springframework.web.bind.annotation.ControllerAdvice;
import org.springframework.web.servlet.mvc.method.annotation.RequestBodyAdviceAdapter;

/**
 * Refuses, before any controller work, a JSON request body that PostgreSQL could not store or that the server could
 * not write back: text with U+0000 or an unpaired surrogate (in any key or value), nesting deeper than
 * {@value #MAX_DEPTH} levels, and numbers outside PostgreSQL's {@code numeric} range. Each is a 400
 * {@code invalid_payload} naming where in the body it was found.
 */
@ControllerAdvice(basePackages = "io.pgvs3.spring.web")
public class JsonBodyGuard extends RequestBodyAdviceAdapter {

    /** Deepest nesting accepted; responses wrap a stored value in a few more levels, well within Jackson's limits. */
    public static final int MAX_DEPTH = 128;

    /** Largest decimal exponent accepted, far inside what {@code numeric} and {@code double} can hold. */
    private static final int MAX_EXPONENT = 300;

    @Override
    public boolean supports(MethodParameter parameter, Type targetType,
            Class<? extends HttpMessageConverter<?>> converterType) {
        return targetType instanceof Class<?> type && JsonNode.class.isAssignableFrom(type);
    }

    @Override
    public Object afterBodyRead(Object body, HttpInputMessage input, MethodParameter parameter, Type targetType,
            Class<? extends HttpMessageConverter<?>> converterType) {
        if (body instanceof JsonNode node) {
            check(node, "$", 0);
        }
        return body;
    }

    /** Refuses {@code body} as {@link #afterBodyRead} does, for a route that reads its body without a converter. */
    public static void checkBody(JsonNode body) {
        check(body, "$", 0);
    }

    static void check(JsonNode node, String where, int depth) {
        if (depth > MAX_DEPTH) {
            throw refuse("the request body nests deeper than " + MAX_DEPTH + " levels", where);
        }
        if (node.isString()) {
            text(node.stringValue(), where);
        }
        else if (node.isNumber()) {
            number(node, where);
        }
        else if (node.isArray()) {
            for (int i = 0; i < node.size(); i++) {
                check(node.get(i), where + "[" + i + "]", depth + 1);
            }
        }
        else if (node.isObject()) {
            for (Map.Entry<String, JsonNode> field : node.properties()) {
                text(field.getKey(), where);
                check(field.getValue(), where + "." + field.getKey(), depth + 1);
            }
        }
    }

    private static void text(String value, String where) {
        if (!StorableText.isStorable(value)) {
            throw refuse("the request body holds text PostgreSQL cannot store (U+0000 or an unpaired surrogate) at "
                    + printable(where), where);
        }
    }

    private static void number(JsonNode node, String where) {
        if (node.isFloatingPointNumber()) {
            if (node.isBigDecimal()) {
                BigDecimal value = node.decimalValue();
                int exponent = value.precision() - value.scale() - 1;
                if (value.signum() != 0 && Math.abs(exponent) > MAX_EXPONENT) {
                    throw refuse("a number in the request body is out of range at " + printable(where), where);
                }
            }
            else if (!Double.isFinite(node.doubleValue())) {
                throw refuse("a number in the request body is out of range at " + printable(where), where);
            }
        }
    }

    private static Pgvs3Exception refuse(String message, String where) {
        return new Pgvs3Exception(ErrorCode.INVALID_PAYLOAD, message, Map.of("field", printable(where)));
    }

    /** The location with anything unstorable replaced, so the error body itself can be written and logged. */
    private static String printable(String where) {
        StringBuilder out = new StringBuilder(Math.min(where.length(), 200));
        for (int i = 0; i < where.length() && out.length() < 200; i++) {
            char c = where.charAt(i);
            out.append(c == '\u0000' || Character.isSurrogate(c) || Character.isISOControl(c) ? '?' : c);
        }
        return out.toString();
    }
}
