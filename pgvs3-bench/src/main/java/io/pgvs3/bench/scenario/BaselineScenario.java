package io.pgvs3.bench.scenario;

import java.util.List;

import io.pgvs3.bench.BenchContext;
import io.pgvs3.bench.BenchDatabase;
import io.pgvs3.bench.BenchOptions;
import io.pgvs3.bench.Load;
import io.pgvs3.bench.Payloads;
import io.pgvs3.bench.Scenario;
import io.pgvs3.bench.TableStats;
import io.pgvs3.bench.baseline.RawTables;
import io.pgvs3.bench.baseline.SkipLockedQueue;

/**
 * Scenario 1: what PostgreSQL on this machine does without pgvs3, measured in the same repetition as everything it
 * is compared with.
 */
public final class BaselineScenario implements Scenario {

    public static final List<Integer> INSERT_BATCHES = List.of(1, 100, 1000);
    public static final List<Integer> COMMIT_CLIENTS = List.of(1, 8);
    public static final List<Integer> SKIP_LOCKED_COUNTS = List.of(1, 100);
    public static final int SKIP_LOCKED_WORKERS = 8;

    public static String insertMetric(int batch, boolean sync) {
        return "baseline.insert.b" + batch + "." + Sync.id(sync);
    }

    public static String commitMetric(int clients, boolean sync) {
        return "baseline.commit.c" + clients + "." + Sync.id(sync);
    }

    public static String notifyCommitMetric(int clients, boolean sync) {
        return "baseline.commit_notify.c" + clients + "." + Sync.id(sync);
    }

    public static String skipLockedMetric(int count) {
        return "baseline.skiplocked.count" + count + ".w" + SKIP_LOCKED_WORKERS + ".sync_on";
    }

    public static final String SKIP_LOCKED_DEAD_PER_JOB = "baseline.skiplocked.dead_per_job";

    @Override
    public String id() {
        return "baselines";
    }

    @Override
    public String title() {
        return "1. Baselines: PostgreSQL without pgvs3";
    }

    @Override
    public String description(BenchOptions options) {
        return """
                Plain JDBC, no pgvs3 code. *Multi-row INSERT*: one autocommitted `INSERT … SELECT FROM unnest(…)` \
                of N events (id, type, %d-byte JSON payload) into a plain table with a `bigserial` primary key, \
                one client: the write limit. *Single-row commit*: one `INSERT` per transaction, 1 and 8 clients: \
                the commit limit; the same with `pg_notify` in each transaction (as queues do to wake consumers): \
                PostgreSQL holds a global lock from a notifying transaction's queue insert until its commit record \
                is flushed, so notifying commits cannot share a flush. *SKIP LOCKED queue*: a backlog in one table (index on `(queue, id)`), %d workers \
                each `SELECT … ORDER BY id LIMIT n FOR UPDATE SKIP LOCKED`, `DELETE … WHERE id = ANY(…)`, \
                `COMMIT` — what users write themselves; jobs/s to drain the backlog."""
                .formatted(Payloads.SIZE_BYTES, SKIP_LOCKED_WORKERS);
    }

    @Override
    public List<io.pgvs3.bench.Comparison> comparisons() {
        return Sync.BOTH.stream().map(sync -> new io.pgvs3.bench.Comparison("single-row commit with pg_notify ÷ "
                + "without (8 clients, " + Sync.setting(sync) + ")", notifyCommitMetric(8, sync), commitMetric(8, sync)))
                .toList();
    }

    @Override
    public void run(BenchContext context) throws Exception {
        try (BenchDatabase database = context.newDatabase()) {
            RawTables.create(database);
            for (boolean sync : Sync.variants(context.options())) {
                for (int batch : INSERT_BATCHES) {
                    RawTables.truncate(database);
                    double rate = Load.rate(1, context.warmup(), context.measure(),
                            index -> RawTables.multiRowInsert(database, sync, batch));
                    context.record(insertMetric(batch, sync), "multi-row INSERT, " + batch + (batch == 1 ? " row" : " rows") + " per statement",
                            "events/s", rate, "clients=1 batch=" + batch + " " + Sync.setting(sync));
                }
                for (int clients : COMMIT_CLIENTS) {
                    RawTables.truncate(database);
                    double rate = Load.rate(clients, context.warmup(), context.measure(),
                            index -> RawTables.singleRowCommit(database, sync));
                    context.record(commitMetric(clients, sync), "single-row INSERT + COMMIT, " + clients
                            + (clients == 1 ? " client" : " clients"), "commits/s", rate,
                            "clients=" + clients + " batch=1 " + Sync.setting(sync));
                }
                int clients = COMMIT_CLIENTS.get(COMMIT_CLIENTS.size() - 1);
                RawTables.truncate(database);
                double rate = Load.rate(clients, context.warmup(), context.measure(),
                        index -> RawTables.singleRowCommit(database, sync, true));
                context.record(notifyCommitMetric(clients, sync), "single-row INSERT + pg_notify + COMMIT, " + clients
                        + " clients", "commits/s", rate, "clients=" + clients + " batch=1 " + Sync.setting(sync));
            }
        }
        for (int count : SKIP_LOCKED_COUNTS) {
            try (BenchDatabase database = context.newDatabase()) {
                SkipLockedQueue.create(database);
                int jobs = count == 1 ? context.options().scaled(30_000, 300) : context.options().scaled(300_000, 3_000);
                SkipLockedQueue.fill(database, jobs);
                context.resetStatements();
                Load.Drained drained = Load.drain(SKIP_LOCKED_WORKERS, jobs, context.options().drainLimit(),
                        index -> SkipLockedQueue.worker(database, true, count));
                context.record(skipLockedMetric(count), "SKIP LOCKED queue drain, claim " + count + " per transaction, "
                        + SKIP_LOCKED_WORKERS + " workers", "jobs/s", drained.rate(), "workers=" + SKIP_LOCKED_WORKERS
                        + " count=" + count + " " + drained.describe() + " " + Sync.setting(true));
                context.profile(database, "skip locked count " + count);
                if (count == 1) {
                    var tables = TableStats.settled(database, "public");
                    var table = tables.stream().filter(t -> t.name().equals(SkipLockedQueue.TABLE)).findFirst().orElseThrow();
                    context.record(SKIP_LOCKED_DEAD_PER_JOB, "SKIP LOCKED queue: dead row versions per completed job "
                            + "(n_tup_upd + n_tup_del) / jobs", "versions/job",
                            (double) (table.updated() + table.deleted()) / drained.items(), "jobs=" + drained.items());
                }
            }
        }
    }
}
