package io.pgvs3.core.stream;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.StringJoiner;
import java.util.function.Supplier;

import io.pgvs3.core.UuidV7;
import io.pgvs3.core.catalog.QueueCatalog;
import io.pgvs3.core.catalog.QueueName;
import io.pgvs3.core.error.Pgvs3Exception;
import io.pgvs3.core.notify.NotificationHub;
import io.pgvs3.core.notify.QueueNotifier;
import io.pgvs3.core.sql.Identifiers;
import org.postgresql.util.PGInterval;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.PreparedStatementCreator;
import org.springframework.jdbc.core.ResultSetExtractor;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * The streams view of the queues: append, subscribe, receive, ack, nack, dead letters, configuration and rotation.
 * <p>
 * Every method is one call of a {@code stream_*} function in the queue's schema through the {@link JdbcTemplate},
 * so it joins the caller's Spring transaction: an append commits or rolls back with the application's own writes.
 * Append and subscribe create the queue's namespace on first use; every other operation on a queue that does not
 * exist fails with {@code not_found}.
 * <p>
 * Listeners of a queue are woken by a notification with payload {@code stream} on the channel named like the queue's
 * schema, {@code s3q_<queue>}, once appended events committed: sent by the append's own transaction when it runs
 * inside a caller's transaction, else right after the append committed, by a {@link QueueNotifier} (a notifying
 * transaction holds a global lock until its commit record is flushed, so appends that notify themselves cannot share
 * a flush).
 */
public class StreamStore {

    /** Most messages one append may carry. */
    public static final int MAX_BATCH = 1000;

    /** The longest dedupe key, in characters. */
    public static final int MAX_DEDUPE_KEY = 255;

    /** The highest {@code max} a receive accepts: the most messages one batch holds. */
    public static final int MAX_RECEIVE = 100_000;

    /** The result columns of {@code stream_receive} and {@code stream_ack_receive}, in the order {@link #batch} reads. */
    private static final String BATCH_COLUMNS =
            "batch_id, start_tick, end_tick, seq, event_id, type, payload, headers, retry_count, created_at";

    /** Most marks one {@link #appendedSince} statement checks. */
    static final int PROBE_CHUNK = 100;

    /**
     * Events committed after snapshot {@code m.s} and visible now (what {@code stream_has_new_events} tests): the
     * txid range bounds the index scan.
     */
    private static final String APPENDED_SINCE_M = "(e.txid >= pg_snapshot_xmax(m.s) "
            + "AND e.txid < pg_snapshot_xmax(pg_current_snapshot()) "
            + "OR e.txid = ANY (ARRAY(SELECT pg_snapshot_xip(m.s)))) "
            + "AND NOT pg_visible_in_snapshot(e.txid, m.s) AND pg_visible_in_snapshot(e.txid, pg_current_snapshot())";

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final TypeReference<Map<String, String>> HEADERS = new TypeReference<>() {
    };

    private final JdbcTemplate jdbc;
    private final QueueCatalog catalog;
    private final QueueNotifier notifier;

    public StreamStore(JdbcTemplate jdbc, QueueCatalog catalog) {
        this.jdbc = jdbc;
        this.catalog = catalog;
        this.notifier = new QueueNotifier(jdbc, "stream");
    }

    public AppendResult append(String queue, NewStreamMessage message) {
        return append(queue, List.of(message)).get(0);
    }

    /**
     * Appends 1 to 1,000 messages atomically, in order. A message with a dedupe key that the queue stored within its
     * dedupe window (or that an earlier message of this append carries) is not stored again: its result is the first
     * append's, marked {@link AppendResult#duplicate()}; the other messages are stored.
     */
    public List<AppendResult> append(String queue, List<NewStreamMessage> messages) {
        QueueName name = QueueName.of(queue);
        if (messages == null || messages.isEmpty() || messages.size() > MAX_BATCH) {
            throw Pgvs3Exception.invalidRequest("an append holds between 1 and " + MAX_BATCH + " messages", "messages");
        }
        int size = messages.size();
        String[] ids = new String[size];
        String[] types = new String[size];
        String[] payloads = new String[size];
        String[] headers = new String[size];
        String[] keys = new String[size];
        boolean anyHeaders = false;
        boolean anyKeys = false;
        for (int i = 0; i < size; i++) {
            NewStreamMessage message = messages.get(i);
            if (message == null) {
                throw Pgvs3Exception.invalidRequest("message " + i + " is null", "messages");
            }
            if (message.type() == null || message.type().isBlank()) {
                throw Pgvs3Exception.invalidRequest("message type is required", "type");
            }
            if (message.payloadJson() == null) {
                throw Pgvs3Exception.invalidRequest("message payload is required", "payload");
            }
            ids[i] = message.id() != null ? message.id() : UuidV7.generate().toString();
            types[i] = message.type();
            payloads[i] = message.payloadJson();
            if (message.headers() != null && !message.headers().isEmpty()) {
                headers[i] = JSON.writeValueAsString(message.headers());
                anyHeaders = true;
            }
            if (message.dedupeKey() != null) {
                keys[i] = dedupeKey(message.dedupeKey());
                anyKeys = true;
            }
        }
        boolean withHeaders = anyHeaders;
        // inside a caller's transaction the append notifies at its commit; otherwise listeners are woken once the
        // append committed, outside the appending transaction
        boolean callersTransaction = TransactionSynchronizationManager.isActualTransactionActive();
        if (anyKeys) {
            return appendKeyed(name, ids, types, payloads, withHeaders ? headers : null, keys, callersTransaction);
        }
        String sql = "SELECT seqs, created_at FROM " + function(name, "stream_append")
                + "(?::text[], ?::text[], ?::text[], ?::text[], ?)";
        PreparedStatementCreator statement = connection -> {
            PreparedStatement ps = connection.prepareStatement(sql);
            ps.setArray(1, connection.createArrayOf("text", ids));
            ps.setArray(2, connection.createArrayOf("text", types));
            ps.setArray(3, connection.createArrayOf("text", payloads));
            if (withHeaders) {
                ps.setArray(4, connection.createArrayOf("text", headers));
            }
            else {
                ps.setNull(4, Types.ARRAY);
            }
            ps.setBoolean(5, callersTransaction);
            return ps;
        };
        List<AppendResult> appended = creating(name, () -> jdbc.query(statement, rs -> {
            rs.next();
            Long[] seqs = (Long[]) rs.getArray(1).getArray();
            Instant createdAt = rs.getTimestamp(2).toInstant();
            List<AppendResult> results = new ArrayList<>(size);
            for (int i = 0; i < size; i++) {
                results.add(new AppendResult(ids[i], seqs[i], types[i], createdAt));
            }
            return results;
        }));
        if (!callersTransaction) {
            notifier.signal(NotificationHub.channelFor(name));
        }
        return appended;
    }

    /** The append of messages of which some carry a dedupe key: duplicates store nothing and answer the first. */
    private List<AppendResult> appendKeyed(QueueName name, String[] ids, String[] types, String[] payloads,
            String[] headers, String[] keys, boolean callersTransaction) {
        String sql = "SELECT seqs, created_at, duplicates, duplicate_ids, duplicate_types, duplicate_created_at FROM "
                + function(name, "stream_append_keyed") + "(?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?)";
        PreparedStatementCreator statement = connection -> {
            PreparedStatement ps = connection.prepareStatement(sql);
            ps.setArray(1, connection.createArrayOf("text", ids));
            ps.setArray(2, connection.createArrayOf("text", types));
            ps.setArray(3, connection.createArrayOf("text", payloads));
            if (headers != null) {
                ps.setArray(4, connection.createArrayOf("text", headers));
            }
            else {
                ps.setNull(4, Types.ARRAY);
            }
            ps.setArray(5, connection.createArrayOf("text", keys));
            ps.setBoolean(6, callersTransaction);
            return ps;
        };
        List<AppendResult> appended = creating(name, () -> jdbc.query(statement, rs -> {
            rs.next();
            Long[] seqs = (Long[]) rs.getArray(1).getArray();
            Instant createdAt = rs.getObject(2, OffsetDateTime.class).toInstant();
            List<AppendResult> results = new ArrayList<>(ids.length);
            for (int i = 0; i < ids.length; i++) {
                results.add(new AppendResult(ids[i], seqs[i], types[i], createdAt));
            }
            // the duplicates: positions (1-based) with the stored event's id, type and time
            Integer[] positions = (Integer[]) rs.getArray(3).getArray();
            String[] storedIds = (String[]) rs.getArray(4).getArray();
            String[] storedTypes = (String[]) rs.getArray(5).getArray();
            ResultSet times = rs.getArray(6).getResultSet();
            for (int d = 0; d < positions.length; d++) {
                times.next();
                int i = positions[d] - 1;
                results.set(i, new AppendResult(storedIds[d], seqs[i], storedTypes[d],
                        times.getObject(2, OffsetDateTime.class).toInstant(), true));
            }
            return results;
        }));
        if (!callersTransaction && appended.stream().anyMatch(result -> !result.duplicate())) {
            notifier.signal(NotificationHub.channelFor(name));
        }
        return appended;
    }

    private static String dedupeKey(String key) {
        if (key.isEmpty() || key.codePointCount(0, key.length()) > MAX_DEDUPE_KEY) {
            throw Pgvs3Exception.invalidRequest("dedupe_key must be 1 to " + MAX_DEDUPE_KEY + " characters",
                    "dedupe_key");
        }
        if (key.indexOf('\0') >= 0) {
            throw Pgvs3Exception.invalidRequest("dedupe_key must not contain NUL characters", "dedupe_key");
        }
        return key;
    }

    /**
     * Subscribes a consumer: at the latest tick when {@code fromTick} is null, at the oldest retained tick when it
     * is 0, else at that tick. An existing subscription is returned unchanged.
     */
    public Subscription subscribe(String queue, String consumer, Long fromTick) {
        return subscribe(queue, consumer, fromTick, false);
    }

    /**
     * Subscribes a consumer that receives only what commits from now on: a tick is made first when events
     * committed after the latest one. An existing subscription is returned unchanged.
     */
    public Subscription subscribeFromNow(String queue, String consumer) {
        return subscribe(queue, consumer, null, true);
    }

    private Subscription subscribe(String queue, String consumer, Long fromTick, boolean now) {
        QueueName name = QueueName.of(queue);
        requireName(consumer, "consumer");
        if (fromTick != null && fromTick < 0) {
            throw Pgvs3Exception.invalidRequest("from_tick must not be negative", "from_tick");
        }
        return creating(name, () -> jdbc.queryForObject(
                "SELECT consumer, last_tick, created FROM " + function(name, "stream_subscribe") + "(?, ?, ?)",
                (rs, row) -> new Subscription(rs.getString(1), rs.getLong(2), rs.getBoolean(3)), consumer, fromTick,
                now));
    }

    /** Removes a consumer and its outstanding batches; false when there was no such consumer. */
    public boolean unsubscribe(String queue, String consumer) {
        QueueName name = QueueName.of(queue);
        return existing(name, () -> Boolean.TRUE.equals(jdbc.queryForObject(
                "SELECT " + function(name, "stream_unsubscribe") + "(?)", Boolean.class, consumer)));
    }

    /**
     * Receives the consumer's next batch (for cooperative consumption, the member's): at most {@code max} messages
     * (1 to {@link #MAX_RECEIVE}). An outstanding batch is returned again. The events committed between two ticks
     * (one atomic append of 1,000 messages, say) that are more than {@code max} are handed out as consecutive batches
     * of at most {@code max}, in sequence order; acking one moves the consumer past exactly its messages.
     */
    public StreamBatch receive(String queue, String consumer, String member, int max) {
        QueueName name = QueueName.of(queue);
        requireReceiver(consumer, member, max);
        if (allocatesApart(member)) {
            return allocateAndRead(name, consumer, member, max, null);
        }
        String sql = "SELECT " + BATCH_COLUMNS + " FROM " + function(name, "stream_receive") + "(?, ?, ?, NULL)";
        ResultSetExtractor<StreamBatch> extractor = StreamStore::batch;
        return existing(name, () -> jdbc.query(sql, extractor, consumer, member, max));
    }

    /**
     * {@link #receive} that also returns the mark it looked from: a snapshot the statement took before the receive
     * read anything (a receive's statements each take a later one), so {@link #appendedSince} can later tell,
     * without receiving again, whether anything this receive may have missed has committed since.
     */
    public MarkedBatch receiveMarked(String queue, String consumer, String member, int max) {
        QueueName name = QueueName.of(queue);
        requireReceiver(consumer, member, max);
        // pg_current_snapshot() in the select list answers the statement's own snapshot, taken before the function
        // ran; stream_receive always returns at least one row
        String sql = "SELECT " + BATCH_COLUMNS + ", pg_current_snapshot()::text FROM "
                + function(name, "stream_receive") + "(?, ?, ?, NULL)";
        String[] snapshot = new String[1];
        ResultSetExtractor<StreamBatch> extractor = rs -> batch(rs, snapshot);
        StreamBatch batch = existing(name, () -> jdbc.query(sql, extractor, consumer, member, max));
        return new MarkedBatch(batch, new AppendMark(name, snapshot[0]));
    }

    /**
     * The marks after which events have been appended to their queue and committed (and are visible now): a
     * receive that looked from such a mark may have missed them. One statement for up to {@value #PROBE_CHUNK}
     * marks, none at all when no transaction of the server completed since the marks were taken. A queue dropped
     * meanwhile counts as appended to (its receive then answers for itself).
     */
    public Set<AppendMark> appendedSince(Collection<AppendMark> marks) {
        if (marks.isEmpty()) {
            return Set.of();
        }
        TxSnapshot now = TxSnapshot.parse(jdbc.queryForObject("SELECT pg_current_snapshot()::text", String.class));
        List<AppendMark> open = new ArrayList<>();
        for (AppendMark mark : new LinkedHashSet<>(marks)) {
            if (!now.nothingCompletedSince(TxSnapshot.parse(mark.snapshot()))) {
                open.add(mark);
            }
        }
        Set<AppendMark> appended = new HashSet<>();
        for (int from = 0; from < open.size(); from += PROBE_CHUNK) {
            List<AppendMark> chunk = open.subList(from, Math.min(open.size(), from + PROBE_CHUNK));
            StringJoiner sql = new StringJoiner(" UNION ALL ");
            List<Object> args = new ArrayList<>();
            for (int i = 0; i < chunk.size(); i++) {
                sql.add("SELECT " + i + " WHERE EXISTS (SELECT 1 FROM (SELECT ?::pg_snapshot AS s) m, "
                        + Identifiers.qualify(chunk.get(i).queue().schema(), "stream_events") + " e WHERE "
                        + APPENDED_SINCE_M + ")");
                args.add(chunk.get(i).snapshot());
            }
            try {
                jdbc.query(sql.toString(), rs -> {
                    appended.add(chunk.get(rs.getInt(1)));
                }, args.toArray());
            }
            catch (DataAccessException ex) {
                if (!QueueCatalog.isMissingNamespace(ex)) {
                    throw translated(ex);
                }
                appended.addAll(chunk);
            }
        }
        return appended;
    }

    /**
     * The targets that certainly have nothing to receive now, each with the empty batch a receive would answer and
     * the mark it looked from (as {@link #receiveMarked} returns them): one plain statement for up to
     * {@value #PROBE_CHUNK} targets, no PL/pgSQL. A target is idle when its consumer's cursor stands at the start of
     * the newest tick's range, no batch of the consumer reaches past that tick, and no event committed after that
     * tick's snapshot is visible. Any other target (more to hand out, an outstanding batch, a range in progress,
     * an unknown consumer or queue) is left out: only a receive can tell, and answer, for it.
     */
    public Map<ReceiveTarget, MarkedBatch> idle(Collection<ReceiveTarget> targets) {
        List<ReceiveTarget> distinct = new ArrayList<>();
        for (ReceiveTarget target : new LinkedHashSet<>(targets)) {
            // a queue that does not exist would fail the statement for every other target in it
            if (catalog.exists(target.queue())) {
                distinct.add(target);
            }
        }
        Map<ReceiveTarget, MarkedBatch> idle = new HashMap<>();
        for (int from = 0; from < distinct.size(); from += PROBE_CHUNK) {
            List<ReceiveTarget> chunk = distinct.subList(from, Math.min(distinct.size(), from + PROBE_CHUNK));
            StringJoiner sql = new StringJoiner(" UNION ALL ");
            List<Object> args = new ArrayList<>();
            for (int i = 0; i < chunk.size(); i++) {
                String schema = chunk.get(i).queue().schema();
                // the newest tick must be the cursor's (m), and the newest batch (by position, so also the one
                // starting furthest) must neither start at it nor end past it; each table is read once, since
                // planning this statement is most of its cost
                sql.add("SELECT " + i + ", c.tick, pg_current_snapshot()::text FROM "
                        + Identifiers.qualify(schema, "stream_subscriptions") + " s "
                        + "JOIN LATERAL (SELECT c.tick, c.seq, c.range_end FROM "
                        + Identifiers.qualify(schema, "stream_cursors") + " c WHERE c.sub_id = s.sub_id "
                        + "ORDER BY c.id DESC LIMIT 1) c ON true "
                        + "JOIN LATERAL (SELECT t.tick_id, t.snapshot AS s FROM "
                        + Identifiers.qualify(schema, "stream_ticks") + " t ORDER BY t.tick_id DESC LIMIT 1) m "
                        + "ON m.tick_id = c.tick "
                        + "WHERE s.consumer = ? AND c.seq = 0 AND c.range_end IS NULL "
                        + "AND NOT EXISTS (SELECT 1 FROM (SELECT b.start_tick, b.end_tick FROM "
                        + Identifiers.qualify(schema, "stream_batches") + " b WHERE b.sub_id = s.sub_id "
                        + "ORDER BY b.start_tick DESC, b.after_seq DESC LIMIT 1) b "
                        + "WHERE b.start_tick >= c.tick OR b.end_tick > c.tick) "
                        + "AND NOT EXISTS (SELECT 1 FROM " + Identifiers.qualify(schema, "stream_events") + " e WHERE "
                        + APPENDED_SINCE_M + ")");
                args.add(chunk.get(i).consumer());
            }
            try {
                jdbc.query(sql.toString(), rs -> {
                    ReceiveTarget target = chunk.get(rs.getInt(1));
                    long tick = rs.getLong(2);
                    idle.put(target, new MarkedBatch(new StreamBatch(null, tick, tick, List.of()),
                            new AppendMark(target.queue(), rs.getString(3))));
                }, args.toArray());
            }
            catch (DataAccessException ex) {
                if (!QueueCatalog.isMissingNamespace(ex)) {
                    throw translated(ex);
                }
                // a queue dropped meanwhile: its receive answers for itself, and so do the others of the chunk
            }
        }
        return idle;
    }

    /**
     * Acks {@code batchId}, a batch of {@code consumer}, and receives the consumer's (or member's) next batch, in
     * one call and one transaction: what {@link #ack} followed by {@link #receive} do, at the cost of one commit. The
     * receive runs first and counts {@code batchId} as acked, so it may make a tick as a plain receive does. When
     * either part fails, neither happened. A batch of another consumer is {@code invalid_request}.
     */
    public StreamBatch ackAndReceive(String queue, long batchId, String consumer, String member, int max) {
        QueueName name = QueueName.of(queue);
        requireReceiver(consumer, member, max);
        if (allocatesApart(member)) {
            return allocateAndRead(name, consumer, member, max, batchId);
        }
        String sql = "SELECT " + BATCH_COLUMNS + " FROM " + function(name, "stream_ack_receive") + "(?, ?, ?, ?)";
        ResultSetExtractor<StreamBatch> extractor = StreamStore::batch;
        return existing(name, () -> jdbc.query(sql, extractor, batchId, consumer, member, max));
    }

    /**
     * Whether a receive allocates in a transaction of its own and reads the rows in a second one: for cooperative
     * members outside a caller's transaction. Their allocations are serialised on the consumer's lock, so the lock is
     * held only while the batch is allocated (not while its rows are read and sent, nor during the commit's WAL
     * flush), and members read their rows at the same time.
     */
    private static boolean allocatesApart(String member) {
        return member != null && !TransactionSynchronizationManager.isActualTransactionActive();
    }

    /**
     * {@code stream_allocate} (commits without waiting for the flush), then {@code stream_batch_read}, whose commit
     * waits for it: the batch, and the ack of {@code ackBatchId}, are durable before this returns.
     */
    private StreamBatch allocateAndRead(QueueName name, String consumer, String member, int max, Long ackBatchId) {
        return existing(name, () -> {
            ResultSetExtractor<StreamBatch> allocation = rs -> {
                rs.next();
                long id = rs.getLong(1);
                Long batchId = rs.wasNull() ? null : id;
                return new StreamBatch(batchId, rs.getLong(2), rs.getLong(3), List.of());
            };
            StreamBatch allocated = jdbc.query("SELECT batch_id, start_tick, end_tick FROM "
                    + function(name, "stream_allocate") + "(?, ?, ?, ?::bigint)", allocation, consumer, member, max,
                    ackBatchId);
            if (allocated.batchId() == null && ackBatchId == null) {
                return allocated;
            }
            ResultSetExtractor<StreamBatch> extractor = StreamStore::batch;
            StreamBatch read = jdbc.query("SELECT " + BATCH_COLUMNS + " FROM " + function(name, "stream_batch_read")
                    + "(?::bigint)", extractor, allocated.batchId());
            if (allocated.batchId() == null || read.batchId() == null) {
                // nothing to receive, or the consumer unsubscribed since the allocation
                return new StreamBatch(null, allocated.startTick(), allocated.endTick(), List.of());
            }
            return read;
        });
    }

    private static void requireReceiver(String consumer, String member, int max) {
        requireName(consumer, "consumer");
        if (member != null) {
            requireName(member, "member");
        }
        if (max < 1 || max > MAX_RECEIVE) {
            throw Pgvs3Exception.invalidRequest("max must be between 1 and " + MAX_RECEIVE, "max");
        }
    }

    /** Acks a batch: true when acked now, false when it was acked before; an unknown batch is {@code not_found}. */
    public boolean ack(String queue, long batchId) {
        QueueName name = QueueName.of(queue);
        return existing(name, () -> Boolean.TRUE.equals(jdbc.queryForObject(
                "SELECT " + function(name, "stream_ack") + "(?)", Boolean.class, batchId)));
    }

    /**
     * Nacks one message of an outstanding batch: it is redelivered after {@code retryAfter} with its retry count
     * raised, or dead-lettered when max_retries is used up. The batch stays outstanding.
     */
    public NackResult nack(String queue, long batchId, String messageId, Duration retryAfter, String reason) {
        return nack(queue, batchId, messageId, retryAfter, reason, false);
    }

    /**
     * Nacks one message of an outstanding batch; with {@code deadLetter} it goes to the dead letters at once,
     * whatever its retry count, else it is retried as by {@link #nack(String, long, String, Duration, String)}.
     */
    public NackResult nack(String queue, long batchId, String messageId, Duration retryAfter, String reason,
            boolean deadLetter) {
        QueueName name = QueueName.of(queue);
        if (messageId == null || messageId.isEmpty()) {
            throw Pgvs3Exception.invalidRequest("message_id is required", "message_id");
        }
        if (retryAfter != null && retryAfter.isNegative()) {
            throw Pgvs3Exception.invalidRequest("retry_after must not be negative", "retry_after");
        }
        return existing(name, () -> jdbc.queryForObject(
                "SELECT event_id, action, retry_count FROM " + function(name, "stream_nack") + "(?, ?, ?, ?, ?)",
                (rs, row) -> new NackResult(rs.getString(1), rs.getString(2), rs.getInt(3)),
                batchId, messageId, interval(retryAfter == null ? Duration.ZERO : retryAfter), reason, deadLetter));
    }

    /** Consumers with cursors, lag and outstanding batches, as the HTTP binding shows them. */
    public JsonNode consumers(String queue) {
        QueueName name = QueueName.of(queue);
        return json(existing(name, () -> jdbc.queryForObject(
                "SELECT " + function(name, "stream_consumers") + "()::text", String.class)));
    }

    /** An outstanding batch (including a cooperative batch acked out of order), or empty. */
    public Optional<JsonNode> batch(String queue, long batchId) {
        QueueName name = QueueName.of(queue);
        String text = existing(name, () -> jdbc.queryForObject(
                "SELECT " + function(name, "stream_batch") + "(?)::text", String.class, batchId));
        return Optional.ofNullable(text).map(StreamStore::json);
    }

    /** Stream counts, watermarks, the current segment and the rotation period. */
    public JsonNode info(String queue) {
        QueueName name = QueueName.of(queue);
        return json(existing(name, () -> jdbc.queryForObject(
                "SELECT " + function(name, "stream_info") + "()::text", String.class)));
    }

    public StreamConfig config(String queue) {
        QueueName name = QueueName.of(queue);
        return existing(name, () -> jdbc.queryForObject(
                "SELECT max_retries, extract(epoch FROM retention),"
                        + " extract(epoch FROM least(dedupe_window, retention)) FROM "
                        + Identifiers.qualify(name.schema(), "stream_config"),
                StreamStore::config));
    }

    /** Updates the settings that are not null and returns the result. */
    public StreamConfig updateConfig(String queue, Integer maxRetries, Duration retention) {
        return updateConfig(queue, maxRetries, retention, null);
    }

    /**
     * Updates the settings that are not null and returns the result. A dedupe window given here must not exceed the
     * retention; a shorter retention is always accepted and caps the window in effect (the one returned).
     */
    public StreamConfig updateConfig(String queue, Integer maxRetries, Duration retention, Duration dedupeWindow) {
        QueueName name = QueueName.of(queue);
        if (maxRetries != null && (maxRetries < 0 || maxRetries > 1000)) {
            throw Pgvs3Exception.invalidRequest("max_retries must be between 0 and 1000", "max_retries");
        }
        if (retention != null && (retention.isNegative() || retention.isZero())) {
            throw Pgvs3Exception.invalidRequest("retention must be positive", "retention");
        }
        if (dedupeWindow != null && (dedupeWindow.isNegative() || dedupeWindow.isZero())) {
            throw Pgvs3Exception.invalidRequest("dedupe_window must be positive", "dedupe_window");
        }
        return existing(name, () -> jdbc.queryForObject(
                "SELECT max_retries, extract(epoch FROM retention), extract(epoch FROM dedupe_window) FROM "
                        + function(name, "stream_set_config") + "(?, ?, ?)",
                StreamStore::config, maxRetries, retention == null ? null : interval(retention),
                dedupeWindow == null ? null : interval(dedupeWindow)));
    }

    /** Dead letters, oldest first: {@code {dead_letters:[…], total}}. */
    public JsonNode deadLetters(String queue, int limit, int offset) {
        QueueName name = QueueName.of(queue);
        return json(existing(name, () -> jdbc.queryForObject(
                "SELECT " + function(name, "stream_dead_letter_list") + "(?, ?)::text", String.class, limit, offset)));
    }

    /** Appends one dead letter to the log again with a reset retry count; false when there is no such letter. */
    public boolean replayDeadLetter(String queue, long deadLetterId) {
        QueueName name = QueueName.of(queue);
        return existing(name, () -> jdbc.queryForObject(
                "SELECT " + function(name, "stream_dlq_replay") + "(?)", Integer.class, deadLetterId)) > 0;
    }

    /** Appends every dead letter to the log again; returns how many. */
    public int replayDeadLetters(String queue) {
        QueueName name = QueueName.of(queue);
        return existing(name, () -> jdbc.queryForObject(
                "SELECT " + function(name, "stream_dlq_replay") + "(NULL)", Integer.class));
    }

    /** Deletes dead letters older than {@code olderThan}; returns how many. */
    public int purgeDeadLetters(String queue, Duration olderThan) {
        QueueName name = QueueName.of(queue);
        if (olderThan == null || olderThan.isNegative()) {
            throw Pgvs3Exception.invalidRequest("older_than must not be negative", "older_than");
        }
        return existing(name, () -> jdbc.queryForObject(
                "SELECT " + function(name, "stream_dlq_purge") + "(?)", Integer.class, interval(olderThan)));
    }

    /** Rotates the queue's log if due (or now, when {@code force}), under the rotation locking protocol. */
    public RotationOutcome rotate(String queue, boolean force) {
        QueueName name = QueueName.of(queue);
        return RotationOutcome.of(existing(name, () -> jdbc.queryForObject(
                "SELECT " + function(name, "stream_rotate") + "(?)", String.class, force)));
    }

    /**
     * Makes a tick of the queue when it has subscribers and at least {@code minEvents} sequence numbers were drawn
     * since its latest tick (some of them visible events), so that consumers that lag find batch boundaries about
     * that many events apart. Delivery does not depend on it: receives make the ticks they need. Returns 1 when a
     * tick was made; 0 when none was needed, or when called inside a transaction that has written or is not
     * {@code READ COMMITTED}.
     */
    public int tick(String queue, int minEvents) {
        QueueName name = QueueName.of(queue);
        return existing(name, () -> jdbc.queryForObject(
                "SELECT " + function(name, "stream_tick") + "(?)", Integer.class, minEvents));
    }

    /** Moves due retries of one queue back into its log; returns how many moved. */
    public int moveDueRetries(String queue, int limit) {
        QueueName name = QueueName.of(queue);
        return existing(name, () -> jdbc.queryForObject(
                "SELECT " + function(name, "stream_move_retries") + "(?)", Integer.class, limit));
    }

    /**
     * Compacts the queue's stream metadata now: ticks, cursor moves, batches, acks and nacks still needed are carried
     * into the other metadata part and the old part is truncated. Returns how many ticks were dropped (0 when a
     * reader or writer held a lock; the next maintenance pass tries again).
     */
    public int cleanupTicks(String queue) {
        return compact(queue, true);
    }

    /**
     * Compacts the queue's stream metadata when it is due (or now, when {@code force}), under the rotation locking
     * protocol: the hot path only inserts metadata rows, and compaction drops the dead ones with a TRUNCATE.
     * Returns how many ticks were dropped.
     */
    public int compact(String queue, boolean force) {
        QueueName name = QueueName.of(queue);
        return existing(name, () -> jdbc.queryForObject(
                "SELECT " + function(name, "stream_compact") + "(?)", Integer.class, force));
    }

    private static String function(QueueName name, String function) {
        return Identifiers.qualify(name.schema(), function);
    }

    private <T> T creating(QueueName name, Supplier<T> work) {
        try {
            return catalog.withQueue(name, work);
        }
        catch (DataAccessException ex) {
            throw translated(ex);
        }
    }

    private <T> T existing(QueueName name, Supplier<T> work) {
        if (!catalog.exists(name)) {
            throw missingQueue(name);
        }
        try {
            return work.get();
        }
        catch (DataAccessException ex) {
            if (QueueCatalog.isMissingNamespace(ex)) {
                catalog.forget(name);
                throw missingQueue(name);
            }
            throw translated(ex);
        }
    }

    private static RuntimeException translated(DataAccessException ex) {
        Pgvs3Exception translated = StreamErrors.translate(ex);
        return translated != null ? translated : ex;
    }

    private static Pgvs3Exception missingQueue(QueueName name) {
        return Pgvs3Exception.notFound("queue '" + name + "' does not exist");
    }

    private static void requireName(String value, String field) {
        if (value == null || value.isEmpty()) {
            throw Pgvs3Exception.invalidRequest(field + " is required", field);
        }
        if (value.length() > 255) {
            throw Pgvs3Exception.invalidRequest(field + " must be at most 255 characters", field);
        }
    }

    private static PGInterval interval(Duration duration) {
        try {
            PGInterval interval = new PGInterval();
            interval.setSeconds(duration.toNanos() / 1_000_000_000.0);
            return interval;
        }
        catch (ArithmeticException ex) {
            throw Pgvs3Exception.invalidRequest("duration " + duration + " is too long");
        }
    }

    private static StreamConfig config(ResultSet rs, int row) throws SQLException {
        return new StreamConfig(rs.getInt(1), Duration.ofMillis(rs.getBigDecimal(2).movePointRight(3).longValue()),
                Duration.ofMillis(rs.getBigDecimal(3).movePointRight(3).longValue()));
    }

    /** Reads the rows of {@code stream_receive}, by position, in the order of {@link #receive}'s select list. */
    private static StreamBatch batch(ResultSet rs) throws SQLException {
        return batch(rs, null);
    }

    /** {@link #batch(ResultSet)}; with {@code snapshot}, also the column after the batch's, into its first element. */
    private static StreamBatch batch(ResultSet rs, String[] snapshot) throws SQLException {
        Long batchId = null;
        long startTick = 0;
        long endTick = 0;
        List<ReceivedMessage> messages = new ArrayList<>();
        while (rs.next()) {
            if (messages.isEmpty()) {
                long id = rs.getLong(1);
                batchId = rs.wasNull() ? null : id;
                startTick = rs.getLong(2);
                endTick = rs.getLong(3);
                if (snapshot != null) {
                    snapshot[0] = rs.getString(11);
                }
            }
            long seq = rs.getLong(4);
            if (!rs.wasNull()) {
                messages.add(new ReceivedMessage(rs.getString(5), seq, rs.getString(6), rs.getString(7),
                        headers(rs.getString(8)), rs.getInt(9), rs.getObject(10, OffsetDateTime.class).toInstant()));
            }
        }
        return new StreamBatch(batchId, startTick, endTick, messages);
    }

    private static Map<String, String> headers(String json) {
        if (json == null || json.equals("{}")) {
            return Map.of();
        }
        return new LinkedHashMap<>(JSON.readValue(json, HEADERS));
    }

    private static JsonNode json(String text) {
        return JSON.readTree(text);
    }
}
