package io.pgvs3.spring.listener;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.function.Consumer;

import io.pgvs3.core.job.AckResult;
import io.pgvs3.core.job.Job;
import io.pgvs3.core.job.JobCompletion;
import io.pgvs3.core.job.JobStore;
import io.pgvs3.spring.metrics.Pgvs3Metrics;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A job handler container's acker thread: handler threads hand it the jobs they finished and take the next job at
 * once; it completes every acknowledgement waiting at each moment in one statement and one commit, so acks share
 * commits however fast handlers finish. One per start of the container.
 */
final class JobAcker {

    // the container's category, where these lines were always logged
    private static final Logger log = LoggerFactory.getLogger(JobHandlerContainer.class);

    private final String id;
    private final String queue;
    private final String workerId;
    private final JobStore store;
    private final Pgvs3Metrics metrics;
    /** Called for every job whose ack was tried, committed or not: it no longer counts as held. */
    private final Consumer<Job> finished;
    private final BlockingQueue<Completion> completions = new LinkedBlockingQueue<>();
    private final Thread thread;

    JobAcker(String id, String queue, String workerId, JobStore store, Pgvs3Metrics metrics, Consumer<Job> finished) {
        this.id = id;
        this.queue = queue;
        this.workerId = workerId;
        this.store = store;
        this.metrics = metrics;
        this.finished = finished;
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
            List<AckResult> results = store.ackAll(queue, acks);
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

    /** A finished job waiting for its ack to commit; {@link #END} tells the acker to stop once it got here. */
    private record Completion(Job job, String result) {

        static final Completion END = new Completion(null, null);
    }
}
