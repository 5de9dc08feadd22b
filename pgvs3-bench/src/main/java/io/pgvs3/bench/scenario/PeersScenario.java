package io.pgvs3.bench.scenario;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;

import io.pgvs3.bench.BenchContext;
import io.pgvs3.bench.BenchDatabase;
import io.pgvs3.bench.BenchOptions;
import io.pgvs3.bench.Comparison;
import io.pgvs3.bench.Load;
import io.pgvs3.bench.Payloads;
import io.pgvs3.bench.Scenario;
import io.pgvs3.bench.peer.DbSchedulerPeer;
import io.pgvs3.bench.peer.JobRunrPeer;
import io.pgvs3.bench.peer.NodePeer;
import io.pgvs3.bench.peer.NodeRuntime;
import io.pgvs3.bench.peer.Peer;
import io.pgvs3.bench.peer.PeerWorkload;

/**
 * Scenario 6: the job queues a team would otherwise choose, measured the way {@link JobsScenario} measures pgvs3
 * and in the same repetition, on the same server, each in databases of its own: batch enqueue of 1,000, drain of a
 * no-op backlog, enqueue-to-handler latency at a fixed rate.
 */
public final class PeersScenario implements Scenario {

    public static final String DB_SCHEDULER = "db_scheduler";
    public static final String JOBRUNR = "jobrunr";
    public static final String GRAPHILE_WORKER = "graphile_worker";
    public static final String PG_BOSS = "pg_boss";
    static final List<String> JAVA_PEERS = List.of(DB_SCHEDULER, JOBRUNR);
    public static final String JAVA_BEST_DRAIN = "peers.java_best.drain";

    public static String enqueueMetric(String peer) {
        return "peers." + peer + ".enqueue.b1000";
    }

    public static String drainMetric(String peer) {
        return "peers." + peer + ".drain";
    }

    public static String p50Metric(String peer) {
        return "peers." + peer + ".latency.p50";
    }

    public static String p99Metric(String peer) {
        return "peers." + peer + ".latency.p99";
    }

    private List<Peer> peers;
    private final Map<String, String> skipped = new LinkedHashMap<>();

    /** The four peers: db-scheduler, JobRunr, graphile-worker and pg-boss. */
    public PeersScenario() {
    }

    /** Other peers, e.g. in a test. */
    public PeersScenario(List<Peer> peers) {
        this.peers = List.copyOf(peers);
    }

    @Override
    public String id() {
        return "peers";
    }

    @Override
    public String title() {
        return "6. Jobs side by side with peers";
    }

    @Override
    public String description(BenchOptions options) {
        StringBuilder text = new StringBuilder("""
                Each peer runs on the same PostgreSQL server as pgvs3, in the same repetition (right after the jobs \
                scenario), every measurement in a fresh database of its own, with the same %d-byte JSON payload. \
                *Batch enqueue*: one caller, 1,000 jobs per call, closed loop: calls for the warm-up time, then \
                whole calls for the measured window and at least %d calls (so one call moves the figure by a few \
                percent at most), timed from the first measured call's start to the last one's end. \
                *Drain*: a backlog of %,d no-op jobs enqueued 1,000 per call, then the peer's worker is started and \
                timed until every job ran (at most %d s; a slower drain reports what it did within it). *Latency*: \
                %d jobs/s for %d s open loop, one job per enqueue call, from the call returning to the handler being \
                entered. The pgvs3 figures they are compared with are the jobs scenario's \
                (`JobTemplate.enqueueAll` of 1,000, `@JobHandler` drain, enqueue → `@JobHandler` latency).
                """.formatted(Payloads.SIZE_BYTES, minCalls(options), backlog(options), options.drainLimit().toSeconds(),
                JobsScenario.LATENCY_RATE, latencyDuration(options).toSeconds()));
        text.append("\n| Peer | Settings |\n|---|---|\n");
        for (Peer peer : peers(options)) {
            String reason = skipped.get(peer.id());
            text.append("| ").append(peer.name()).append(" | ")
                    .append(reason == null ? peer.settings() : "**skipped**: " + reason).append(" |\n");
        }
        return text.toString().replace("|\n\n", "|\n").stripTrailing();
    }

    @Override
    public List<Comparison> comparisons() {
        List<Comparison> comparisons = new ArrayList<>();
        for (String peer : List.of(GRAPHILE_WORKER, PG_BOSS, DB_SCHEDULER, JOBRUNR)) {
            String name = label(peer);
            comparisons.add(new Comparison("pgvs3 `@JobHandler` drain ÷ " + name + " drain", JobsScenario.HANDLER_DRAIN,
                    drainMetric(peer)));
            comparisons.add(new Comparison("pgvs3 `enqueueAll` of 1,000 ÷ " + name + " batch enqueue",
                    JobsScenario.enqueueBatchMetric(true), enqueueMetric(peer)));
            comparisons.add(new Comparison("pgvs3 enqueue → handler p50 ÷ " + name + " p50", JobsScenario.LATENCY_P50,
                    p50Metric(peer)));
        }
        comparisons.add(new Comparison("pgvs3 `@JobHandler` drain ÷ best Java peer drain", JobsScenario.HANDLER_DRAIN,
                JAVA_BEST_DRAIN));
        return comparisons;
    }

    static String label(String peer) {
        return switch (peer) {
            case GRAPHILE_WORKER -> "graphile-worker";
            case PG_BOSS -> "pg-boss";
            case DB_SCHEDULER -> "db-scheduler";
            case JOBRUNR -> "JobRunr";
            default -> peer;
        };
    }

    @Override
    public void run(BenchContext context) throws Exception {
        BenchOptions options = context.options();
        PeerWorkload workload = new PeerWorkload(context.warmup(), context.measure(), minCalls(options), backlog(options),
                options.smoke() ? Duration.ofSeconds(5) : Duration.ofSeconds(60), options.drainLimit(),
                JobsScenario.LATENCY_RATE, latencyDuration(options), Payloads.json());
        OptionalDouble javaBest = OptionalDouble.empty();
        for (Peer peer : peers(options)) {
            String reason = skipped.containsKey(peer.id()) ? skipped.get(peer.id()) : peer.unavailable();
            if (reason != null) {
                if (skipped.putIfAbsent(peer.id(), reason) == null) {
                    // a plain line, once per run, so that a skipped peer stands out in CI logs
                    System.out.println("peer " + label(peer.id()) + " skipped: " + reason);
                }
                continue;
            }
            String name = peer.name();
            try (BenchDatabase database = context.newDatabase()) {
                context.resetStatements();
                double rate = peer.enqueueBatch(database, workload);
                context.record(enqueueMetric(peer.id()), name + ": batch enqueue, 1000 jobs per call", "jobs/s", rate,
                        "clients=1 batch=1000 synchronous_commit=on");
                context.profile(database, label(peer.id()) + " batch enqueue");
            }
            try (BenchDatabase database = context.newDatabase()) {
                context.resetStatements();
                Load.Drained drained = peer.drain(database, workload);
                context.record(drainMetric(peer.id()), name + ": drain a backlog (no-op handler)", "jobs/s",
                        drained.rate(), drained.describe() + " synchronous_commit=on");
                context.profile(database, label(peer.id()) + " fill + drain");
                if (JAVA_PEERS.contains(peer.id())
                        && (javaBest.isEmpty() || drained.rate() > javaBest.getAsDouble())) {
                    javaBest = OptionalDouble.of(drained.rate());
                }
            }
            try (BenchDatabase database = context.newDatabase()) {
                Peer.LatencyFigures latency = peer.latency(database, workload);
                String settings = "rate=" + workload.latencyRate() + "/s jobs=" + latency.jobs() + " max="
                        + String.format("%.1f", latency.max()) + " ms";
                context.record(p50Metric(peer.id()), name + ": enqueue → handler entry, p50", "ms", latency.p50(),
                        settings);
                context.record(p99Metric(peer.id()), name + ": enqueue → handler entry, p99", "ms", latency.p99(),
                        settings);
            }
        }
        if (javaBest.isPresent()) {
            context.record(JAVA_BEST_DRAIN, "best Java peer drain (db-scheduler, JobRunr) in this run", "jobs/s",
                    javaBest.getAsDouble(), "the higher of the two drains above");
        }
    }

    private List<Peer> peers(BenchOptions options) {
        if (peers == null) {
            NodeRuntime node = NodeRuntime.standard(options.smoke());
            peers = List.of(new DbSchedulerPeer(), new JobRunrPeer(), NodePeer.graphileWorker(node),
                    NodePeer.pgBoss(node));
        }
        return peers;
    }

    static int minCalls(BenchOptions options) {
        return options.smoke() ? 2 : 30;
    }

    static int backlog(BenchOptions options) {
        return options.peerBacklog();
    }

    static Duration latencyDuration(BenchOptions options) {
        return Duration.ofSeconds(options.smoke() ? 1 : 10);
    }
}
