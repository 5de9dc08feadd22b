package io.pgvs3.bench;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Every sample of a benchmark run, with medians over repetitions and ratios taken within one repetition.
 */
public final class Results {

    private final List<Sample> samples = new CopyOnWriteArrayList<>();
    private final List<StatementProfile> profiles = new CopyOnWriteArrayList<>();

    public void add(Sample sample) {
        samples.add(sample);
    }

    public void addProfile(StatementProfile profile) {
        profiles.add(profile);
    }

    public List<Sample> samples() {
        return List.copyOf(samples);
    }

    public List<StatementProfile> profiles() {
        return List.copyOf(profiles);
    }

    /** The first sample of each metric, in the order metrics first appeared; the report is laid out by them. */
    public Map<String, Sample> metrics() {
        Map<String, Sample> metrics = new LinkedHashMap<>();
        samples.forEach(sample -> metrics.putIfAbsent(sample.metric(), sample));
        return metrics;
    }

    public List<Double> values(String metric) {
        return samples.stream().filter(sample -> sample.metric().equals(metric)).map(Sample::value).toList();
    }

    public OptionalDouble median(String metric) {
        return median(values(metric));
    }

    public Optional<Sample> first(String metric) {
        return samples.stream().filter(sample -> sample.metric().equals(metric)).findFirst();
    }

    /** {@code numerator / denominator} computed within each repetition that measured both. */
    public List<Double> ratios(String numerator, String denominator) {
        Map<Integer, Double> denominators = new LinkedHashMap<>();
        samples.stream().filter(sample -> sample.metric().equals(denominator))
                .forEach(sample -> denominators.put(sample.run(), sample.value()));
        List<Double> ratios = new ArrayList<>();
        samples.stream().filter(sample -> sample.metric().equals(numerator)).forEach(sample -> {
            Double base = denominators.get(sample.run());
            if (base != null && base != 0) {
                ratios.add(sample.value() / base);
            }
        });
        return ratios;
    }

    public OptionalDouble medianRatio(String numerator, String denominator) {
        return median(ratios(numerator, denominator));
    }

    public static OptionalDouble median(List<Double> values) {
        if (values.isEmpty()) {
            return OptionalDouble.empty();
        }
        List<Double> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        int middle = sorted.size() / 2;
        return OptionalDouble.of(sorted.size() % 2 == 1 ? sorted.get(middle)
                : (sorted.get(middle - 1) + sorted.get(middle)) / 2);
    }

    /** The statements that took the most server time in one scenario, from {@code pg_stat_statements}. */
    public record StatementProfile(String scenario, int run, List<BenchPostgres.StatementStat> statements) {
    }
}
