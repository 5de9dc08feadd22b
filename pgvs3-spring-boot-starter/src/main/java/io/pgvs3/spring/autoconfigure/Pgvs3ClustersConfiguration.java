package io.pgvs3.spring.autoconfigure;

import javax.sql.DataSource;

import io.pgvs3.core.Resettable;
import io.pgvs3.core.catalog.QueueCatalog;
import io.pgvs3.core.cluster.Cluster;
import io.pgvs3.core.cluster.ClusterRouter;
import io.pgvs3.core.job.JobDeadLetters;
import io.pgvs3.core.job.JobEventLog;
import io.pgvs3.core.job.JobQueues;
import io.pgvs3.core.job.JobStore;
import io.pgvs3.core.notify.NotificationHub;
import io.pgvs3.core.stream.StreamStore;
import io.pgvs3.spring.cluster.ConfiguredClusters;

import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The {@link ClusterRouter}: the application's {@code DataSource} and its stores as the {@code default} cluster, and
 * one cluster per entry of {@code pgvs3.clusters}. Without that property, the router answers the default cluster
 * for every queue.
 */
@Configuration(proxyBeanMethods = false)
class Pgvs3ClustersConfiguration {

    @Bean
    @ConditionalOnMissingBean
    ConfiguredClusters pgvs3Clusters(DataSource dataSource, QueueCatalog catalog, JobStore jobs, JobQueues jobQueues,
            JobDeadLetters deadLetters, JobEventLog jobEvents, StreamStore streams, NotificationHub notifications,
            Pgvs3Properties properties) {
        return ConfiguredClusters.open(new Cluster(Cluster.DEFAULT, dataSource, catalog, jobs, jobQueues, deadLetters,
                jobEvents, streams, notifications), properties.getClusters());
    }

    @Bean
    @ConditionalOnMissingBean
    ClusterRouter pgvs3ClusterRouter(ConfiguredClusters clusters) {
        return clusters.router();
    }

    /** The admin reset empties the other clusters' catalogs too (the default one is emptied by the reset itself). */
    @Bean
    Resettable pgvs3ClustersResettable(ClusterRouter router) {
        return () -> router.clusters().stream().filter(cluster -> !cluster.isDefault())
                .forEach(cluster -> cluster.catalog().dropAll());
    }
}
