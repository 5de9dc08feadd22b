package io.pgvs3.spring.maintenance;

import java.util.LinkedHashMap;
import java.util.Map;

import org.springframework.context.SmartLifecycle;

/**
 * The maintenance schedules of the clusters of {@code pgvs3.clusters}, one each: every cluster's pass takes that
 * cluster's own advisory lock, so each database is maintained by one instance at a time. Crons fire in the default
 * cluster's pass only.
 */
public class ClusterMaintenance implements SmartLifecycle {

    private final Map<String, MaintenanceScheduler> schedulers;

    /** @param schedulers the schedules by cluster name */
    public ClusterMaintenance(Map<String, MaintenanceScheduler> schedulers) {
        this.schedulers = new LinkedHashMap<>(schedulers);
    }

    /** The cluster's schedule, or null. */
    public MaintenanceScheduler scheduler(String cluster) {
        return schedulers.get(cluster);
    }

    @Override
    public void start() {
        schedulers.values().forEach(MaintenanceScheduler::start);
    }

    @Override
    public void stop() {
        schedulers.values().forEach(MaintenanceScheduler::stop);
    }

    @Override
    public boolean isRunning() {
        return schedulers.values().stream().anyMatch(MaintenanceScheduler::isRunning);
    }
}
