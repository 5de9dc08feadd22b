package io.pgvs3.core.stream;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.pgvs3.core.catalog.QueueCatalog;
import io.pgvs3.core.catalog.QueueName;
import io.pgvs3.core.error.Pgvs3Exception;
import io.pgvs3.core.sql.QueueStatement;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.ResultSetExtractor;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * The hot path of consumption: receive a consumer's (or cooperative member's) next batch, ack it, nack single
 * messages of it, or ack one batch and receive the next in one call. Each is one call of a {@code stream_*} function
 * through the {@link JdbcTemplate}, so it joins the caller's Spring transaction; a queue that does not exist is
 * {@code not_found}.
 */
public class StreamDelivery {

    /** The highest {@code max} a receive accepts: the most messages one batch holds. */
    public static final int MAX_RECEIVE = 100_000;

    /** The result columns of {@code stream_receive} and {@code stream_ack_receive}, as {@link #batch} reads them. */
    private static final String BATCH_COLUMNS =
            "batch_id, start_tick, end_tick, seq, event_id, type, payload, headers, retry_count, created_at";

    private static final QueueStatement RECEIVE = QueueStatement.of(
            "SELECT " + BATCH_COLUMNS + " FROM {stream_receive}(?, ?, ?, NULL)");

    /**
     * {@link #RECEIVE} with the mark: {@code pg_current_snapshot()} in the select list answers the statement's own
     * snapshot, taken before the function ran; {@code stream_receive} always returns at least one row.
     */
    private static final QueueStatement RECEIVE_MARKED = QueueStatement.of(
            "SELECT " + BATCH_COLUMNS + ", pg_current_snapshot()::text FROM {stream_receive}(?, ?, ?, NULL)");

    private static final QueueStatement RECEIVE_WARM = QueueStatement.of("SELECT {stream_receive_warm}(?, ?, 1)");

    private static final QueueStatement ACK_RECEIVE = QueueStatement.of(
            "SELECT " + BATCH_COLUMNS + " FROM {stream_ack_receive}(?, ?, ?, ?)");

    private static final QueueStatement ALLOCATE = QueueStatement.of(
            "SELECT batch_id, start_tick, end_tick FROM {stream_allocate}(?, ?, ?, ?::bigint)");

    private static final QueueStatement BATCH_READ = QueueStatement.of(
            "SELECT " + BATCH_COLUMNS + " FROM {stream_batch_read}(?::bigint)");

    private static final QueueStatement ACK = QueueStatement.of("SELECT {stream_ack}(?)");

    private static final QueueStatement NACK = QueueStatement.of(
            "SELECT event_id, action, retry_count FROM {stream_nack}(?, ?, ?, ?, ?)");

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final TypeReference<Map<String, String>> HEADERS = new TypeReference<>() {
    };

    private final StreamCalls calls;
    private final JdbcTemplate jdbc;

    public StreamDelivery(JdbcTemplate jdbc, QueueCatalog catalog) {
        this.calls = new StreamCalls(jdbc, catalog);
        this.jdbc = jdbc;
    }

    /**
     * Receives the consumer's next batch (for cooperative consumption, the member's): at most {@code max} messages
     * (1 to {@link #MAX_RECEIVE}). An outstanding batch is returned again. The events committed between two ticks
     * (one atomic append of 1,000 messages, say) that are more than {@code max} are handed out as consecutive batches
     * of at most {@code max}, in sequence order; acking one moves the consumer past exactly its messages.
     */
    public StreamBatch receive(String queue, String consumer, String member, int max) {
        return receive(queue, null, consumer, member, max);
    }

    /**
     * {@link #receive} that also returns the mark it looked from: a snapshot the statement took before the receive
     * read anything (a receive's statements each take a later one), so {@link StreamIdleChecks#appendedSince} can
     * later tell, without receiving again, whether anything this receive may have missed has committed since.
     */
    public MarkedBatch receiveMarked(String queue, String consumer, String member, int max) {
        QueueName name = QueueName.of(queue);
        requireReceiver(consumer, member, max);
        String sql = RECEIVE_MARKED.in(name.schema());
        String[] snapshot = new String[1];
        ResultSetExtractor<StreamBatch> extractor = rs -> batch(rs, snapshot);
        StreamBatch batch = calls.existing(name, () -> jdbc.query(sql, extractor, consumer, member, max));
        return new MarkedBatch(batch, new AppendMark(name, snapshot[0]));
    }

    /**
     * Compiles and plans what a receive of {@code consumer} (or its member) runs on the connection this runs on, and
     * leaves nothing behind (see {@code stream_receive_warm}): a receive's first call on a connection plans every
     * statement of the queue's functions there. A connection kept for long-polls runs it before their wake-ups.
     */
    public void warmReceive(String queue, String consumer, String member) {
        QueueName name = QueueName.of(queue);
        String sql = RECEIVE_WARM.in(name.schema());
        calls.existing(name, () -> jdbc.query(sql, rs -> null, consumer, member));
    }

    /**
     * Acks {@code batchId}, a batch of {@code consumer}, and receives the consumer's (or member's) next batch, in
     * one call and one transaction: what {@link #ack} followed by {@link #receive} do, at the cost of one commit. The
     * receive runs first and counts {@code batchId} as acked, so it may make a tick as a plain receive does. When
     * either part fails, neither happened. A batch of another consumer is {@code invalid_request}.
     */
    public StreamBatch ackAndReceive(String queue, long batchId, String consumer, String member, int max) {
        return receive(queue, batchId, consumer, member, max);
    }

    /** {@link #receive}, after the ack of {@code ackBatchId} in the same call when it is not null. */
    private StreamBatch receive(String queue, Long ackBatchId, String consumer, String member, int max) {
        QueueName name = QueueName.of(queue);
        requireReceiver(consumer, member, max);
        if (allocatesApart(member)) {
            return allocateAndRead(name, consumer, member, max, ackBatchId);
        }
        ResultSetExtractor<StreamBatch> extractor = StreamDelivery::batch;
        if (ackBatchId == null) {
            String sql = RECEIVE.in(name.schema());
            return calls.existing(name, () -> jdbc.query(sql, extractor, consumer, member, max));
        }
        String sql = ACK_RECEIVE.in(name.schema());
        return calls.existing(name, () -> jdbc.query(sql, extractor, ackBatchId, consumer, member, max));
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
        return calls.existing(name, () -> {
            ResultSetExtractor<StreamBatch> allocation = rs -> {
                rs.next();
                long id = rs.getLong(1);
                Long batchId = rs.wasNull() ? null : id;
                return new StreamBatch(batchId, rs.getLong(2), rs.getLong(3), List.of());
            };
            StreamBatch allocated = jdbc.query(ALLOCATE.in(name.schema()), allocation, consumer, member, max,
                    ackBatchId);
            if (allocated.batchId() == null && ackBatchId == null) {
                return allocated;
            }
            ResultSetExtractor<StreamBatch> extractor = StreamDelivery::batch;
            StreamBatch read = jdbc.query(BATCH_READ.in(name.schema()), extractor, allocated.batchId());
            if (allocated.batchId() == null || read.batchId() == null) {
                // nothing to receive, or the consumer unsubscribed since the allocation
                return new StreamBatch(null, allocated.startTick(), allocated.endTick(), List.of());
            }
            return read;
        });
    }

    private static void requireReceiver(String consumer, String member, int max) {
        StreamCalls.requireName(consumer, "consumer");
        if (member != null) {
            StreamCalls.requireName(member, "member");
        }
        if (max < 1 || max > MAX_RECEIVE) {
            throw Pgvs3Exception.invalidRequest("max must be between 1 and " + MAX_RECEIVE, "max");
        }
    }

    /** Acks a batch: true when acked now, false when it was acked before; an unknown batch is {@code not_found}. */
    public boolean ack(String queue, long batchId) {
        QueueName name = QueueName.of(queue);
        return calls.existing(name, () -> Boolean.TRUE.equals(jdbc.queryForObject(
                ACK.in(name.schema()), Boolean.class, batchId)));
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
        return calls.existing(name, () -> jdbc.queryForObject(NACK.in(name.schema()),
                (rs, row) -> new NackResult(rs.getString(1), rs.getString(2), rs.getInt(3)),
                batchId, messageId, StreamCalls.interval(retryAfter == null ? Duration.ZERO : retryAfter), reason,
                deadLetter));
    }

    /** Reads the rows of {@code stream_receive}, by position, in the order of {@link #BATCH_COLUMNS}. */
    private static StreamBatch batch(ResultSet rs) throws SQLException {
        return batch(rs, null);
    }

    /**
     * {@link #batch(ResultSet)}; with {@code snapshot}, also the column after the batch's, into its first element. The
     * functions return a batch's rows in storage order (sorting whole rows there cost about as much as reading them);
     * they are put in sequence order here, which costs one pass when they are in order already (one append wrote
     * them).
     */
    private static StreamBatch batch(ResultSet rs, String[] snapshot) throws SQLException {
        Long batchId = null;
        long startTick = 0;
        long endTick = 0;
        List<ReceivedMessage> messages = new ArrayList<>();
        long lastSeq = Long.MIN_VALUE;
        boolean ordered = true;
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
                ordered &= seq > lastSeq;
                lastSeq = seq;
            }
        }
        if (!ordered) {
            messages.sort(Comparator.comparingLong(ReceivedMessage::seq));
        }
        return new StreamBatch(batchId, startTick, endTick, messages);
    }

    private static Map<String, String> headers(String json) {
        if (json == null || json.equals("{}")) {
            return Map.of();
        }
        return new LinkedHashMap<>(JSON.readValue(json, HEADERS));
    }
}
