package io.pgvs3.spring.autoconfigure;

import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.Map;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import io.pgvs3.core.catalog.QueueCatalog;
import io.pgvs3.core.cluster.Cluster;
import io.pgvs3.core.cluster.ClusterRouter;
import io.pgvs3.core.notify.NotificationHub;
import io.pgvs3.core.stream.StreamStore;
import io.pgvs3.spring.metrics.Pgvs3Metrics;
import io.pgvs3.spring.support.Pgvs3JsonMapper;
import io.pgvs3.spring.web.streams.ClusterLongPolls;
import io.pgvs3.spring.web.streams.StreamAcksController;
import io.pgvs3.spring.web.streams.StreamConsumersController;
import io.pgvs3.spring.web.streams.StreamLongPoll;
import io.pgvs3.spring.web.streams.StreamMessagesController;
import io.pgvs3.spring.web.streams.StreamQueueController;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Controllers of the streams view's HTTP routes.
 */
@Configuration(proxyBeanMethods = false)
class Pgvs3StreamsWebConfiguration {

    @Bean
    @ConditionalOnMissingBean
    StreamLongPoll pgvs3StreamLongPoll(NotificationHub hub, StreamStore streams, QueueCatalog catalog,
            DataSource dataSource, Pgvs3Properties properties) {
        return longPoll(hub, streams, catalog, dataSource, properties);
    }

    /** The default cluster's long-poll and one per other cluster, each waiting on its cluster's notifications. */
    @Bean
    @ConditionalOnMissingBean
    ClusterLongPolls pgvs3ClusterLongPolls(StreamLongPoll longPoll, ClusterRouter router, Pgvs3Properties properties) {
        Map<String, StreamLongPoll> others = new LinkedHashMap<>();
        for (Cluster cluster : router.clusters()) {
            if (!cluster.isDefault()) {
                others.put(cluster.name(), longPoll(cluster.notifications(), cluster.streams(), cluster.catalog(),
                        cluster.dataSource(), properties));
            }
        }
        return new ClusterLongPolls(longPoll, others);
    }

    /** A long-poll on one database's notifications, forgetting a queue's waiters when the queue is dropped. */
    private static StreamLongPoll longPoll(NotificationHub hub, StreamStore streams, QueueCatalog catalog,
            DataSource dataSource, Pgvs3Properties properties) {
        int threads = properties.getStreams().getLongPollThreads();
        StreamLongPoll longPoll = new StreamLongPoll(hub, streams::appendedSince, streams::idle,
                threads > 0 ? threads : longPollThreads(dataSource),
                new StreamLongPoll.WakeLaneSettings(dataSource,
                        target -> streams.warmReceive(target.queue().value(), target.consumer(), target.member()),
                        properties.getStreams().getLongPollLaneQueues()));
        catalog.onDrop(longPoll::forget);
        return longPoll;
    }

    /**
     * Half the connection pool (2 to 16): hundreds of long-polls arriving at once queue on the workers, and the
     * other half of the pool stays free for other requests.
     */
    static int longPollThreads(DataSource dataSource) {
        int pool = 10;
        try {
            if (dataSource.isWrapperFor(HikariDataSource.class)) {
                pool = dataSource.unwrap(HikariDataSource.class).getMaximumPoolSize();
            }
        }
        catch (SQLException ex) {
            // not a Hikari pool: Hikari's default size
        }
        return Math.max(2, Math.min(16, pool / 2));
    }

    @Bean
    @ConditionalOnMissingBean
    StreamMessagesController pgvs3StreamMessagesController(ClusterRouter router, Pgvs3JsonMapper json,
            Pgvs3Properties properties, ObjectProvider<Pgvs3Metrics> metrics) {
        return new StreamMessagesController(router, json.mapper(), properties.getStreams().getMaxPayloadBytes(),
                metrics.getIfAvailable(() -> Pgvs3Metrics.NOOP));
    }

    @Bean
    @ConditionalOnMissingBean
    StreamConsumersController pgvs3StreamConsumersController(ClusterRouter router, ClusterLongPolls longPolls,
            Pgvs3Properties properties, Pgvs3JsonMapper json) {
        return new StreamConsumersController(router, longPolls, properties.getStreams().getMaxWait(), json.mapper());
    }

    @Bean
    @ConditionalOnMissingBean
    StreamAcksController pgvs3StreamAcksController(ClusterRouter router) {
        return new StreamAcksController(router);
    }

    @Bean
    @ConditionalOnMissingBean
    StreamQueueController pgvs3StreamQueueController(ClusterRouter router) {
        return new StreamQueueController(router);
    }
}
