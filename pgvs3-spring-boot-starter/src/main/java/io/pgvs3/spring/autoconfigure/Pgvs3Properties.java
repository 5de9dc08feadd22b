package io.pgvs3.spring.autoconfigure;

import java.util.LinkedHashMap;
import java.util.Map;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.NestedConfigurationProperty;

/**
 * Configuration of pgvs3 under {@code pgvs3.*}, one class per group.
 */
@ConfigurationProperties("pgvs3")
public class Pgvs3Properties {

    @NestedConfigurationProperty
    private final Pgvs3HttpProperties http = new Pgvs3HttpProperties();

    @NestedConfigurationProperty
    private final Pgvs3MaintenanceProperties maintenance = new Pgvs3MaintenanceProperties();

    @NestedConfigurationProperty
    private final Pgvs3JobsProperties jobs = new Pgvs3JobsProperties();

    @NestedConfigurationProperty
    private final Pgvs3StreamsProperties streams = new Pgvs3StreamsProperties();

    @NestedConfigurationProperty
    private final Pgvs3ListenerProperties listener = new Pgvs3ListenerProperties();

    @NestedConfigurationProperty
    private final Pgvs3HandlerProperties handler = new Pgvs3HandlerProperties();

    @NestedConfigurationProperty
    private final Pgvs3HealthProperties health = new Pgvs3HealthProperties();

    @NestedConfigurationProperty
    private final Pgvs3MetricsProperties metrics = new Pgvs3MetricsProperties();

    @NestedConfigurationProperty
    private final Pgvs3DashboardProperties dashboard = new Pgvs3DashboardProperties();

    /**
     * Further PostgreSQL databases, by name, each with its own s3p catalog and the queues routed to it; the
     * application's own DataSource is the cluster 'default' and holds every queue no route claims.
     */
    private final Map<String, Pgvs3ClusterProperties> clusters = new LinkedHashMap<>();

    public Pgvs3HttpProperties getHttp() {
        return http;
    }

    public Pgvs3MaintenanceProperties getMaintenance() {
        return maintenance;
    }

    public Pgvs3JobsProperties getJobs() {
        return jobs;
    }

    public Pgvs3StreamsProperties getStreams() {
        return streams;
    }

    public Pgvs3ListenerProperties getListener() {
        return listener;
    }

    public Pgvs3HandlerProperties getHandler() {
        return handler;
    }

    public Pgvs3HealthProperties getHealth() {
        return health;
    }

    public Pgvs3MetricsProperties getMetrics() {
        return metrics;
    }

    public Pgvs3DashboardProperties getDashboard() {
        return dashboard;
    }

    public Map<String, Pgvs3ClusterProperties> getClusters() {
        return clusters;
    }
}
