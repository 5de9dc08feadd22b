package io.pgvs3.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.stream.Collectors;

/**
 * Writes the Markdown report and the raw CSV files of a run.
 */
final class ReportWriter {

    private final BenchOptions options;
    private final Results results;

    ReportWriter(BenchOptions options, Results results) {
        this.options = options;
        this.results = results;
    }

    void writeCsv() throws IOException {
        Files.createDirectories(options.outputDirectory());
        List<String> lines = new ArrayList<>();
        lines.add("run,scenario,metric,label,unit,value,settings");
        for (Sample sample : results.samples()) {
            lines.add(String.join(",", String.valueOf(sample.run()), csv(sample.scenario()), csv(sample.metric()),
                    csv(sample.label()), csv(sample.unit()), String.format("%.3f", sample.value()),
                    csv(sample.settings())));
        }
        Files.write(options.outputDirectory().resolve("samples.csv"), lines);
        List<String> statements = new ArrayList<>();
        statements.add("part,run,calls,total_ms,mean_ms,rows,toplevel,query");
        for (Results.StatementProfile profile : results.profiles()) {
            for (BenchPostgres.StatementStat stat : profile.statements()) {
                statements.add(String.join(",", csv(profile.scenario()), String.valueOf(profile.run()),
                        String.valueOf(stat.calls()), String.format("%.1f", stat.totalMillis()),
                        String.format("%.4f", stat.totalMillis() / Math.max(1, stat.calls())),
                        String.valueOf(stat.rows()), String.valueOf(stat.topLevel()), csv(oneLine(stat.query()))));
            }
        }
        Files.write(options.outputDirectory().resolve("statements.csv"), statements);
    }

    void writeMarkdown(List<Scenario> scenarios, List<Target> targets, Map<String, String> machine,
            BenchPostgres postgres, Map<String, String> settings, String version, Instant started, Duration took)
            throws IOException {
        StringBuilder md = new StringBuilder();
        md.append("# pgvs3 benchmarks\n\n");
        md.append("Produced by `bench/run").append(options.smoke() ? " --smoke" : "").append("` on ")
                .append(DateTimeFormatter.ISO_LOCAL_DATE_TIME.format(started.atOffset(ZoneOffset.UTC).withNano(0)))
                .append(" UTC in ").append(minutes(took)).append(". Every number is the **median of ")
                .append(options.runs()).append(options.runs() == 1 ? " run" : " runs")
                .append("** (the whole scenario list is repeated; all runs are listed); every ratio is computed ")
                .append("within one run, numerator and denominator measured minutes apart on the same server, ")
                .append("and the median of those ratios is shown. Raw numbers: `")
                .append(relative(options.outputDirectory().resolve("samples.csv"))).append("`; the statements that ")
                .append("took the server's time: `").append(relative(options.outputDirectory().resolve("statements.csv")))
                .append("`.\n\n");
        if (options.smoke()) {
            md.append("> **Smoke run**: every scenario ran for a fraction of a second to prove the harness works; ")
                    .append("these numbers say nothing about performance.\n\n");
        }

        md.append("## Machine and settings\n\n| | |\n|---|---|\n");
        machine.forEach((key, value) -> md.append("| ").append(key).append(" | ").append(cell(value)).append(" |\n"));
        md.append("| PostgreSQL | ").append(cell(version)).append(" |\n");
        md.append("| Server | ").append(postgres.embedded() ? "embedded PostgreSQL (`io.pgvs3.embedded.EmbeddedPostgres`) "
                + "on the same machine, started by the harness with durable defaults" : "an existing server named by "
                + "`PGVS3_BENCH_JDBC_URL`").append("; client, pgvs3 and PostgreSQL share the same cores |\n");
        md.append("| Payload | ").append(Payloads.SIZE_BYTES).append("-byte JSON object per event or job, type `")
                .append(Payloads.TYPE).append("` |\n");
        md.append("| Load | closed loop, ").append(options.warmup().toMillis()).append(" ms warm-up then ")
                .append(options.measure().toMillis()).append(" ms measured per throughput number; drains and ")
                .append("latency runs as described per scenario |\n");
        md.append("| `synchronous_commit` | server default `on`; scenarios marked `synchronous_commit=off` set it per ")
                .append("session |\n\n");
        md.append("PostgreSQL settings (from `pg_settings`):\n\n| Setting | Value |\n|---|---|\n");
        settings.forEach((key, value) -> md.append("| `").append(key).append("` | ").append(cell(value)).append(" |\n"));
        md.append('\n');

        md.append("## Targets\n\n| Target | Goal | Measured (median) | Outcome |\n|---|---|---|---|\n");
        for (Target target : targets) {
            OptionalDouble value = target.measured(results);
            md.append("| ").append(target.name()).append(" | ").append(target.goal()).append(" | ")
                    .append(value.isPresent() ? target.formatted(value.getAsDouble()) : "–")
                    .append(" | ").append(target.outcome(results)).append(" |\n");
        }
        md.append('\n');

        Map<String, Sample> metrics = results.metrics();
        for (Scenario scenario : scenarios) {
            md.append("## ").append(scenario.title()).append("\n\n").append(scenario.description(options)).append("\n\n");
            List<Sample> own = metrics.values().stream().filter(sample -> sample.scenario().equals(scenario.id())).toList();
            if (own.isEmpty()) {
                md.append("Not measured in this run.\n\n");
                continue;
            }
            md.append("| Measurement | Settings | Median | Unit | All runs |\n|---|---|---:|---|---|\n");
            for (Sample sample : own) {
                List<Double> values = results.values(sample.metric());
                md.append("| ").append(cell(sample.label())).append(" | ").append(cell(sample.settings())).append(" | ")
                        .append(BenchContext.format(results.median(sample.metric()).orElse(Double.NaN))).append(" | ")
                        .append(sample.unit()).append(" | ")
                        .append(values.stream().map(BenchContext::format).collect(Collectors.joining(" · ")))
                        .append(" |\n");
            }
            md.append('\n');
            List<Comparison> comparisons = scenario.comparisons().stream()
                    .filter(comparison -> !results.ratios(comparison.numerator(), comparison.denominator()).isEmpty())
                    .toList();
            if (!comparisons.isEmpty()) {
                md.append("| Ratio (same run) | Median | All runs |\n|---|---:|---|\n");
                for (Comparison comparison : comparisons) {
                    List<Double> ratios = results.ratios(comparison.numerator(), comparison.denominator());
                    md.append("| ").append(cell(comparison.label())).append(" | ")
                            .append(BenchContext.formatRatio(Results.median(ratios).getAsDouble())).append('×').append(" | ")
                            .append(ratios.stream().map(BenchContext::formatRatio)
                                    .collect(Collectors.joining(" · ")))
                            .append(" |\n");
                }
                md.append('\n');
            }
        }

        List<Results.StatementProfile> profiles = results.profiles().stream()
                .filter(profile -> profile.run() == options.runs()).toList();
        if (!profiles.isEmpty()) {
            md.append("## Where the server time goes\n\n")
                    .append("`pg_stat_statements` (`track = all`, so statements inside PL/pgSQL functions count too) ")
                    .append("for the last run, reset before each part; the three statements with the most total ")
                    .append("execution time. Full lists in `")
                    .append(relative(options.outputDirectory().resolve("statements.csv"))).append("`.\n\n");
            md.append("| Part | Statement | Calls | Total ms | Mean ms | Rows |\n|---|---|---:|---:|---:|---:|\n");
            for (Results.StatementProfile profile : profiles) {
                profile.statements().stream().limit(3).forEach(stat -> md.append("| ").append(cell(profile.scenario()))
                        .append(" | `").append(cell(abbreviate(oneLine(stat.query()), 140))).append("` | ")
                        .append(stat.calls()).append(" | ").append(String.format("%.0f", stat.totalMillis()))
                        .append(" | ").append(String.format("%.3f", stat.totalMillis() / Math.max(1, stat.calls())))
                        .append(" | ").append(stat.rows()).append(" |\n"));
            }
            md.append('\n');
        }
        Path report = options.reportFile();
        if (report.getParent() != null) {
            Files.createDirectories(report.getParent());
        }
        Files.writeString(report, md.toString());
    }

    private static String minutes(Duration took) {
        return String.format("%d min %02d s", took.toMinutes(), took.toSecondsPart());
    }

    private static String relative(Path path) {
        return path.toString().replace('\\', '/');
    }

    private static String cell(String text) {
        return text.replace("|", "\\|").replace("\n", " ");
    }

    private static String oneLine(String text) {
        return text.replaceAll("\\s+", " ").trim();
    }

    private static String abbreviate(String text, int max) {
        return text.length() <= max ? text : text.substring(0, max - 1) + "…";
    }

    private static String csv(String text) {
        return "\"" + text.replace("\"", "\"\"") + "\"";
    }
}
