package io.pgvs3.core.job;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import io.pgvs3.core.catalog.QueueName;

/**
 * The queues of the jobs this store handed out most recently, so that an ack by job id alone can go straight to the
 * queue's own {@code ack} instead of through {@code s3p.ack_jobs}, which looks the job up in the locator and runs a
 * dynamic statement that PostgreSQL parses and plans again on every call. Only a hint: a job that is not in the
 * remembered queue is acked the general way. Bounded; the oldest entries (jobs whose ack never came here) go first.
 */
final class FetchedJobs {

    static final int CAPACITY = 16_384;

    private final Map<UUID, QueueName> queues = new LinkedHashMap<>(256, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<UUID, QueueName> eldest) {
            return size() > CAPACITY;
        }
    };

    void remember(List<Job> jobs) {
        synchronized (queues) {
            for (Job job : jobs) {
                queues.put(UUID.fromString(job.id()), QueueName.of(job.queue()));
            }
        }
    }

    /** The queue a job was fetched from, forgetting it; null when this store did not hand it out recently. */
    QueueName take(UUID id) {
        synchronized (queues) {
            return queues.remove(id);
        }
    }

    void forget(QueueName queue) {
        synchronized (queues) {
            queues.values().removeIf(queue::equals);
        }
    }
}
