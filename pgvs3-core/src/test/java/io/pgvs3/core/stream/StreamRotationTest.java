package io.pgvs3.core.stream;

import java.util.List;
import java.util.Map;

import com.zaxxer.hikari.HikariDataSource;
import io.pgvs3.core.catalog.QueueCatalog;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Rotation on one connection, so that the statistics this backend reports are flushed on demand
 * ({@code pg_stat_force_next_flush}) before they are read.
 */
class StreamRotationTest extends StreamTestSupport {

    private static final String QUEUE = "rotation";
    private static final String SCHEMA = "s3q_rotation";

    @Test
    void slowConsumerPinsItsSegmentAndRotationTruncatesOnceItCatchesUp() {
        try (HikariDataSource single = database.newDataSource(1)) {
            JdbcTemplate one = new JdbcTemplate(single);
            StreamStore store = new StreamStore(one, new QueueCatalog(one));
            store.subscribe(QUEUE, "fast", null);
            store.subscribe(QUEUE, "slow", null);

            List<AppendResult> first = store.append(QUEUE, messages(5));
            drain(store, "fast");
            StreamBatch slowBatch = store.receive(QUEUE, "slow", null, 100);
            assertThat(ids(slowBatch)).containsExactlyElementsOf(ids(first));

            // 0 -> 1, 1 -> 2 reuse empty segments; 2 -> 0 would need segment 0, which "slow" has not passed
            assertThat(store.rotate(QUEUE, true)).isEqualTo(RotationOutcome.ROTATED);
            List<AppendResult> second = store.append(QUEUE, messages(3));
            assertThat(store.rotate(QUEUE, true)).isEqualTo(RotationOutcome.ROTATED);
            drain(store, "fast");
            assertThat(store.rotate(QUEUE, true)).isEqualTo(RotationOutcome.PINNED);
            assertThat(segmentCounts(one)).containsEntry(0, 5L).containsEntry(1, 3L);
            assertThat(store.rotate(QUEUE, false)).isEqualTo(RotationOutcome.NOT_DUE);

            // nothing was lost while pinned
            assertThat(store.receive(QUEUE, "slow", null, 100).batchId()).isEqualTo(slowBatch.batchId());
            store.ack(QUEUE, slowBatch.batchId());
            StreamBatch rest = store.receive(QUEUE, "slow", null, 100);
            assertThat(ids(rest)).containsExactlyElementsOf(ids(second));
            store.ack(QUEUE, rest.batchId());
            assertThat(store.receive(QUEUE, "slow", null, 100).isEmpty()).isTrue();

            assertThat(store.rotate(QUEUE, true)).isEqualTo(RotationOutcome.ROTATED);
            assertThat(segmentCounts(one)).containsEntry(0, 0L).containsEntry(1, 3L);
            List<AppendResult> third = store.append(QUEUE, messages(2));
            assertThat(single.getHikariPoolMXBean().getTotalConnections()).isEqualTo(1);
            assertThat(received(drain(store, "slow"))).containsExactlyElementsOf(ids(third));

            // from_tick 0 replays from the floor tick: nothing from the truncated segment comes back
            store.subscribe(QUEUE, "replay", 0L);
            assertThat(received(drain(store, "replay"))).doesNotContainAnyElementsOf(ids(first));

            one.queryForObject("SELECT pg_stat_force_next_flush()::text", String.class);
            one.queryForObject("SELECT 1", Integer.class);
            List<Map<String, Object>> stats = one.queryForList("SELECT relname, n_tup_ins, n_dead_tup, n_tup_del, "
                    + "n_tup_upd FROM pg_stat_user_tables WHERE schemaname = ? AND relname LIKE 'stream_events_%'", SCHEMA);
            assertThat(stats).hasSize(3);
            assertThat(stats.stream().mapToLong(row -> ((Number) row.get("n_tup_ins")).longValue()).sum())
                    .as("inserts are counted, so the statistics are current").isGreaterThanOrEqualTo(10);
            assertThat(stats).allSatisfy(row -> {
                assertThat(((Number) row.get("n_dead_tup")).longValue()).as("dead tuples of %s", row.get("relname")).isZero();
                assertThat(((Number) row.get("n_tup_del")).longValue()).isZero();
                assertThat(((Number) row.get("n_tup_upd")).longValue()).isZero();
            });
        }
    }

    @Test
    void ticksAreCleanedUpButAFloorTickStays() {
        String queue = "ticks";
        streams.subscribe(queue, "c", null);
        for (int i = 0; i < 5; i++) {
            append(queue, "t", "{}");
            drain(streams, queue, "c");
        }
        long before = count("SELECT count(*) FROM s3q_ticks.stream_ticks");
        assertThat(before).isGreaterThanOrEqualTo(6);
        assertThat(streams.rotate(queue, true)).isEqualTo(RotationOutcome.ROTATED);
        assertThat(streams.rotate(queue, true)).isEqualTo(RotationOutcome.ROTATED);
        assertThat(streams.rotate(queue, true)).isEqualTo(RotationOutcome.ROTATED);
        jdbc.update("UPDATE s3q_ticks.stream_config SET retention = interval '1 millisecond'");
        streams.cleanupTicks(queue);
        // the cursor's tick and one floor tick remain
        assertThat(count("SELECT count(*) FROM s3q_ticks.stream_ticks")).isBetween(1L, 2L);
        append(queue, "t", "{}");
        assertThat(drain(streams, queue, "c")).hasSize(1);
        streams.subscribe(queue, "late", 0L);
        assertThat(drain(streams, queue, "late")).hasSize(1);
    }

    private static List<ReceivedMessage> drain(StreamStore store, String consumer) {
        return drain(store, QUEUE, consumer);
    }

    private static List<ReceivedMessage> drain(StreamStore store, String queue, String consumer) {
        List<ReceivedMessage> all = new java.util.ArrayList<>();
        for (StreamBatch batch = store.receive(queue, consumer, null, 1000); !batch.isEmpty();
                batch = store.receive(queue, consumer, null, 1000)) {
            all.addAll(batch.messages());
            store.ack(queue, batch.batchId());
        }
        return all;
    }

    private static List<String> received(List<ReceivedMessage> messages) {
        return messages.stream().map(ReceivedMessage::id).toList();
    }

    private static List<NewStreamMessage> messages(int count) {
        return java.util.stream.IntStream.range(0, count).mapToObj(i -> NewStreamMessage.of("t", "{\"i\":" + i + "}"))
                .toList();
    }

    private static Map<Integer, Long> segmentCounts(JdbcTemplate one) {
        Map<Integer, Long> counts = new java.util.HashMap<>();
        for (int segment = 0; segment < 3; segment++) {
            counts.put(segment, one.queryForObject("SELECT count(*) FROM " + SCHEMA + ".stream_events_" + segment,
                    Long.class));
        }
        return counts;
    }
}
