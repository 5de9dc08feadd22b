package io.pgvs3.core.job;

import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.AbstractList;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.RandomAccess;
import java.util.Set;
import java.util.UUID;

import io.pgvs3.core.catalog.QueueCatalog;
import io.pgvs3.core.catalog.QueueName;
import io.pgvs3.core.error.Pgvs3Exception;
import io.pgvs3.core.job.AckBatcher.AckOutcome;
import io.pgvs3.core.notify.NotificationHub;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The job lifecycle on PostgreSQL: enqueue, fetch (claim with a lease), ack, nack, heartbeat, get, cancel and
 * release. Each operation is one round trip (enqueueing to several queues is one transaction). Every method works
 * inside a caller's Spring transaction on the same {@code DataSource}; outside one, concurrent acks are grouped into
 * shared commits. Queue administration is {@link JobQueues}, the dead letters {@link JobDeadLetters}, the event log
 * {@link JobEventLog} and the maintenance {@link JobMaintenanceTask}.
 * <p>
 * After an enqueue that makes a job available commits, a notification with payload {@code jobs} follows on the
 * channel named like the queue's schema, {@code s3q_<queue>}, so listeners can wake without polling: sent by the
 * enqueue's own transaction when it runs inside a caller's transaction or when no other enqueue is notifying from
 * its transaction at the same time, else right after its commit. Releases, requeues and expired leases notify the
 * same channel.
 */
public class JobStore {

    public static final int MAX_FETCH_COUNT = 1000;

    static final String NACK_SQL = "SELECT a.job::text, a.ok FROM s3p.job_action('nack', ?, ?, ?::jsonb, ?) a";

    static final String HEARTBEAT_SQL = "SELECT h.id::text, h.directive FROM s3p.heartbeat_jobs(?, ?, ?, ?) h";

    static final String GET_SQL = "SELECT s3p.get_job(?)::text";

    static final String CANCEL_SQL = "SELECT a.job::text, a.ok FROM s3p.job_action('cancel', ?) a";

    static final String RELEASE_SQL = "SELECT a.job::text, a.ok FROM s3p.job_action('release', ?, ?) a";

    static final String FORGET_QUEUE_SQL = "SELECT s3p.forget_job_locations(?)";

    private final JdbcTemplate jdbc;
    private final QueueCatalog catalog;
    private final JobStoreSettings settings;
    private final JsonMapper mapper = JsonMapper.builder().build();
    private final JobRows rows = new JobRows(mapper);
    private final AckBatcher ackBatcher;
    private final JobEventLog events;
    private final JobEnqueuer enqueuer;
    private final FetchedJobs located = new FetchedJobs();
    private final JobFetcher fetcher;
    private final JobAcks acks;

    public JobStore(JdbcTemplate jdbc, QueueCatalog catalog) {
        this(jdbc, catalog, JobStoreSettings.DEFAULTS);
    }

    public JobStore(JdbcTemplate jdbc, QueueCatalog catalog, JobStoreSettings settings) {
        this(jdbc, catalog, settings, new JobEventLog(jdbc, catalog));
    }

    /** A store that reports its transitions to {@code events} (shared with the other job stores of the database). */
    public JobStore(JdbcTemplate jdbc, QueueCatalog catalog, JobStoreSettings settings, JobEventLog events) {
        this(jdbc, catalog, settings, events, null);
    }

    /**
     * A store whose enqueues also wake the listeners registered with {@code localListeners}, this process's LISTEN
     * hub on the same database, directly once they commit (see {@link NotificationHub#wakeUpLocally}).
     */
    public JobStore(JdbcTemplate jdbc, QueueCatalog catalog, JobStoreSettings settings, JobEventLog events,
            NotificationHub localListeners) {
        this.jdbc = jdbc;
        this.catalog = catalog;
        this.settings = settings;
        this.events = events;
        this.fetcher = new JobFetcher(jdbc, catalog, settings, rows);
        this.acks = new JobAcks(jdbc, catalog, events, rows);
        this.ackBatcher = new AckBatcher(settings.maxAckBatch(), settings.ackFlushers(), acks::executeLocated);
        this.enqueuer = new JobEnqueuer(jdbc, catalog,
                new TransactionTemplate(new DataSourceTransactionManager(jdbc.getDataSource())), events,
                localListeners);
        catalog.onDrop(queue -> {
            located.forget(queue);
            jdbc.queryForObject(FORGET_QUEUE_SQL, Long.class, queue.value());
        });
    }

    public JobStoreSettings settings() {
        return settings;
    }

    /** The event log this store reports its transitions to. */
    public JobEventLog eventLog() {
        return events;
    }

    JdbcTemplate jdbc() {
        return jdbc;
    }

    QueueCatalog catalog() {
        return catalog;
    }

    public Job enqueue(NewJob job) {
        return enqueueBatch(List.of(job)).get(0);
    }

    /** Enqueues a job; for a unique job ignored on conflict, answers the existing job with {@code created} false. */
    public EnqueueOutcome enqueueOrGet(NewJob job) {
        return enqueuer.enqueueAll(List.of(job)).get(0);
    }

    /**
     * Enqueues all jobs or none: a job id that already exists, or a unique job rejected on conflict, fails the whole
     * batch with 409 {@code duplicate}.
     */
    public List<Job> enqueueBatch(List<NewJob> jobs) {
        return new JobsOf(enqueuer.enqueueAll(jobs));
    }

    /** The normalised JSON spec a queue's {@code enqueue} function takes. */
    ObjectNode spec(NewJob job, String id, int ord) {
        return enqueuer.spec(job, id, ord);
    }

    /**
     * Claims up to {@code count} jobs, draining the queues in the order given. The lease is
     * {@code visibilityTimeout} if given, else the job's own visibility timeout, else the default.
     */
    public List<Job> fetch(List<String> queues, int count, String workerId, Duration visibilityTimeout) {
        if (queues == null || queues.isEmpty()) {
            throw Pgvs3Exception.invalidRequest("at least one queue is required", "queues");
        }
        if (count < 1 || count > MAX_FETCH_COUNT) {
            throw Pgvs3Exception.invalidRequest("count must be between 1 and " + MAX_FETCH_COUNT, "count");
        }
        NewJob.requirePositiveDuration(visibilityTimeout, "visibility_timeout_ms");
        String[] names = queues.stream().map(q -> QueueName.of(q).value()).distinct().toArray(String[]::new);
        List<Job> jobs = fetcher.fetch(names, count, workerId, visibilityTimeout);
        if (!jobs.isEmpty()) {
            located.remember(jobs);
            events.transitioned();
        }
        return jobs;
    }

    public Job ack(String jobId, String resultJson) {
        return ack(jobId, null, resultJson);
    }

    /**
     * Completes an active job. With a worker id, the job must be leased to that worker. Answers 404 for an unknown
     * job and 409 {@code conflict} for a job that is not active under that lease.
     */
    public Job ack(String jobId, String workerId, String resultJson) {
        UUID id = JobActions.jobUuid(jobId);
        String result = resultJson == null || resultJson.equals("null") ? null : resultJson;
        QueueName queue = located.take(id);
        AckOutcome outcome;
        if (TransactionSynchronizationManager.isActualTransactionActive()) {
            outcome = acks.execute(null, List.of(new AckBatcher.Request(id, workerId, result, null, null, null)), true)
                    .get(1);
        }
        else if (settings.maxAckBatch() == 1) {
            outcome = acks.executeLocated(List.of(new AckBatcher.Request(id, workerId, result, queue, null, null)))
                    .get(1);
        }
        else {
            outcome = ackBatcher.submit(id, workerId, result, queue);
        }
        if (outcome == null || outcome.job() == null) {
            throw JobErrors.jobNotFound(jobId);
        }
        if (!outcome.ok()) {
            throw JobErrors.notActive(outcome.job(), workerId, "acknowledged");
        }
        return outcome.job();
    }

    /**
     * Completes many jobs in one statement and one commit (or inside the caller's transaction), for a worker that
     * gathers its own acks. Answers one result per completion, in order: acknowledged (the completed job is not read
     * back), or not, with the job as it is (a job that is not active under the given lease is left alone) or
     * without one (no such job).
     */
    public List<AckResult> ackAll(List<JobCompletion> completions) {
        return ackAll(null, completions);
    }

    /**
     * As {@link #ackAll(List)}, for jobs that were all fetched from {@code queue}: they are completed by that queue's
     * own {@code ack} function, without looking up the queue of every job in the locator. A job that is not in that
     * queue is answered as no such job.
     */
    public List<AckResult> ackAll(String queue, List<JobCompletion> completions) {
        QueueName queueName = queue == null ? null : QueueName.of(queue);
        List<AckBatcher.Request> requests = new ArrayList<>(completions.size());
        List<Integer> positions = new ArrayList<>(completions.size());
        for (int i = 0; i < completions.size(); i++) {
            JobCompletion completion = completions.get(i);
            Optional<UUID> id = JobActions.parseUuid(completion.jobId());
            if (id.isPresent()) {
                String result = completion.resultJson() == null || completion.resultJson().equals("null") ? null
                        : completion.resultJson();
                requests.add(new AckBatcher.Request(id.get(), completion.workerId(), result, null, null, null));
                positions.add(i);
            }
        }
        Map<Integer, AckOutcome> outcomes = requests.isEmpty() ? Map.of() : acks.execute(queueName, requests, false);
        AckResult[] results = new AckResult[completions.size()];
        for (int i = 0; i < completions.size(); i++) {
            results[i] = new AckResult(completions.get(i).jobId(), null, false);
        }
        for (int n = 0; n < positions.size(); n++) {
            AckOutcome outcome = outcomes.get(n + 1);
            int position = positions.get(n);
            if (outcome != null) {
                results[position] = new AckResult(completions.get(position).jobId(), outcome.job(), outcome.ok());
            }
        }
        return List.of(results);
    }

    public Job nack(String jobId, JobError error) {
        return nack(jobId, null, error, false);
    }

    /**
     * Fails an active job: with {@code requeue} it is available again at once; otherwise it is retried per its
     * policy, or discarded (and dead-lettered if its policy says so) once attempts are exhausted or the error is
     * not retryable.
     */
    public Job nack(String jobId, String workerId, JobError error, boolean requeue) {
        UUID id = JobActions.jobUuid(jobId);
        ObjectNode errorJson = mapper.createObjectNode();
        JobError reported = error != null ? error : JobError.of("handler_error", "job failed");
        errorJson.put("code", reported.code() != null ? reported.code() : "handler_error");
        errorJson.put("message", reported.message() != null ? reported.message() : "");
        if (reported.type() != null) {
            errorJson.put("type", reported.type());
        }
        if (reported.retryable() != null) {
            errorJson.put("retryable", reported.retryable());
        }
        if (reported.detailsJson() != null) {
            errorJson.set("details", JobJsonFields.read(reported.detailsJson(), "error.details", mapper::readTree));
        }
        AckOutcome outcome = single(NACK_SQL, id, workerId, errorJson.toString(), requeue);
        if (outcome == null) {
            throw JobErrors.jobNotFound(jobId);
        }
        if (!outcome.ok()) {
            throw JobErrors.notActive(outcome.job(), workerId, "failed");
        }
        return outcome.job();
    }

    /**
     * Extends the leases of the given active jobs held by the worker, by {@code visibilityTimeout} or else each
     * job's own visibility timeout or the default.
     */
    public HeartbeatResult heartbeat(String workerId, List<String> jobIds, Duration visibilityTimeout) {
        NewJob.requirePositiveDuration(visibilityTimeout, "visibility_timeout_ms");
        List<UUID> ids = new ArrayList<>();
        for (String jobId : jobIds == null ? List.<String>of() : jobIds) {
            JobActions.parseUuid(jobId).ifPresent(ids::add);
        }
        if (ids.isEmpty()) {
            return new HeartbeatResult(HeartbeatResult.RUNNING, List.of());
        }
        List<String> extended = new ArrayList<>();
        Set<String> directives = new HashSet<>();
        jdbc.query(connection -> {
            PreparedStatement statement = connection.prepareStatement(HEARTBEAT_SQL);
            statement.setArray(1, connection.createArrayOf("uuid", ids.toArray()));
            statement.setString(2, workerId);
            statement.setObject(3, visibilityTimeout == null ? null : visibilityTimeout.toMillis(), java.sql.Types.BIGINT);
            statement.setLong(4, settings.defaultVisibilityTimeout().toMillis());
            return statement;
        }, rs -> {
            extended.add(rs.getString(1));
            if (rs.getString(2) != null) {
                directives.add(rs.getString(2));
            }
        });
        String directive = directives.contains(HeartbeatResult.TERMINATE) ? HeartbeatResult.TERMINATE
                : directives.contains(HeartbeatResult.QUIET) ? HeartbeatResult.QUIET : HeartbeatResult.RUNNING;
        return new HeartbeatResult(directive, List.copyOf(extended));
    }

    public Optional<Job> get(String jobId) {
        Optional<UUID> id = JobActions.parseUuid(jobId);
        if (id.isEmpty()) {
            return Optional.empty();
        }
        List<String> found = jdbc.queryForList(GET_SQL, String.class, id.get());
        return found.isEmpty() || found.get(0) == null ? Optional.empty()
                : Optional.of(Job.fromEnvelopeText(found.get(0)));
    }

    /** Cancels a job that is not yet terminal, including an active one; 409 {@code conflict} for a terminal job. */
    public Job cancel(String jobId) {
        AckOutcome outcome = single(CANCEL_SQL, JobActions.jobUuid(jobId));
        if (outcome == null) {
            throw JobErrors.jobNotFound(jobId);
        }
        if (!outcome.ok()) {
            throw Pgvs3Exception.conflict("job " + jobId + " is " + outcome.job().state().wireValue()
                    + " and can no longer be cancelled");
        }
        return outcome.job();
    }

    public void release(String jobId) {
        release(jobId, null);
    }

    /** Gives an active job back at once, unprocessed (its attempt does not count); for a worker shutting down. */
    public Job release(String jobId, String workerId) {
        AckOutcome outcome = single(RELEASE_SQL, JobActions.jobUuid(jobId), workerId);
        if (outcome == null) {
            throw JobErrors.jobNotFound(jobId);
        }
        if (!outcome.ok()) {
            throw JobErrors.notActive(outcome.job(), workerId, "released");
        }
        return outcome.job();
    }

    private AckOutcome single(String sql, Object... args) {
        return JobActions.single(jdbc, events, sql, args);
    }

    /** The jobs of enqueue outcomes, each read from its outcome when asked for. */
    private static final class JobsOf extends AbstractList<Job> implements RandomAccess {

        private final List<EnqueueOutcome> outcomes;

        JobsOf(List<EnqueueOutcome> outcomes) {
            this.outcomes = outcomes;
        }

        @Override
        public Job get(int index) {
            return outcomes.get(index).job();
        }

        @Override
        public int size() {
            return outcomes.size();
        }
    }
}
