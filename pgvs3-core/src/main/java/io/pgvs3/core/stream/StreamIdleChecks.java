package io.pgvs3.core.stream;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.StringJoiner;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.Function;

import io.pgvs3.core.catalog.QueueCatalog;
import io.pgvs3.core.sql.QueueStatement;

import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The checks a long-poll runs for many waiting receives at once, in one plain statement (no PL/pgSQL) for up to
 * {@value #PROBE_CHUNK} of them: whether a receive's mark has been appended to since, and whether a consumer
 * certainly has nothing to receive now.
 */
public class StreamIdleChecks {

    /** Most marks or targets one statement checks. */
    static final int PROBE_CHUNK = 100;

    private static final String CURRENT_SNAPSHOT = "SELECT pg_current_snapshot()::text";

    private static final String UNION_ALL = " UNION ALL ";

    /**
     * Whether events committed after snapshot {@code m.s} are visible now (what {@code stream_has_new_events} tests):
     * an event of a transaction that started after it, or of one running when it was taken. Each is the first row of
     * an ordered scan of one txid index range, not an EXISTS over both: once a statement is prepared, PostgreSQL may
     * keep a generic plan, and for an EXISTS over a large segment that was a sequential scan of every retained event.
     */
    private static final String APPENDED_SINCE_M = "((SELECT e.txid FROM {stream_events} e "
            + "WHERE e.txid >= pg_snapshot_xmax(m.s) AND e.txid < pg_snapshot_xmax(pg_current_snapshot()) "
            + "AND pg_visible_in_snapshot(e.txid, pg_current_snapshot()) ORDER BY e.txid LIMIT 1) IS NOT NULL "
            + "OR (SELECT e.txid FROM {stream_events} e "
            + "WHERE e.txid >= pg_snapshot_xmin(m.s) AND e.txid < pg_snapshot_xmax(m.s) "
            + "AND e.txid = ANY (ARRAY(SELECT pg_snapshot_xip(m.s))) "
            + "AND pg_visible_in_snapshot(e.txid, pg_current_snapshot()) ORDER BY e.txid LIMIT 1) IS NOT NULL)";

    /** One mark's part of the {@link #appendedSince} statement: its row number when its queue was appended to. */
    private static final QueueStatement MARK_APPENDED = QueueStatement.of(
            "SELECT {row} FROM (SELECT ?::pg_snapshot AS s) m WHERE " + APPENDED_SINCE_M);

    /**
     * One target's part of the {@link #idle} statement: the newest tick must be the cursor's (m), and the newest
     * batch (by position, so also the one starting furthest) must neither start at it nor end past it; each table is
     * read once, since planning this statement is most of its cost.
     */
    private static final QueueStatement TARGET_IDLE = QueueStatement.of(
            "SELECT {row}, c.tick, pg_current_snapshot()::text FROM {stream_subscriptions} s "
                    + "JOIN LATERAL (SELECT c.tick, c.seq, c.range_end FROM {stream_cursors} c "
                    + "WHERE c.sub_id = s.sub_id "
                    + "ORDER BY c.id DESC LIMIT 1) c ON true "
                    + "JOIN LATERAL (SELECT t.tick_id, t.snapshot AS s FROM {stream_ticks} t "
                    + "ORDER BY t.tick_id DESC LIMIT 1) m "
                    + "ON m.tick_id = c.tick "
                    + "WHERE s.consumer = ? AND c.seq = 0 AND c.range_end IS NULL "
                    + "AND NOT EXISTS (SELECT 1 FROM (SELECT b.start_tick, b.end_tick FROM {stream_batches} b "
                    + "WHERE b.sub_id = s.sub_id "
                    + "ORDER BY b.start_tick DESC, b.after_seq DESC LIMIT 1) b "
                    + "WHERE b.start_tick >= c.tick OR b.end_tick > c.tick) "
                    + "AND NOT " + APPENDED_SINCE_M);

    /** The floor tick every queue starts with (the first number of its tick sequence). */
    static final long FLOOR_TICK = 1;

    /**
     * The queues, of an array of schemas (numbered from 1), that were never appended to and never ticked past their
     * floor tick, with the statement's snapshot. Both are sequences, read without a transaction's view
     * ({@code pg_sequence_last_value} is null until a first {@code nextval}): no table of the queues is opened and
     * the statement is the same for every queue. The snapshot is taken before the sequences are read, so an append
     * that it does not show drew its sequence number after it, and is found by a probe from it as a mark.
     */
    private static final String NEVER_APPENDED = "SELECT q.i::int, pg_current_snapshot()::text "
            + "FROM unnest(?::text[]) WITH ORDINALITY AS q(schema, i) "
            + "CROSS JOIN LATERAL (SELECT to_regclass(format('%I.stream_seq', q.schema)) AS events, "
            + "to_regclass(format('%I.stream_tick_seq', q.schema)) AS ticks) s "
            + "WHERE s.events IS NOT NULL AND pg_sequence_last_value(s.events) IS NULL "
            + "AND pg_sequence_last_value(s.ticks) = " + FLOOR_TICK;

    /** One target's part of the subscription check of never appended queues: its row number when subscribed. */
    private static final QueueStatement TARGET_SUBSCRIBED = QueueStatement.of(
            "SELECT {row} FROM {stream_subscriptions} s WHERE s.consumer = ?");

    private final JdbcTemplate jdbc;
    private final QueueCatalog catalog;

    public StreamIdleChecks(JdbcTemplate jdbc, QueueCatalog catalog) {
        this.jdbc = jdbc;
        this.catalog = catalog;
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
        TxSnapshot now = TxSnapshot.parse(jdbc.queryForObject(CURRENT_SNAPSHOT, String.class));
        List<AppendMark> open = new ArrayList<>();
        for (AppendMark mark : new LinkedHashSet<>(marks)) {
            if (!now.nothingCompletedSince(TxSnapshot.parse(mark.snapshot()))) {
                open.add(mark);
            }
        }
        Set<AppendMark> appended = new HashSet<>();
        inChunks(open, (mark, row) -> MARK_APPENDED.in(mark.queue().schema(), row), AppendMark::snapshot,
                (mark, rs) -> appended.add(mark),
                // a queue dropped meanwhile counts as appended to, with the others of the chunk
                appended::addAll);
        return appended;
    }

    /**
     * The targets that certainly have nothing to receive now, each with the empty batch a receive would answer and
     * the mark it looked from (as {@link StreamDelivery#receiveMarked} returns them): one plain statement for up to
     * {@value #PROBE_CHUNK} targets, no PL/pgSQL. A target is idle when its consumer's cursor stands at the start of
     * the newest tick's range, no batch of the consumer reaches past that tick, and no event committed after that
     * tick's snapshot is visible. Any other target (more to hand out, an outstanding batch, a range in progress,
     * an unknown consumer or queue) is left out: only a receive can tell, and answer, for it.
     * <p>
     * Queues never appended to (their event sequence never drawn from) are told apart first, all in one statement that
     * reads two sequences per queue and opens none of its tables; for them only the subscription is looked up. The
     * statement over the cursors, ticks, batches and log, planned on every call and opening some 25 relations per
     * queue, is left to the others.
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
        Map<ReceiveTarget, AppendMark> neverAppended = neverAppended(distinct);
        List<ReceiveTarget> appended = distinct.stream().filter(target -> !neverAppended.containsKey(target)).toList();
        inChunks(new ArrayList<>(neverAppended.keySet()), (target, row) -> TARGET_SUBSCRIBED.in(
                target.queue().schema(), row), ReceiveTarget::consumer,
                (target, rs) -> idle.put(target, new MarkedBatch(
                        new StreamBatch(null, FLOOR_TICK, FLOOR_TICK, List.of()), neverAppended.get(target))),
                // a queue dropped meanwhile: its receive answers for itself, and so do the others of the chunk
                chunk -> {
                });
        inChunks(appended, (target, row) -> TARGET_IDLE.in(target.queue().schema(), row), ReceiveTarget::consumer,
                (target, rs) -> {
                    long tick = rs.getLong(2);
                    idle.put(target, new MarkedBatch(new StreamBatch(null, tick, tick, List.of()),
                            new AppendMark(target.queue(), rs.getString(3))));
                },
                chunk -> {
                });
        return idle;
    }

    /**
     * The targets whose queue was never appended to, each with the mark to wait from: their consumer has nothing
     * to receive if it is subscribed (its cursor can only stand at the floor tick, and no batch exists). The others
     * are left to the check that reads the queue's tables.
     */
    private Map<ReceiveTarget, AppendMark> neverAppended(List<ReceiveTarget> targets) {
        Map<ReceiveTarget, AppendMark> never = new LinkedHashMap<>();
        if (targets.isEmpty()) {
            return never;
        }
        String[] schemas = targets.stream().map(target -> target.queue().schema()).toArray(String[]::new);
        jdbc.query(NEVER_APPENDED,
                statement -> statement.setArray(1, statement.getConnection().createArrayOf("text", schemas)), rs -> {
                    ReceiveTarget target = targets.get(rs.getInt(1) - 1);
                    never.put(target, new AppendMark(target.queue(), rs.getString(2)));
                });
        return never;
    }

    /**
     * Runs one statement per chunk of up to {@value #PROBE_CHUNK} items: the {@code UNION ALL} of each item's part
     * (which answers the item's row number first) with its one argument; {@code found} takes each row with its item.
     * A chunk whose statement fails because a queue was dropped goes to {@code dropped}.
     */
    private <T> void inChunks(List<T> items, BiFunction<T, Integer, String> part, Function<T, Object> argument,
            RowOfItem<T> found, Consumer<List<T>> dropped) {
        for (int from = 0; from < items.size(); from += PROBE_CHUNK) {
            List<T> chunk = items.subList(from, Math.min(items.size(), from + PROBE_CHUNK));
            StringJoiner sql = new StringJoiner(UNION_ALL);
            List<Object> args = new ArrayList<>();
            for (int i = 0; i < chunk.size(); i++) {
                sql.add(part.apply(chunk.get(i), i));
                args.add(argument.apply(chunk.get(i)));
            }
            try {
                jdbc.query(sql.toString(), rs -> {
                    found.accept(chunk.get(rs.getInt(1)), rs);
                }, args.toArray());
            }
            catch (DataAccessException ex) {
                if (!QueueCatalog.isMissingNamespace(ex)) {
                    throw StreamCalls.translated(ex);
                }
                dropped.accept(chunk);
            }
        }
    }

    /** A row of a chunk's statement, with the item it answers for. */
    @FunctionalInterface
    private interface RowOfItem<T> {

        void accept(T item, ResultSet rs) throws SQLException;
    }
}
