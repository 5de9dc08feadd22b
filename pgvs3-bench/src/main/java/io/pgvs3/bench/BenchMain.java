package io.pgvs3.bench;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import io.pgvs3.bench.scenario.BaselineScenario;
import io.pgvs3.bench.scenario.BloatScenario;
import io.pgvs3.bench.scenario.ClustersScenario;
import io.pgvs3.bench.scenario.JobsScenario;
import io.pgvs3.bench.scenario.PeersScenario;
import io.pgvs3.bench.scenario.StreamAppendScenario;
import io.pgvs3.bench.scenario.StreamConsumeScenario;
import io.pgvs3.bench.scenario.StreamLatencyScenario;
import io.pgvs3.bench.scenario.StreamLongPollScenario;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs every scenario {@code runs} times against one PostgreSQL and writes {@code BENCHMARKS.md} and the raw CSV.
 * Started by {@code bench/run}.
 */
public final class BenchMain {

    private static final Logger log = LoggerFactory.getLogger(BenchMain.class);

    private BenchMain() {
    }

    static List<Scenario> scenarios() {
        return List.of(new BaselineScenario(), new StreamAppendScenario(), new StreamConsumeScenario(),
                new StreamLatencyScenario(), new StreamLongPollScenario(), new JobsScenario(), new PeersScenario(),
                new BloatScenario(), new ClustersScenario());
    }

    public static void main(String[] args) throws Exception {
        BenchOptions options;
        try {
            options = BenchOptions.parse(args);
        }
        catch (IllegalArgumentException ex) {
            System.err.println(ex.getMessage());
            System.exit(2);
            return;
        }
        List<Scenario> scenarios = scenarios().stream().filter(scenario -> options.includes(scenario.id())).toList();
        if (scenarios.isEmpty()) {
            System.err.println("No scenario matches --only " + options.only() + "; ids: "
                    + scenarios().stream().map(Scenario::id).toList());
            System.exit(2);
        }
        Instant started = Instant.now();
        String loadAtStart = Machine.loadAverage();
        Results results = new Results();
        try (BenchPostgres postgres = BenchPostgres.start(options.jdbcUrl())) {
            Runtime.getRuntime().addShutdownHook(new Thread(postgres::close, "bench-postgres-stop"));
            log.info("Benchmarking on {} ({} runs of {})", postgres.describe(), options.runs(),
                    scenarios.stream().map(Scenario::id).toList());
            Map<String, String> settings = postgres.settings();
            String version = postgres.version();
            for (int run = 1; run <= options.runs(); run++) {
                for (Scenario scenario : scenarios) {
                    log.info("run {}/{}: {}", run, options.runs(), scenario.title());
                    postgres.resetStatements();
                    scenario.run(new BenchContext(options, postgres, results, scenario, run));
                }
            }
            Duration took = Duration.between(started, Instant.now());
            ReportWriter writer = new ReportWriter(options, results);
            writer.writeCsv();
            Map<String, String> machine = new java.util.LinkedHashMap<>(Machine.describe());
            machine.put("Load average (1/5/15 min) at start, at end", loadAtStart + ", " + Machine.loadAverage());
            writer.writeMarkdown(scenarios, Targets.all(), machine, postgres, settings, version, started, took);
            log.info("Wrote {} and {} after {}", options.reportFile(), options.outputDirectory(), took);
        }
        System.exit(0);
    }
}
