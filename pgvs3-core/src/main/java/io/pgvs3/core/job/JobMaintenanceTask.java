package io.pgvs3.core.job;

import io.pgvs3.core.maintenance.MaintenanceTask;

/**
 * The jobs view's part of the maintenance pass: see {@link JobStore#maintain()}.
 */
public class JobMaintenanceTask implements MaintenanceTask {

    private final JobStore store;

    public JobMaintenanceTask(JobStore store) {
        this.store = store;
    }

    @Override
    public String name() {
        return "jobs";
    }

    @Override
    public long run() {
        return store.maintain();
    }
}
