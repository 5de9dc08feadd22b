package io.pgvs3.spring.health;

import java.util.LinkedHashMap;
import java.util.Map;

import io.pgvs3.core.cluster.ClusterRouter;
import io.pgvs3.spring.autoconfigure.Pgvs3HealthProperties;
import io.pgvs3.spring.maintenance.ClusterMaintenance;

import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.boot.health.contributor.HealthContributor;

/**
 * Health of the clusters of {@code pgvs3.clusters}: one {@link Pgvs3HealthIndicator} per cluster, checking its
 * database and its maintenance as {@code pgvs3} checks the default cluster's.
 */
public final class ClustersHealthContributor {

    private ClustersHealthContributor() {
    }

    /**
     * @param maintenance the clusters' maintenance schedules, or null when maintenance does not run here
     */
    public static CompositeHealthContributor of(ClusterRouter router, ClusterMaintenance maintenance,
            Pgvs3HealthProperties settings) {
        Map<String, HealthContributor> clusters = new LinkedHashMap<>();
        router.clusters().stream().filter(cluster -> !cluster.isDefault())
                .forEach(cluster -> clusters.put(cluster.name(), new Pgvs3HealthIndicator(cluster.dataSource(),
                        maintenance == null ? null : maintenance.scheduler(cluster.name()), null, settings)));
        return CompositeHealthContributor.fromMap(clusters);
    }
}
