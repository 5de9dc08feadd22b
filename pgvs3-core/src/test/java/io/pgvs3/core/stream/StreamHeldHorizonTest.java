package io.pgvs3.core.stream;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import com.zaxxer.hikari.HikariDataSource;
import io.pgvs3.core.catalog.QueueCatalog;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The hot path under a held xmin horizon: while a {@code REPEATABLE READ} transaction keeps its snapshot open,
 * append, receive, ack and nack for two fan-out consumers and a cooperative group must not update or delete a
 * single row, so no stream table gets a dead tuple, and compaction still bounds the metadata.
 * <p>
 * The workload runs on one connection, so the statistics it reports are flushed on demand before they are read.
 */
@Tag("slow")
class StreamHeldHorizonTest extends StreamTestSupport {

    private static final String QUEUE = "horizon";
    private static final String SCHEMA = "s3q_horizon";
    private static final int CYCLES = 1500;
    private static final int COMPACT_EVERY = 500;

    @Test
    void hotPathLeavesNoRowVersionsWhileASnapshotHoldsTheHorizon() throws Exception {
        try (HikariDataSource single = database.newDataSource(1); Connection holder = dataSource.getConnection()) {
            JdbcTemplate one = new JdbcTemplate(single);
            StreamStore store = new StreamStore(one, new QueueCatalog(one));
            for (String consumer : List.of("a", "b", "group")) {
                store.subscribe(QUEUE, consumer, null);
            }
            Map<String, long[]> before = writes(one);

            holder.setAutoCommit(false);
            holder.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
            int holderPid;
            try (Statement statement = holder.createStatement();
                    ResultSet rs = statement.executeQuery("SELECT pg_backend_pid() FROM s3p.queues LIMIT 1")) {
                assertThat(rs.next()).isTrue();
                holderPid = rs.getInt(1);
            }
            String heldXmin = "SELECT backend_xmin::text FROM pg_stat_activity WHERE pid = ?";
            assertThat(one.queryForObject(heldXmin, String.class, holderPid)).as("the holder has a snapshot").isNotNull();

            int compactions = 0;
            int delivered = 0;
            for (int cycle = 1; cycle <= CYCLES; cycle++) {
                store.append(QUEUE, List.of(NewStreamMessage.of("t", "{\"c\":" + cycle + "}"),
                        NewStreamMessage.of("t", "{\"c\":" + cycle + "}")));
                // a receives the two events of the append in two batches of one: a position inside the range
                for (int part = 0; part < 2; part++) {
                    StreamBatch a = store.receive(QUEUE, "a", null, 1);
                    assertThat(a.messages()).hasSize(1);
                    assertThat(store.ack(QUEUE, a.batchId())).isTrue();
                    delivered += a.messages().size();
                }

                StreamBatch b = store.receive(QUEUE, "b", null, 100);
                if (cycle % 10 == 0) {
                    NackResult nack = store.nack(QUEUE, b.batchId(), b.messages().get(0).id(), Duration.ofHours(1), "x");
                    assertThat(nack.action()).isEqualTo(NackResult.RETRY);
                }
                assertThat(store.receive(QUEUE, "b", null, 100).batchId()).isEqualTo(b.batchId());
                assertThat(store.ack(QUEUE, b.batchId())).isTrue();
                assertThat(store.ack(QUEUE, b.batchId())).isFalse();

                // two members with one batch each, acked out of order: the first ack only marks, the second moves
                StreamBatch first = store.receive(QUEUE, "group", "m0", 100);
                store.append(QUEUE, NewStreamMessage.of("t", "{}"));
                StreamBatch second = store.receive(QUEUE, "group", "m1", 100);
                assertThat(first.messages()).isNotEmpty();
                assertThat(second.messages()).hasSize(1);
                assertThat(store.ack(QUEUE, second.batchId())).isTrue();
                assertThat(store.ack(QUEUE, first.batchId())).isTrue();

                if (cycle % COMPACT_EVERY == 0) {
                    store.compact(QUEUE, true);
                    compactions++;
                }
            }
            for (StreamBatch rest = store.receive(QUEUE, "a", null, 100); !rest.isEmpty();
                    rest = store.receive(QUEUE, "a", null, 100)) {
                delivered += rest.messages().size();
                store.ack(QUEUE, rest.batchId());
            }
            assertThat(delivered).as("every event reached consumer a").isEqualTo(3 * CYCLES);
            assertThat(one.queryForObject(heldXmin, String.class, holderPid)).as("the horizon was held throughout")
                    .isNotNull();

            Map<String, long[]> after = writes(one);
            assertThat(after.keySet()).contains("stream_ticks_0", "stream_cursors_1", "stream_batches_0",
                    "stream_acks_1", "stream_nacks_0", "stream_subscriptions", "stream_config", "stream_events_0");
            long inserted = 0;
            for (Map.Entry<String, long[]> table : after.entrySet()) {
                String name = table.getKey();
                long[] now = table.getValue();
                long[] then = before.getOrDefault(name, new long[4]);
                inserted += now[0] - then[0];
                long updatesAndDeletes = now[1] - then[1] + now[2] - then[2];
                if (name.equals("stream_meta")) {
                    // compaction's own bookkeeping: one update per compaction, never touched by the hot path
                    assertThat(updatesAndDeletes).isEqualTo(compactions);
                    continue;
                }
                assertThat(updatesAndDeletes).as("updates and deletes in %s", name).isZero();
                assertThat(now[3]).as("dead tuples in %s", name).isZero();
            }
            assertThat(inserted).as("inserts are counted, so the statistics are current").isGreaterThan(10L * CYCLES);

            // compaction bounded the metadata although the horizon was held: one cursor row per consumer, no
            // batch (all were acked) and the ticks thinned to about two per 100 events
            store.compact(QUEUE, true);
            assertThat(one.queryForObject("SELECT count(*) FROM " + SCHEMA + ".stream_cursors", Long.class)).isEqualTo(3);
            assertThat(one.queryForObject("SELECT count(*) FROM " + SCHEMA + ".stream_batches", Long.class)).isZero();
            long events = 3L * CYCLES;
            assertThat(one.queryForObject("SELECT count(*) FROM " + SCHEMA + ".stream_ticks", Long.class))
                    .isLessThanOrEqualTo(2 * events / 100 + 5);
            holder.rollback();
        }
    }

    /** Per stream table: inserts, updates, deletes and dead tuples, after this backend flushed its statistics. */
    private static Map<String, long[]> writes(JdbcTemplate one) {
        one.queryForObject("SELECT pg_stat_force_next_flush()::text", String.class);
        one.queryForObject("SELECT 1", Integer.class);
        Map<String, long[]> writes = new HashMap<>();
        one.query("SELECT relname, n_tup_ins, n_tup_upd, n_tup_del, n_dead_tup FROM pg_stat_user_tables"
                + " WHERE schemaname = ? AND relname LIKE 'stream%'", rs -> {
                    writes.put(rs.getString(1), new long[] { rs.getLong(2), rs.getLong(3), rs.getLong(4), rs.getLong(5) });
                }, SCHEMA);
        return writes;
    }
}
