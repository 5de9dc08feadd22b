package io.pgvs3.core.cluster;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

import io.pgvs3.core.error.ErrorCode;
import io.pgvs3.core.error.Pgvs3Exception;
import io.pgvs3.core.job.Job;
import io.pgvs3.core.job.JobStore;
import io.pgvs3.core.job.NewJob;

/**
 * Resolves a queue to the cluster that holds it: an exact queue name first, then the patterns in the order they were
 * configured (the first that matches wins), and the {@link Cluster#DEFAULT default} cluster for every queue no route
 * claims. With no other cluster, every lookup answers the default cluster without looking at the name.
 */
public final class ClusterRouter {

    private final Cluster defaultCluster;
    private final List<Cluster> clusters;
    private final Map<String, Cluster> byName;
    private final Map<String, Cluster> exact;
    private final List<Map.Entry<QueueRoute, Cluster>> patterns;
    private final boolean single;

    /**
     * @param defaultCluster the application's cluster, named {@code default}
     * @param others         the other clusters, in configuration order
     * @param routes         the routes, in configuration order; each must name one of {@code others}
     * @throws IllegalArgumentException for a cluster named twice, a route to an unknown cluster, or a queue name or
     *                                  pattern routed to two clusters
     */
    public ClusterRouter(Cluster defaultCluster, List<Cluster> others, List<QueueRoute> routes) {
        if (!defaultCluster.isDefault()) {
            throw new IllegalArgumentException("the default cluster must be named '" + Cluster.DEFAULT + "', not '"
                    + defaultCluster.name() + "'");
        }
        this.defaultCluster = defaultCluster;
        Map<String, Cluster> named = new LinkedHashMap<>();
        named.put(Cluster.DEFAULT, defaultCluster);
        for (Cluster cluster : others) {
            if (named.putIfAbsent(cluster.name(), cluster) != null) {
                throw new IllegalArgumentException("cluster '" + cluster.name() + "' is configured twice"
                        + (cluster.isDefault() ? " ('default' is the application's own DataSource)" : ""));
            }
        }
        this.byName = Map.copyOf(named);
        this.clusters = List.copyOf(named.values());
        Map<String, Cluster> exactRoutes = new HashMap<>();
        Map<String, String> claimed = new HashMap<>();
        List<Map.Entry<QueueRoute, Cluster>> patternRoutes = new ArrayList<>();
        for (QueueRoute route : routes) {
            Cluster target = named.get(route.cluster());
            if (target == null) {
                throw new IllegalArgumentException("queue route '" + route.pattern() + "' names unknown cluster '"
                        + route.cluster() + "' (known: " + String.join(", ", named.keySet()) + ")");
            }
            String previous = claimed.putIfAbsent(route.pattern(), route.cluster());
            if (previous != null && !previous.equals(route.cluster())) {
                throw new IllegalArgumentException("queue " + (route.isExact() ? "name" : "pattern") + " '"
                        + route.pattern() + "' is routed to two clusters: '" + previous + "' and '" + route.cluster()
                        + "'");
            }
            if (previous != null) {
                continue;
            }
            if (route.isExact()) {
                exactRoutes.put(route.pattern(), target);
            }
            else {
                patternRoutes.add(Map.entry(route, target));
            }
        }
        this.exact = Map.copyOf(exactRoutes);
        this.patterns = List.copyOf(patternRoutes);
        this.single = clusters.size() == 1;
    }

    /** A router with the default cluster only. */
    public static ClusterRouter single(Cluster defaultCluster) {
        return new ClusterRouter(defaultCluster, List.of(), List.of());
    }

    public Cluster defaultCluster() {
        return defaultCluster;
    }

    /** Every cluster, the default first, then the others in configuration order. */
    public List<Cluster> clusters() {
        return clusters;
    }

    /** Whether the default cluster is the only one. */
    public boolean isSingle() {
        return single;
    }

    /** The cluster of that name, or null. */
    public Cluster cluster(String name) {
        return byName.get(name);
    }

    /** The cluster holding the queue; the name is not validated here (the store that serves it does that). */
    public Cluster forQueue(String queue) {
        if (single || queue == null) {
            return defaultCluster;
        }
        Cluster cluster = exact.get(queue);
        if (cluster != null) {
            return cluster;
        }
        for (Map.Entry<QueueRoute, Cluster> pattern : patterns) {
            if (pattern.getKey().matches(queue)) {
                return pattern.getValue();
            }
        }
        return defaultCluster;
    }

    /**
     * The queues grouped by cluster, clusters in the order of the first queue each holds, queues in the order given
     * within each.
     */
    public Map<Cluster, List<String>> byCluster(List<String> queues) {
        Map<Cluster, List<String>> grouped = new LinkedHashMap<>();
        for (String queue : queues) {
            grouped.computeIfAbsent(forQueue(queue), cluster -> new ArrayList<>()).add(queue);
        }
        return grouped;
    }

    /**
     * The one cluster holding all of the queues, for an operation that cannot span databases (an atomic batch
     * enqueue, an event cursor): 400 {@code invalid_request} when they are spread over several clusters; the default
     * cluster for no queue.
     *
     * @param what what the queues belong to, for the error message ("a batch")
     */
    public Cluster forAll(Collection<String> queues, String what) {
        if (single) {
            return defaultCluster;
        }
        Cluster first = null;
        for (String queue : queues) {
            Cluster cluster = forQueue(queue);
            if (first == null) {
                first = cluster;
            }
            else if (cluster != first) {
                throw Pgvs3Exception.invalidRequest(what + " must stay on one cluster, but names queues on clusters '"
                        + first.name() + "' and '" + cluster.name() + "' (queue '" + queue + "')", "queue");
            }
        }
        return first == null ? defaultCluster : first;
    }

    /** The one cluster holding the queues of an atomic batch enqueue: 400 when they are spread over several. */
    public Cluster forBatch(List<NewJob> jobs) {
        return forAll(jobs.stream().map(job -> job.queue().value()).toList(), "a batch");
    }

    /**
     * The cluster whose job locator holds the job, asking the default cluster first; the default cluster when none
     * does (its store then answers that the job does not exist). With one cluster this asks nothing.
     */
    public Cluster forJob(String jobId) {
        if (single || defaultCluster.holdsJob(jobId)) {
            return defaultCluster;
        }
        Cluster holder = otherHolder(jobId);
        return holder == null ? defaultCluster : holder;
    }

    /**
     * Runs an operation addressed by job id (ack, nack, cancel, …) on the job's cluster. It runs on the default
     * cluster first, which costs a job there nothing more than with one cluster; only when that answers 404
     * {@code not_found} are the other clusters' job locators asked, and the operation runs again on the one that
     * holds the job. An operation that finds no job changes nothing, so running it twice is safe.
     */
    public <T> T withJob(String jobId, Function<JobStore, T> operation) {
        return onJobCluster(jobId, cluster -> operation.apply(cluster.jobs()));
    }

    /** As {@link #withJob(String, Function)}, for an operation on any of the cluster's stores. */
    public <T> T onJobCluster(String jobId, Function<Cluster, T> operation) {
        if (single) {
            return operation.apply(defaultCluster);
        }
        try {
            return operation.apply(defaultCluster);
        }
        catch (Pgvs3Exception ex) {
            if (ex.code() != ErrorCode.NOT_FOUND) {
                throw ex;
            }
            Cluster holder = otherHolder(jobId);
            if (holder == null) {
                throw ex;
            }
            return operation.apply(holder);
        }
    }

    /** The job, from the default cluster or else from the cluster whose job locator holds it. */
    public Optional<Job> findJob(String jobId) {
        Optional<Job> job = defaultCluster.jobs().get(jobId);
        if (job.isPresent() || single) {
            return job;
        }
        Cluster holder = otherHolder(jobId);
        return holder == null ? Optional.empty() : holder.jobs().get(jobId);
    }

    private Cluster otherHolder(String jobId) {
        for (Cluster cluster : clusters) {
            if (!cluster.isDefault() && cluster.holdsJob(jobId)) {
                return cluster;
            }
        }
        return null;
    }
}
