package io.pgvs3.bench.peer;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;

import javax.sql.DataSource;

import com.github.kagkarlsson.scheduler.Scheduler;
import com.github.kagkarlsson.scheduler.SchedulerClient;
import com.github.kagkarlsson.scheduler.task.TaskInstance;
import com.github.kagkarlsson.scheduler.task.helper.OneTimeTask;
import com.github.kagkarlsson.scheduler.task.helper.Tasks;
import io.pgvs3.bench.BenchDatabase;
import io.pgvs3.bench.Load;
import io.pgvs3.bench.pgvs3.LatencyProbe;

/**
 * db-scheduler with its PostgreSQL table and a one-time no-op task carrying the payload: {@code scheduleBatch} of
 * 1,000 instances for the enqueue, a started {@link Scheduler} for the drain and the latency.
 */
public final class DbSchedulerPeer implements Peer {

    /** The first lock-and-fetch configuration of the benchmark in its README (10.6k executions/s over 4 VMs). */
    static final int THREADS = 20;
    static final double LOWER_LIMIT = 4.0;
    static final double UPPER_LIMIT = 20.0;
    private static final String TASK = "bench-noop";

    @Override
    public String id() {
        return "db_scheduler";
    }

    @Override
    public String name() {
        return "db-scheduler " + Drains.version("com.github.kagkarlsson", "db-scheduler", Scheduler.class);
    }

    @Override
    public String settings() {
        return "table `scheduled_tasks` from its documented PostgreSQL schema; `Tasks.oneTime` no-op task with the "
                + "payload as task data (its default Java serialization); enqueue `SchedulerClient.scheduleBatch` of "
                + "1,000 instances; worker `threads(" + THREADS + ")`, `pollUsingLockAndFetch(" + LOWER_LIMIT + ", "
                + UPPER_LIMIT + ")` (the `SELECT … FOR UPDATE SKIP LOCKED` strategy its README recommends above 1,000 "
                + "executions/s, with the threads and limits of the first lock-and-fetch row of its README's "
                + "benchmark), `enableImmediateExecution()`, pool of " + (THREADS + 4)
                + " connections";
    }

    @Override
    public String unavailable() {
        return null;
    }

    @Override
    public double enqueueBatch(BenchDatabase database, PeerWorkload workload) throws Exception {
        DataSource pool = prepare(database, 2);
        SchedulerClient client = SchedulerClient.Builder.create(pool, task(key -> { })).build();
        return Drains.batchRate(workload, () -> {
            client.scheduleBatch(batch(1000, workload.payload()), Instant.now());
            return 1000;
        });
    }

    @Override
    public Load.Drained drain(BenchDatabase database, PeerWorkload workload) throws Exception {
        DataSource pool = prepare(database, THREADS + 4);
        LongAdder handled = new LongAdder();
        OneTimeTask<String> task = task(key -> handled.increment());
        SchedulerClient client = SchedulerClient.Builder.create(pool, task).build();
        long deadline = System.nanoTime() + workload.fillLimit().toNanos();
        int filled = 0;
        while (filled < workload.backlog() && System.nanoTime() < deadline) {
            int n = Math.min(1000, workload.backlog() - filled);
            client.scheduleBatch(batch(n, workload.payload()), Instant.now());
            filled += n;
        }
        Scheduler scheduler = scheduler(pool, task);
        long start = System.nanoTime();
        scheduler.start();
        try {
            return Drains.await(handled, filled, start, workload.drainLimit());
        }
        finally {
            scheduler.stop();
        }
    }

    @Override
    public LatencyFigures latency(BenchDatabase database, PeerWorkload workload) throws Exception {
        DataSource pool = prepare(database, THREADS + 4);
        LatencyProbe probe = new LatencyProbe();
        OneTimeTask<String> task = task(probe::entered);
        Scheduler scheduler = scheduler(pool, task);
        scheduler.start();
        try {
            return Drains.latency(probe, workload, key -> scheduler.schedule(task.instance(key, workload.payload()),
                    Instant.now()));
        }
        finally {
            scheduler.stop();
        }
    }

    private static Scheduler scheduler(DataSource pool, OneTimeTask<String> task) {
        return Scheduler.create(pool, task)
                .threads(THREADS)
                .pollUsingLockAndFetch(LOWER_LIMIT, UPPER_LIMIT)
                .enableImmediateExecution()
                .shutdownMaxWait(Duration.ofSeconds(5))
                .build();
    }

    private static OneTimeTask<String> task(Consumer<String> handled) {
        return Tasks.oneTime(TASK, String.class).execute((instance, context) -> handled.accept(instance.getId()));
    }

    private static List<TaskInstance<?>> batch(int size, String payload) {
        List<TaskInstance<?>> batch = new ArrayList<>(size);
        for (int i = 0; i < size; i++) {
            batch.add(new TaskInstance<>(TASK, UUID.randomUUID().toString(), payload));
        }
        return batch;
    }

    private static DataSource prepare(BenchDatabase database, int poolSize) throws IOException {
        try (InputStream in = DbSchedulerPeer.class.getResourceAsStream("/peers/db-scheduler-postgresql.sql")) {
            String ddl = new String(in.readAllBytes(), StandardCharsets.UTF_8).replaceAll("(?m)^--.*$", "");
            database.execute(Arrays.stream(ddl.split(";")).map(String::strip).filter(sql -> !sql.isEmpty())
                    .toArray(String[]::new));
        }
        return database.pool(poolSize, true);
    }
}
