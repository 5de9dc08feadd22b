package io.pgvs3.spring.listener;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import io.pgvs3.core.job.AckResult;
import io.pgvs3.core.job.Job;
import io.pgvs3.core.job.JobCompletion;
import io.pgvs3.core.job.JobState;
import io.pgvs3.core.job.JobStore;
import io.pgvs3.spring.metrics.Pgvs3Metrics;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.dao.RecoverableDataAccessException;
import org.springframework.dao.TransientDataAccessException;

/**
 * A job handler container's acker thread: handler threads hand it the jobs they finished and take the next job at
 * once; it completes every acknowledgement waiting at each moment in one statement and one commit, so acks share
 * commits however fast handlers finish. One per start of the container.
 * <p>
 * An ack that fails for a reason that may pass (a deadlock victim, a lost connection, a pool that had no connection
 * free) is tried again, with a growing pause, for as long as the leases last: the jobs stay held meanwhile, so their
 * leases are renewed, and a finished job is not run a second time because one commit failed.
 */
final class JobAcker {

    // the container's category, where these lines were always logged
    private static final Logger log = LoggerFactory.getLogger(JobHandlerContainer.class);

    private static final long FIRST_RETRY_PAUSE_MILLIS = 20;
    private static final long MAX_RETRY_PAUSE_MILLIS = 1000;

    private final String id;
    private final String queue;
    private final String workerId;
    private final JobStore store;
    private final Pgvs3Metrics metrics;
    /** Called for every job whose ack was tried, committed or not: it no longer counts as held. */
    private final Consumer<Job> finished;
    private final BlockingQueue<Completion> completions = new LinkedBlockingQueue<>();
    private final Thread thread;
    /** How long a failing ack is tried again: the lease of the jobs it completes. */
    private final long retryNanos;
    /** {@link System#nanoTime()} after which a failing ack is no longer tried again: set by {@link #stop}. */
    private volatile long stopDeadlineNanos = Long.MAX_VALUE;

    JobAcker(String id, String queue, String workerId, JobStore store, Pgvs3Metrics metrics, Duration retryFor,
            Consumer<Job> finished) {
        this.id = id;
        this.queue = queue;
        this.workerId = workerId;
        this.store = store;
        this.metrics = metrics;
        this.finished = finished;
        this.retryNanos = retryFor.toNanos();
        this.thread = AbstractPgvs3ListenerContainer.daemon(this::acknowledgeCompleted, "pgvs3-" + id + "-acker");
    }

    void start() {
        thread.start();
    }

    /** Hands a finished job's ack, with its result, to the acker. */
    void acknowledge(Job job, String result) {
        completions.add(new Completion(job, result));
    }

    /** Commits what was handed over so far, then ends; waits for it until {@code deadlineNanos}. */
    void stop(long deadlineNanos) {
        stopDeadlineNanos = deadlineNanos;
        completions.add(Completion.END);
        AbstractPgvs3ListenerContainer.joinUntil(thread, deadlineNanos);
    }

    /** The acker thread: completes the acks waiting at each moment together, until the end marker. */
    private void acknowledgeCompleted() {
        int maxBatch = store.settings().maxAckBatch();
        List<Completion> batch = new ArrayList<>();
        boolean ended = false;
        while (!ended) {
            try {
                batch.add(completions.take());
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                return;
            }
            completions.drainTo(batch, maxBatch - 1);
            ended = batch.remove(Completion.END);
            if (!batch.isEmpty()) {
                commit(batch);
            }
            batch.clear();
        }
    }

    private void commit(List<Completion> batch) {
        List<JobCompletion> acks = batch.stream()
                .map(completion -> new JobCompletion(completion.job().id(), workerId, completion.result()))
                .toList();
        try {
            List<AckResult> results = ackRetryingTransientFailures(acks);
            if (results == null) {
                return;
            }
            Map<String, Integer> completedByType = new HashMap<>();
            for (int i = 0; i < batch.size(); i++) {
                Job job = batch.get(i).job();
                if (results.get(i).acknowledged()) {
                    completedByType.merge(job.type(), 1, Integer::sum);
                }
                else {
                    log.warn("Could not acknowledge job {}: it is {}", job.id(), results.get(i).job() == null
                            ? "gone" : results.get(i).job().state().wireValue() + " under another lease or state");
                }
            }
            completedByType.forEach((type, count) -> metrics.jobsFinished(queue, type, "completed", count));
        }
        catch (RuntimeException ex) {
            log.warn("Could not acknowledge {} jobs of {}: {}", batch.size(), id, ex.toString());
        }
        finally {
            for (Completion completion : batch) {
                finished.accept(completion.job());
            }
        }
    }

    /**
     * The acks' results; tried again after a failure that may pass, until the leases would run out or the container
     * stops. Null when it gave up (logged); a failure of another kind is thrown at once.
     */
    private List<AckResult> ackRetryingTransientFailures(List<JobCompletion> acks) {
        long giveUpAt = System.nanoTime() + retryNanos;
        long pauseMillis = FIRST_RETRY_PAUSE_MILLIS;
        boolean retried = false;
        while (true) {
            try {
                List<AckResult> results = store.ackAll(queue, acks);
                return retried ? completedByTheFailedTry(results) : results;
            }
            catch (TransientDataAccessException | RecoverableDataAccessException
                    | DataAccessResourceFailureException ex) {
                long now = System.nanoTime();
                if (now + TimeUnit.MILLISECONDS.toNanos(pauseMillis) >= Math.min(giveUpAt, stopDeadlineNanos)) {
                    log.warn("Could not acknowledge {} jobs of {}, gave up after retrying: {}; they run again when "
                            + "their leases expire", acks.size(), id, ex.toString());
                    return null;
                }
                if (!retried) {
                    log.info("Acknowledging {} jobs of {} failed, trying again: {}", acks.size(), id, ex.toString());
                }
                retried = true;
                try {
                    Thread.sleep(pauseMillis);
                }
                catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    return null;
                }
                pauseMillis = Math.min(pauseMillis * 2, MAX_RETRY_PAUSE_MILLIS);
            }
        }
    }

    /** Counts a job found completed as acknowledged: a try whose connection failed may have committed first. */
    private List<AckResult> completedByTheFailedTry(List<AckResult> results) {
        return results.stream()
                .map(result -> !result.acknowledged() && result.job() != null
                        && result.job().state() == JobState.COMPLETED
                        ? new AckResult(result.jobId(), result.job(), true) : result)
                .toList();
    }

    /** A finished job waiting for its ack to commit; {@link #END} tells the acker to stop once it got here. */
    private record Completion(Job job, String result) {

        static final Completion END = new Completion(null, null);
    }
}
