package io.pgvs3.bench.peer;

import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.atomic.LongAdder;

import io.pgvs3.bench.Latency;
import io.pgvs3.bench.Load;
import io.pgvs3.bench.pgvs3.LatencyProbe;
import io.pgvs3.bench.pgvs3.Paced;

/** What the Java peers measure the same way as pgvs3's own figures. */
final class Drains {

    @FunctionalInterface
    interface Batch {
        int call() throws Exception;
    }

    @FunctionalInterface
    interface Enqueue {
        void one(String key) throws Exception;
    }

    private Drains() {
    }

    /**
     * Items per second of one caller, closed loop: calls for the warm-up, then whole calls for at least the measured
     * window and at least {@code minCalls} calls, timed from the first measured call's start to the last one's end.
     */
    static double batchRate(PeerWorkload workload, Batch batch) throws Exception {
        long warmEnd = System.nanoTime() + workload.warmup().toNanos();
        do {
            batch.call();
        }
        while (System.nanoTime() < warmEnd);
        long start = System.nanoTime();
        long items = 0;
        int calls = 0;
        long now;
        do {
            items += batch.call();
            calls++;
            now = System.nanoTime();
        }
        while (now - start < workload.measure().toNanos() || calls < workload.minCalls());
        return items / ((now - start) / 1e9);
    }

    /** Waits until {@code total} jobs were handled or {@code limit} passed since {@code start}. */
    static Load.Drained await(LongAdder handled, long total, long start, Duration limit) throws InterruptedException {
        long deadline = start + limit.toNanos();
        while (handled.sum() < total && System.nanoTime() < deadline) {
            Thread.sleep(1);
        }
        return new Load.Drained(Math.min(total, handled.sum()), total, (System.nanoTime() - start) / 1e9);
    }

    /** One warm-up job, then {@code workload.latencyRate()} jobs/s open loop, as pgvs3's latency run does. */
    static Peer.LatencyFigures latency(LatencyProbe probe, PeerWorkload workload, Enqueue enqueue) throws Exception {
        enqueue.one("warm");
        probe.committed("warm", System.nanoTime());
        probe.awaitAllHandled(Duration.ofSeconds(60));
        probe.reset();
        long sent = Paced.run(workload.latencyRate(), workload.latencyDuration(), 2, index -> {
            String key = "job-" + index;
            enqueue.one(key);
            probe.committed(key, System.nanoTime());
        });
        probe.awaitAllHandled(Duration.ofSeconds(120));
        Latency latency = probe.latency();
        return new Peer.LatencyFigures(latency.percentileMillis(50), latency.percentileMillis(99), latency.maxMillis(),
                sent);
    }

    /** The version of a library on the class path, from its Maven metadata. */
    static String version(String groupId, String artifactId, Class<?> type) {
        String manifest = type.getPackage().getImplementationVersion();
        if (manifest != null) {
            return manifest;
        }
        String resource = "/META-INF/maven/" + groupId + "/" + artifactId + "/pom.properties";
        try (InputStream in = Drains.class.getResourceAsStream(resource)) {
            if (in == null) {
                return "(version unknown)";
            }
            Properties properties = new Properties();
            properties.load(in);
            return properties.getProperty("version", "(version unknown)");
        }
        catch (IOException ex) {
            return "(version unknown)";
        }
    }
}
