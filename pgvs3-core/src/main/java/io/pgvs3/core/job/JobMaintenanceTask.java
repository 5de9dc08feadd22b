package io.pgvs3.core.job;

import io.pgvs3.core.catalog.QueueCatalog;
import io.pgvs3.core.catalog.QueueName;
import io.pgvs3.core.maintenance.MaintenanceTask;
import io.pgvs3.core.sql.QueueStatement;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The jobs view's part of the maintenance pass: execution timeouts, expired leases, due jobs, TTL expiry and
 * retention pruning per queue, then old events, finished workflows and orphaned locator rows.
 */
public class JobMaintenanceTask implements MaintenanceTask {

    /** One queue's pass, on its schema. */
    static final QueueStatement MAINTAIN_QUEUE_SQL = QueueStatement.of("SELECT {maintain}(?, ?, ?)");

    /**
     * From the head of the log in id order, up to its first event still within the retention: occurred_at has no
     * index (one per event cost every transition a B-tree entry), and a pass with nothing to delete reads one row. An
     * event stays while an event before it is younger than the retention; that one's transaction began before this
     * one's insert, so an event outlives the retention by at most the length of its transaction.
     */
    static final String PRUNE_EVENTS_SQL = "DELETE FROM s3p.job_events WHERE id IN (SELECT e.id FROM s3p.job_events e"
            + " WHERE e.id < coalesce((SELECT h.id FROM (SELECT id, occurred_at FROM s3p.job_events ORDER BY id"
            + " LIMIT ?) h WHERE h.occurred_at >= now() - make_interval(secs => ? / 1000.0) ORDER BY h.id LIMIT 1),"
            + " 9223372036854775807) ORDER BY e.id LIMIT ?)";

    static final String PRUNE_WORKFLOWS_SQL = "DELETE FROM s3p.workflows WHERE id IN (SELECT id FROM s3p.workflows"
            + " WHERE finished_at < now() - make_interval(secs => ? / 1000.0) LIMIT ?)";

    static final String PRUNE_LOCATOR_SQL = "SELECT s3p.prune_job_locator(?)";

    private static final Logger log = LoggerFactory.getLogger(JobMaintenanceTask.class);

    private final JdbcTemplate jdbc;
    private final QueueCatalog catalog;
    private final JobStoreSettings settings;
    private final JobEventLog events;

    public JobMaintenanceTask(JdbcTemplate jdbc, QueueCatalog catalog, JobStoreSettings settings, JobEventLog events) {
        this.jdbc = jdbc;
        this.catalog = catalog;
        this.settings = settings;
        this.events = events;
    }

    /** The maintenance of the store's queues, with its settings and event log. */
    public JobMaintenanceTask(JobStore store) {
        this(store.jdbc(), store.catalog(), store.settings(), store.eventLog());
    }

    @Override
    public String name() {
        return "jobs";
    }

    @Override
    public long run() {
        return maintain();
    }

    /**
     * One maintenance step over every queue (each in its own short transaction; a queue that fails is logged and
     * skipped), then old events and orphaned locator rows.
     */
    public long maintain() {
        long handled = 0;
        for (String name : catalog.names()) {
            QueueName queue = QueueName.of(name);
            try {
                Long count = jdbc.queryForObject(MAINTAIN_QUEUE_SQL.in(queue.schema()), Long.class,
                        settings.maintenanceBatch(), settings.retention().toMillis(),
                        settings.deadLetterRetention().toMillis());
                handled += count == null ? 0 : count;
            }
            catch (DataAccessException ex) {
                // one queue that cannot be maintained must not stall the leases, retries and pruning of the others
                if (!QueueCatalog.isMissingNamespace(ex)) {
                    log.warn("Maintenance of the jobs of queue {} failed: {}", name, ex.getMessage());
                }
            }
        }
        long eventBatch = settings.maintenanceBatch() * 10L;
        handled += jdbc.update(PRUNE_EVENTS_SQL, eventBatch, settings.eventRetention().toMillis(), eventBatch);
        handled += jdbc.update(PRUNE_WORKFLOWS_SQL, settings.retention().toMillis(), settings.maintenanceBatch());
        Long orphans = jdbc.queryForObject(PRUNE_LOCATOR_SQL, Long.class, settings.maintenanceBatch());
        events.eventStreams().maintain();
        if (handled > 0) {
            events.transitioned();
        }
        return handled + (orphans == null ? 0 : orphans);
    }
}
