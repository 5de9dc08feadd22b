package io.pgvs3.bench.scenario;

import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import io.pgvs3.bench.BenchContext;
import io.pgvs3.bench.BenchDatabase;
import io.pgvs3.bench.BenchOptions;
import io.pgvs3.bench.Comparison;
import io.pgvs3.bench.Load;
import io.pgvs3.bench.Payloads;
import io.pgvs3.bench.Scenario;
import io.pgvs3.bench.TableStats;
import io.pgvs3.bench.baseline.SkipLockedQueue;
import io.pgvs3.bench.pgvs3.BenchApplication;
import io.pgvs3.bench.pgvs3.NoOpJobHandler;
import io.pgvs3.bench.pgvs3.Streams;
import io.pgvs3.core.job.Job;
import io.pgvs3.core.job.JobStore;
import io.pgvs3.core.stream.StreamBatch;
import io.pgvs3.core.stream.StreamStore;
import io.pgvs3.spring.template.JobOptions;
import io.pgvs3.spring.template.JobTemplate;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Scenario 6: dead tuples and table sizes after a long stream run, and what a transaction holding the xmin horizon
 * does to streams, jobs and the SKIP LOCKED baseline.
 */
public final class BloatScenario implements Scenario {

    public static final int CHUNK = 1000;
    public static final int WORKERS = 8;
    public static final int FETCH = 1;

    private static final String STREAM_QUEUE = "bench-bloat";
    private static final Duration RETENTION = Duration.ofSeconds(2);

    public static String streamsRate(boolean held) {
        return "bloat.streams.rate." + (held ? "held" : "free");
    }

    public static String jobsRate(boolean held) {
        return "bloat.jobs.rate." + (held ? "held" : "free");
    }

    public static String skipLockedRate(boolean held) {
        return "bloat.skiplocked.rate." + (held ? "held" : "free");
    }

    public static String eventDead(boolean held) {
        return "bloat.streams.events_dead." + (held ? "held" : "free");
    }

    @Override
    public String id() {
        return "bloat";
    }

    @Override
    public String title() {
        return "7. Bloat and the xmin horizon";
    }

    @Override
    public String description(BenchOptions options) {
        return """
                *Streams*: a Spring Boot application with the starter (maintenance every 250 ms: rotation, tick \
                cleanup), queue retention %d s so segments rotate about every second; %,d events go through \
                append (%d per call) → receive (ceiling %d) → ack, producer and consumer on two threads with the \
                producer at most one append ahead of the consumer. Then `n_dead_tup` and total size of every table \
                of the queue schema, after the counters settle. *Jobs*: a backlog of %,d jobs, then %d threads \
                `JobStore.fetch(count %d)` + `JobStore.ack` for %d s. *SKIP LOCKED baseline*: the same backlog \
                and threads on the hand-written queue (claim %d). *Held snapshot*: the same three loads while \
                another session holds a `REPEATABLE READ` transaction with a snapshot taken before the load \
                starts and released after the counters are read; throughput relative to the run without it."""
                .formatted(RETENTION.toSeconds(), options.bloatEvents(), CHUNK, CHUNK, options.bloatJobs(), WORKERS,
                        FETCH, windowSeconds(options), FETCH);
    }

    static int windowSeconds(BenchOptions options) {
        return options.smoke() ? 1 : 10;
    }

    @Override
    public List<Comparison> comparisons() {
        return List.of(
                new Comparison("streams: throughput with held snapshot ÷ without", streamsRate(true), streamsRate(false)),
                new Comparison("jobs: throughput with held snapshot ÷ without", jobsRate(true), jobsRate(false)),
                new Comparison("SKIP LOCKED baseline: throughput with held snapshot ÷ without", skipLockedRate(true),
                        skipLockedRate(false)));
    }

    @Override
    public void run(BenchContext context) throws Exception {
        for (boolean held : List.of(false, true)) {
            streams(context, held);
        }
        for (boolean held : List.of(false, true)) {
            jobs(context, held);
        }
        for (boolean held : List.of(false, true)) {
            skipLocked(context, held);
        }
    }

    private void streams(BenchContext context, boolean held) throws Exception {
        int events = context.options().bloatEvents();
        try (BenchDatabase database = context.newDatabase(); Holder holder = new Holder()) {
            // the application is closed before the counters are read: backends report them when they exit
            try (BenchApplication.Running app = BenchApplication.start(database, true, false, Map.of())) {
                StreamStore store = app.bean(StreamStore.class);
                store.subscribe(STREAM_QUEUE, "bloat", null);
                store.updateConfig(STREAM_QUEUE, null, RETENTION);
                holder.open(database, held);
                context.resetStatements();
                double rate = pipeline(store, events);
                context.record(streamsRate(held), "streams: append → receive → ack of " + events + " events"
                        + holdLabel(held), "events/s", rate, "batch=" + CHUNK + " ceiling=" + CHUNK + " "
                        + Sync.setting(true) + (held ? " snapshot held" : ""));
                context.profile(database, "streams" + holdLabel(held));
            }
            List<TableStats.Table> tables = TableStats.settled(database, "s3q_%");
            long eventDead = tables.stream().filter(table -> table.name().startsWith("stream_events"))
                    .mapToLong(TableStats.Table::dead).sum();
            context.record(eventDead(held), "streams: n_dead_tup of the event segments" + holdLabel(held),
                    "tuples", eventDead, "events=" + events);
            for (TableStats.Table table : tables) {
                if (!table.name().startsWith("stream")) {
                    continue;
                }
                String base = "bloat.streams." + table.name() + "." + (held ? "held" : "free");
                context.record(base + ".dead", table.name() + ": n_dead_tup" + holdLabel(held), "tuples",
                        table.dead(), "live=" + table.live() + " inserted=" + table.inserted() + " updated="
                                + table.updated() + " deleted=" + table.deleted());
                context.record(base + ".size", table.name() + ": total size" + holdLabel(held), "kB",
                        table.totalBytes() / 1024.0, "");
            }
        }
    }

    /** One producer at most one append ahead of one consumer, so each tick holds one append. */
    private static double pipeline(StreamStore store, int events) throws Exception {
        Semaphore ahead = new Semaphore(1);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        long start = System.nanoTime();
        Thread producer = new Thread(() -> {
            try {
                for (int done = 0; done < events && failure.get() == null; done += CHUNK) {
                    while (!ahead.tryAcquire(100, TimeUnit.MILLISECONDS)) {
                        if (failure.get() != null) {
                            return;
                        }
                    }
                    store.append(STREAM_QUEUE, Streams.messages(Math.min(CHUNK, events - done)));
                }
            }
            catch (Throwable ex) {
                failure.compareAndSet(null, ex);
            }
        }, "bench-bloat-producer");
        producer.start();
        long received = 0;
        try {
            long deadline = start + Duration.ofMinutes(15).toNanos();
            while (received < events) {
                if (failure.get() != null) {
                    throw new IllegalStateException("The producer failed: " + failure.get(), failure.get());
                }
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("Only " + received + " of " + events + " events consumed");
                }
                StreamBatch batch = store.receive(STREAM_QUEUE, "bloat", null, CHUNK);
                if (batch.batchId() == null) {
                    Thread.onSpinWait();
                    continue;
                }
                ahead.release();
                store.ack(STREAM_QUEUE, batch.batchId());
                received += batch.messages().size();
            }
        }
        catch (RuntimeException ex) {
            failure.compareAndSet(null, ex);
            throw ex;
        }
        finally {
            producer.join();
        }
        return events / ((System.nanoTime() - start) / 1e9);
    }

    private void jobs(BenchContext context, boolean held) throws Exception {
        int backlog = context.options().bloatJobs();
        try (BenchDatabase database = context.newDatabase(); Holder holder = new Holder()) {
            try (BenchApplication.Running app = BenchApplication.start(database, true, false,
                    Map.of("pgvs3.listener.auto-startup", false))) {
                JobTemplate template = app.bean(JobTemplate.class);
                JobStore store = app.bean(JobStore.class);
                JsonNode payload = new JsonMapper().readTree(Payloads.json());
                template.enqueue(NoOpJobHandler.TYPE, payload, JobOptions.queue(NoOpJobHandler.QUEUE));
                holder.open(database, held);
                int filled = JobsScenario.fill(template, payload, JobOptions.queue(NoOpJobHandler.QUEUE), backlog,
                        context.options().fillLimit().multipliedBy(3));
                context.resetStatements();
                double rate = Load.rate(WORKERS, context.warmup(), Duration.ofSeconds(windowSeconds(context.options())),
                        index -> () -> {
                            List<Job> jobs = store.fetch(List.of(NoOpJobHandler.QUEUE), FETCH, "w" + index,
                                    Duration.ofMinutes(5));
                            for (Job job : jobs) {
                                store.ack(job.id(), null);
                            }
                            return jobs.size();
                        });
                context.record(jobsRate(held), "jobs: fetch (count " + FETCH + ") + ack, " + WORKERS + " threads"
                        + holdLabel(held), "jobs/s", rate, "backlog=" + filled + " " + Sync.setting(true)
                        + (held ? " snapshot held" : ""));
                context.profile(database, "jobs" + holdLabel(held));
            }
            List<TableStats.Table> tables = TableStats.settled(database, "s3%").stream()
                    .filter(table -> table.name().startsWith("job")).toList();
            context.record("bloat.jobs.dead." + (held ? "held" : "free"), "jobs: n_dead_tup of the job tables"
                    + holdLabel(held), "tuples", TableStats.sum(tables, TableStats.Table::dead),
                    tables.stream().map(table -> table.qualifiedName() + "=" + table.dead()).toList().toString());
        }
    }

    private void skipLocked(BenchContext context, boolean held) throws Exception {
        int backlog = context.options().bloatJobs();
        try (BenchDatabase database = context.newDatabase(); Holder holder = new Holder()) {
            SkipLockedQueue.create(database);
            holder.open(database, held);
            SkipLockedQueue.fill(database, backlog);
            context.resetStatements();
            double rate = Load.rate(WORKERS, context.warmup(), Duration.ofSeconds(windowSeconds(context.options())),
                    index -> SkipLockedQueue.worker(database, true, FETCH));
            context.record(skipLockedRate(held), "SKIP LOCKED baseline: claim " + FETCH + " + DELETE, " + WORKERS
                    + " threads" + holdLabel(held), "jobs/s", rate, "backlog=" + backlog + " " + Sync.setting(true)
                    + (held ? " snapshot held" : ""));
            context.profile(database, "skip locked" + holdLabel(held));
            List<TableStats.Table> tables = TableStats.settled(database, "public");
            context.record("bloat.skiplocked.dead." + (held ? "held" : "free"),
                    "SKIP LOCKED baseline: n_dead_tup" + holdLabel(held), "tuples",
                    TableStats.sum(tables, TableStats.Table::dead), "");
        }
    }

    private static String holdLabel(boolean held) {
        return held ? ", snapshot held" : "";
    }

    /** A session that holds a REPEATABLE READ snapshot, pinning the xmin horizon, until closed. */
    private static final class Holder implements AutoCloseable {

        private Connection connection;

        void open(BenchDatabase database, boolean held) throws Exception {
            if (!held) {
                return;
            }
            connection = database.connect(true);
            connection.setAutoCommit(false);
            connection.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
            try (Statement statement = connection.createStatement()) {
                statement.execute("SELECT count(*) FROM pg_class");
            }
        }

        @Override
        public void close() throws Exception {
            if (connection != null) {
                connection.rollback();
                connection.close();
            }
        }
    }
}
