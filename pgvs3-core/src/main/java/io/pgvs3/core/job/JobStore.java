package io.pgvs3.core.job;

import java.sql.Array;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.AbstractList;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.RandomAccess;
import java.util.Set;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.pgvs3.core.UuidV7;
import io.pgvs3.core.catalog.QueueCatalog;
import io.pgvs3.core.catalog.QueueName;
import io.pgvs3.core.error.ErrorCode;
import io.pgvs3.core.error.Pgvs3Exception;
import io.pgvs3.core.job.AckBatcher.AckOutcome;
import io.pgvs3.core.notify.NotificationHub;
import io.pgvs3.core.notify.QueueNotifier;
import io.pgvs3.core.sql.Identifiers;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

import org.postgresql.util.PSQLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The job lifecycle on PostgreSQL: enqueue, fetch (claim with a lease), ack, nack, heartbeat, cancel, release, the
 * dead-letter list and the event log. Each operation is one round trip (enqueueing to several queues is one
 * transaction). Every method works inside a caller's Spring transaction on the same {@code DataSource}; outside
 * one, concurrent acks are grouped into shared commits.
 * <p>
 * After an enqueue that makes a job available commits, a notification with payload {@code jobs} follows on the
 * channel named like the queue's schema, {@code s3q_<queue>}, so listeners can wake without polling: sent by the
 * enqueue's own transaction when it runs inside a caller's transaction or when no other enqueue is notifying from
 * its transaction at the same time, else right after its commit. Releases, requeues and expired leases notify the
 * same channel.
 */
public class JobStore {

    public static final int MAX_FETCH_COUNT = 1000;

    /** Counts of the stats route stop at this many jobs per state, so a large queue costs no full count. */
    public static final int STATS_CAP = 100_000;

    private static final String UNIQUE_CONFLICT = "S3410";

    private static final String UNIQUE_VIOLATION = "23505";

    /** untranslatable_character, character_not_in_repertoire, invalid_text_representation. */
    private static final Set<String> UNSTORABLE_TEXT = Set.of("22P05", "22021", "22P02");

    /** The primary keys that make a job id unique: the locator's across queues, the job table's within one. */
    private static final Set<String> JOB_ID_KEYS = Set.of("job_locator_pkey", "jobs_pkey");

    private static final Pattern UUID_TEXT = Pattern.compile("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");

    private static final Logger log = LoggerFactory.getLogger(JobStore.class);

    private final JdbcTemplate jdbc;
    private final QueueCatalog catalog;
    private final JobStoreSettings settings;
    private final TransactionTemplate transactions;
    private final JsonMapper mapper = JsonMapper.builder().build();
    private final JobRows rows = new JobRows(mapper);
    private final AckBatcher ackBatcher;
    private final QueueNotifier notifier;
    private final JobEventStreams eventStreams;

    public JobStore(JdbcTemplate jdbc, QueueCatalog catalog) {
        this(jdbc, catalog, JobStoreSettings.DEFAULTS);
    }

    public JobStore(JdbcTemplate jdbc, QueueCatalog catalog, JobStoreSettings settings) {
        this.jdbc = jdbc;
        this.catalog = catalog;
        this.settings = settings;
        this.transactions = new TransactionTemplate(new DataSourceTransactionManager(jdbc.getDataSource()));
        this.ackBatcher = new AckBatcher(settings.maxAckBatch(), settings.ackFlushers(), requests -> executeAcks(requests, true));
        this.notifier = new QueueNotifier(jdbc, "jobs");
        this.eventStreams = new JobEventStreams(jdbc, catalog);
        catalog.onDrop(queue -> jdbc.queryForObject("SELECT s3p.forget_job_locations(?)", Long.class, queue.value()));
    }

    public JobStoreSettings settings() {
        return settings;
    }

    /** The opt-ins of job queues into job lifecycle events as a stream. */
    public JobEventStreams eventStreams() {
        return eventStreams;
    }

    public Job enqueue(NewJob job) {
        return enqueueBatch(List.of(job)).get(0);
    }

    /** Enqueues a job; for a unique job ignored on conflict, answers the existing job with {@code created} false. */
    public EnqueueOutcome enqueueOrGet(NewJob job) {
        return enqueueAll(List.of(job)).get(0);
    }

    /**
     * Enqueues all jobs or none: a job id that already exists, or a unique job rejected on conflict, fails the whole
     * batch with 409 {@code duplicate}.
     */
    public List<Job> enqueueBatch(List<NewJob> jobs) {
        return new JobsOf(enqueueAll(jobs));
    }

    private List<EnqueueOutcome> enqueueAll(List<NewJob> jobs) {
        if (jobs.isEmpty()) {
            return List.of();
        }
        Set<String> ids = new HashSet<>();
        List<String> jobIds = new ArrayList<>(jobs.size());
        for (NewJob job : jobs) {
            String id = job.id() != null ? job.id() : UuidV7.generate().toString();
            if (!ids.add(id)) {
                throw duplicate(id);
            }
            jobIds.add(id);
        }
        if (jobs.stream().anyMatch(job -> job.unique() != null)) {
            // unique jobs take locks and may answer existing jobs: the JSON spec path of enqueue(jsonb) does that; it
            // skips an id that exists and the skip is found afterwards, so it always runs in a transaction that the
            // duplicate then rolls back
            Map<QueueName, ArrayNode> specs = new LinkedHashMap<>();
            for (int i = 0; i < jobs.size(); i++) {
                NewJob job = jobs.get(i);
                specs.computeIfAbsent(job.queue(), q -> mapper.createArrayNode()).add(spec(job, jobIds.get(i), i + 1));
            }
            return enqueueGrouped(jobs.size(), specs, this::insert);
        }
        Map<QueueName, EnqueueRows> rows = new LinkedHashMap<>();
        for (int i = 0; i < jobs.size(); i++) {
            NewJob job = jobs.get(i);
            rows.computeIfAbsent(job.queue(), q -> new EnqueueRows(mapper, q)).add(i + 1, job, jobIds.get(i));
        }
        if (rows.size() > 1 || TransactionSynchronizationManager.isActualTransactionActive()) {
            return enqueueGrouped(jobs.size(), rows, (queue, group, notification) -> insertRows(group, notification).byOrd());
        }
        // one statement in a transaction of its own: it notifies the queue itself unless another enqueue is doing so,
        // else listeners are woken once the jobs committed, outside the writing transaction (see QueueNotifier)
        EnqueueRows group = rows.values().iterator().next();
        EnqueueRows.Inserted inserted = catalog.withQueue(group.queue(),
                () -> insertRows(group, EnqueueNotification.UNLESS_BUSY));
        if (!inserted.notified() && inserted.outcomes().anyAvailable()) {
            notifier.signal(NotificationHub.channelFor(group.queue()));
        }
        eventStreams.transitioned();
        return inserted.outcomes();
    }

    /** Inserts one group of jobs into one queue; answers the outcomes by the jobs' positions (1-based). */
    private interface GroupInsert<G> {

        Map<Integer, EnqueueOutcome> insert(QueueName queue, G group, EnqueueNotification notification);
    }

    /** Inserts groups of jobs in one transaction, the caller's if there is one. */
    private <G> List<EnqueueOutcome> enqueueGrouped(int size, Map<QueueName, G> groups, GroupInsert<G> inserter) {
        // inside a caller's transaction the enqueue notifies at its commit; otherwise listeners are woken once the
        // jobs committed, outside the writing transaction (see QueueNotifier)
        boolean callersTransaction = TransactionSynchronizationManager.isActualTransactionActive();
        EnqueueNotification notification = callersTransaction ? EnqueueNotification.ALWAYS : EnqueueNotification.NEVER;
        List<EnqueueOutcome> outcomes = transactions.execute(status -> {
            Map<Integer, EnqueueOutcome> inserted = new HashMap<>();
            groups.forEach((queue, group) -> {
                catalog.ensure(queue);
                inserted.putAll(inserter.insert(queue, group, notification));
            });
            return ordered(size, inserted);
        });
        if (!callersTransaction) {
            outcomes.stream().filter(outcome -> outcome.created() && outcome.job().state() == JobState.AVAILABLE)
                    .map(outcome -> outcome.job().queue()).distinct()
                    .forEach(queue -> notifier.signal(NotificationHub.channelFor(QueueName.of(queue))));
        }
        eventStreams.transitioned();
        return outcomes;
    }

    private EnqueueRows.Inserted insertRows(EnqueueRows rows, EnqueueNotification notification) {
        try {
            return rows.insert(jdbc, notification);
        }
        catch (DataAccessException ex) {
            SQLException sql = sqlException(ex);
            if (sql instanceof PSQLException psql && UNIQUE_VIOLATION.equals(psql.getSQLState())
                    && psql.getServerErrorMessage() != null
                    && JOB_ID_KEYS.contains(psql.getServerErrorMessage().getConstraint())) {
                String detail = psql.getServerErrorMessage().getDetail();
                Matcher id = detail == null ? null : UUID_TEXT.matcher(detail);
                throw id != null && id.find() ? duplicate(id.group())
                        : new Pgvs3Exception(ErrorCode.DUPLICATE, "a job with one of these ids already exists",
                                Map.of(), ex);
            }
            throw unstorableText(ex);
        }
    }

    private Map<Integer, EnqueueOutcome> insert(QueueName queue, ArrayNode spec, EnqueueNotification notification) {
        boolean notify = notification == EnqueueNotification.ALWAYS;
        Map<Integer, EnqueueOutcome> inserted = new HashMap<>();
        try {
            jdbc.query("SELECT e.ord, e.job::text, e.created FROM " + Identifiers.quote(queue.schema())
                    + ".enqueue(?::jsonb, ?) e", rs -> {
                        inserted.put(rs.getInt(1), new EnqueueOutcome(job(rs.getString(2)), rs.getBoolean(3)));
                    }, spec.toString(), notify);
        }
        catch (DataAccessException ex) {
            SQLException sql = sqlException(ex);
            if (sql instanceof PSQLException psql && UNIQUE_CONFLICT.equals(psql.getSQLState())) {
                String existing = psql.getServerErrorMessage() != null ? psql.getServerErrorMessage().getDetail() : null;
                throw new Pgvs3Exception(ErrorCode.DUPLICATE, "a job with the same unique key already exists"
                        + (existing != null ? ": " + existing : ""),
                        existing != null ? Map.of("existing_job_id", existing) : Map.of(), ex);
            }
            throw unstorableText(ex);
        }
        for (JsonNode job : spec) {
            if (!inserted.containsKey(job.get("ord").asInt())) {
                throw duplicate(job.get("id").asString());
            }
        }
        return inserted;
    }

    private static List<EnqueueOutcome> ordered(int size, Map<Integer, EnqueueOutcome> byOrd) {
        List<EnqueueOutcome> result = new ArrayList<>(size);
        for (int i = 1; i <= size; i++) {
            result.add(byOrd.get(i));
        }
        return result;
    }

    /** The normalised JSON spec a queue's {@code enqueue} function takes. */
    ObjectNode spec(NewJob job, String id, int ord) {
        ObjectNode spec = mapper.createObjectNode();
        spec.put("ord", ord);
        spec.put("id", id);
        spec.put("type", job.type());
        JsonNode args = parse(job.argsJson(), "args");
        if (!args.isArray()) {
            throw Pgvs3Exception.invalidRequest("'args' must be an array", "args");
        }
        spec.set("args", args);
        if (job.metaJson() != null) {
            JsonNode meta = parse(job.metaJson(), "meta");
            if (!meta.isObject()) {
                throw Pgvs3Exception.invalidRequest("'meta' must be an object", "meta");
            }
            spec.set("meta", meta);
        }
        putObject(spec, "options", job.optionsJson());
        putObject(spec, "extra", job.extraJson());
        spec.put("priority", job.priority());
        spec.put("max_attempts", job.retry().maxAttempts());
        spec.set("retry", mapper.valueToTree(job.retry().toMap()));
        if (job.timeout() != null) {
            spec.put("timeout_ms", job.timeout().toMillis());
        }
        if (job.visibilityTimeout() != null) {
            spec.put("visibility_timeout_ms", job.visibilityTimeout().toMillis());
        }
        if (job.scheduledAt() != null) {
            spec.put("scheduled_at", job.scheduledAt().toString());
        }
        if (job.expiresAt() != null) {
            spec.put("expires_at", job.expiresAt().toString());
        }
        if (job.unique() != null) {
            UniqueOptions unique = job.unique();
            if (unique.key() != null) {
                spec.put("unique_key", unique.key());
            }
            else {
                spec.set("unique_parts", UniqueFingerprint.parts(unique, job, spec.get("args"), spec.get("meta")));
                if (!unique.keys().contains("queue")) {
                    spec.put("unique_global", true);
                }
            }
            ArrayNode states = spec.putArray("unique_states");
            unique.states().forEach(states::add);
            if (unique.period() != null) {
                spec.put("unique_period_ms", unique.period().toMillis());
            }
            spec.put("on_conflict", unique.onConflict());
        }
        return spec;
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
        List<Job> jobs = new ArrayList<>();
        jdbc.query(connection -> {
            PreparedStatement statement = connection.prepareStatement("SELECT * FROM s3p.fetch_job_rows(?, ?, ?, ?, ?)");
            statement.setArray(1, connection.createArrayOf("text", names));
            statement.setInt(2, count);
            statement.setString(3, workerId);
            statement.setObject(4, visibilityTimeout == null ? null : visibilityTimeout.toMillis(), java.sql.Types.BIGINT);
            statement.setLong(5, settings.defaultVisibilityTimeout().toMillis());
            return statement;
        }, rs -> {
            jobs.add(rows.job(rs));
        });
        if (!jobs.isEmpty()) {
            eventStreams.transitioned();
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
        UUID id = jobUuid(jobId);
        String result = resultJson == null || resultJson.equals("null") ? null : resultJson;
        AckOutcome outcome = TransactionSynchronizationManager.isActualTransactionActive() || settings.maxAckBatch() == 1
                ? executeAcks(List.of(new AckBatcher.Request(id, workerId, result, null)), true).get(1)
                : ackBatcher.submit(id, workerId, result);
        if (outcome == null || outcome.job() == null) {
            throw jobNotFound(jobId);
        }
        if (!outcome.ok()) {
            throw notActive(outcome.job(), workerId, "acknowledged");
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
            Optional<UUID> id = parseUuid(completion.jobId());
            if (id.isPresent()) {
                String result = completion.resultJson() == null || completion.resultJson().equals("null") ? null
                        : completion.resultJson();
                requests.add(new AckBatcher.Request(id.get(), completion.workerId(), result, null));
                positions.add(i);
            }
        }
        Map<Integer, AckOutcome> outcomes = requests.isEmpty() ? Map.of() : executeAcks(queueName, requests, false);
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

    private Map<Integer, AckOutcome> executeAcks(List<AckBatcher.Request> requests, boolean envelopes) {
        return executeAcks(null, requests, envelopes);
    }

    /** The acks in one statement: by {@code s3p.ack_jobs}, or with a queue by that queue's {@code ack}. */
    private Map<Integer, AckOutcome> executeAcks(QueueName queue, List<AckBatcher.Request> requests,
            boolean envelopes) {
        UUID[] ids = new UUID[requests.size()];
        String[] results = new String[requests.size()];
        String[] workers = new String[requests.size()];
        for (int i = 0; i < requests.size(); i++) {
            ids[i] = requests.get(i).id();
            results[i] = requests.get(i).resultJson();
            workers[i] = requests.get(i).workerId();
        }
        Map<Integer, AckOutcome> outcomes = new HashMap<>();
        jdbc.query(connection -> {
            PreparedStatement statement = connection.prepareStatement(queue == null
                    ? "SELECT a.ord, a.job::text, a.ok FROM s3p.ack_jobs(?, ?::jsonb[], ?, ?) a"
                    : "SELECT a.ord, a.job::text, a.ok FROM " + Identifiers.quote(queue.schema())
                            + ".ack(?, ?::jsonb[], ?, ?) a");
            statement.setArray(1, connection.createArrayOf("uuid", ids));
            statement.setArray(2, connection.createArrayOf("text", results));
            statement.setArray(3, connection.createArrayOf("text", workers));
            statement.setBoolean(4, envelopes);
            return statement;
        }, rs -> {
            outcomes.put(rs.getInt(1), new AckOutcome(job(rs.getString(2)), rs.getBoolean(3)));
        });
        eventStreams.transitioned();
        return outcomes;
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
        UUID id = jobUuid(jobId);
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
            errorJson.set("details", parse(reported.detailsJson(), "error.details"));
        }
        AckOutcome outcome = single("SELECT a.job::text, a.ok FROM s3p.job_action('nack', ?, ?, ?::jsonb, ?) a",
                id, workerId, errorJson.toString(), requeue);
        if (outcome == null) {
            throw jobNotFound(jobId);
        }
        if (!outcome.ok()) {
            throw notActive(outcome.job(), workerId, "failed");
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
            parseUuid(jobId).ifPresent(ids::add);
        }
        if (ids.isEmpty()) {
            return new HeartbeatResult(HeartbeatResult.RUNNING, List.of());
        }
        List<String> extended = new ArrayList<>();
        Set<String> directives = new HashSet<>();
        jdbc.query(connection -> {
            PreparedStatement statement = connection.prepareStatement(
                    "SELECT h.id::text, h.directive FROM s3p.heartbeat_jobs(?, ?, ?, ?) h");
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
        Optional<UUID> id = parseUuid(jobId);
        if (id.isEmpty()) {
            return Optional.empty();
        }
        List<String> found = jdbc.queryForList("SELECT s3p.get_job(?)::text", String.class, id.get());
        return found.isEmpty() || found.get(0) == null ? Optional.empty() : Optional.of(job(found.get(0)));
    }

    /** Cancels a job that is not yet terminal, including an active one; 409 {@code conflict} for a terminal job. */
    public Job cancel(String jobId) {
        AckOutcome outcome = single("SELECT a.job::text, a.ok FROM s3p.job_action('cancel', ?) a", jobUuid(jobId));
        if (outcome == null) {
            throw jobNotFound(jobId);
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
        AckOutcome outcome = single("SELECT a.job::text, a.ok FROM s3p.job_action('release', ?, ?) a", jobUuid(jobId),
                workerId);
        if (outcome == null) {
            throw jobNotFound(jobId);
        }
        if (!outcome.ok()) {
            throw notActive(outcome.job(), workerId, "released");
        }
        return outcome.job();
    }

    /** Dead-lettered jobs of one queue, or of all queues when {@code queue} is null, oldest first. */
    public List<Job> deadLetter(String queue, int limit, int offset) {
        String name = queue == null ? null : QueueName.of(queue).value();
        return jdbc.query("SELECT d::text FROM s3p.dead_letter_jobs(?, ?, ?) d", (rs, row) -> job(rs.getString(1)),
                name, limit, offset);
    }

    /** Makes a dead-lettered job available again with its attempt count reset. */
    public Job retryDeadLetter(String jobId) {
        AckOutcome outcome = single("SELECT a.job::text, a.ok FROM s3p.job_action('retry_dead_letter', ?) a", jobUuid(jobId));
        if (outcome == null) {
            throw Pgvs3Exception.notFound("job " + jobId + " is not in the dead-letter list");
        }
        return outcome.job();
    }

    public Job deleteDeadLetter(String jobId) {
        AckOutcome outcome = single("SELECT a.job::text, a.ok FROM s3p.job_action('delete_dead_letter', ?) a", jobUuid(jobId));
        if (outcome == null) {
            throw Pgvs3Exception.notFound("job " + jobId + " is not in the dead-letter list");
        }
        return outcome.job();
    }

    /** Events after {@code afterId} (0 for the oldest kept), filtered by type and queue when the sets are non-empty. */
    public List<JobEvent> events(Set<String> types, Set<String> queues, long afterId, int limit) {
        return jdbc.query(connection -> {
            PreparedStatement statement = connection.prepareStatement(
                    "SELECT id, occurred_at, type, queue, job_id::text, data::text FROM s3p.job_events"
                            + " WHERE id > ? AND (cardinality(?::text[]) = 0 OR type = ANY (?::text[]))"
                            + " AND (cardinality(?::text[]) = 0 OR queue = ANY (?::text[])) ORDER BY id LIMIT ?");
            Array typeArray = connection.createArrayOf("text", types.toArray());
            Array queueArray = connection.createArrayOf("text", queues.toArray());
            statement.setLong(1, afterId);
            statement.setArray(2, typeArray);
            statement.setArray(3, typeArray);
            statement.setArray(4, queueArray);
            statement.setArray(5, queueArray);
            statement.setInt(6, limit);
            return statement;
        }, (rs, row) -> new JobEvent(rs.getLong(1), rs.getTimestamp(2).toInstant(), rs.getString(3), rs.getString(4),
                rs.getString(5), rs.getString(6)));
    }

    /**
     * One maintenance step over every queue: execution timeouts, expired leases, due jobs, TTL expiry and retention
     * pruning per queue (each in its own short transaction; a queue that fails is logged and skipped), then old
     * events and orphaned locator rows.
     */
    public long maintain() {
        long handled = 0;
        for (String name : catalog.names()) {
            QueueName queue = QueueName.of(name);
            try {
                Long count = jdbc.queryForObject("SELECT " + Identifiers.quote(queue.schema()) + ".maintain(?, ?, ?)",
                        Long.class, settings.maintenanceBatch(), settings.retention().toMillis(),
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
        // from the head of the log in id order, up to its first event still within the retention: occurred_at has
        // no index (one per event cost every transition a B-tree entry), and a pass with nothing to delete reads one
        // row. An event stays while an event before it is younger than the retention; that one's transaction began
        // before this one's insert, so an event outlives the retention by at most the length of its transaction.
        long eventBatch = settings.maintenanceBatch() * 10L;
        handled += jdbc.update("DELETE FROM s3p.job_events WHERE id IN (SELECT e.id FROM s3p.job_events e"
                + " WHERE e.id < coalesce((SELECT h.id FROM (SELECT id, occurred_at FROM s3p.job_events ORDER BY id"
                + " LIMIT ?) h WHERE h.occurred_at >= now() - make_interval(secs => ? / 1000.0) ORDER BY h.id LIMIT 1),"
                + " 9223372036854775807) ORDER BY e.id LIMIT ?)",
                eventBatch, settings.eventRetention().toMillis(), eventBatch);
        handled += jdbc.update("DELETE FROM s3p.workflows WHERE id IN (SELECT id FROM s3p.workflows"
                + " WHERE finished_at < now() - make_interval(secs => ? / 1000.0) LIMIT ?)",
                settings.retention().toMillis(), settings.maintenanceBatch());
        Long orphans = jdbc.queryForObject("SELECT s3p.prune_job_locator(?)", Long.class, settings.maintenanceBatch());
        eventStreams.maintain();
        if (handled > 0) {
            eventStreams.transitioned();
        }
        return handled + (orphans == null ? 0 : orphans);
    }

    /** Pauses a queue: fetches hand out none of its jobs until it is resumed; enqueueing still works. */
    public Map<String, Object> pause(String queue) {
        return setPaused(QueueName.of(queue), true);
    }

    public Map<String, Object> resume(String queue) {
        return setPaused(QueueName.of(queue), false);
    }

    private Map<String, Object> setPaused(QueueName queue, boolean paused) {
        catalog.withQueue(queue, () -> jdbc.update("UPDATE " + Identifiers.quote(queue.schema())
                + ".job_settings SET paused = ?", paused));
        return stats(queue.value());
    }

    /** Limits how many jobs fetches may claim from a queue per second; null removes the limit. */
    public void rateLimit(String queue, Double perSecond) {
        QueueName name = QueueName.of(queue);
        if (perSecond != null && !(perSecond > 0)) {
            throw Pgvs3Exception.invalidRequest("rate limit must be positive", "max_per_second");
        }
        catalog.withQueue(name, () -> jdbc.update("UPDATE " + Identifiers.quote(name.schema())
                + ".job_settings SET rate_limit_per_second = ?, tokens = coalesce(?, 0), refilled_at = clock_timestamp()",
                perSecond, perSecond));
    }

    /**
     * Jobs per state of a queue, each counted by an index scan of its partial index and capped at
     * {@link #STATS_CAP} (a count at the cap means at least that many); plus {@code paused}.
     */
    public Map<String, Object> stats(String queue) {
        QueueName name = QueueName.of(queue);
        if (!catalog.exists(name)) {
            throw Pgvs3Exception.notFound("queue '" + queue + "' does not exist");
        }
        String json = catalog.withQueue(name, () -> jdbc.queryForObject("SELECT " + Identifiers.quote(name.schema())
                + ".stats(?)::text", String.class, STATS_CAP));
        Map<String, Object> stats = new LinkedHashMap<>();
        stats.put("name", name.value());
        mapper.readTree(json).properties().forEach(field -> stats.put(field.getKey(), field.getValue()));
        return stats;
    }

    /** Empties the s3p-level job tables (for the test-only admin reset, after every queue was dropped). */
    public void deleteAll() {
        jdbc.execute("TRUNCATE s3p.job_locator, s3p.job_events, s3p.workflows, s3p.workflow_jobs");
        eventStreams.syncTriggers();
    }

    private AckOutcome single(String sql, Object... args) {
        List<AckOutcome> rows = jdbc.query(sql, (rs, row) -> new AckOutcome(job(rs.getString(1)), rs.getBoolean(2)), args);
        eventStreams.transitioned();
        return rows.isEmpty() ? null : rows.get(0);
    }

    private Job job(String envelope) {
        return envelope == null ? null : Job.fromEnvelope((ObjectNode) mapper.readTree(envelope));
    }

    /** Sets an optional JSON object field of a spec; JSON null is the same as leaving it out. */
    private void putObject(ObjectNode spec, String field, String json) {
        JsonNode value = json == null ? null : parse(json, field);
        if (value == null || value.isNull()) {
            return;
        }
        if (!value.isObject()) {
            throw Pgvs3Exception.invalidRequest("'" + field + "' must be an object", field);
        }
        spec.set(field, value);
    }

    private JsonNode parse(String json, String field) {
        try {
            return mapper.readTree(json);
        }
        catch (JacksonException ex) {
            throw Pgvs3Exception.invalidRequest("'" + field + "' is not valid JSON", field);
        }
    }

    /**
     * PostgreSQL's refusal of text inside the job's JSON that Jackson accepts (such as {@code \u0000}) as a client
     * error; anything else unchanged.
     */
    private static RuntimeException unstorableText(DataAccessException ex) {
        SQLException sql = sqlException(ex);
        if (sql != null && UNSTORABLE_TEXT.contains(sql.getSQLState())) {
            return new Pgvs3Exception(ErrorCode.INVALID_PAYLOAD,
                    "args, meta, options or extra hold text PostgreSQL cannot store (such as U+0000)", Map.of(), ex);
        }
        return ex;
    }

    private static SQLException sqlException(Throwable ex) {
        for (Throwable t = ex; t != null; t = t.getCause()) {
            if (t instanceof SQLException sql) {
                return sql;
            }
        }
        return null;
    }

    private static Optional<UUID> parseUuid(String value) {
        if (value == null || value.length() != 36) {
            return Optional.empty();
        }
        try {
            return Optional.of(UUID.fromString(value));
        }
        catch (IllegalArgumentException ex) {
            return Optional.empty();
        }
    }

    private static UUID jobUuid(String jobId) {
        return parseUuid(jobId).orElseThrow(() -> jobNotFound(jobId));
    }

    private static Pgvs3Exception jobNotFound(String jobId) {
        return new Pgvs3Exception(ErrorCode.NOT_FOUND, "job " + jobId + " not found", Map.of("job_id", String.valueOf(jobId)));
    }

    private static Pgvs3Exception duplicate(String jobId) {
        return new Pgvs3Exception(ErrorCode.DUPLICATE, "a job with id " + jobId + " already exists",
                Map.of("job_id", jobId));
    }

    private static Pgvs3Exception notActive(Job job, String workerId, String action) {
        String reason = job.state() == JobState.ACTIVE
                ? "is leased to another worker than " + workerId
                : "is " + job.state().wireValue() + ", not active";
        return new Pgvs3Exception(ErrorCode.CONFLICT, "job " + job.id() + " cannot be " + action + ": it " + reason,
                Map.of("job_id", job.id(), "state", job.state().wireValue()));
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
