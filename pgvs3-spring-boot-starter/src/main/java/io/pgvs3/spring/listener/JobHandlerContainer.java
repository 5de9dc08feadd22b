package io.pgvs3.spring.listener;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.pgvs3.core.job.Job;
import io.pgvs3.core.job.JobError;
import io.pgvs3.core.job.JobState;
import io.pgvs3.core.job.JobStore;
import io.pgvs3.core.notify.NotificationHub;
import io.pgvs3.spring.metrics.Pgvs3Metrics;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.util.backoff.FixedBackOff;

/**
 * Runs the {@code @JobHandler} methods of one queue.
 * <p>
 * One fetcher thread claims jobs while handler threads are free (plus a bounded prefetch) and handler threads run
 * them. A handler thread that finishes a job hands its acknowledgement to the container's acker thread
 * ({@link JobAcker}) and takes the next job at once; the acker completes every acknowledgement waiting at that moment
 * in one statement and one commit, so acks share commits however fast handlers finish. A job counts as held, and its
 * lease is renewed, until its ack has committed ({@link HeldJobs}). Heartbeats renew only leases that would otherwise
 * run out before the next heartbeat but one, so a job that finishes quickly is written twice: claimed and completed.
 * A handler exception nacks the job with the error recorded; the job's retry policy decides what happens next. On
 * stop the fetcher stops, jobs not started are released at once, running jobs get the shutdown timeout to finish, the
 * acks of finished jobs are committed, and the leases of any still running are released, so no job waits for its
 * lease to expire.
 */
public class JobHandlerContainer extends AbstractPgvs3ListenerContainer {

    private static final Logger log = LoggerFactory.getLogger(JobHandlerContainer.class);

    private static final long PERMIT_WAIT_MILLIS = 50;

    private final String id;
    private final String queue;
    private final Map<String, JobHandlerMethodAdapter> handlers;
    private final Map<String, ListenerErrorHandler> errorHandlers;
    private final ListenerErrorHandler defaultErrorHandler;
    private final int concurrency;
    private final JobContainerSettings settings;
    private final JobStore store;
    private final Pgvs3Metrics metrics;
    private final String workerId;

    private volatile boolean forced;
    /**
     * Set once a release found the database unreachable: each further release would wait for a connection as long
     * as the pool's timeout, one job after another, and hold up the stop; their leases hand those jobs out again.
     */
    private volatile boolean releasesAbandoned;
    private final HeldJobs held;
    private Semaphore permits;
    private ThreadPoolExecutor workers;
    private ScheduledExecutorService heartbeats;
    private Thread fetcher;
    private JobAcker acker;

    public JobHandlerContainer(String id, String queue, Map<String, JobHandlerMethodAdapter> handlers,
            int concurrency, JobContainerSettings settings, JobStore store, NotificationHub notifications,
            PollingSettings polling, Pgvs3Metrics metrics, String workerId) {
        this(id, queue, handlers, Map.of(), new DefaultListenerErrorHandler(new FixedBackOff(0, Long.MAX_VALUE)),
                concurrency, settings, store, notifications, polling, metrics, workerId);
    }

    /**
     * @param errorHandlers       the error handler of each job type that has one of its own
     * @param defaultErrorHandler the error handler of the other types
     */
    public JobHandlerContainer(String id, String queue, Map<String, JobHandlerMethodAdapter> handlers,
            Map<String, ListenerErrorHandler> errorHandlers, ListenerErrorHandler defaultErrorHandler,
            int concurrency, JobContainerSettings settings, JobStore store, NotificationHub notifications,
            PollingSettings polling, Pgvs3Metrics metrics, String workerId) {
        super(notifications, polling);
        this.id = id;
        this.queue = queue;
        this.handlers = Map.copyOf(handlers);
        this.errorHandlers = Map.copyOf(errorHandlers);
        this.defaultErrorHandler = defaultErrorHandler;
        this.concurrency = concurrency;
        this.settings = settings;
        this.store = store;
        this.metrics = metrics;
        this.workerId = workerId;
        this.held = new HeldJobs(id, workerId, settings, store);
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
        releasesAbandoned = false;
        permits = new Semaphore(concurrency + settings.prefetch());
        AtomicInteger workerNumber = new AtomicInteger();
        workers = new ThreadPoolExecutor(concurrency, concurrency, 0, TimeUnit.MILLISECONDS,
                new LinkedBlockingQueue<>(), runnable -> daemon(runnable, "pgvs3-" + id + "-" + workerNumber.getAndIncrement()));
        heartbeats = Executors.newSingleThreadScheduledExecutor(runnable -> daemon(runnable, "pgvs3-" + id + "-heartbeat"));
        long interval = settings.heartbeatInterval().toMillis();
        heartbeats.scheduleWithFixedDelay(held::heartbeat, interval, interval, TimeUnit.MILLISECONDS);
        acker = new JobAcker(id, queue, workerId, store, metrics, settings.visibilityTimeout(), this::finished);
        acker.start();
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
            abandon();
            workers.shutdownNow();
            if (!awaitWorkers(System.nanoTime() + TimeUnit.SECONDS.toNanos(5))) {
                log.error("Job handlers of {} ignore the interrupt and are still running; their jobs are released",
                        id);
            }
        }
        acker.stop(Math.max(deadlineNanos, System.nanoTime() + TimeUnit.SECONDS.toNanos(5)));
        heartbeats.shutdownNow();
        for (Job job : held.jobs()) {
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
                // a short wait for a free slot, so that a stop is seen at once while every handler is busy
                if (waitWhilePaused(seen) || !permits.tryAcquire(PERMIT_WAIT_MILLIS, TimeUnit.MILLISECONDS)) {
                    continue;
                }
                if (!isRunning()) {
                    permits.release();
                    return;
                }
                int count = 1 + permits.drainPermits();
                long leasedAt = System.nanoTime();
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
                    held.hold(job, leasedAt);
                    workers.execute(new JobTask(job));
                }
                if (!jobs.isEmpty()) {
                    idle.reset();
                }
                if (jobs.size() < count) {
                    // the claim took every job it could see: fetching again at once would find none, so wait for
                    // the next wake-up (one that came during the claim ends the wait at once)
                    awaitWork(idle, seen);
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
            acker.acknowledge(job, result);
        }
        catch (RuntimeException | Error ex) {
            metrics.handled("job", job.type(), queue, Duration.ofNanos(System.nanoTime() - start), false);
            if (forced) {
                return;
            }
            fail(job, ex);
        }
    }

    /**
     * Asks the type's error handler what follows a failed attempt, then fails the job: retryable (the job's retry
     * policy decides when) or not (discarded, or dead-lettered as its policy says). Logs one line per failure.
     */
    private void fail(Job job, Throwable thrown) {
        Throwable error = unwrap(thrown);
        DeliveryFailure delivery = new DeliveryFailure(DeliveryFailure.Kind.JOB, id, queue, job.type(), job.id(),
                job.attempt(), job.maxAttempts(), error, job);
        FailureAction action;
        try {
            action = errorHandlers.getOrDefault(job.type(), defaultErrorHandler).handle(delivery);
        }
        catch (RuntimeException ex) {
            log.error("Error handler of job type {} failed on job {}: {}", job.type(), job.id(), ex.toString());
            action = FailureAction.retry(Duration.ZERO);
        }
        boolean retry = action.kind() == FailureAction.Kind.RETRY;
        try {
            Job failed = store.nack(job.id(), workerId, jobError(error, retry), false);
            metrics.jobFinished(queue, job.type(), "failed");
            if (failed.state() == JobState.RETRYABLE && failed.scheduledAt() != null) {
                wakeUpAt(failed.scheduledAt());
            }
            String next = switch (failed.state()) {
                case RETRYABLE, SCHEDULED, AVAILABLE -> "retried by its retry policy";
                case DISCARDED -> action.kind() == FailureAction.Kind.RECOVERED ? "recovered and discarded"
                        : "discarded" + (retry ? ": attempts exhausted" : "");
                default -> failed.state().wireValue();
            };
            log.warn("Job handler {} failed on job {} (queue {}, type {}, attempt {} of {}): {}; {}", id, job.id(),
                    queue, job.type(), job.attempt(), job.maxAttempts(), error.toString(), next);
            if (log.isDebugEnabled()) {
                log.debug("Failure of job " + job.id(), error);
            }
        }
        catch (RuntimeException ex) {
            log.warn("Could not record the failure of job {}: {}", job.id(), ex.toString());
        }
        finally {
            finished(job);
        }
    }

    /**
     * Fetches again when a retry this container scheduled comes due (the fetch makes due jobs available), instead
     * of at the next idle poll; a second wake-up a little later covers a clock that runs ahead of the database's.
     */
    private void wakeUpAt(Instant due) {
        ScheduledExecutorService scheduler = heartbeats;
        long delay = Math.max(0, Duration.between(Instant.now(), due).toMillis());
        if (scheduler == null || delay > polling.maxPollInterval().toMillis() * 10) {
            return;
        }
        try {
            scheduler.schedule(this::wakeUp, delay + 2, TimeUnit.MILLISECONDS);
            scheduler.schedule(this::wakeUp, delay + 30, TimeUnit.MILLISECONDS);
        }
        catch (RejectedExecutionException ex) {
            // stopping: nothing to wake
        }
    }

    static JobError jobError(Throwable error, boolean retryable) {
        String message = error.getMessage() == null ? error.getClass().getName() : error.getMessage();
        return JobError.of(error.getClass().getSimpleName(), message, retryable,
                "{\"error_class\":\"" + error.getClass().getName() + "\"}");
    }

    private void finished(Job job) {
        if (held.remove(job)) {
            permits.release();
        }
    }

    private void release(Job job) {
        try {
            if (!releasesAbandoned) {
                store.release(job.id(), workerId);
                metrics.jobFinished(queue, job.type(), "released");
            }
        }
        catch (DataAccessResourceFailureException ex) {
            releasesAbandoned = true;
            log.warn("Could not release job {} ({}); the jobs {} still holds are left to their leases", job.id(),
                    ex.toString(), id);
        }
        catch (RuntimeException ex) {
            log.warn("Could not release job {}: {}", job.id(), ex.toString());
        }
        finally {
            finished(job);
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
            if (!isRunning()) {
                // fetched ahead, not started before the stop: handed back at once instead of started
                release(job);
                return;
            }
            JobHandlerContainer.this.run(job);
        }
    }

    @Override
    public String toString() {
        return "JobHandlerContainer[" + id + " " + queue + " " + types() + "]";
    }
}
