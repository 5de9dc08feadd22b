package io.pgvs3.spring.autoconfigure;

import javax.sql.DataSource;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.pgvs3.core.cluster.Cluster;
import io.pgvs3.core.cluster.ClusterRouter;
import io.pgvs3.core.maintenance.MaintenancePass;
import io.pgvs3.core.maintenance.MaintenanceTask;
import io.pgvs3.spring.maintenance.ClusterMaintenance;
import io.pgvs3.spring.maintenance.MaintenanceScheduler;
import io.pgvs3.spring.maintenance.QueueMaintenanceTasks;
import io.pgvs3.spring.metrics.Pgvs3Metrics;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * The maintenance pass and its schedule. The pass always exists (tests and tools can run it by hand); the
 * schedule runs only where {@code pgvs3.maintenance.enabled} is true (the default), and never on a read-only
 * instance ({@code pgvs3.http.read-only=true}), which writes nothing.
 */
@AutoConfiguration(after = Pgvs3AutoConfiguration.class)
@ConditionalOnBean(DataSource.class)
public class Pgvs3MaintenanceAutoConfiguration {

    /**
     * The default cluster's pass: {@link QueueMaintenanceTasks} (an application {@link MaintenanceTask} bean of the
     * same name replaces one), then the other task beans, among them the crons.
     */
    @Bean
    @ConditionalOnMissingBean
    public MaintenancePass pgvs3MaintenancePass(DataSource dataSource, ObjectProvider<ClusterRouter> router,
            ObjectProvider<MaintenanceTask> tasks) {
        ClusterRouter clusters = router.getIfAvailable();
        List<MaintenanceTask> beans = tasks.orderedStream().toList();
        return new MaintenancePass(dataSource,
                clusters == null ? beans : QueueMaintenanceTasks.of(clusters.defaultCluster(), beans));
    }

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBooleanProperty(name = "pgvs3.maintenance.enabled", matchIfMissing = true)
    @ConditionalOnBooleanProperty(name = "pgvs3.http.read-only", havingValue = false, matchIfMissing = true)
    public MaintenanceScheduler pgvs3MaintenanceScheduler(MaintenancePass pass, Pgvs3Properties properties,
            ObjectProvider<Pgvs3Metrics> metrics) {
        return new MaintenanceScheduler(pass, properties.getMaintenance().getInterval(),
                metrics.getIfAvailable(() -> Pgvs3Metrics.NOOP));
    }

    /** One pass and schedule per cluster of {@code pgvs3.clusters}: {@link QueueMaintenanceTasks}, no crons. */
    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBooleanProperty(name = "pgvs3.maintenance.enabled", matchIfMissing = true)
    @ConditionalOnBooleanProperty(name = "pgvs3.http.read-only", havingValue = false, matchIfMissing = true)
    public ClusterMaintenance pgvs3ClusterMaintenance(ObjectProvider<ClusterRouter> router, Pgvs3Properties properties,
            ObjectProvider<Pgvs3Metrics> metrics) {
        ClusterRouter clusters = router.getIfAvailable();
        Pgvs3Metrics meters = metrics.getIfAvailable(() -> Pgvs3Metrics.NOOP);
        Map<String, MaintenanceScheduler> schedulers = new LinkedHashMap<>();
        if (clusters != null) {
            clusters.clusters().stream().filter(cluster -> !cluster.isDefault())
                    .forEach(cluster -> schedulers.put(cluster.name(), new MaintenanceScheduler(pass(cluster),
                            properties.getMaintenance().getInterval(), meters)));
        }
        return new ClusterMaintenance(schedulers);
    }

    static MaintenancePass pass(Cluster cluster) {
        return new MaintenancePass(cluster.dataSource(), QueueMaintenanceTasks.of(cluster));
    }
}
