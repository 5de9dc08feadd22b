package io.pgvs3.bench;

/**
 * A ratio the report shows: {@code numerator / denominator}, both measured in the same repetition.
 *
 * @param label       what the ratio means
 * @param numerator   metric id
 * @param denominator metric id
 */
public record Comparison(String label, String numerator, String denominator) {
}
