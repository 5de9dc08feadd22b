package io.pgvs3.bench.scenario;

import java.time.Duration;
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
import io.pgvs3.spring.core.StreamTemplate;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Scenario 4: how long an appended event takes to reach a {@code @StreamListener} woken by NOTIFY.
 */
public final class StreamLatencyScenario implements Scenario {

    public static final int RATE = 1_000;

    /** The listener's batch ceiling: the most events one receive hands it. */
    public static final int MAX_BATCH = 1_000;

    public static final String P50 = "streams.latency.p50";
    public static final String P99 = "streams.latency.p99";
    public static final String MAX = "streams.latency.max";

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
                moment the listener method is entered with that event; HdrHistogram percentiles."""
                .formatted(MAX_BATCH, RATE, latencySeconds(options));
    }

    static int latencySeconds(BenchOptions options) {
        return options.smoke() ? 1 : 10;
    }

    @Override
    public void run(BenchContext context) throws Exception {
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
            long sent = Paced.run(RATE, Duration.ofSeconds(latencySeconds(context.options())), 4, index -> {
                AppendResult result = template.append(LatencyStreamListener.QUEUE, Payloads.TYPE, payload);
                measured.committed(result.id(), System.nanoTime());
            });
            measured.awaitAllHandled(Duration.ofSeconds(60));
            Latency latency = measured.latency();
            String settings = "rate=" + RATE + "/s events=" + sent + " " + Sync.setting(true);
            context.record(P50, "append commit → @StreamListener entry, p50", "ms", latency.percentileMillis(50), settings);
            context.record(P99, "append commit → @StreamListener entry, p99", "ms", latency.percentileMillis(99), settings);
            context.record(MAX, "append commit → @StreamListener entry, max", "ms", latency.maxMillis(), settings);
            context.profile(database, "latency");
        }
    }
}
