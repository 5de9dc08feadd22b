package io.pgvs3.core.catalog;

import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.function.Supplier;

import io.pgvs3.core.error.SqlErrors;

import org.springframework.dao.DataAccessException;
import org.springframework.dao.PessimisticLockingFailureException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.RowMapper;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * The catalog of queue namespaces: create (idempotent and safe under concurrency), list, describe, drop.
 * <p>
 * Names known to exist are cached so the hot paths (enqueue, append) do not ask the catalog each time; a
 * statement that finds the namespace gone (dropped elsewhere) should call {@link #forget(QueueName)} and retry
 * through {@link #withQueue(QueueName, Supplier)}.
 */
public class QueueCatalog {

    private static final int DROP_ATTEMPTS = 5;

    static final String ENSURE_SQL = "SELECT s3p.ensure_queue_schema(?)";
    static final String EXISTS_SQL = "SELECT EXISTS (SELECT 1 FROM s3p.queues WHERE name = ?)";
    static final String DESCRIBE_SQL = "SELECT name, schema_name, created_at FROM s3p.queues WHERE name = ?";
    static final String LIST_SQL = "SELECT name, schema_name, created_at FROM s3p.queues ORDER BY name LIMIT ? OFFSET ?";
    static final String OVERVIEW_SQL = "SELECT name, schema_name, created_at, paused, estimated_jobs,"
            + " estimated_stream_events FROM s3p.queue_overview(?, ?)";
    static final String NAMES_SQL = "SELECT name FROM s3p.queues ORDER BY name";
    static final String COUNT_SQL = "SELECT count(*) FROM s3p.queues";
    static final String DROP_SQL = "SELECT s3p.drop_queue(?)";

    private static final RowMapper<QueueSummary> SUMMARY = (rs, row) -> new QueueSummary(
            rs.getString("name"), rs.getString("schema_name"), rs.getTimestamp("created_at").toInstant());

    private final JdbcTemplate jdbc;
    private final Set<String> known = ConcurrentHashMap.newKeySet();
    private final List<Consumer<QueueName>> dropListeners = new CopyOnWriteArrayList<>();

    public QueueCatalog(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
    }

    /** Creates the queue's namespace if it does not exist yet; returns its schema name. */
    public String ensure(QueueName name) {
        if (!known.contains(name.value())) {
            jdbc.queryForObject(ENSURE_SQL, String.class, name.value());
            remember(name);
        }
        return name.schema();
    }

    public boolean exists(QueueName name) {
        if (known.contains(name.value())) {
            return true;
        }
        boolean exists = Boolean.TRUE.equals(jdbc.queryForObject(EXISTS_SQL, Boolean.class, name.value()));
        if (exists) {
            remember(name);
        }
        return exists;
    }

    /**
     * Caches a name as existing. Inside a transaction that happens after commit: a namespace created by a
     * transaction that rolls back never existed, and a cache entry for it would send later work to a missing schema.
     */
    private void remember(QueueName name) {
        if (TransactionSynchronizationManager.isSynchronizationActive()) {
            TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
                @Override
                public void afterCommit() {
                    known.add(name.value());
                }
            });
        }
        else {
            known.add(name.value());
        }
    }

    public Optional<QueueSummary> describe(QueueName name) {
        return jdbc.query(DESCRIBE_SQL, SUMMARY, name.value()).stream().findFirst();
    }

    public List<QueueSummary> list(int limit, int offset) {
        return jdbc.query(LIST_SQL, SUMMARY, limit, offset);
    }

    /** One page of queues by name, each with its paused flag and estimated row counts (see {@link QueueOverview}). */
    public List<QueueOverview> overview(int limit, int offset) {
        return jdbc.query(OVERVIEW_SQL, (rs, row) -> new QueueOverview(rs.getString(1), rs.getString(2),
                        rs.getTimestamp(3).toInstant(), rs.getBoolean(4), rs.getLong(5), rs.getLong(6)), limit, offset);
    }

    public List<String> names() {
        return jdbc.queryForList(NAMES_SQL, String.class);
    }

    public long count() {
        Long count = jdbc.queryForObject(COUNT_SQL, Long.class);
        return count == null ? 0 : count;
    }

    /** Drops the namespace (both views) and its catalog row atomically; false if there was none. */
    public boolean drop(QueueName name) {
        known.remove(name.value());
        boolean dropped = dropQueue(name);
        if (dropped) {
            dropListeners.forEach(listener -> listener.accept(name));
        }
        return dropped;
    }

    /**
     * {@code DROP SCHEMA … CASCADE} locks the queue's objects in an order of its own, so a maintenance pass working on
     * the same queue (compaction, rotation) can deadlock with it; PostgreSQL then aborts one of the two. When the drop
     * is the one aborted, and it runs in a transaction of its own, it is simply run again.
     */
    private boolean dropQueue(QueueName name) {
        boolean retryable = !TransactionSynchronizationManager.isActualTransactionActive();
        for (int attempt = 1; ; attempt++) {
            try {
                return Boolean.TRUE.equals(jdbc.queryForObject(DROP_SQL, Boolean.class, name.value()));
            }
            catch (PessimisticLockingFailureException ex) {
                if (!retryable || attempt >= DROP_ATTEMPTS) {
                    throw ex;
                }
            }
        }
    }

    /** Drops every queue namespace. */
    public void dropAll() {
        for (String name : names()) {
            drop(QueueName.of(name));
        }
        known.clear();
    }

    public void forget(QueueName name) {
        known.remove(name.value());
    }

    /** Called after a queue is dropped through this catalog, so caches keyed by queue can be cleared. */
    public void onDrop(Consumer<QueueName> listener) {
        dropListeners.add(listener);
    }

    /**
     * Runs {@code work} against a queue that must exist, creating its namespace first. If the namespace vanished
     * since it was cached (dropped by another instance), the cache entry is dropped and the work retried once.
     */
    public <T> T withQueue(QueueName name, Supplier<T> work) {
        ensure(name);
        try {
            return work.get();
        }
        catch (DataAccessException ex) {
            if (!isMissingNamespace(ex)) {
                throw ex;
            }
            forget(name);
            ensure(name);
            return work.get();
        }
    }

    /** Whether a failure means the queue's schema, table or function does not exist. */
    public static boolean isMissingNamespace(Throwable ex) {
        return SqlErrors.isMissingNamespace(ex);
    }

}
