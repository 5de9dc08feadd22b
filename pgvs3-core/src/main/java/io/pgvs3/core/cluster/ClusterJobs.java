package io.pgvs3.core.cluster;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.pgvs3.core.catalog.QueueName;
import io.pgvs3.core.job.HeartbeatResult;
import io.pgvs3.core.job.Job;

/**
 * The job operations that may involve several clusters at once: a fetch over queues on different clusters, a
 * heartbeat for jobs on different clusters, and the dead letters of all queues. With one cluster each is the
 * default cluster's store call, unchanged.
 */
public class ClusterJobs {

    private final ClusterRouter router;

    public ClusterJobs(ClusterRouter router) {
        this.router = router;
    }

    /**
     * Claims up to {@code count} jobs. The clusters are visited in the order of the first requested queue each
     * holds, and each cluster drains its queues in the order requested; a cluster is asked for what the clusters
     * before it did not fill.
     */
    public List<Job> fetch(List<String> queues, int count, String workerId, Duration visibilityTimeout) {
        if (router.isSingle() || queues == null || queues.isEmpty()) {
            return router.defaultCluster().jobs().fetch(queues, count, workerId, visibilityTimeout);
        }
        queues.forEach(QueueName::of);
        Map<Cluster, List<String>> grouped = router.byCluster(queues);
        if (grouped.size() == 1) {
            Map.Entry<Cluster, List<String>> only = grouped.entrySet().iterator().next();
            return only.getKey().jobs().fetch(only.getValue(), count, workerId, visibilityTimeout);
        }
        List<Job> jobs = new ArrayList<>();
        for (Map.Entry<Cluster, List<String>> entry : grouped.entrySet()) {
            int wanted = count - jobs.size();
            if (wanted <= 0) {
                break;
            }
            jobs.addAll(entry.getKey().jobs().fetch(entry.getValue(), wanted, workerId, visibilityTimeout));
        }
        return jobs;
    }

    /**
     * Extends the leases of the given jobs wherever they are: every cluster is asked, and extends those of its jobs
     * the worker holds. The directive is the strongest any cluster gave (terminate, then quiet, then running).
     */
    public HeartbeatResult heartbeat(String workerId, List<String> jobIds, Duration visibilityTimeout) {
        if (router.isSingle()) {
            return router.defaultCluster().jobs().heartbeat(workerId, jobIds, visibilityTimeout);
        }
        Set<String> extended = new LinkedHashSet<>();
        Set<String> directives = new LinkedHashSet<>();
        for (Cluster cluster : router.clusters()) {
            HeartbeatResult result = cluster.jobs().heartbeat(workerId, jobIds, visibilityTimeout);
            extended.addAll(result.extendedJobIds());
            directives.add(result.directive());
        }
        String directive = directives.contains(HeartbeatResult.TERMINATE) ? HeartbeatResult.TERMINATE
                : directives.contains(HeartbeatResult.QUIET) ? HeartbeatResult.QUIET : HeartbeatResult.RUNNING;
        return new HeartbeatResult(directive, List.copyOf(extended));
    }

    /**
     * Dead-lettered jobs of one queue (on its cluster), or of all queues when {@code queue} is null: then every
     * cluster's first {@code offset + limit} are merged oldest first (by completion, then id) before the page is cut.
     */
    public List<Job> deadLetter(String queue, int limit, int offset) {
        if (queue != null || router.isSingle()) {
            return router.forQueue(queue).deadLetters().list(queue, limit, offset);
        }
        List<Job> merged = new ArrayList<>();
        for (Cluster cluster : router.clusters()) {
            merged.addAll(cluster.deadLetters().list(null, offset + limit, 0));
        }
        merged.sort(Comparator.comparing(Job::completedAt, Comparator.nullsLast(Comparator.naturalOrder()))
                .thenComparing(Job::id));
        return merged.subList(Math.min(offset, merged.size()), Math.min(offset + limit, merged.size()));
    }
}
