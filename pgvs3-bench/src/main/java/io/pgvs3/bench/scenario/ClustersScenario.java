package io.pgvs3.bench.scenario;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.pgvs3.bench.BenchContext;
import io.pgvs3.bench.BenchDatabase;
import io.pgvs3.bench.BenchOptions;
import io.pgvs3.bench.BenchPostgres;
import io.pgvs3.bench.Comparison;
import io.pgvs3.bench.Load;
import io.pgvs3.bench.Payloads;
import io.pgvs3.bench.Scenario;
import io.pgvs3.bench.pgvs3.BenchApplication;
import io.pgvs3.core.cluster.ClusterRouter;
import io.pgvs3.spring.template.JobOptions;
import io.pgvs3.spring.template.JobTemplate;
import io.pgvs3.spring.template.OutgoingMessage;
import io.pgvs3.spring.template.StreamTemplate;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Queues spread over two PostgreSQL servers ({@code pgvs3.clusters}) against all of them on one, on this machine,
 * and what routing costs a call when clusters are configured.
 */
public final class ClustersScenario implements Scenario {

    public static final int THREADS = 4;
    public static final int BATCH = 100;

    public static final String ONE = "clusters.append.b" + BATCH + ".c" + THREADS + ".one_server";
    public static final String TWO = "clusters.append.b" + BATCH + ".c" + THREADS + ".two_servers";
    public static final String APPEND_PLAIN = "clusters.route.append1.no_clusters";
    public static final String APPEND_ROUTED = "clusters.route.append1.pattern";
    public static final String GET_PLAIN = "clusters.route.get.no_clusters";
    public static final String GET_ROUTED = "clusters.route.get.pattern";
    public static final String RESOLVE_PLAIN = "clusters.route.resolve.no_clusters";
    public static final String RESOLVE_ROUTED = "clusters.route.resolve.pattern";

    private static final int RESOLVE_CALLS = 20_000_000;

    @Override
    public String id() {
        return "clusters";
    }

    @Override
    public String title() {
        return "8. Queues on two PostgreSQL servers";
    }

    @Override
    public String description(BenchOptions options) {
        return """
                *Spread*: %d client threads each append %d messages per call (`StreamTemplate.appendAll`, payload \
                %d bytes, `synchronous_commit` on) to a queue of its own, 4 queues, in one Spring Boot application \
                with the starter: all 4 queues on the harness's PostgreSQL, then queues 2 and 3 routed by \
                `pgvs3.clusters` to a second embedded PostgreSQL started on this machine for the scenario (same \
                settings as the harness's embedded one). On one machine both servers share its cores, so this shows \
                what routing itself costs or gains when the machine, not one server's WAL or locks, is the limit. \
                *Routing overhead*: one thread appending 1 message per call, and one thread reading a job by id \
                (`JobTemplate.get`), to a queue of the default cluster, with no `pgvs3.clusters` and then with a \
                cluster holding the pattern `far-*`, which that queue does not match; and the time of one \
                `ClusterRouter.forQueue` in a loop of %,d calls."""
                .formatted(THREADS, BATCH, Payloads.SIZE_BYTES, RESOLVE_CALLS);
    }

    @Override
    public List<Comparison> comparisons() {
        return List.of(new Comparison("append throughput, queues over two servers ÷ on one", TWO, ONE),
                new Comparison("1-message append with a cluster configured ÷ without", APPEND_ROUTED, APPEND_PLAIN),
                new Comparison("job get by id with a cluster configured ÷ without", GET_ROUTED, GET_PLAIN),
                new Comparison("queue resolution with a pattern configured ÷ without (time per call)",
                        RESOLVE_ROUTED, RESOLVE_PLAIN));
    }

    @Override
    public void run(BenchContext context) throws Exception {
        JsonMapper mapper = new JsonMapper();
        JsonNode payload = mapper.readTree(Payloads.json());
        List<OutgoingMessage> batch = new ArrayList<>(BATCH);
        for (int i = 0; i < BATCH; i++) {
            batch.add(OutgoingMessage.of(Payloads.TYPE, payload));
        }
        try (BenchPostgres secondServer = BenchPostgres.start(null)) {
            spread(context, secondServer, batch);
            overhead(context, secondServer, payload);
        }
    }

    private static void spread(BenchContext context, BenchPostgres secondServer, List<OutgoingMessage> batch)
            throws Exception {
        try (BenchDatabase database = context.newDatabase();
                BenchApplication.Running app = BenchApplication.start(database, true, false, Map.of())) {
            context.record(ONE, "append, " + THREADS + " queues on one server", "events/s",
                    appendRate(context, app.bean(StreamTemplate.class), batch), settings("one server"));
        }
        try (BenchDatabase database = context.newDatabase();
                BenchDatabase second = secondServer.newDatabase("clusters");
                BenchApplication.Running app = BenchApplication.start(database, true, false,
                        cluster(second, "bench-q2,bench-q3"))) {
            context.record(TWO, "append, " + THREADS + " queues over two servers", "events/s",
                    appendRate(context, app.bean(StreamTemplate.class), batch), settings("two servers"));
        }
    }

    private static double appendRate(BenchContext context, StreamTemplate template, List<OutgoingMessage> batch)
            throws Exception {
        for (int i = 0; i < THREADS; i++) {
            template.appendAll("bench-q" + i, batch);
        }
        return Load.rate(THREADS, context.warmup(), context.measure(), index -> () -> template
                .appendAll("bench-q" + index, batch).size());
    }

    private static void overhead(BenchContext context, BenchPostgres secondServer, JsonNode payload) throws Exception {
        for (boolean routed : List.of(false, true)) {
            try (BenchDatabase database = context.newDatabase();
                    BenchDatabase second = secondServer.newDatabase("clusters");
                    BenchApplication.Running app = BenchApplication.start(database, true, false,
                            routed ? cluster(second, "far-*") : Map.of())) {
                String how = routed ? "a cluster with pattern far-*" : "no clusters";
                StreamTemplate streams = app.bean(StreamTemplate.class);
                streams.append("near", Payloads.TYPE, payload);
                context.record(routed ? APPEND_ROUTED : APPEND_PLAIN, "1-message append, " + how, "events/s",
                        Load.rate(1, context.warmup(), context.measure(), index -> () -> {
                            streams.append("near", Payloads.TYPE, payload);
                            return 1;
                        }), "clients=1 batch=1 " + how);
                JobTemplate jobs = app.bean(JobTemplate.class);
                String id = jobs.enqueue("bench.get", 1, JobOptions.queue("near")).id();
                context.record(routed ? GET_ROUTED : GET_PLAIN, "job get by id, " + how, "calls/s",
                        Load.rate(1, context.warmup(), context.measure(), index -> () -> {
                            jobs.get(id).orElseThrow();
                            return 1;
                        }), "clients=1 " + how);
                context.record(routed ? RESOLVE_ROUTED : RESOLVE_PLAIN, "ClusterRouter.forQueue, " + how,
                        "ns/call", resolveNanos(app.bean(ClusterRouter.class)), how);
            }
        }
    }

    /** Nanoseconds per resolution, over the best of three loops after one to warm up. */
    private static double resolveNanos(ClusterRouter router) {
        String[] queues = { "near", "near-2", "orders", "bench-q1" };
        double best = Double.MAX_VALUE;
        long sink = 0;
        for (int round = 0; round < 4; round++) {
            long start = System.nanoTime();
            for (int i = 0; i < RESOLVE_CALLS; i++) {
                sink += router.forQueue(queues[i & 3]).name().length();
            }
            double perCall = (System.nanoTime() - start) / (double) RESOLVE_CALLS;
            if (round > 0) {
                best = Math.min(best, perCall);
            }
        }
        if (sink == 42) {
            System.out.print("");
        }
        return best;
    }

    private static Map<String, Object> cluster(BenchDatabase database, String queues) {
        Map<String, Object> properties = new LinkedHashMap<>();
        properties.put("pgvs3.clusters.second.url", database.jdbcUrl(true));
        properties.put("pgvs3.clusters.second.maximum-pool-size", 16);
        properties.put("pgvs3.clusters.second.queues", queues);
        return properties;
    }

    private static String settings(String servers) {
        return "clients=" + THREADS + " queues=4 batch=" + BATCH + " " + Sync.setting(true) + " " + servers;
    }
}
