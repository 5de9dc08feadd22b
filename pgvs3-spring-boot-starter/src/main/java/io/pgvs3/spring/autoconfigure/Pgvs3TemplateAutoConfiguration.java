package io.pgvs3.spring.autoconfigure;

import io.pgvs3.core.catalog.QueueCatalog;
import io.pgvs3.core.cluster.ClusterRouter;
import io.pgvs3.core.job.JobStore;
import io.pgvs3.core.stream.StreamStore;
import io.pgvs3.spring.metrics.Pgvs3Metrics;
import io.pgvs3.spring.support.Pgvs3JsonMapper;
import io.pgvs3.spring.template.JobTemplate;
import io.pgvs3.spring.template.StreamAdmin;
import io.pgvs3.spring.template.StreamTemplate;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * {@link StreamTemplate} and {@link JobTemplate} on the stores of the application's {@code DataSource}, and on those
 * of the other clusters for the queues routed there ({@code pgvs3.clusters}).
 */
@AutoConfiguration(after = Pgvs3AutoConfiguration.class)
@ConditionalOnBean(QueueCatalog.class)
public class Pgvs3TemplateAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBean(StreamStore.class)
    public StreamTemplate pgvs3StreamTemplate(ClusterRouter router, Pgvs3JsonMapper json,
            ObjectProvider<Pgvs3Metrics> metrics) {
        return new StreamTemplate(router, json.mapper(), metrics.getIfAvailable(() -> Pgvs3Metrics.NOOP));
    }

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBean(StreamStore.class)
    public StreamAdmin pgvs3StreamAdmin(ClusterRouter router) {
        return new StreamAdmin(router);
    }

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBean(JobStore.class)
    public JobTemplate pgvs3JobTemplate(ClusterRouter router, Pgvs3JsonMapper json,
            ObjectProvider<Pgvs3Metrics> metrics) {
        return new JobTemplate(router, json.mapper(), metrics.getIfAvailable(() -> Pgvs3Metrics.NOOP));
    }
}
