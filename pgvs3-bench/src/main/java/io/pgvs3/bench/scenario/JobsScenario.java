package io.pgvs3.bench.scenario;

import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

import io.pgvs3.bench.BenchContext;
import io.pgvs3.bench.BenchDatabase;
import io.pgvs3.bench.BenchOptions;
import io.pgvs3.bench.Comparison;
import io.pgvs3.bench.CpuGroups;
import io.pgvs3.bench.CpuMeter;
import io.pgvs3.bench.JitWatch;
import io.pgvs3.bench.Latency;
import io.pgvs3.bench.Load;
import io.pgvs3.bench.Payloads;
import io.pgvs3.bench.Scenario;
import io.pgvs3.bench.TableStats;
import io.pgvs3.bench.pgvs3.BenchApplication;
import io.pgvs3.bench.pgvs3.Http;
import io.pgvs3.bench.pgvs3.LatencyProbe;
import io.pgvs3.bench.pgvs3.NoOpJobHandler;
import io.pgvs3.bench.pgvs3.Paced;
import io.pgvs3.spring.listener.Pgvs3ListenerEndpointRegistry;
import io.pgvs3.spring.template.JobOptions;
import io.pgvs3.spring.template.JobTemplate;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Scenario 5: the jobs view — enqueue, fetch + ack over HTTP, {@code @JobHandler} containers, latency, and the
 * row versions a job leaves behind.
 */
public final class JobsScenario implements Scenario {

    public static final int HTTP_WORKERS = 8;
    public static final List<Integer> HTTP_COUNTS = List.of(1, 100);
    /** Jobs the HTTP warm-up may take: about 25 s of fetch-one load on the benchmark machine. */
    static final int HTTP_WARM_UP_BACKLOG = 100_000;
    static final Duration HTTP_WARM_UP_LIMIT = Duration.ofSeconds(30);
    public static final int HANDLER_CONCURRENCY = 8;
    public static final int HANDLER_PREFETCH = 256;
    public static final int LATENCY_RATE = 200;
    public static final int E2E_PRODUCERS = 4;

    private static final String CONTAINER = "jobs." + NoOpJobHandler.QUEUE;

    /** Opts the benchmark queue into job lifecycle events as a stream (to {@code bench-jobs.events}). */
    static final Map<String, Object> EVENTS_ON = Map.of("pgvs3.jobs.event-streams." + NoOpJobHandler.QUEUE, "");

    static final String EVENTS_STREAM = NoOpJobHandler.QUEUE + ".events";

    public static String enqueueSingleMetric(boolean sync) {
        return "jobs.enqueue.single.c1." + Sync.id(sync);
    }

    public static String enqueueBatchMetric(boolean sync) {
        return "jobs.enqueue.b1000.c1." + Sync.id(sync);
    }

    public static final String ENQUEUE_SINGLE_EVENTS = enqueueSingleMetric(true) + ".events_on";
    public static final String ENQUEUE_BATCH_EVENTS = enqueueBatchMetric(true) + ".events_on";

    public static String httpMetric(int count) {
        return "jobs.http.fetch_ack.count" + count + ".w" + HTTP_WORKERS + ".sync_on";
    }

    /** Who spends the CPU of the HTTP drains: see {@link #cpuGroup}, plus the JVM's own and PostgreSQL. */
    static final List<String> CPU_GROUPS = List.of(CpuGroups.CLIENT, CpuGroups.SERVER, CpuMeter.JVM_OTHER,
            CpuMeter.POSTGRES);

    public static String httpRoundTripMetric(int count, String request) {
        return "jobs.http.round_trip.count" + count + "." + request + ".p50";
    }

    public static String httpCpuMetric(int count, String group) {
        return "jobs.http.cpu.count" + count + "." + group.replaceAll("[^a-z]+", "_").replaceAll("_$", "");
    }

    public static final String HANDLER_DRAIN = "jobs.handler.drain.c" + HANDLER_CONCURRENCY;
    public static final String HANDLER_DRAIN_EVENTS = HANDLER_DRAIN + ".events_on";
    public static final String LATENCY_P50 = "jobs.latency.p50";
    public static final String LATENCY_P99 = "jobs.latency.p99";
    public static final String LATENCY_MAX = "jobs.latency.max";
    public static final String END_TO_END = "jobs.e2e";
    public static final String DEAD_PER_JOB = "jobs.dead_per_job";

    @Override
    public String id() {
        return "jobs";
    }

    @Override
    public String title() {
        return "5. Jobs";
    }

    @Override
    public String description(BenchOptions options) {
        return """
                *Enqueue*: `JobTemplate.enqueue` (one job per call) and `JobTemplate.enqueueAll` (1000 jobs, one \
                atomic call), one thread, args `[payload]`. *HTTP*: a backlog, then %d worker threads each \
                `POST /ojs/v1/workers/fetch` with `count` 1 or 100 and one `POST /ojs/v1/workers/ack` per job, over \
                one keep-alive HTTP/1.1 loopback connection per thread (a lean blocking-socket client); the same \
                load first runs on a backlog of its own until the JVM's JIT compilers have settled (they spent at \
                most 2%% of a 2-second window compiling; at least the warm-up time, at most 30 s), then the \
                backlog is timed until it is done. The \
                CPU rows split the CPU time of the timed part by who spent it: the client threads, the server's \
                threads (Tomcat, Spring MVC, pgvs3, JDBC), the JVM itself (GC, JIT) and the PostgreSQL processes. \
                *Handler containers*: one `@JobHandler` no-op method, \
                `concurrency = %d`, `pgvs3.handler.prefetch = %d`, started on a backlog and timed until all \
                jobs ran. *Latency*: one job per `JobTemplate.enqueue`, %d jobs/s open loop, from `enqueue` \
                returning to the handler method being entered. *End to end*: %d producer threads enqueue one job \
                per call while the container runs them; completed jobs/s. *Row versions per job*: \
                `(n_tup_upd + n_tup_del)` of the job tables (`s3q_<queue>.jobs`, `s3p.job_locator`, \
                `s3p.job_events`) after the handler drain, divided by the jobs. *Job events as a stream*: the \
                one-job and 1000-job enqueue (synchronous_commit=on) and the handler drain again, each in a fresh \
                database, with the queue opted in by `pgvs3.jobs.event-streams.bench-jobs=` (every lifecycle event \
                also appended to the stream `bench-jobs.events`, which nobody consumes during the measurement); the \
                rows without \"events stream on\" are the same measurements with the option off, in the same run."""
                .formatted(HTTP_WORKERS, HANDLER_CONCURRENCY, HANDLER_PREFETCH, LATENCY_RATE, E2E_PRODUCERS);
    }

    @Override
    public List<Comparison> comparisons() {
        List<Comparison> comparisons = new ArrayList<>();
        for (int count : HTTP_COUNTS) {
            comparisons.add(new Comparison("HTTP fetch + ack (count " + count + ", " + HTTP_WORKERS
                    + " workers) ÷ single-row commit limit (8 clients)", httpMetric(count),
                    BaselineScenario.commitMetric(8, true)));
        }
        comparisons.add(new Comparison("HTTP fetch + ack (count 1, " + HTTP_WORKERS + " workers) ÷ single-row commit "
                + "with pg_notify (8 clients)", httpMetric(1), BaselineScenario.notifyCommitMetric(8, true)));
        comparisons.add(new Comparison("@JobHandler drain ÷ SKIP LOCKED queue drain (claim 100)", HANDLER_DRAIN,
                BaselineScenario.skipLockedMetric(100)));
        comparisons.add(new Comparison("enqueue one job ÷ single-row commit (1 client, synchronous_commit=on)",
                enqueueSingleMetric(true), BaselineScenario.commitMetric(1, true)));
        comparisons.add(new Comparison("enqueue 1000 jobs per call ÷ multi-row INSERT of 1000",
                enqueueBatchMetric(true), BaselineScenario.insertMetric(1000, true)));
        comparisons.add(new Comparison("enqueue one job, job events stream on ÷ off", ENQUEUE_SINGLE_EVENTS,
                enqueueSingleMetric(true)));
        comparisons.add(new Comparison("enqueue 1000 jobs per call, job events stream on ÷ off", ENQUEUE_BATCH_EVENTS,
                enqueueBatchMetric(true)));
        comparisons.add(new Comparison("@JobHandler drain, job events stream on ÷ off", HANDLER_DRAIN_EVENTS,
                HANDLER_DRAIN));
        return comparisons;
    }

    @Override
    public void run(BenchContext context) throws Exception {
        JsonNode payload = new JsonMapper().readTree(Payloads.json());
        JobOptions options = JobOptions.queue(NoOpJobHandler.QUEUE);
        for (boolean sync : Sync.variants(context.options())) {
            try (BenchDatabase database = context.newDatabase();
                    BenchApplication.Running app = BenchApplication.start(database, sync, false,
                            Map.of("pgvs3.listener.auto-startup", false))) {
                JobTemplate jobs = app.bean(JobTemplate.class);
                jobs.enqueue(NoOpJobHandler.TYPE, payload, options);
                context.resetStatements();
                double rate = Load.rate(1, context.warmup(), context.measure(), index -> () -> {
                    jobs.enqueue(NoOpJobHandler.TYPE, payload, options);
                    return 1;
                });
                context.record(enqueueSingleMetric(sync), "JobTemplate.enqueue, 1 job per call", "jobs/s", rate,
                        "clients=1 batch=1 " + Sync.setting(sync));
                context.profile(database, "enqueue single " + Sync.setting(sync));
                List<JobTemplate.JobRequest> batch = new ArrayList<>();
                for (int i = 0; i < 1000; i++) {
                    batch.add(new JobTemplate.JobRequest(NoOpJobHandler.TYPE, payload, options));
                }
                context.resetStatements();
                rate = Load.rate(1, context.warmup(), context.measure(), index -> () -> jobs.enqueueAll(batch).size());
                context.record(enqueueBatchMetric(sync), "JobTemplate.enqueueAll, 1000 jobs per call", "jobs/s", rate,
                        "clients=1 batch=1000 " + Sync.setting(sync));
                context.profile(database, "enqueue batch " + Sync.setting(sync));
            }
        }
        try (BenchDatabase database = context.newDatabase();
                BenchApplication.Running app = BenchApplication.start(database, true, false,
                        withEvents(Map.of("pgvs3.listener.auto-startup", false)))) {
            JobTemplate jobs = app.bean(JobTemplate.class);
            jobs.enqueue(NoOpJobHandler.TYPE, payload, options);
            double rate = Load.rate(1, context.warmup(), context.measure(), index -> () -> {
                jobs.enqueue(NoOpJobHandler.TYPE, payload, options);
                return 1;
            });
            context.record(ENQUEUE_SINGLE_EVENTS, "JobTemplate.enqueue, 1 job per call, job events stream on", "jobs/s",
                    rate, "clients=1 batch=1 " + Sync.setting(true) + " events stream on");
            List<JobTemplate.JobRequest> batch = new ArrayList<>();
            for (int i = 0; i < 1000; i++) {
                batch.add(new JobTemplate.JobRequest(NoOpJobHandler.TYPE, payload, options));
            }
            context.resetStatements();
            rate = Load.rate(1, context.warmup(), context.measure(), index -> () -> jobs.enqueueAll(batch).size());
            context.record(ENQUEUE_BATCH_EVENTS, "JobTemplate.enqueueAll, 1000 jobs per call, job events stream on",
                    "jobs/s", rate, "clients=1 batch=1000 " + Sync.setting(true) + " events stream on, "
                            + streamEvents(app) + " stream events");
            context.profile(database, "enqueue batch, job events stream on");
        }
        try (BenchDatabase database = context.newDatabase();
                BenchApplication.Running app = BenchApplication.start(database, true, true,
                        Map.of("pgvs3.listener.auto-startup", false));
                Connection connection = database.connect(true)) {
            JsonMapper mapper = new JsonMapper();
            CpuMeter meter = CpuMeter.of(JobsScenario::cpuGroup, connection);
            for (int count : HTTP_COUNTS) {
                String queue = NoOpJobHandler.QUEUE + "-count" + count;
                int backlog = count == 1 ? context.options().scaled(20_000, 100) : context.options().scaled(100_000, 500);
                int filled = fill(app.bean(JobTemplate.class), payload, JobOptions.queue(queue), backlog,
                        context.options().fillLimit());
                Duration warmedFor = warmUp(context, app, payload, mapper, queue + "-warm", count);
                context.resetStatements();
                Latency fetches = new Latency();
                Latency acks = new Latency();
                Load.WorkerFactory workers = httpWorkers(app, mapper, queue, count, fetches, acks);
                Map<String, Long> before = meter.read();
                AtomicReference<Map<String, Long>> after = new AtomicReference<>();
                // read while the load threads still live: the CPU of ended threads is no longer theirs to read
                Load.Drained drained = Load.drain(HTTP_WORKERS, filled, context.options().drainLimit(),
                        workers, () -> after.set(meter.read()));
                Map<String, Long> spent = CpuMeter.between(before, after.get());
                context.record(httpMetric(count), "HTTP fetch (count " + count + ") + ack per job, " + HTTP_WORKERS
                        + " workers", "jobs/s", drained.rate(), "workers=" + HTTP_WORKERS + " count=" + count + " "
                        + drained.describe() + " " + Sync.setting(true) + String.format(" after a warm-up of %.1f s",
                                warmedFor.toMillis() / 1e3));
                for (String group : drained.items() == 0 ? List.<String>of() : CPU_GROUPS) {
                    context.record(httpCpuMetric(count, group), "HTTP fetch (count " + count + ") + ack: CPU of the "
                            + group + " per job", "µs/job", spent.getOrDefault(group, 0L) / 1e3 / drained.items(),
                            "workers=" + HTTP_WORKERS + " count=" + count + " jobs=" + drained.items());
                }
                String requests = "workers=" + HTTP_WORKERS + " count=" + count + " requests=";
                context.record(httpRoundTripMetric(count, "fetch"), "HTTP fetch (count " + count + ") + ack: fetch "
                        + "round trip, p50", "ms", fetches.percentileMillis(50), requests + fetches.count());
                context.record(httpRoundTripMetric(count, "ack"), "HTTP fetch (count " + count + ") + ack: ack round "
                        + "trip, p50", "ms", acks.percentileMillis(50), requests + acks.count());
                context.profile(database, "HTTP fetch+ack count " + count);
            }
        }
        handlers(context, payload, options);
    }

    /**
     * Runs the HTTP load on a backlog of its own until the JIT compilers have settled (at least the warm-up time, at
     * most {@link #HTTP_WARM_UP_LIMIT}), so that the timed drain neither pays for compiling the request path nor
     * runs it half compiled; answers how long it ran. With one second of warm-up instead, the compilers took about
     * 290 µs of CPU per job during the timed fetch-one drain, more than the server's threads.
     */
    private static Duration warmUp(BenchContext context, BenchApplication.Running app, JsonNode payload,
            JsonMapper mapper, String queue, int count) throws Exception {
        int filled = fill(app.bean(JobTemplate.class), payload, JobOptions.queue(queue),
                context.options().scaled(HTTP_WARM_UP_BACKLOG, 100), context.options().fillLimit());
        JitWatch jit = new JitWatch(context.warmup());
        Load.drain(HTTP_WORKERS, filled, context.options().smoke() ? context.warmup() : HTTP_WARM_UP_LIMIT,
                jit::settled, httpWorkers(app, mapper, queue, count, new Latency(), new Latency()));
        return jit.elapsed();
    }

    /**
     * Workers that each fetch {@code count} jobs of {@code queue} and ack them one by one, over HTTP, recording each
     * request's round trip.
     */
    private static Load.WorkerFactory httpWorkers(BenchApplication.Running app, JsonMapper mapper, String queue,
            int count, Latency fetches, Latency acks) {
        String fetch = "{\"queues\":[\"" + queue + "\"],\"count\":" + count + ",\"worker_id\":\"w%d\"}";
        return index -> {
            Http http = new Http(app.baseUrl());
            String body = fetch.formatted(index);
            return new Load.Worker() {
                @Override
                public long step() throws Exception {
                    long started = System.nanoTime();
                    String answer = http.post("/ojs/v1/workers/fetch", body);
                    fetches.recordNanos(System.nanoTime() - started);
                    JsonNode fetched = mapper.readTree(answer);
                    int acked = 0;
                    for (JsonNode job : fetched.get("jobs")) {
                        String ack = "{\"job_id\":\"" + job.get("id").asString() + "\",\"worker_id\":\"w" + index
                                + "\"}";
                        started = System.nanoTime();
                        http.post("/ojs/v1/workers/ack", ack);
                        acks.recordNanos(System.nanoTime() - started);
                        acked++;
                    }
                    return acked;
                }

                @Override
                public void close() {
                    http.close();
                }
            };
        };
    }

    private void handlers(BenchContext context, JsonNode payload, JobOptions options) throws Exception {
        LatencyProbe probe = new LatencyProbe();
        Map<String, Object> properties = Map.of("pgvs3.listener.auto-startup", false, "pgvs3.handler.prefetch",
                HANDLER_PREFETCH, "bench.jobs.concurrency", HANDLER_CONCURRENCY);
        // the peers' backlog, filled completely: a fill cut short by a time limit would time a smaller drain
        int backlog = context.options().peerBacklog();
        drain(context, payload, options, probe, properties, backlog, false);
        drain(context, payload, options, new LatencyProbe(), withEvents(properties), backlog, true);
        try (BenchDatabase database = context.newDatabase();
                BenchApplication.Running app = BenchApplication.start(database, true, false,
                        Map.of("pgvs3.handler.prefetch", HANDLER_PREFETCH, "bench.jobs.concurrency",
                                HANDLER_CONCURRENCY), new NoOpJobHandler(probe))) {
            JobTemplate jobs = app.bean(JobTemplate.class);
            jobs.enqueue(NoOpJobHandler.TYPE, payload, options);
            probe.awaitAllHandled(Duration.ofSeconds(30));
            probe.reset();
            long sent = Paced.run(LATENCY_RATE, Duration.ofSeconds(context.options().smoke() ? 1 : 10), 2, index -> {
                String id = jobs.enqueue(NoOpJobHandler.TYPE, payload, options).id();
                probe.committed(id, System.nanoTime());
            });
            probe.awaitAllHandled(Duration.ofSeconds(60));
            Latency latency = probe.latency();
            String settings = "rate=" + LATENCY_RATE + "/s jobs=" + sent + " concurrency=" + HANDLER_CONCURRENCY + " "
                    + Sync.setting(true);
            context.record(LATENCY_P50, "enqueue → @JobHandler entry, p50", "ms", latency.percentileMillis(50), settings);
            context.record(LATENCY_P99, "enqueue → @JobHandler entry, p99", "ms", latency.percentileMillis(99), settings);
            context.record(LATENCY_MAX, "enqueue → @JobHandler entry, max", "ms", latency.maxMillis(), settings);

            long handledStart = probe.handled();
            long t0 = System.nanoTime();
            double rate = Load.rate(E2E_PRODUCERS, Duration.ZERO, context.measure(), index -> () -> {
                jobs.enqueue(NoOpJobHandler.TYPE, payload, options);
                return 1;
            });
            double completed = (probe.handled() - handledStart) / ((System.nanoTime() - t0) / 1e9);
            context.record(END_TO_END, "end to end: enqueue one per call + @JobHandler, jobs completed", "jobs/s",
                    completed, "producers=" + E2E_PRODUCERS + " concurrency=" + HANDLER_CONCURRENCY + " enqueued "
                            + Math.round(rate) + "/s " + Sync.setting(true));
            context.profile(database, "end to end");
        }
    }

    /**
     * Fills a backlog of exactly {@code backlog} jobs and times the {@code @JobHandler} containers draining it, in a
     * database and application of their own (closing it makes the backends report their counters). Without the
     * events stream it also records the row versions per job.
     */
    private void drain(BenchContext context, JsonNode payload, JobOptions options, LatencyProbe probe,
            Map<String, Object> properties, int backlog, boolean events) throws Exception {
        long handled;
        String streamed = "";
        try (BenchDatabase database = context.newDatabase()) {
            try (BenchApplication.Running app = BenchApplication.start(database, true, false, properties,
                    new NoOpJobHandler(probe))) {
                int filled = fill(app.bean(JobTemplate.class), payload, options, backlog, Duration.ofMinutes(10));
                Pgvs3ListenerEndpointRegistry registry = app.bean(Pgvs3ListenerEndpointRegistry.class);
                context.resetStatements();
                long start = System.nanoTime();
                registry.start(CONTAINER);
                long deadline = start + context.options().drainLimit().toNanos();
                while (probe.handled() < filled && System.nanoTime() < deadline) {
                    Thread.sleep(1);
                }
                Load.Drained drained = new Load.Drained(Math.min(filled, probe.handled()), filled,
                        (System.nanoTime() - start) / 1e9);
                registry.stop(CONTAINER);
                if (events) {
                    streamed = ", " + streamEvents(app) + " stream events";
                }
                context.record(events ? HANDLER_DRAIN_EVENTS : HANDLER_DRAIN, "@JobHandler containers drain a backlog"
                        + " (no-op handler)" + (events ? ", job events stream on" : ""), "jobs/s", drained.rate(),
                        "concurrency=" + HANDLER_CONCURRENCY + " prefetch=" + HANDLER_PREFETCH + " "
                                + drained.describe() + " " + Sync.setting(true) + (events ? " events stream on" : "")
                                + streamed);
                context.profile(database, "@JobHandler drain" + (events ? ", job events stream on" : ""));
                handled = probe.handled();
            }
            if (!events && handled > 0) {
                var tables = TableStats.settled(database, "s3%");
                context.record(DEAD_PER_JOB, "dead row versions per completed job, (n_tup_upd + n_tup_del) / jobs",
                        "versions/job", (double) versions(tables) / handled, "jobs=" + handled + " "
                                + tables.stream().filter(table -> table.name().startsWith("job"))
                                        .map(table -> table.qualifiedName() + ": upd=" + table.updated() + " del="
                                                + table.deleted()).toList());
            }
        }
    }

    private static Map<String, Object> withEvents(Map<String, Object> properties) {
        Map<String, Object> all = new java.util.LinkedHashMap<>(properties);
        all.putAll(EVENTS_ON);
        return all;
    }

    /** How many events the benchmark queue's events stream holds (all its segments). */
    private static long streamEvents(BenchApplication.Running app) {
        Long count = new org.springframework.jdbc.core.JdbcTemplate(app.bean(javax.sql.DataSource.class))
                .queryForObject("SELECT count(*) FROM \"s3q_" + EVENTS_STREAM + "\".stream_events", Long.class);
        return count == null ? 0 : count;
    }

    static String cpuGroup(String thread) {
        return thread.startsWith("bench-load-") ? CpuGroups.CLIENT : CpuGroups.SERVER;
    }

    static long versions(List<TableStats.Table> tables) {
        return tables.stream().filter(table -> table.name().startsWith("job"))
                .mapToLong(table -> table.updated() + table.deleted()).sum();
    }

    /** Enqueues up to {@code count} jobs in batches of 1000, for at most {@code limit}; answers how many. */
    static int fill(JobTemplate jobs, JsonNode payload, JobOptions options, int count, Duration limit) {
        List<JobTemplate.JobRequest> batch = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            batch.add(new JobTemplate.JobRequest(NoOpJobHandler.TYPE, payload, options));
        }
        long deadline = System.nanoTime() + limit.toNanos();
        int done = 0;
        while (done < count && System.nanoTime() < deadline) {
            done += jobs.enqueueAll(batch.subList(0, Math.min(1000, count - done))).size();
        }
        return done;
    }
}
