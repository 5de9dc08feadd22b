package io.pgvs3.core.job;

import io.pgvs3.core.maintenance.MaintenanceTask;

/** Fires due crons as part of the maintenance pass: see {@link CronStore#fireDue()}. */
public class CronMaintenanceTask implements MaintenanceTask {

    private final CronStore crons;

    public CronMaintenanceTask(CronStore crons) {
        this.crons = crons;
    }

    @Override
    public String name() {
        return "crons";
    }

    @Override
    public long run() {
        return crons.fireDue();
    }
}
