package io.pgvs3.bench;

import java.time.Duration;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a scenario gets for one repetition: the options, the server, and the place its numbers go.
 */
public final class BenchContext {

    private static final Logger log = LoggerFactory.getLogger(BenchContext.class);

    private final BenchOptions options;
    private final BenchPostgres postgres;
    private final Results results;
    private final Scenario scenario;
    private final int run;

    BenchContext(BenchOptions options, BenchPostgres postgres, Results results, Scenario scenario, int run) {
        this.options = options;
        this.postgres = postgres;
        this.results = results;
        this.scenario = scenario;
        this.run = run;
    }

    public BenchOptions options() {
        return options;
    }

    public BenchPostgres postgres() {
        return postgres;
    }

    public int run() {
        return run;
    }

    public Duration warmup() {
        return options.warmup();
    }

    public Duration measure() {
        return options.measure();
    }

    /** A fresh database named after the scenario; the caller closes it. */
    public BenchDatabase newDatabase() {
        return postgres.newDatabase(scenario.id());
    }

    public void record(String metric, String label, String unit, double value, String settings) {
        results.add(new Sample(run, scenario.id(), metric, label, unit, value, settings));
        log.info("run {} {}: {} = {} {} ({})", run, scenario.id(), label, format(value), unit, settings);
    }

    /** Keeps the statements that took the most server time on {@code database} since the last reset. */
    public void profile(BenchDatabase database, String part) {
        var top = database.topStatements(8);
        if (!top.isEmpty()) {
            results.addProfile(new Results.StatementProfile(scenario.id() + " " + part, run, top));
        }
    }

    public void resetStatements() {
        postgres.resetStatements();
    }

    /** A ratio with two decimals, or three significant digits when it is below 0.1 (so it never shows as 0.00). */
    public static String formatRatio(double value) {
        return value != 0 && Math.abs(value) < 0.1 ? String.format("%.3g", value) : String.format("%.2f", value);
    }

    static String format(double value) {
        if (Math.abs(value) >= 100 || value == Math.rint(value)) {
            return String.format("%,.0f", value);
        }
        if (Math.abs(value) >= 10) {
            return String.format("%.1f", value);
        }
        return String.format("%.2f", value);
    }
}
