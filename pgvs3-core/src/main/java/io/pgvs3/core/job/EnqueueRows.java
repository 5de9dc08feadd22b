package io.pgvs3.core.job;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.temporal.ChronoUnit;
import java.util.AbstractList;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.RandomAccess;
import java.util.UUID;
import java.util.function.Function;

import io.pgvs3.core.catalog.QueueName;
import io.pgvs3.core.job.JobEnvelope.Field;
import io.pgvs3.core.sql.QueueStatement;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Jobs without unique keys bound for one queue, inserted by one call of the queue's {@code enqueue_rows} function
 * with one array per column (a single job by {@code enqueue_job}, with one parameter per column). The function
 * answers only the transaction's {@code now()} and whether it notified: everything else about the new jobs is known
 * here, so their envelopes are built here ({@link JobEnvelope}), equal to what {@code get_job} answers for them,
 * instead of being computed, sent and parsed once per job.
 */
final class EnqueueRows {

    /** One job, one parameter per column, on the queue's schema. */
    static final QueueStatement ENQUEUE_JOB_SQL = QueueStatement.of(
            "SELECT e.enqueue_time, e.notified FROM {enqueue_job}(?, ?, ?::jsonb,"
            + " ?::jsonb, ?::jsonb, ?::jsonb, ?, ?, ?::jsonb, ?, ?, ?::timestamptz, ?::timestamptz, ?, ?) e");

    /** Jobs, one array per column, on the queue's schema. */
    static final QueueStatement ENQUEUE_ROWS_SQL = QueueStatement.of(
            "SELECT e.enqueue_time, e.notified FROM {enqueue_rows}(?, ?, ?::jsonb, ?::jsonb, ?::jsonb, ?::jsonb,"
            + " ?::integer[], ?::integer[], ?::jsonb, ?::integer[], ?::bigint[], ?::bigint[], ?::timestamptz[],"
            + " ?::timestamptz[], ?, ?) e");

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private final JsonMapper mapper;
    private final RetryEncodings retries;
    private final Function<String, JsonNode> reader;
    private final QueueName queue;
    private final JsonNode queueName;
    private final List<Row> rows = new ArrayList<>();
    private final Map<RetryPolicy, Integer> retryIndex = new HashMap<>();
    private final List<String> retryJson = new ArrayList<>();
    private final List<JsonNode> retryNodes = new ArrayList<>();
    private RetryPolicy lastRetry;
    private int lastRetryIndex;
    private Double rateLimit;
    private boolean anyMeta;
    private boolean anyOptions;
    private boolean anyExtra;

    EnqueueRows(JsonMapper mapper, RetryEncodings retries, QueueName queue) {
        this.mapper = mapper;
        this.retries = retries;
        this.reader = json -> JsonbNodes.read(mapper, json);
        this.queue = queue;
        this.queueName = NODES.stringNode(queue.value());
    }

    /** Validates and adds one job; {@code ord} is its position in the caller's list. */
    void add(int ord, NewJob job, String id) {
        NewJob.Parsed parsed = job.parsed();
        JsonNode args = null;
        JsonNode meta;
        JsonNode options;
        JsonNode extra;
        if (parsed != null) {
            args = JobJsonFields.jsonb(parsed.args(), "args", mapper);
            meta = JobJsonFields.jsonb(parsed.meta(), "meta", mapper);
            options = JobJsonFields.jsonb(parsed.options(), "options", mapper);
            extra = JobJsonFields.jsonb(parsed.extra(), "extra", mapper);
        }
        else {
            // checked here, its tree built only if the job is read: a batch's answer is often dropped unread
            JobJsonFields.checkArgs(job.argsJson(), mapper);
            meta = JobJsonFields.meta(job.metaJson(), reader);
            options = JobJsonFields.optionalObject(job.optionsJson(), "options", reader);
            extra = JobJsonFields.optionalObject(job.extraJson(), "extra", reader);
        }
        if (options != null) {
            JsonNode rate = options.path("rate_limit").path("max_per_second");
            if (rate.isNumber() && (rateLimit == null || rate.asDouble() > rateLimit)) {
                rateLimit = rate.asDouble();
            }
        }
        anyMeta |= meta != null;
        anyOptions |= options != null;
        anyExtra |= extra != null;
        int retry = job.retry() == lastRetry ? lastRetryIndex : retryIndex.computeIfAbsent(job.retry(), policy -> {
            RetryEncodings.Encoded encoded = retries.of(policy);
            retryJson.add(encoded.json());
            retryNodes.add(encoded.node());
            return retryJson.size() - 1;
        });
        lastRetry = job.retry();
        lastRetryIndex = retry;
        rows.add(new Row(ord, job, id, args, meta, options, extra, retry, micros(job.scheduledAt()),
                micros(job.expiresAt())));
    }

    /**
     * Inserts the jobs in one statement (all or none: an id that exists already fails it) and answers them, and
     * whether the insert notified the queue's channel itself. One job goes through
     * {@code enqueue_job}, with one parameter per column; more through {@code enqueue_rows}, with one array per
     * column.
     */
    Inserted insert(JdbcTemplate jdbc, EnqueueNotification notification) {
        String sql = (rows.size() == 1 ? ENQUEUE_JOB_SQL : ENQUEUE_ROWS_SQL).in(queue.schema());
        List<Result> results = jdbc.query(
                connection -> rows.size() == 1 ? singleStatement(connection, sql, notification)
                        : statement(connection, sql, notification),
                (rs, row) -> new Result(rs.getObject(1, OffsetDateTime.class).toInstant(), rs.getBoolean(2)));
        return new Inserted(new Outcomes(results.get(0).now()), results.get(0).notified());
    }

    /**
     * The jobs inserted, in the order they were added, and whether the insert notified their queue. Each job is
     * built when it is first read: a caller that only needs to know the insert held (a batch enqueue whose result is
     * dropped) does not pay for a thousand envelopes.
     */
    record Inserted(Outcomes outcomes, boolean notified) {

        /** Every outcome by the job's position in the caller's list. */
        Map<Integer, EnqueueOutcome> byOrd() {
            Map<Integer, EnqueueOutcome> byOrd = new HashMap<>(outcomes.size() * 2);
            for (int i = 0; i < outcomes.size(); i++) {
                byOrd.put(outcomes.ord(i), outcomes.get(i));
            }
            return byOrd;
        }
    }

    /** The outcomes of the inserted jobs in the order they were added, each built on first access. */
    final class Outcomes extends AbstractList<EnqueueOutcome> implements RandomAccess {

        private final Instant now;
        private final JsonNode timestamp;
        private final EnqueueOutcome[] built;

        private Outcomes(Instant now) {
            this.now = now;
            this.timestamp = JobEnvelope.timestampNode(now);
            this.built = new EnqueueOutcome[rows.size()];
        }

        @Override
        public synchronized EnqueueOutcome get(int index) {
            if (built[index] == null) {
                built[index] = new EnqueueOutcome(job(rows.get(index), now, timestamp), true);
            }
            return built[index];
        }

        @Override
        public int size() {
            return built.length;
        }

        int ord(int index) {
            return rows.get(index).ord();
        }

        /** Whether some job is available at once (not scheduled for later), without building the jobs. */
        boolean anyAvailable() {
            return rows.stream().anyMatch(row -> !scheduledLater(row, now));
        }
    }

    private record Result(Instant now, boolean notified) {
    }

    private PreparedStatement singleStatement(Connection connection, String sql, EnqueueNotification notification)
            throws SQLException {
        Row row = rows.get(0);
        NewJob job = row.job();
        PreparedStatement statement = connection.prepareStatement(sql);
        statement.setObject(1, UUID.fromString(row.id()));
        statement.setString(2, job.type());
        statement.setString(3, job.argsJson());
        statement.setString(4, row.meta() == null ? null : job.metaJson());
        statement.setString(5, row.options() == null ? null : job.optionsJson());
        statement.setString(6, row.extra() == null ? null : job.extraJson());
        statement.setInt(7, job.priority());
        statement.setInt(8, job.retry().maxAttempts());
        statement.setString(9, retryJson.get(row.retry()));
        statement.setObject(10, job.timeout() == null ? null : job.timeout().toMillis(), Types.BIGINT);
        statement.setObject(11, job.visibilityTimeout() == null ? null : job.visibilityTimeout().toMillis(), Types.BIGINT);
        statement.setString(12, row.scheduledAt() == null ? null : row.scheduledAt().toString());
        statement.setString(13, row.expiresAt() == null ? null : row.expiresAt().toString());
        statement.setObject(14, rateLimit, Types.DOUBLE);
        statement.setInt(15, notification.code());
        return statement;
    }

    /**
     * The call of {@code enqueue_rows}. A column with one value for every job goes as NULL rather than as an array of
     * a thousand copies that both sides would build, send, parse and unnest: {@code max_attempts} always (it is the
     * policy's), priorities when all are 0, policy indexes when there is one policy, optional columns none has.
     */
    private PreparedStatement statement(Connection connection, String sql, EnqueueNotification notification)
            throws SQLException {
        int size = rows.size();
        UUID[] ids = new UUID[size];
        String[] types = new String[size];
        Integer[] priorities = new Integer[size];
        Integer[] retries = new Integer[size];
        Long[] timeouts = new Long[size];
        Long[] visibilityTimeouts = new Long[size];
        String[] scheduled = new String[size];
        String[] expires = new String[size];
        boolean anyPriority = false;
        boolean anyTimeout = false;
        boolean anyVisibilityTimeout = false;
        boolean anyScheduled = false;
        boolean anyExpires = false;
        StringBuilder args = new StringBuilder(size * 64).append('[');
        StringBuilder meta = anyMeta ? new StringBuilder().append('[') : null;
        StringBuilder options = anyOptions ? new StringBuilder().append('[') : null;
        StringBuilder extra = anyExtra ? new StringBuilder().append('[') : null;
        for (int i = 0; i < size; i++) {
            Row row = rows.get(i);
            NewJob job = row.job();
            ids[i] = UUID.fromString(row.id());
            types[i] = job.type();
            priorities[i] = job.priority();
            anyPriority |= job.priority() != 0;
            retries[i] = row.retry();
            if (job.timeout() != null) {
                timeouts[i] = job.timeout().toMillis();
                anyTimeout = true;
            }
            if (job.visibilityTimeout() != null) {
                visibilityTimeouts[i] = job.visibilityTimeout().toMillis();
                anyVisibilityTimeout = true;
            }
            if (row.scheduledAt() != null) {
                scheduled[i] = row.scheduledAt().toString();
                anyScheduled = true;
            }
            if (row.expiresAt() != null) {
                expires[i] = row.expiresAt().toString();
                anyExpires = true;
            }
            String separator = i == 0 ? "" : ",";
            args.append(separator).append(job.argsJson());
            append(meta, separator, row.meta() == null ? null : job.metaJson());
            append(options, separator, row.options() == null ? null : job.optionsJson());
            append(extra, separator, row.extra() == null ? null : job.extraJson());
        }
        PreparedStatement statement = connection.prepareStatement(sql);
        statement.setArray(1, connection.createArrayOf("uuid", ids));
        statement.setArray(2, connection.createArrayOf("text", types));
        statement.setString(3, args.append(']').toString());
        statement.setString(4, meta == null ? null : meta.append(']').toString());
        statement.setString(5, options == null ? null : options.append(']').toString());
        statement.setString(6, extra == null ? null : extra.append(']').toString());
        setArrayIf(connection, statement, 7, anyPriority, "int4", priorities);
        statement.setNull(8, Types.ARRAY);
        statement.setString(9, "[" + String.join(",", retryJson) + "]");
        setArrayIf(connection, statement, 10, retryJson.size() > 1, "int4", retries);
        setArrayIf(connection, statement, 11, anyTimeout, "int8", timeouts);
        setArrayIf(connection, statement, 12, anyVisibilityTimeout, "int8", visibilityTimeouts);
        setArrayIf(connection, statement, 13, anyScheduled, "timestamptz", scheduled);
        setArrayIf(connection, statement, 14, anyExpires, "timestamptz", expires);
        statement.setObject(15, rateLimit, Types.DOUBLE);
        statement.setInt(16, notification.code());
        return statement;
    }

    private static void setArrayIf(Connection connection, PreparedStatement statement, int index, boolean send,
            String type, Object[] values) throws SQLException {
        if (send) {
            statement.setArray(index, connection.createArrayOf(type, values));
        }
        else {
            statement.setNull(index, Types.ARRAY);
        }
    }

    private static void append(StringBuilder array, String separator, String json) {
        if (array != null) {
            array.append(separator).append(json == null ? "null" : json);
        }
    }

    /** The job as {@code get_job} answers it right after the insert at {@code now}. */
    private Job job(Row row, Instant now, JsonNode timestamp) {
        NewJob job = row.job();
        boolean scheduled = scheduledLater(row, now);
        JobState state = scheduled ? JobState.SCHEDULED : JobState.AVAILABLE;
        JsonNode args = row.args() != null ? row.args() : parse(job.argsJson(), "args");
        ObjectNode envelope = envelope(row, args, state, timestamp);
        return new Job(row.id(), job.type(), queue.value(), state, args.toString(), 0, job.retry().maxAttempts(),
                job.priority(), row.meta() == null ? null : row.meta().toString(), null, null, List.of(),
                now.truncatedTo(ChronoUnit.MILLIS), scheduled ? row.scheduledAt().truncatedTo(ChronoUnit.MILLIS) : null,
                null, null, null, envelope);
    }

    /** The envelope {@code @schema@.envelope(j)} gives for the row as inserted. */
    private ObjectNode envelope(Row row, JsonNode args, JobState state, JsonNode timestamp) {
        NewJob job = row.job();
        return new JobEnvelope(row.id(), job.type(), queueName, state.wireValue())
                .putNumber(Field.PRIORITY, job.priority())
                .putNumber(Field.ATTEMPT, 0)
                .putNumber(Field.MAX_ATTEMPTS, job.retry().maxAttempts())
                .putNumber(Field.TIMEOUT_MS, job.timeout() == null ? null : job.timeout().toMillis())
                .putNumber(Field.VISIBILITY_TIMEOUT_MS,
                        job.visibilityTimeout() == null ? null : job.visibilityTimeout().toMillis())
                .put(Field.CREATED_AT, timestamp)
                .put(Field.ENQUEUED_AT, timestamp)
                .scheduledAt(state == JobState.SCHEDULED ? row.scheduledAt() : null)
                .putTimestamp(Field.EXPIRES_AT, row.expiresAt())
                .put(Field.RETRY, retryNodes.get(row.retry()).deepCopy())
                .put(Field.ARGS, args)
                .put(Field.ERRORS, NODES.arrayNode())
                .put(Field.META, row.meta())
                .tagsOf(row.options())
                .extra(row.extra())
                .build();
    }

    private static boolean scheduledLater(Row row, Instant now) {
        return row.scheduledAt() != null && row.scheduledAt().isAfter(now);
    }

    QueueName queue() {
        return queue;
    }

    /** PostgreSQL keeps microseconds; truncated here, the value stored and the one shown are the same. */
    private static Instant micros(Instant instant) {
        return instant == null ? null : instant.truncatedTo(ChronoUnit.MICROS);
    }

    private JsonNode parse(String json, String field) {
        return JobJsonFields.read(json, field, reader);
    }

    int size() {
        return rows.size();
    }

    /** One job to insert; {@code args} is null until read when the job came as text. */
    private record Row(int ord, NewJob job, String id, JsonNode args, JsonNode meta, JsonNode options, JsonNode extra,
            int retry, Instant scheduledAt, Instant expiresAt) {
    }
}
