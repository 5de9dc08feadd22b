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

import io.pgvs3.core.catalog.QueueName;
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
public class JobHandlerContainer implements Pgvs3ListenerContainer {

    private static final Logger log = LoggerFactory.getLogger(JobHandlerContainer.class);

    private static final Duration ERROR_PAUSE = Duration.ofSeconds(1);

    private final String id;
    private final String queue;
    private final Map<String, JobHandlerMethodAdapter> handlers;
    private final int concurrency;
    private final JobContainerSettings settings;
    private final JobStore store;
    private final NotificationHub notifications;
    private final PollingSettings polling;
    private final Pgvs3Metrics metrics;
    private final String workerId;
    private final WakeUpSignal signal = new WakeUpSignal();

    private final Object lifecycleMonitor = new Object();
    private volatile boolean running;
    private volatile boolean paused;
    private volatile boolean forced;
    private final Map<String, Job> held = new ConcurrentHashMap<>();
    private Semaphore permits;
    private ThreadPoolExecutor workers;
    private ScheduledExecutorService heartbeats;
    private Thread fetcher;
    private NotificationHub.Registration registration;

    public JobHandlerContainer(String id, String queue, Map<String, JobHandlerMethodAdapter> handlers,
            int concurrency, JobContainerSettings settings, JobStore store, NotificationHub notifications,
            PollingSettings polling, Pgvs3Metrics metrics, String workerId) {
        this.id = id;
        this.queue = queue;
        this.handlers = Map.copyOf(handlers);
        this.concurrency = concurrency;
        this.settings = settings;
        this.store = store;
        this.notifications = polling.listen() ? notifications : null;
        this.polling = polling;
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
    public void start() {
        synchronized (lifecycleMonitor) {
            if (running) {
                return;
            }
            forced = false;
            permits = new Semaphore(concurrency + settings.prefetch());
            AtomicInteger workerNumber = new AtomicInteger();
            workers = new ThreadPoolExecutor(concurrency, concurrency, 0, TimeUnit.MILLISECONDS,
                    new LinkedBlockingQueue<>(), runnable -> daemon(runnable,
                            "pgvs3-" + id + "-" + workerNumber.getAndIncrement()));
            heartbeats = Executors.newSingleThreadScheduledExecutor(
                    runnable -> daemon(runnable, "pgvs3-" + id + "-heartbeat"));
            long interval = settings.heartbeatInterval().toMillis();
            heartbeats.scheduleWithFixedDelay(this::heartbeat, interval, interval, TimeUnit.MILLISECONDS);
            if (notifications != null) {
                registration = notifications.listen(NotificationHub.channelFor(QueueName.of(queue)), signal::signal);
            }
            running = true;
            fetcher = daemon(this::fetch, "pgvs3-" + id + "-fetcher");
            fetcher.start();
            log.debug("Started job handler container {} on {} for {} with concurrency {}", id, queue, types(),
                    concurrency);
        }
    }

    private static Thread daemon(Runnable runnable, String name) {
        Thread thread = new Thread(runnable, name);
        thread.setDaemon(true);
        return thread;
    }

    @Override
    public void stop(Duration timeout) {
        synchronized (lifecycleMonitor) {
            if (!running) {
                return;
            }
            long deadline = System.nanoTime() + timeout.toNanos();
            running = false;
            if (registration != null) {
                registration.close();
                registration = null;
            }
            signal.signal();
            join(fetcher, deadline);
            List<Runnable> notStarted = new ArrayList<>();
            workers.getQueue().drainTo(notStarted);
            for (Runnable task : notStarted) {
                release(((JobTask) task).job());
            }
            workers.shutdown();
            if (!awaitWorkers(deadline)) {
                log.warn("Job handlers of {} did not finish within {}; interrupting them and releasing their jobs",
                        id, timeout);
                forced = true;
                workers.shutdownNow();
                awaitWorkers(System.nanoTime() + TimeUnit.SECONDS.toNanos(5));
            }
            heartbeats.shutdownNow();
            for (Job job : List.copyOf(held.values())) {
                release(job);
            }
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

    private static void join(Thread thread, long deadlineNanos) {
        try {
            thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime())));
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void pause() {
        paused = true;
    }

    @Override
    public void resume() {
        paused = false;
        signal.signal();
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    @Override
    public boolean isPaused() {
        return paused;
    }

    @Override
    public void wakeUp() {
        signal.signal();
    }

    private void fetch() {
        IdlePolicy idle = polling.newIdlePolicy();
        List<String> queues = List.of(queue);
        while (running) {
            long seen = signal.generation();
            try {
                if (paused) {
                    signal.await(seen, polling.listenPollInterval().toNanos());
                    continue;
                }
                if (!permits.tryAcquire(polling.listenPollInterval().toMillis(), TimeUnit.MILLISECONDS)) {
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
                    signal.await(seen, ERROR_PAUSE.toNanos());
                    continue;
                }
                permits.release(count - jobs.size());
                for (Job job : jobs) {
                    held.put(job.id(), job);
                    workers.execute(new JobTask(job));
                }
                if (jobs.isEmpty()) {
                    boolean listening = notifications != null && notifications.isConnected();
                    signal.await(seen, idle.nextWaitNanos(listening));
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
