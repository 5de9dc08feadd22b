package io.pgvs3.spring.listener;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.pgvs3.core.job.Job;
import io.pgvs3.core.job.JobError;
import io.pgvs3.core.job.JobStore;
import io.pgvs3.core.notify.NotificationHub;
import io.pgvs3.spring.core.Pgvs3Metrics;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the {@code @JobHandler} methods of one queue.
 * <p>
 * One fetcher thread claims jobs while handler threads are free (plus a bounded prefetch) and handler threads run
 * them; acknowledgements of concurrent handlers share a commit (the job store groups them). Leases of
 * every held job are renewed by heartbeats while it runs. A handler exception nacks the job with the error
 * recorded; the job's retry policy decides what happens next. On stop the fetcher stops, jobs not started are
 * released at once, running jobs get the shutdown timeout to finish, and the leases of any still running are
 * released, so no job waits for its lease to expire.
 */
public class JobHandlerContainer extends AbstractPgvs3ListenerContainer {

    private static final Logger log = LoggerFactory.getLogger(JobHandlerContainer.class);

    private final String id;
    private final String queue;
    private final Map<String, JobHandlerMethodAdapter> handlers;
    private final int concurrency;
    private final JobContainerSettings settings;
    private final JobStore store;
    private final Pgvs3Metrics metrics;
    private final String workerId;

    private volatile boolean forced;
    private final Map<String, Job> held = new ConcurrentHashMap<>();
    private Semaphore permits;
    private ThreadPoolExecutor workers;
    private ScheduledExecutorService heartbeats;
    private Thread fetcher;

    public JobHandlerContainer(String id, String queue, Map<String, JobHandlerMethodAdapter> handlers,
            int concurrency, JobContainerSettings settings, JobStore store, NotificationHub notifications,
            PollingSettings polling, Pgvs3Metrics metrics, String workerId) {
        super(notifications, polling);
        this.id = id;
        this.queue = queue;
        this.handlers = Map.copyOf(handlers);
        this.concurrency = concurrency;
        this.settings = settings;
        this.store = store;
        this.metrics = metrics;
        this.workerId = workerId;
    }

    @Override
    public String id() {
        return id;
    }

    @Override
    public String queue() {
        return queue;
    }

    @Override
    public int concurrency() {
        return concurrency;
    }

    /** The job types this container runs. */
    public List<String> types() {
        return handlers.keySet().stream().sorted().toList();
    }

    public String workerId() {
        return workerId;
    }

    /** Jobs leased to this container right now (running or fetched ahead). */
    public int heldJobs() {
        return held.size();
    }

    @Override
    protected void doStart() {
        forced = false;
        permits = new Semaphore(concurrency + settings.prefetch());
        AtomicInteger workerNumber = new AtomicInteger();
        workers = new ThreadPoolExecutor(concurrency, concurrency, 0, TimeUnit.MILLISECONDS,
                new LinkedBlockingQueue<>(), runnable -> daemon(runnable, "pgvs3-" + id + "-" + workerNumber.getAndIncrement()));
        heartbeats = Executors.newSingleThreadScheduledExecutor(runnable -> daemon(runnable, "pgvs3-" + id + "-heartbeat"));
        long interval = settings.heartbeatInterval().toMillis();
        heartbeats.scheduleWithFixedDelay(this::heartbeat, interval, interval, TimeUnit.MILLISECONDS);
        fetcher = daemon(this::fetch, "pgvs3-" + id + "-fetcher");
        fetcher.start();
        log.debug("Started job handler container {} on {} for {} with concurrency {}", id, queue, types(), concurrency);
    }

    @Override
    protected void doStop(long deadlineNanos, Duration timeout) {
        joinUntil(fetcher, deadlineNanos);
        List<Runnable> notStarted = new ArrayList<>();
        workers.getQueue().drainTo(notStarted);
        for (Runnable task : notStarted) {
            release(((JobTask) task).job());
        }
        workers.shutdown();
        if (!awaitWorkers(deadlineNanos)) {
            log.warn("Job handlers of {} did not finish within {}; interrupting them and releasing their jobs", id,
                    timeout);
            forced = true;
            workers.shutdownNow();
            awaitWorkers(System.nanoTime() + TimeUnit.SECONDS.toNanos(5));
        }
        heartbeats.shutdownNow();
        for (Job job : List.copyOf(held.values())) {
            release(job);
        }
    }

    private boolean awaitWorkers(long deadlineNanos) {
        try {
            return workers.awaitTermination(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private void fetch() {
        IdlePolicy idle = polling.newIdlePolicy();
        List<String> queues = List.of(queue);
        while (isRunning()) {
            long seen = wakeUps();
            try {
                if (waitWhilePaused(seen)
                        || !permits.tryAcquire(polling.listenPollInterval().toMillis(), TimeUnit.MILLISECONDS)) {
                    continue;
                }
                int count = 1 + permits.drainPermits();
                List<Job> jobs;
                try {
                    jobs = store.fetch(queues, count, workerId, settings.visibilityTimeout());
                }
                catch (RuntimeException ex) {
                    permits.release(count);
                    log.warn("Job handler container {} failed to fetch from {}: {}", id, queue, ex.toString());
                    pauseAfterError(seen);
                    continue;
                }
                permits.release(count - jobs.size());
                for (Job job : jobs) {
                    held.put(job.id(), job);
                    workers.execute(new JobTask(job));
                }
                if (jobs.isEmpty()) {
                    awaitWork(idle, seen);
                }
                else {
                    idle.reset();
                }
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private void run(Job job) {
        JobHandlerMethodAdapter handler = handlers.get(job.type());
        long start = System.nanoTime();
        try {
            if (handler == null) {
                throw new IllegalStateException("No @JobHandler for job type '" + job.type() + "' on queue " + queue);
            }
            String result = handler.invoke(job, new JobContext(job, workerId));
            metrics.handled("job", job.type(), queue, Duration.ofNanos(System.nanoTime() - start), true);
            acknowledge(job, result);
        }
        catch (RuntimeException | Error ex) {
            metrics.handled("job", job.type(), queue, Duration.ofNanos(System.nanoTime() - start), false);
            if (forced) {
                return;
            }
            fail(job, ex);
        }
    }

    private void fail(Job job, Throwable error) {
        try {
            store.nack(job.id(), workerId, jobError(error), false);
            metrics.jobFinished(queue, job.type(), "failed");
            log.debug("Job {} of type {} failed", job.id(), job.type(), error);
        }
        catch (RuntimeException ex) {
            log.warn("Could not record the failure of job {}: {}", job.id(), ex.toString());
        }
        finally {
            finished(job);
        }
    }

    static JobError jobError(Throwable error) {
        String message = error.getMessage() == null ? error.getClass().getName() : error.getMessage();
        boolean retryable = !(error instanceof MessageConversionException);
        return JobError.of(error.getClass().getSimpleName(), message, retryable,
                "{\"error_class\":\"" + error.getClass().getName() + "\"}");
    }

    private void acknowledge(Job job, String result) {
        try {
            store.ack(job.id(), workerId, result);
            metrics.jobFinished(queue, job.type(), "completed");
        }
        catch (RuntimeException ex) {
            log.warn("Could not acknowledge job {}: {}", job.id(), ex.toString());
        }
        finally {
            finished(job);
        }
    }

    private void finished(Job job) {
        if (held.remove(job.id()) != null) {
            permits.release();
        }
    }

    private void release(Job job) {
        try {
            store.release(job.id(), workerId);
            metrics.jobFinished(queue, job.type(), "released");
        }
        catch (RuntimeException ex) {
            log.warn("Could not release job {}: {}", job.id(), ex.toString());
        }
        finally {
            finished(job);
        }
    }

    private void heartbeat() {
        List<String> ids = List.copyOf(held.keySet());
        if (ids.isEmpty()) {
            return;
        }
        try {
            store.heartbeat(workerId, ids, settings.visibilityTimeout());
        }
        catch (RuntimeException ex) {
            log.warn("Heartbeat of {} jobs in {} failed: {}", ids.size(), id, ex.toString());
        }
    }

    private final class JobTask implements Runnable {

        private final Job job;

        JobTask(Job job) {
            this.job = job;
        }

        Job job() {
            return job;
        }

        @Override
        public void run() {
            JobHandlerContainer.this.run(job);
        }
    }

    @Override
    public String toString() {
        return "JobHandlerContainer[" + id + " " + queue + " " + types() + "]";
    }
}
