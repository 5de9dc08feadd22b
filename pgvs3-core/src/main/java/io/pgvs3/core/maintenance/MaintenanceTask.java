package io.pgvs3.core.maintenance;

import java.util.function.LongSupplier;

/**
 * One step of the maintenance pass (job promotion, lease expiry, stream retries, rotation, …). A task manages its
 * own transactions and returns how many items it handled.
 */
public interface MaintenanceTask {

    String name();

    long run();

    /** A task named {@code name} that runs {@code work}. */
    static MaintenanceTask of(String name, LongSupplier work) {
        return new MaintenanceTask() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public long run() {
                return work.getAsLong();
            }
        };
    }
}
