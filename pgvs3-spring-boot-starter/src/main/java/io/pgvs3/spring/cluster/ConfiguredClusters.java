package io.pgvs3.spring.cluster;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.zaxxer.hikari.HikariDataSource;
import io.pgvs3.core.catalog.CatalogMigrator;
import io.pgvs3.core.catalog.QueueCatalog;
import io.pgvs3.core.cluster.Cluster;
import io.pgvs3.core.cluster.ClusterRouter;
import io.pgvs3.core.cluster.QueueRoute;
import io.pgvs3.core.job.JobEventLog;
import io.pgvs3.core.job.JobStore;
import io.pgvs3.core.notify.NotificationHub;
import io.pgvs3.core.stream.StreamStore;
import io.pgvs3.spring.autoconfigure.Pgvs3ClusterProperties;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The clusters of {@code pgvs3.clusters}: their pools, migrated catalogs and stores, and the router over them and
 * the default cluster. Owns what it opened, and closes it with the context.
 */
public final class ConfiguredClusters implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ConfiguredClusters.class);

    private final ClusterRouter router;
    private final List<AutoCloseable> opened;

    private ConfiguredClusters(ClusterRouter router, List<AutoCloseable> opened) {
        this.router = router;
        this.opened = opened;
    }

    public ClusterRouter router() {
        return router;
    }

    /**
     * Checks the whole configuration first (no pool is opened for a configuration that is wrong), then opens each
     * cluster's pool and migrates its catalog.
     *
     * @throws ClusterConfigurationException when the configuration is invalid or a cluster's catalog cannot be
     *                                       migrated
     */
    public static ConfiguredClusters open(Cluster defaultCluster, Map<String, Pgvs3ClusterProperties> configured) {
        List<QueueRoute> routes = routes(configured);
        if (configured.isEmpty()) {
            return new ConfiguredClusters(ClusterRouter.single(defaultCluster), List.of());
        }
        List<AutoCloseable> opened = new ArrayList<>();
        List<Cluster> others = new ArrayList<>();
        try {
            configured.forEach((name, settings) -> others.add(open(name, settings, defaultCluster, opened)));
            ConfiguredClusters clusters = new ConfiguredClusters(new ClusterRouter(defaultCluster, others, routes),
                    opened);
            others.forEach(cluster -> log.info("pgvs3 cluster '{}' serves queues {}", cluster.name(),
                    configured.get(cluster.name()).getQueues()));
            return clusters;
        }
        catch (RuntimeException ex) {
            closeAll(opened);
            throw ex instanceof ClusterConfigurationException ? ex
                    : new ClusterConfigurationException(ex.getMessage(), ex);
        }
    }

    /** The routes in configuration order, after checking names, URLs, patterns and that no pattern is claimed twice. */
    public static List<QueueRoute> routes(Map<String, Pgvs3ClusterProperties> configured) {
        List<QueueRoute> routes = new ArrayList<>();
        Map<String, String> claimed = new LinkedHashMap<>();
        configured.forEach((name, settings) -> {
            if (Cluster.DEFAULT.equals(name)) {
                throw new ClusterConfigurationException("pgvs3.clusters.default is configured, but 'default' is the"
                        + " application's own DataSource (spring.datasource.*); give the cluster another name");
            }
            if (settings.getUrl() == null || settings.getUrl().isBlank()) {
                throw new ClusterConfigurationException("pgvs3.clusters." + name + ".url is not set");
            }
            if (settings.getMaximumPoolSize() < 1) {
                throw new ClusterConfigurationException("pgvs3.clusters." + name + ".maximum-pool-size must be"
                        + " at least 1");
            }
            for (String pattern : settings.getQueues()) {
                if (!QueueRoute.isValidPattern(pattern)) {
                    throw new ClusterConfigurationException("pgvs3.clusters." + name + ".queues: '" + pattern
                            + "' is not a queue name or pattern (lowercase letters, digits, '.', '-' and '*', starting"
                            + " with a letter, a digit or '*')");
                }
                // ClusterRouter refuses this too, but only once every pool is open and every catalog migrated; this
                // check runs before any connection is made and names the properties to fix
                String previous = claimed.putIfAbsent(pattern, name);
                if (previous != null && !previous.equals(name)) {
                    throw new ClusterConfigurationException("queue " + (pattern.contains("*") ? "pattern" : "name")
                            + " '" + pattern + "' is listed under two clusters: pgvs3.clusters." + previous
                            + ".queues and pgvs3.clusters." + name + ".queues");
                }
                if (previous == null) {
                    routes.add(new QueueRoute(pattern, name));
                }
            }
        });
        return routes;
    }

    private static Cluster open(String name, Pgvs3ClusterProperties settings, Cluster defaultCluster,
            List<AutoCloseable> opened) {
        HikariDataSource dataSource = new HikariDataSource();
        dataSource.setPoolName("pgvs3-cluster-" + name);
        dataSource.setJdbcUrl(settings.getUrl());
        dataSource.setUsername(settings.getUsername());
        dataSource.setPassword(settings.getPassword());
        dataSource.setMaximumPoolSize(settings.getMaximumPoolSize());
        opened.add(dataSource);
        try {
            new CatalogMigrator(dataSource).migrate();
        }
        catch (RuntimeException ex) {
            throw new ClusterConfigurationException("cluster '" + name + "' (" + settings.getUrl()
                    + "): its catalog could not be migrated: " + ex.getMessage(), ex);
        }
        JdbcTemplate jdbc = new JdbcTemplate(dataSource);
        QueueCatalog catalog = new QueueCatalog(jdbc);
        NotificationHub notifications = new NotificationHub(dataSource);
        // closed before the pool it draws from
        opened.add(0, notifications);
        JobStore jobs = new JobStore(jdbc, catalog, defaultCluster.jobs().settings(), new JobEventLog(jdbc, catalog),
                notifications);
        return new Cluster(name, dataSource, catalog, jobs, new StreamStore(jdbc, catalog, notifications), notifications);
    }

    @Override
    public void close() {
        closeAll(opened);
    }

    private static void closeAll(List<AutoCloseable> resources) {
        for (AutoCloseable resource : resources) {
            try {
                resource.close();
            }
            catch (Exception ex) {
                log.warn("Closing {} failed: {}", resource, ex.getMessage());
            }
        }
    }
}
