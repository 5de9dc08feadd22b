package io.pgvs3.spring.listener;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.pgvs3.core.job.Job;
import io.pgvs3.core.job.JobStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The jobs leased to a job handler container (running, fetched ahead, or finished with their ack not yet
 * committed), and the heartbeat that renews their leases.
 */
final class HeldJobs {

    // the container's category, where these lines were always logged
    private static final Logger log = LoggerFactory.getLogger(JobHandlerContainer.class);

    private final String id;
    private final String workerId;
    private final JobContainerSettings settings;
    private final JobStore store;
    private final Map<String, HeldJob> held = new ConcurrentHashMap<>();

    HeldJobs(String id, String workerId, JobContainerSettings settings, JobStore store) {
        this.id = id;
        this.workerId = workerId;
        this.settings = settings;
        this.store = store;
    }

    /** Holds a job whose lease was taken at {@code leasedAt} ({@link System#nanoTime()}). */
    void hold(Job job, long leasedAt) {
        held.put(job.id(), new HeldJob(job, leasedAt));
    }

    /** Lets go of a job; false when it was not held (any more). */
    boolean remove(Job job) {
        return held.remove(job.id()) != null;
    }

    int size() {
        return held.size();
    }

    List<Job> jobs() {
        return held.values().stream().map(HeldJob::job).toList();
    }

    /**
     * Renews the leases that would run out before the heartbeat after next; younger ones are left alone, so a job
     * that finishes within a few heartbeat intervals costs no lease write.
     */
    void heartbeat() {
        long now = System.nanoTime();
        long renewAfter = settings.visibilityTimeout().minus(settings.heartbeatInterval().multipliedBy(2)).toNanos();
        List<String> ids = held.values().stream()
                .filter(job -> now - job.leasedAt() >= renewAfter)
                .map(job -> job.job().id())
                .toList();
        if (ids.isEmpty()) {
            return;
        }
        try {
            for (String extended : store.heartbeat(workerId, ids, settings.visibilityTimeout()).extendedJobIds()) {
                held.computeIfPresent(extended, (key, job) -> new HeldJob(job.job(), now));
            }
        }
        catch (RuntimeException ex) {
            log.warn("Heartbeat of {} jobs in {} failed: {}", ids.size(), id, ex.toString());
        }
    }

    /** A job leased to the container, with when its lease was last taken or renewed ({@link System#nanoTime()}). */
    private record HeldJob(Job job, long leasedAt) {
    }
}
