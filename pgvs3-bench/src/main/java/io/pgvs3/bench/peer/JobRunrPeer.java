package io.pgvs3.bench.peer;

import java.time.Duration;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import javax.sql.DataSource;

import io.pgvs3.bench.BenchDatabase;
import io.pgvs3.bench.Load;
import io.pgvs3.bench.pgvs3.LatencyProbe;
import org.jobrunr.jobs.lambdas.JobRequest;
import org.jobrunr.jobs.lambdas.JobRequestHandler;
import org.jobrunr.jobs.mappers.JobMapper;
import org.jobrunr.scheduling.JobRequestScheduler;
import org.jobrunr.server.BackgroundJobServer;
import org.jobrunr.server.BackgroundJobServerConfiguration;
import org.jobrunr.server.JobActivator;
import org.jobrunr.storage.sql.postgres.PostgresStorageProvider;
import org.jobrunr.utils.mapper.JsonMapper;
import org.jobrunr.utils.mapper.jackson3.Jackson3JsonMapper;

/**
 * JobRunr with its PostgreSQL storage provider (which creates its own tables) and a no-op {@link JobRequest}
 * carrying the payload: {@code JobRequestScheduler.enqueue(Stream)} of 1,000 for the enqueue, a
 * {@link BackgroundJobServer} for the drain and the latency.
 */
public final class JobRunrPeer implements Peer {

    static final Duration POLL_INTERVAL = Duration.ofSeconds(5);
    static final int WORKERS = Runtime.getRuntime().availableProcessors() * 8;

    /** The job: its key (for the latency probe) and the payload every job carries. */
    public record NoOpRequest(String key, String payload) implements JobRequest {

        @Override
        public Class<NoOpHandler> getJobRequestHandler() {
            return NoOpHandler.class;
        }
    }

    /** Runs a {@link NoOpRequest}: notes that it arrived. */
    public static final class NoOpHandler implements JobRequestHandler<NoOpRequest> {

        private final Consumer<String> handled;

        NoOpHandler(Consumer<String> handled) {
            this.handled = handled;
        }

        @Override
        public void run(NoOpRequest request) {
            handled.accept(request.key());
        }
    }

    @Override
    public String id() {
        return "jobrunr";
    }

    @Override
    public String name() {
        return "JobRunr " + Drains.version("org.jobrunr", "jobrunr", JobRequestScheduler.class);
    }

    @Override
    public String settings() {
        return "`PostgresStorageProvider` (creates its tables), `Jackson3JsonMapper`; a `JobRequest` no-op job with "
                + "the payload; enqueue `JobRequestScheduler.enqueue(Stream)` of 1,000 (saved as one batch); "
                + "`BackgroundJobServer` with its default worker count (" + WORKERS + " = 8 × cores) and the shortest "
                + "poll interval it accepts with SQL storage (" + POLL_INTERVAL.toSeconds() + " s; it refuses a "
                + "shorter one); pool of " + (WORKERS + 4) + " connections";
    }

    @Override
    public String unavailable() {
        return null;
    }

    @Override
    public double enqueueBatch(BenchDatabase database, PeerWorkload workload) throws Exception {
        try (Storage storage = Storage.on(database, 4)) {
            JobRequestScheduler scheduler = new JobRequestScheduler(storage.provider());
            return Drains.batchRate(workload, () -> {
                scheduler.enqueue(jobs(1000, workload.payload()));
                return 1000;
            });
        }
    }

    @Override
    public Load.Drained drain(BenchDatabase database, PeerWorkload workload) throws Exception {
        try (Storage storage = Storage.on(database, WORKERS + 4)) {
            JobRequestScheduler scheduler = new JobRequestScheduler(storage.provider());
            long deadline = System.nanoTime() + workload.fillLimit().toNanos();
            int filled = 0;
            while (filled < workload.backlog() && System.nanoTime() < deadline) {
                int n = Math.min(1000, workload.backlog() - filled);
                scheduler.enqueue(jobs(n, workload.payload()));
                filled += n;
            }
            LongAdder handled = new LongAdder();
            long start = System.nanoTime();
            BackgroundJobServer server = storage.server(key -> handled.increment());
            try {
                return Drains.await(handled, filled, start, workload.drainLimit());
            }
            finally {
                server.stop();
            }
        }
    }

    @Override
    public LatencyFigures latency(BenchDatabase database, PeerWorkload workload) throws Exception {
        try (Storage storage = Storage.on(database, WORKERS + 4)) {
            JobRequestScheduler scheduler = new JobRequestScheduler(storage.provider());
            LatencyProbe probe = new LatencyProbe();
            BackgroundJobServer server = storage.server(probe::entered);
            try {
                return Drains.latency(probe, workload, key -> scheduler.enqueue(new NoOpRequest(key,
                        workload.payload())));
            }
            finally {
                server.stop();
            }
        }
    }

    private static Stream<NoOpRequest> jobs(int count, String payload) {
        return IntStream.range(0, count).mapToObj(i -> new NoOpRequest(null, payload));
    }

    /** JobRunr's storage on a pool of the database, wired by hand as its fluent configuration would. */
    private record Storage(PostgresStorageProvider provider, JsonMapper json) implements AutoCloseable {

        static Storage on(BenchDatabase database, int poolSize) {
            DataSource pool = database.pool(poolSize, true);
            JsonMapper json = new Jackson3JsonMapper();
            PostgresStorageProvider provider = new PostgresStorageProvider(pool);
            provider.setJobMapper(new JobMapper(json));
            return new Storage(provider, json);
        }

        BackgroundJobServer server(Consumer<String> handled) {
            NoOpHandler handler = new NoOpHandler(handled);
            JobActivator activator = new JobActivator() {
                @Override
                public <T> T activateJob(Class<T> type) {
                    return type.isInstance(handler) ? type.cast(handler) : null;
                }
            };
            BackgroundJobServer server = new BackgroundJobServer(provider, json, activator,
                    BackgroundJobServerConfiguration.usingStandardBackgroundJobServerConfiguration()
                            .andWorkerCount(WORKERS).andPollInterval(POLL_INTERVAL));
            server.start();
            return server;
        }

        @Override
        public void close() {
            provider.close();
        }
    }
}
