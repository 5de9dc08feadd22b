package io.pgvs3.spring.autoconfigure;

import javax.sql.DataSource;

import io.micrometer.core.instrument.MeterRegistry;
import io.pgvs3.core.catalog.QueueCatalog;
import io.pgvs3.core.cluster.ClusterRouter;
import io.pgvs3.spring.metrics.MicrometerPgvs3Metrics;
import io.pgvs3.spring.metrics.QueueStatsSampler;
import io.pgvs3.spring.support.Pgvs3JsonMapper;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Micrometer meters under {@code pgvs3.*}, when a {@link MeterRegistry} exists and {@code pgvs3.metrics.enabled} is
 * not false.
 */
@AutoConfiguration(after = Pgvs3AutoConfiguration.class,
        afterName = { "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
                "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
                "org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration" })
@ConditionalOnClass(MeterRegistry.class)
@ConditionalOnBean({ MeterRegistry.class, QueueCatalog.class })
@ConditionalOnBooleanProperty(name = "pgvs3.metrics.enabled", matchIfMissing = true)
public class Pgvs3MetricsAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    public QueueStatsSampler pgvs3QueueStatsSampler(DataSource dataSource, QueueCatalog catalog,
            ObjectProvider<ClusterRouter> router, Pgvs3JsonMapper json, Pgvs3Properties properties) {
        return QueueStatsSampler.of(router.getIfAvailable(), dataSource, catalog, json.mapper(),
                properties.getMetrics().getSampleInterval());
    }

    @Bean
    @ConditionalOnMissingBean
    public MicrometerPgvs3Metrics pgvs3Metrics(MeterRegistry registry, QueueStatsSampler sampler) {
        MicrometerPgvs3Metrics metrics = new MicrometerPgvs3Metrics(registry);
        metrics.bind(sampler);
        return metrics;
    }
}
