package io.pgvs3.spring.maintenance;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.pgvs3.core.cluster.Cluster;
import io.pgvs3.core.job.JobMaintenanceTask;
import io.pgvs3.core.maintenance.MaintenanceTask;
import io.pgvs3.core.stream.StreamMaintenanceTask;

/**
 * The upkeep of one cluster's queues that every cluster's maintenance pass runs: jobs first, then the stream steps
 * (retries, ticker, rotation, tick cleanup).
 */
public final class QueueMaintenanceTasks {

    private QueueMaintenanceTasks() {
    }

    /** The job and stream tasks of the cluster's queues, in the order a pass runs them. */
    public static List<MaintenanceTask> of(Cluster cluster) {
        return List.of(new JobMaintenanceTask(cluster.jobs()),
                StreamMaintenanceTask.retries(cluster.catalog(), cluster.streams()),
                StreamMaintenanceTask.ticker(cluster.catalog(), cluster.streams()),
                StreamMaintenanceTask.rotation(cluster.catalog(), cluster.streams()),
                StreamMaintenanceTask.tickCleanup(cluster.catalog(), cluster.streams()));
    }

    /**
     * The cluster's tasks where an application task of the same {@link MaintenanceTask#name() name} takes the place
     * of the default one, followed by the application's other tasks in their order.
     */
    public static List<MaintenanceTask> of(Cluster cluster, List<MaintenanceTask> applicationTasks) {
        Map<String, MaintenanceTask> byName = new LinkedHashMap<>();
        applicationTasks.forEach(task -> byName.putIfAbsent(task.name(), task));
        List<MaintenanceTask> tasks = new ArrayList<>();
        for (MaintenanceTask task : of(cluster)) {
            MaintenanceTask replacement = byName.remove(task.name());
            tasks.add(replacement != null ? replacement : task);
        }
        tasks.addAll(byName.values());
        return tasks;
    }
}
