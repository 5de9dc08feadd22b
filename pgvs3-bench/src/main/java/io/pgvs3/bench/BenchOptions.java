package io.pgvs3.bench;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * How one benchmark run is shaped. The full run is what {@code BENCHMARKS.md} holds; {@code --smoke} runs every
 * scenario once for a fraction of a second so that CI notices when the harness stops working.
 *
 * @param smoke          every scenario briefly, one repetition, report under the smoke output directory
 * @param runs           repetitions of the whole scenario list; the report shows medians over them
 * @param warmup         load applied before a throughput window starts counting
 * @param measure        length of a throughput window
 * @param outputDirectory where the raw CSV files go
 * @param reportFile     the Markdown report
 * @param jdbcUrl        an existing PostgreSQL to use instead of the embedded one (databases are created on it)
 * @param only           scenario ids to run; empty means all
 * @param bloatEvents    events pushed through the streams in the bloat scenario
 * @param bloatJobs      jobs pushed through the job queues in the bloat scenario
 * @param peerBacklog    no-op jobs each peer drains in the peers scenario
 */
public record BenchOptions(boolean smoke, int runs, Duration warmup, Duration measure, Path outputDirectory,
        Path reportFile, String jdbcUrl, Set<String> only, int bloatEvents, int bloatJobs, int peerBacklog) {

    public static BenchOptions parse(String... args) {
        boolean smoke = Arrays.asList(args).contains("--smoke");
        int runs = smoke ? 1 : 3;
        Duration warmup = smoke ? Duration.ofMillis(100) : Duration.ofSeconds(1);
        Duration measure = smoke ? Duration.ofMillis(400) : Duration.ofSeconds(3);
        Path output = smoke ? Path.of("pgvs3-bench", "target", "bench-smoke") : Path.of("bench", "results");
        Path report = null;
        String jdbcUrl = System.getenv("PGVS3_BENCH_JDBC_URL");
        Set<String> only = new LinkedHashSet<>();
        int bloatEvents = smoke ? 5_000 : 1_000_000;
        int bloatJobs = smoke ? 2_000 : 200_000;
        int peerBacklog = smoke ? 1_000 : 100_000;
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            switch (arg) {
                case "--smoke" -> { }
                case "--runs" -> runs = positive(arg, value(args, ++i));
                case "--warmup" -> warmup = duration(value(args, ++i));
                case "--measure" -> measure = duration(value(args, ++i));
                case "--out" -> output = Path.of(value(args, ++i));
                case "--report" -> report = Path.of(value(args, ++i));
                case "--jdbc-url" -> jdbcUrl = value(args, ++i);
                case "--only" -> only.addAll(Arrays.asList(value(args, ++i).split(",")));
                case "--bloat-events" -> bloatEvents = positive(arg, value(args, ++i));
                case "--bloat-jobs" -> bloatJobs = positive(arg, value(args, ++i));
                case "--peer-backlog" -> peerBacklog = positive(arg, value(args, ++i));
                default -> throw new IllegalArgumentException("Unknown option " + arg + System.lineSeparator() + usage());
            }
        }
        if (report == null) {
            report = smoke ? output.resolve("BENCHMARKS.md") : Path.of("BENCHMARKS.md");
        }
        return new BenchOptions(smoke, runs, warmup, measure, output, report,
                jdbcUrl == null || jdbcUrl.isBlank() ? null : jdbcUrl, Set.copyOf(only), bloatEvents, bloatJobs,
                peerBacklog);
    }

    public boolean includes(String scenarioId) {
        return only.isEmpty() || only.contains(scenarioId);
    }

    /** The longest a drain of a backlog is timed; a slower drain reports what it did within it. */
    public Duration drainLimit() {
        return smoke ? Duration.ofSeconds(5) : Duration.ofSeconds(15);
    }

    /** The longest a backlog is filled before it is drained; a slower fill drains what it made. */
    public Duration fillLimit() {
        return smoke ? Duration.ofSeconds(2) : Duration.ofSeconds(8);
    }

    /** Scales a count used by full runs down for smoke runs. */
    public int scaled(int full, int smokeValue) {
        return smoke ? smokeValue : full;
    }

    public static String usage() {
        return """
                usage: bench/run [--smoke] [--runs N] [--warmup 1s] [--measure 4s] [--out DIR] [--report FILE]
                                 [--jdbc-url URL] [--only id,id] [--bloat-events N] [--bloat-jobs N]
                                 [--peer-backlog N]
                  PGVS3_BENCH_JDBC_URL=jdbc:postgresql://host:5432/db?user=... uses that server instead of an
                  embedded PostgreSQL 17""";
    }

    private static String value(String[] args, int index) {
        if (index >= args.length) {
            throw new IllegalArgumentException("Missing value for " + args[index - 1]);
        }
        return args[index];
    }

    private static int positive(String option, String value) {
        int parsed = Integer.parseInt(value);
        if (parsed < 1) {
            throw new IllegalArgumentException(option + " must be at least 1");
        }
        return parsed;
    }

    static Duration duration(String value) {
        String text = value.trim().toLowerCase();
        if (text.endsWith("ms")) {
            return Duration.ofMillis(Long.parseLong(text.substring(0, text.length() - 2)));
        }
        if (text.endsWith("s")) {
            return Duration.ofMillis(Math.round(Double.parseDouble(text.substring(0, text.length() - 1)) * 1000));
        }
        if (text.endsWith("m")) {
            return Duration.ofMinutes(Long.parseLong(text.substring(0, text.length() - 1)));
        }
        return Duration.parse(value);
    }
}
