package io.pgvs3.core.maintenance;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;

import javax.sql.DataSource;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.CannotGetJdbcConnectionException;

/**
 * Runs every {@link MaintenanceTask} once, on at most one instance at a time.
 * <p>
 * Leadership is a transaction-scoped advisory lock held on a connection of its own for the length of the pass;
 * the tasks run in their own transactions. The holding transaction never writes, so it pins no xmin horizon.
 */
public class MaintenancePass {

    /** Why a task that a stop kept from running is listed among a pass's failures. */
    static final String STOPPED = "not run: maintenance is stopping";

    /** Takes the advisory lock that elects the maintenance leader (key {@code pgvs3.maintenance}, see sql/README.md). */
    static final String LOCK_SQL = "SELECT pg_try_advisory_xact_lock(s3p.maintenance_lock_key())";

    private static final Logger log = LoggerFactory.getLogger(MaintenancePass.class);

    private final DataSource dataSource;
    private final List<MaintenanceTask> tasks;
    private volatile MaintenanceReport lastReport;

    public MaintenancePass(DataSource dataSource, List<MaintenanceTask> tasks) {
        this.dataSource = dataSource;
        this.tasks = List.copyOf(tasks);
    }

    public List<MaintenanceTask> tasks() {
        return tasks;
    }

    /** The report of the most recent pass this instance ran as leader, or null. */
    public MaintenanceReport lastReport() {
        return lastReport;
    }

    public MaintenanceReport runOnce() {
        return runOnce(() -> false);
    }

    /**
     * Runs the tasks once, but none after {@code stopRequested} answers true: a stop waits for the task running at
     * that moment, not for the whole pass (with the database unreachable each task waits for a connection in turn).
     * The tasks left out are listed among the failures, so such a pass never counts as complete.
     */
    public MaintenanceReport runOnce(BooleanSupplier stopRequested) {
        Instant started = Instant.now();
        long startNanos = System.nanoTime();
        try (Connection lock = dataSource.getConnection()) {
            lock.setAutoCommit(false);
            try {
                if (!tryLock(lock)) {
                    return MaintenanceReport.skipped(started, Duration.ofNanos(System.nanoTime() - startNanos));
                }
                Map<String, Long> handled = new LinkedHashMap<>();
                Map<String, String> failures = new LinkedHashMap<>();
                for (MaintenanceTask task : tasks) {
                    if (stopRequested.getAsBoolean()) {
                        failures.put(task.name(), STOPPED);
                        continue;
                    }
                    try {
                        handled.put(task.name(), task.run());
                    }
                    catch (RuntimeException ex) {
                        failures.put(task.name(), String.valueOf(ex.getMessage()));
                        log.warn("Maintenance task {} failed", task.name(), ex);
                    }
                }
                MaintenanceReport report = new MaintenanceReport(true, started,
                        Duration.ofNanos(System.nanoTime() - startNanos), Map.copyOf(handled), Map.copyOf(failures));
                lastReport = report;
                return report;
            }
            finally {
                lock.rollback();
            }
        }
        catch (SQLException ex) {
            throw new CannotGetJdbcConnectionException("Maintenance could not hold its lock connection", ex);
        }
    }

    private static boolean tryLock(Connection connection) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(LOCK_SQL);
                ResultSet rs = statement.executeQuery()) {
            return rs.next() && rs.getBoolean(1);
        }
    }
}
