package io.pgvs3.spring.autoconfigure;

import io.micrometer.core.instrument.MeterRegistry;
import io.pgvs3.core.catalog.QueueCatalog;
import io.pgvs3.spring.metrics.MicrometerPgvs3Metrics;
import io.pgvs3.spring.metrics.QueueStatsSampler;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;

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
@Import(Pgvs3QueueStatsConfiguration.class)
public class Pgvs3MetricsAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    public MicrometerPgvs3Metrics pgvs3Metrics(MeterRegistry registry, QueueStatsSampler sampler) {
        MicrometerPgvs3Metrics metrics = new MicrometerPgvs3Metrics(registry);
        metrics.bind(sampler);
        return metrics;
    }
}
