package io.pgvs3.bench;

/**
 * One number measured in one repetition.
 *
 * @param run      the repetition, from 1
 * @param scenario the scenario id
 * @param metric   a stable id, the same in every repetition (targets and ratios refer to it)
 * @param label    what was measured, for the report
 * @param unit     the unit of {@code value}
 * @param value    the measured number
 * @param settings the parameters of the measurement (batch size, clients, synchronous_commit, …)
 */
public record Sample(int run, String scenario, String metric, String label, String unit, double value,
        String settings) {
}
