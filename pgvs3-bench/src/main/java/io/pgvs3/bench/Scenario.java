package io.pgvs3.bench;

/**
 * One section of the report. A scenario runs once per repetition and records its numbers through the context.
 */
public interface Scenario {

    /** A short stable id, used by {@code --only} and in the CSV. */
    String id();

    String title();

    /** What the scenario does and how, for the report (Markdown). */
    String description(BenchOptions options);

    void run(BenchContext context) throws Exception;

    /** Ratios between this scenario's numbers and others, each taken within one repetition. */
    default java.util.List<Comparison> comparisons() {
        return java.util.List.of();
    }
}
