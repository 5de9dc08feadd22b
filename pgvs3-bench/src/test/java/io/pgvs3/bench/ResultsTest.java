package io.pgvs3.bench;

import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class ResultsTest {

    @Test
    void medianOfOddAndEvenCounts() {
        assertThat(Results.median(List.of(3.0, 1.0, 2.0)).getAsDouble()).isEqualTo(2.0);
        assertThat(Results.median(List.of(4.0, 1.0, 3.0, 2.0)).getAsDouble()).isEqualTo(2.5);
        assertThat(Results.median(List.of())).isEmpty();
    }

    @Test
    void ratiosPairNumbersOfTheSameRun() {
        Results results = new Results();
        results.add(sample(1, "a", 100));
        results.add(sample(1, "b", 50));
        results.add(sample(2, "a", 90));
        results.add(sample(2, "b", 30));
        results.add(sample(3, "a", 80));

        assertThat(results.ratios("a", "b")).containsExactly(2.0, 3.0);
        assertThat(results.medianRatio("a", "b").getAsDouble()).isCloseTo(2.5, within(1e-9));
        assertThat(results.median("a").getAsDouble()).isEqualTo(90.0);
    }

    @Test
    void targetsCompareTheMedianWithTheirBound() {
        Results results = new Results();
        results.add(sample(1, "append", 120_000));
        results.add(sample(1, "insert", 150_000));

        assertThat(Target.atLeast("append", "append", 100_000, "events/s").outcome(results)).isEqualTo("met");
        assertThat(Target.ratioAtLeast("ratio", "append", "insert", 0.9).outcome(results)).contains("missed");
        assertThat(Target.ratioAtMost("ratio", "append", "insert", 1.0).outcome(results)).isEqualTo("met");
        assertThat(Target.ratioAtMost("ratio", "insert", "append", 1.0).outcome(results)).contains("missed");
        assertThat(Target.ratioAtMost("ratio", "insert", "append", 1.0).goal()).isEqualTo("≤ 1.0×");
        assertThat(Target.atMost("latency", "p99", 50, "ms").outcome(results)).isEqualTo("not measured");
    }

    @Test
    void optionsForSmokeAndFullRuns() {
        BenchOptions smoke = BenchOptions.parse("--smoke", "--only", "baselines");
        assertThat(smoke.runs()).isEqualTo(1);
        assertThat(smoke.includes("baselines")).isTrue();
        assertThat(smoke.includes("jobs")).isFalse();
        assertThat(smoke.reportFile().toString()).endsWith("bench-smoke/BENCHMARKS.md");

        BenchOptions full = BenchOptions.parse("--runs", "5", "--measure", "2.5s");
        assertThat(full.runs()).isEqualTo(5);
        assertThat(full.measure().toMillis()).isEqualTo(2500);
        assertThat(full.reportFile().toString()).isEqualTo("BENCHMARKS.md");
    }

    private static Sample sample(int run, String metric, double value) {
        return new Sample(run, "s", metric, metric, "x", value, "");
    }
}
