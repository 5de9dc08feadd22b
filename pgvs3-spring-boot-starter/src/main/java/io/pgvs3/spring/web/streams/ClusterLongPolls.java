package io.pgvs3.spring.web.streams;

import java.util.Map;

import io.pgvs3.core.cluster.Cluster;

/**
 * The long-polls of every cluster: a receive waits on the notifications of its queue's cluster, so each cluster has
 * a {@link StreamLongPoll} on its own LISTEN connection and pool. The default cluster's is the application's
 * {@code StreamLongPoll} bean; the others are owned, and closed, here.
 */
public final class ClusterLongPolls implements AutoCloseable {

    private final StreamLongPoll defaultLongPoll;
    private final Map<String, StreamLongPoll> others;

    /**
     * @param defaultLongPoll the default cluster's long-poll
     * @param others          the other clusters' long-polls, by cluster name
     */
    public ClusterLongPolls(StreamLongPoll defaultLongPoll, Map<String, StreamLongPoll> others) {
        this.defaultLongPoll = defaultLongPoll;
        this.others = Map.copyOf(others);
    }

    public StreamLongPoll forCluster(Cluster cluster) {
        if (cluster.isDefault()) {
            return defaultLongPoll;
        }
        StreamLongPoll longPoll = others.get(cluster.name());
        if (longPoll == null) {
            throw new IllegalStateException("no long-poll for cluster '" + cluster.name() + "'");
        }
        return longPoll;
    }

    @Override
    public void close() {
        others.values().forEach(StreamLongPoll::close);
    }
}
