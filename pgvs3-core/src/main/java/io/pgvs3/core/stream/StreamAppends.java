package io.pgvs3.core.stream;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import io.pgvs3.core.UuidV7;
import io.pgvs3.core.catalog.QueueCatalog;
import io.pgvs3.core.catalog.QueueName;
import io.pgvs3.core.error.Pgvs3Exception;
import io.pgvs3.core.notify.LocalWakeUps;
import io.pgvs3.core.notify.NotificationHub;
import io.pgvs3.core.notify.QueueNotifier;
import io.pgvs3.core.sql.QueueStatement;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.PreparedStatementCreator;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Appends to a queue's stream, in the caller's Spring transaction when there is one; the queue's namespace is created
 * on first use.
 * <p>
 * Listeners of a queue are woken by a notification with payload {@code stream} on the channel named like the queue's
 * schema, {@code s3q_<queue>}, once appended events committed: sent by the append's own transaction when it runs
 * inside a caller's transaction, else right after the append committed, by a {@link QueueNotifier} (a notifying
 * transaction holds a global lock until its commit record is flushed, so appends that notify themselves cannot share
 * a flush). Listeners of this process registered with the {@code localListeners} hub given to the constructor are
 * woken directly once the append committed (see {@link NotificationHub#wakeUpLocally}), without waiting for the
 * notification to come back over the LISTEN connection.
 */
public class StreamAppends {

    /** Most messages one append may carry. */
    public static final int MAX_BATCH = 1000;

    /** The longest dedupe key, in characters. */
    public static final int MAX_DEDUPE_KEY = 255;

    private static final QueueStatement APPEND = QueueStatement.of(
            "SELECT seqs, created_at FROM {stream_append}(?::text[], ?::text[], ?::text[], ?::text[], ?)");

    private static final QueueStatement APPEND_KEYED = QueueStatement.of(
            "SELECT seqs, created_at, duplicates, duplicate_ids, duplicate_types, duplicate_created_at FROM "
                    + "{stream_append_keyed}(?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?)");

    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final StreamCalls calls;
    private final JdbcTemplate jdbc;
    private final QueueNotifier notifier;
    private final LocalWakeUps localWakeUps;

    public StreamAppends(JdbcTemplate jdbc, QueueCatalog catalog) {
        this(jdbc, catalog, null);
    }

    /**
     * Appends that also wake the listeners registered with {@code localListeners}, this process's LISTEN hub on the
     * same database, directly once they committed.
     */
    public StreamAppends(JdbcTemplate jdbc, QueueCatalog catalog, NotificationHub localListeners) {
        this.calls = new StreamCalls(jdbc, catalog);
        this.jdbc = jdbc;
        this.notifier = new QueueNotifier(jdbc, "stream");
        this.localWakeUps = new LocalWakeUps(localListeners);
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
        UUID[] fresh = null;
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
            if (message.id() != null) {
                ids[i] = message.id();
            }
            else {
                if (fresh == null) {
                    fresh = UuidV7.generate(size);
                }
                ids[i] = fresh[i].toString();
            }
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
        String sql = APPEND.in(name.schema());
        // one element when every message has the same type: the backend receives one array of 1,000 fewer
        String[] typeArgument = oneType(types) ? new String[] {types[0]} : types;
        PreparedStatementCreator statement = connection -> {
            PreparedStatement ps = prepare(connection, sql, ids, typeArgument, payloads,
                    withHeaders ? headers : null);
            ps.setBoolean(5, callersTransaction);
            return ps;
        };
        List<AppendResult> appended = calls.creating(name, () -> jdbc.query(statement, rs -> {
            rs.next();
            return stored(ids, (Long[]) rs.getArray(1).getArray(), types, rs.getTimestamp(2).toInstant());
        }));
        appended(name, callersTransaction);
        return appended;
    }

    /** The append of messages of which some carry a dedupe key: duplicates store nothing and answer the first. */
    private List<AppendResult> appendKeyed(QueueName name, String[] ids, String[] types, String[] payloads,
            String[] headers, String[] keys, boolean callersTransaction) {
        String sql = APPEND_KEYED.in(name.schema());
        PreparedStatementCreator statement = connection -> {
            PreparedStatement ps = prepare(connection, sql, ids, types, payloads, headers);
            ps.setArray(5, connection.createArrayOf("text", keys));
            ps.setBoolean(6, callersTransaction);
            return ps;
        };
        List<AppendResult> appended = calls.creating(name, () -> jdbc.query(statement, rs -> {
            rs.next();
            Long[] seqs = (Long[]) rs.getArray(1).getArray();
            List<AppendResult> results = stored(ids, seqs, types, rs.getObject(2, OffsetDateTime.class).toInstant());
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
        if (appended.stream().anyMatch(result -> !result.duplicate())) {
            appended(name, callersTransaction);
        }
        return appended;
    }

    /**
     * Wakes the queue's listeners once the append committed: this process's at once (an append outside a transaction
     * has committed on return; inside one, after its commit) and every process's by a notification (sent by the
     * notifier, or inside a caller's transaction by the append's own statement). The notification alone took one
     * notifying transaction and a read of the LISTEN connection before a long-poll of this process could receive.
     */
    private void appended(QueueName name, boolean callersTransaction) {
        String channel = NotificationHub.channelFor(name);
        if (!callersTransaction) {
            localWakeUps.now(channel);
            notifier.signal(channel);
        }
        else {
            localWakeUps.afterCommit(List.of(channel));
        }
    }

    /** The statement with the message arrays both appends start with bound: ids, types, payloads, headers. */
    private static PreparedStatement prepare(Connection connection, String sql, String[] ids, String[] types,
            String[] payloads, String[] headers) throws SQLException {
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
        return ps;
    }

    private static boolean oneType(String[] types) {
        for (int i = 1; i < types.length; i++) {
            if (!types[i].equals(types[0])) {
                return false;
            }
        }
        return true;
    }

    private static List<AppendResult> stored(String[] ids, Long[] seqs, String[] types, Instant createdAt) {
        List<AppendResult> results = new ArrayList<>(ids.length);
        for (int i = 0; i < ids.length; i++) {
            results.add(new AppendResult(ids[i], seqs[i], types[i], createdAt));
        }
        return results;
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
}
