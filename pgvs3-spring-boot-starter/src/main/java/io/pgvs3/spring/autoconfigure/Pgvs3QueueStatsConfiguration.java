package io.pgvs3.spring.autoconfigure;

import javax.sql.DataSource;

import io.pgvs3.core.catalog.QueueCatalog;
import io.pgvs3.core.cluster.ClusterRouter;
import io.pgvs3.spring.metrics.QueueStatsSampler;
import io.pgvs3.spring.support.Pgvs3JsonMapper;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The {@link QueueStatsSampler} of every cluster's queues. Imported by the metrics and the health
 * auto-configurations, so that it exists when either of them is on, and once when both are.
 */
@Configuration(proxyBeanMethods = false)
class Pgvs3QueueStatsConfiguration {

    @Bean
    @ConditionalOnMissingBean
    QueueStatsSampler pgvs3QueueStatsSampler(DataSource dataSource, QueueCatalog catalog,
            ObjectProvider<ClusterRouter> router, Pgvs3JsonMapper json, Pgvs3Properties properties) {
        return QueueStatsSampler.of(router.getIfAvailable(), dataSource, catalog, json.mapper(),
                properties.getMetrics().getSampleInterval());
    }
}
