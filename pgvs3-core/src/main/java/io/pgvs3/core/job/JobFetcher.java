package io.pgvs3.core.job;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.pgvs3.core.catalog.QueueCatalog;
import io.pgvs3.core.catalog.QueueName;
import io.pgvs3.core.sql.QueueStatement;

import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * The claim of a fetch: from one queue by that queue's own {@code claim_rows}, from several (or inside a caller's
 * transaction) by {@code s3p.fetch_job_rows}. Arguments are checked by {@link JobStore#fetch}.
 * <p>
 * A claim that is a transaction of its own (the connection in auto-commit) commits without waiting for the WAL
 * flush: a crash before it only makes the jobs available again, to be delivered again. Inside a caller's transaction
 * the claim leaves the commit alone, since {@code synchronous_commit} would apply to the caller's writes as well.
 */
final class JobFetcher {

    static final String FETCH_SQL = "SELECT * FROM s3p.fetch_job_rows(?, ?, ?, ?, ?, ?)";

    /**
     * A fetch from one queue, by that queue's {@code claim_rows}: the columns of {@code s3p.fetch_job_rows}, whose
     * dynamic statement PostgreSQL parses and plans again on every call, where this one keeps a cached plan.
     */
    static final QueueStatement QUEUE_FETCH_SQL = QueueStatement.of(
            "SELECT " + JobRows.selectList("c") + " FROM {claim_rows}(?, ?, ?, ?, p_async_commit => ?) c");

    private final JdbcTemplate jdbc;
    private final QueueCatalog catalog;
    private final JobStoreSettings settings;
    private final JobRows rows;

    JobFetcher(JdbcTemplate jdbc, QueueCatalog catalog, JobStoreSettings settings, JobRows rows) {
        this.jdbc = jdbc;
        this.catalog = catalog;
        this.settings = settings;
        this.rows = rows;
    }

    /** Claims up to {@code count} jobs from the queues, drained in the order given. */
    List<Job> fetch(String[] names, int count, String workerId, Duration visibilityTimeout) {
        return names.length == 1 && !TransactionSynchronizationManager.isActualTransactionActive()
                ? fetchOne(QueueName.of(names[0]), count, workerId, visibilityTimeout)
                : fetchAll(names, count, workerId, visibilityTimeout);
    }

    /**
     * A fetch from one queue straight from its schema. A queue that does not exist has no jobs, as for
     * {@code s3p.fetch_job_rows}; a queue dropped since the catalog last saw it is looked up again that way. Only
     * outside a caller's transaction, which the failed statement would abort.
     */
    private List<Job> fetchOne(QueueName queue, int count, String workerId, Duration visibilityTimeout) {
        if (!catalog.exists(queue)) {
            return List.of();
        }
        try {
            return claim(QUEUE_FETCH_SQL.in(queue.schema()), statement -> statement.setString(1, queue.value()),
                    count, workerId, visibilityTimeout);
        }
        catch (DataAccessException ex) {
            if (!QueueCatalog.isMissingNamespace(ex)) {
                throw ex;
            }
            catalog.forget(queue);
            return fetchAll(new String[] {queue.value()}, count, workerId, visibilityTimeout);
        }
    }

    /** A fetch by {@code s3p.fetch_job_rows}, which drains the queues in the order given. */
    private List<Job> fetchAll(String[] names, int count, String workerId, Duration visibilityTimeout) {
        return claim(FETCH_SQL,
                statement -> statement.setArray(1, statement.getConnection().createArrayOf("text", names)),
                count, workerId, visibilityTimeout);
    }

    /**
     * Runs a claim statement whose first parameter names the queues and whose other five are the same for both, the
     * last whether the statement is its own transaction.
     */
    private List<Job> claim(String sql, QueuesParameter queues, int count, String workerId,
            Duration visibilityTimeout) {
        List<Job> jobs = new ArrayList<>();
        jdbc.query(connection -> {
            PreparedStatement statement = connection.prepareStatement(sql);
            queues.set(statement);
            statement.setInt(2, count);
            statement.setString(3, workerId);
            statement.setObject(4, visibilityTimeout == null ? null : visibilityTimeout.toMillis(), Types.BIGINT);
            statement.setLong(5, settings.defaultVisibilityTimeout().toMillis());
            statement.setBoolean(6, connection.getAutoCommit());
            return statement;
        }, rs -> {
            jobs.add(rows.job(rs));
        });
        return jobs;
    }

    @FunctionalInterface
    private interface QueuesParameter {

        void set(PreparedStatement statement) throws SQLException;
    }
}
