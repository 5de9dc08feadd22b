package io.pgvs3.spring.autoconfigure;

import javax.sql.DataSource;

import io.pgvs3.core.catalog.QueueCatalog;
import io.pgvs3.core.cluster.ClusterRouter;
import io.pgvs3.spring.health.ClustersHealthContributor;
import io.pgvs3.spring.health.Pgvs3HealthIndicator;
import io.pgvs3.spring.health.Pgvs3ListenersHealthIndicator;
import io.pgvs3.spring.listener.Pgvs3ListenerEndpointRegistry;
import io.pgvs3.spring.maintenance.ClusterMaintenance;
import io.pgvs3.spring.maintenance.MaintenanceScheduler;
import io.pgvs3.spring.metrics.QueueStatsSampler;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Import;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * The {@code pgvs3} Actuator health indicator ({@code management.health.pgvs3.enabled=false} turns it off).
 */
@AutoConfiguration(after = { Pgvs3AutoConfiguration.class, Pgvs3MaintenanceAutoConfiguration.class,
        Pgvs3MetricsAutoConfiguration.class, Pgvs3ListenerAutoConfiguration.class })
@ConditionalOnClass(HealthIndicator.class)
@ConditionalOnBean(QueueCatalog.class)
@ConditionalOnEnabledHealthIndicator("pgvs3")
@Import(Pgvs3QueueStatsConfiguration.class)
public class Pgvs3HealthAutoConfiguration {

    /** Health component {@code pgvs3Listeners}: whether the listener containers have started, and their states. */
    @Bean
    @ConditionalOnMissingBean(name = "pgvs3ListenersHealthIndicator")
    @ConditionalOnBean(Pgvs3ListenerEndpointRegistry.class)
    public Pgvs3ListenersHealthIndicator pgvs3ListenersHealthIndicator(Pgvs3ListenerEndpointRegistry registry) {
        return new Pgvs3ListenersHealthIndicator(registry);
    }

    /**
     * Health component {@code pgvs3Clusters} when {@code pgvs3.clusters} names other clusters: for each, its database
     * and its maintenance, checked as {@code pgvs3} checks the default cluster's.
     */
    @Bean
    @ConditionalOnMissingBean(name = "pgvs3ClustersHealthContributor")
    @Conditional(OtherClustersCondition.class)
    public CompositeHealthContributor pgvs3ClustersHealthContributor(ClusterRouter router,
            ObjectProvider<ClusterMaintenance> maintenance, Pgvs3Properties properties) {
        return ClustersHealthContributor.of(router, maintenance.getIfAvailable(), properties.getHealth());
    }

    /** Matches when {@code pgvs3.clusters} holds at least one cluster. */
    static class OtherClustersCondition extends SpringBootCondition {

        @Override
        public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
            boolean configured = Binder.get(context.getEnvironment())
                    .bind("pgvs3.clusters", Bindable.mapOf(String.class, Object.class))
                    .map(map -> !map.isEmpty()).orElse(false);
            return configured ? ConditionOutcome.match("pgvs3.clusters is configured")
                    : ConditionOutcome.noMatch("pgvs3.clusters is not configured");
        }
    }

    @Bean
    @ConditionalOnMissingBean(name = "pgvs3HealthIndicator")
    public Pgvs3HealthIndicator pgvs3HealthIndicator(DataSource dataSource,
            ObjectProvider<MaintenanceScheduler> maintenance, QueueStatsSampler stats, Pgvs3Properties properties) {
        return new Pgvs3HealthIndicator(dataSource, maintenance.getIfAvailable(), stats, properties.getHealth());
    }
}
