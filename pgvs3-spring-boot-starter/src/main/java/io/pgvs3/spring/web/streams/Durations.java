package io.pgvs3.spring.web.streams;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.pgvs3.core.error.Pgvs3Exception;
import tools.jackson.databind.JsonNode;

/**
 * Durations as the stream routes accept them: {@code 720h}, {@code 30m}, {@code 10s}, {@code 500ms}, {@code 7d},
 * combinations such as {@code 1h30m}, ISO-8601 ({@code PT5S}, {@code P7D}), or an integer number of milliseconds.
 */
final class Durations {

    private static final Pattern PART = Pattern.compile("(\\d+)(ms|d|h|m|s)");
    private static final Pattern SIMPLE = Pattern.compile("(\\d+(ms|d|h|m|s))+");

    private Durations() {
    }

    static Duration parse(String text, String field) {
        if (text == null || text.isBlank()) {
            throw Pgvs3Exception.invalidRequest("'" + field + "' must be a duration such as 30s, 720h or PT5S", field);
        }
        String value = text.trim();
        try {
            if (value.startsWith("P") || value.startsWith("p")) {
                return Duration.parse(value.toUpperCase(java.util.Locale.ROOT));
            }
            if (SIMPLE.matcher(value).matches()) {
                Duration total = Duration.ZERO;
                Matcher part = PART.matcher(value);
                while (part.find()) {
                    long amount = Long.parseLong(part.group(1));
                    total = total.plus(switch (part.group(2)) {
                        case "ms" -> Duration.ofMillis(amount);
                        case "s" -> Duration.ofSeconds(amount);
                        case "m" -> Duration.ofMinutes(amount);
                        case "h" -> Duration.ofHours(amount);
                        default -> Duration.ofDays(amount);
                    });
                }
                return total;
            }
        }
        catch (DateTimeParseException | ArithmeticException | NumberFormatException ex) {
            // reported below
        }
        throw Pgvs3Exception.invalidRequest("'" + field + "' is not a duration: '" + text
                + "' (use e.g. 500ms, 30s, 720h or PT5S)", field);
    }

    /** A duration field of a JSON body: a duration string or milliseconds; null when absent. */
    static Duration optional(JsonNode body, String field) {
        JsonNode node = body.get(field);
        if (node == null || node.isNull()) {
            return null;
        }
        Duration duration;
        if (node.isString()) {
            duration = parse(node.stringValue(), field);
        }
        else if (node.isIntegralNumber() && node.canConvertToLong()) {
            duration = Duration.ofMillis(node.longValue());
        }
        else {
            throw Pgvs3Exception.invalidRequest("'" + field + "' must be a duration string or milliseconds", field);
        }
        if (duration.isNegative()) {
            throw Pgvs3Exception.invalidRequest("'" + field + "' must not be negative", field);
        }
        return duration;
    }
}
