package io.pgvs3.bench.scenario;

import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Map;

import io.pgvs3.bench.BenchContext;
import io.pgvs3.bench.BenchDatabase;
import io.pgvs3.bench.BenchOptions;
import io.pgvs3.bench.Latency;
import io.pgvs3.bench.Payloads;
import io.pgvs3.bench.Scenario;
import io.pgvs3.bench.pgvs3.BenchApplication;
import io.pgvs3.bench.pgvs3.LatencyProbe;
import io.pgvs3.bench.pgvs3.LatencyStreamListener;
import io.pgvs3.bench.pgvs3.Paced;
import io.pgvs3.core.stream.AppendResult;
import io.pgvs3.spring.template.OutgoingMessage;
import io.pgvs3.spring.template.StreamTemplate;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Scenario 4: how long an appended event takes to reach a {@code @StreamListener} woken by NOTIFY.
 */
public final class StreamLatencyScenario implements Scenario {

    public static final int RATE = 1_000;

    /** The high rate: appends of {@link #HIGH_RATE_BATCH} events, {@code HIGH_RATE / HIGH_RATE_BATCH} per second. */
    public static final int HIGH_RATE = 10_000;

    public static final int HIGH_RATE_BATCH = 10;

    /** The listener's batch ceiling: the most events one receive hands it. */
    public static final int MAX_BATCH = 1_000;

    public static final String P50 = "streams.latency.p50";
    public static final String P99 = "streams.latency.p99";
    public static final String MAX = "streams.latency.max";
    public static final String HIGH_P50 = "streams.latency.rate10000.p50";
    public static final String HIGH_P99 = "streams.latency.rate10000.p99";
    public static final String HIGH_MAX = "streams.latency.rate10000.max";

    @Override
    public String id() {
        return "streams-latency";
    }

    @Override
    public String title() {
        return "4. End-to-end stream latency";
    }

    @Override
    public String description(BenchOptions options) {
        return """
                A Spring Boot application with one `@StreamListener` (one member, default settings: woken by \
                `LISTEN`/`NOTIFY`, `pgvs3.listener.max-batch-size = %d`). Producers append one \
                event per `StreamTemplate.append` (its own transaction) on an open-loop schedule of %,d events/s \
                for %d s. Latency runs from the moment `append` returned (the commit is acknowledged) to the \
                moment the listener method is entered with that event; HdrHistogram percentiles. At %,d events/s \
                the producers append %d events per `StreamTemplate.appendAll` (one transaction), %,d appends/s: one \
                commit per event would be more than the commit rate of a 2-core machine; every event's latency runs \
                from the return of the append that carried it."""
                .formatted(MAX_BATCH, RATE, latencySeconds(options), HIGH_RATE, HIGH_RATE_BATCH,
                        HIGH_RATE / HIGH_RATE_BATCH);
    }

    static int latencySeconds(BenchOptions options) {
        return options.smoke() ? 1 : 10;
    }

    @Override
    public void run(BenchContext context) throws Exception {
        measure(context, RATE, 1, P50, P99, MAX);
        measure(context, HIGH_RATE, HIGH_RATE_BATCH, HIGH_P50, HIGH_P99, HIGH_MAX);
    }

    private void measure(BenchContext context, int rate, int batch, String p50, String p99, String max)
            throws Exception {
        LatencyProbe probe = new LatencyProbe();
        try (BenchDatabase database = context.newDatabase();
                BenchApplication.Running app = BenchApplication.start(database, true, false,
                        Map.of("pgvs3.listener.max-batch-size", MAX_BATCH),
                        new LatencyStreamListener(probe))) {
            StreamTemplate template = app.bean(StreamTemplate.class);
            JsonNode payload = new JsonMapper().readTree(Payloads.json());
            template.append(LatencyStreamListener.QUEUE, Payloads.TYPE, payload);
            probe.awaitAllHandled(Duration.ofSeconds(30));
            Thread.sleep(500);
            probe.reset();
            LatencyProbe measured = probe;
            List<OutgoingMessage> messages = Collections.nCopies(batch, OutgoingMessage.of(Payloads.TYPE, payload));
            long appends = Paced.run(rate / batch, Duration.ofSeconds(latencySeconds(context.options())), 4, index -> {
                if (batch == 1) {
                    AppendResult result = template.append(LatencyStreamListener.QUEUE, Payloads.TYPE, payload);
                    measured.committed(result.id(), System.nanoTime());
                    return;
                }
                List<AppendResult> results = template.appendAll(LatencyStreamListener.QUEUE, messages);
                long now = System.nanoTime();
                for (AppendResult result : results) {
                    measured.committed(result.id(), now);
                }
            });
            measured.awaitAllHandled(Duration.ofSeconds(60));
            Latency latency = measured.latency();
            String settings = "rate=" + rate + "/s events=" + appends * batch
                    + (batch == 1 ? "" : " events/append=" + batch) + " " + Sync.setting(true);
            String at = rate == RATE ? "" : " at " + String.format("%,d", rate) + " events/s";
            context.record(p50, "append commit → @StreamListener entry" + at + ", p50", "ms",
                    latency.percentileMillis(50), settings);
            context.record(p99, "append commit → @StreamListener entry" + at + ", p99", "ms",
                    latency.percentileMillis(99), settings);
            context.record(max, "append commit → @StreamListener entry" + at + ", max", "ms", latency.maxMillis(),
                    settings);
            context.profile(database, rate == RATE ? "latency" : "latency " + rate + "/s");
        }
    }
}
