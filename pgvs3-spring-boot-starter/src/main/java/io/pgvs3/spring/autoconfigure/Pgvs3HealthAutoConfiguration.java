package io.pgvs3.spring.autoconfigure;

import javax.sql.DataSource;

import io.pgvs3.core.catalog.QueueCatalog;
import io.pgvs3.spring.listener.Pgvs3ListenerEndpointRegistry;
import io.pgvs3.spring.listener.Pgvs3ListenersHealthIndicator;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The {@code pgvs3} Actuator health indicator ({@code management.health.pgvs3.enabled=false} turns it off).
 */
@AutoConfiguration(after = { Pgvs3AutoConfiguration.class, Pgvs3MaintenanceAutoConfiguration.class,
        Pgvs3MetricsAutoConfiguration.class, Pgvs3ListenerAutoConfiguration.class })
@ConditionalOnClass(HealthIndicator.class)
@ConditionalOnBean(QueueCatalog.class)
@ConditionalOnEnabledHealthIndicator("pgvs3")
public class Pgvs3HealthAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    public QueueStatsSampler pgvs3QueueStatsSampler(DataSource dataSource, QueueCatalog catalog,
            Pgvs3JsonMapper json, Pgvs3Properties properties) {
        return new QueueStatsSampler(new JdbcTemplate(dataSource), catalog, json.mapper(),
                properties.getMetrics().getSampleInterval());
    }

    /** Health component {@code pgvs3Listeners}: whether the listener containers have started, and their states. */
    @Bean
    @ConditionalOnMissingBean(name = "pgvs3ListenersHealthIndicator")
    @ConditionalOnBean(Pgvs3ListenerEndpointRegistry.class)
    public Pgvs3ListenersHealthIndicator pgvs3ListenersHealthIndicator(Pgvs3ListenerEndpointRegistry registry) {
        return new Pgvs3ListenersHealthIndicator(registry);
    }

    @Bean
    @ConditionalOnMissingBean(name = "pgvs3HealthIndicator")
    public Pgvs3HealthIndicator pgvs3HealthIndicator(DataSource dataSource,
            ObjectProvider<MaintenanceScheduler> maintenance, QueueStatsSampler stats, Pgvs3Properties properties) {
        return new Pgvs3HealthIndicator(dataSource, maintenance.getIfAvailable(), stats, properties.getHealth());
    }
}
