package io.pgvs3.bench;

import java.util.OptionalDouble;

/**
 * A performance goal from the benchmark issue, checked against the medians of a run.
 *
 * @param name        what is measured
 * @param goal        the goal as written in the report
 * @param metric      the metric id, or the numerator of a ratio
 * @param denominator null for a plain value, else the metric the value is divided by (in the same repetition)
 * @param bound       the limit
 * @param atLeast     true when the measured value must reach {@code bound}, false when it must stay below it
 * @param unit        the unit of the measured value
 */
public record Target(String name, String goal, String metric, String denominator, double bound, boolean atLeast,
        String unit) {

    public static Target atLeast(String name, String metric, double bound, String unit) {
        return new Target(name, "≥ " + BenchContext.format(bound) + " " + unit, metric, null, bound, true, unit);
    }

    public static Target atMost(String name, String metric, double bound, String unit) {
        return new Target(name, "≤ " + BenchContext.format(bound) + " " + unit, metric, null, bound, false, unit);
    }

    public static Target ratioAtLeast(String name, String metric, String denominator, double bound) {
        return new Target(name, "≥ " + bound + "×", metric, denominator, bound, true, "×");
    }

    public static Target ratioAtMost(String name, String metric, String denominator, double bound) {
        return new Target(name, "≤ " + bound + "×", metric, denominator, bound, false, "×");
    }

    /** The measured value as the report shows it. */
    public String formatted(double value) {
        return "×".equals(unit) ? BenchContext.formatRatio(value) + "×" : BenchContext.format(value) + " " + unit;
    }

    public OptionalDouble measured(Results results) {
        return denominator == null ? results.median(metric) : results.medianRatio(metric, denominator);
    }

    /** "met", "missed", or "not measured". */
    public String outcome(Results results) {
        OptionalDouble value = measured(results);
        if (value.isEmpty()) {
            return "not measured";
        }
        boolean met = atLeast ? value.getAsDouble() >= bound : value.getAsDouble() <= bound;
        return met ? "met" : "**missed**";
    }
}
