package io.pgvs3.core.maintenance;

/**
 * One step of the maintenance pass (job promotion, lease expiry, stream retries, rotation, …). A task manages its
 * own transactions and returns how many items it handled.
 */
public interface MaintenanceTask {

    String name();

    long run();
}
