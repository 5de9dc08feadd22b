package io.pgvs3.core.stream;

import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import com.zaxxer.hikari.HikariDataSource;
import io.pgvs3.core.catalog.QueueCatalog;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A backlog appended while nobody receives is one tick range, far larger than a receive's max. Its first batch
 * locates the range once (its events' row addresses in sequence order); the later batches of every consumer and
 * member read their rows by them, and the range still drains completely, in order, once per consumer.
 */
class StreamLargeRangeTest extends StreamTestSupport {

    @Test
    void aLargeRangeDrainsOncePerConsumerAndGroupAcrossARotationWithALateAndARolledBackAppend() throws Exception {
        String queue = "large-range";
        String schema = "\"s3q_" + queue + "\"";
        streams.subscribe(queue, "a", null);
        streams.subscribe(queue, "b", null);
        streams.subscribe(queue, "g", null);
        // segment 0: a small range everyone passes, so that a later rotation truncates it
        List<String> old = ids(appendMany(queue, 300));
        for (String consumer : List.of("a", "b", "g")) {
            assertThat(drain(queue, consumer, null, 1000)).containsExactlyElementsOf(old);
        }
        assertThat(streams.rotate(queue, true)).isEqualTo(RotationOutcome.ROTATED);

        // one range over segments 1 and 2, with a rolled-back append in it and a late commit beside it
        List<String> range = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            range.addAll(ids(appendMany(queue, 100)));
            if (i == 10) {
                try (Connection rolledBack = dataSource.getConnection()) {
                    rolledBack.setAutoCommit(false);
                    StreamDeliveryTest.appendRaw(rolledBack, queue, "rolled-back");
                    rolledBack.rollback();
                }
            }
        }
        assertThat(streams.rotate(queue, true)).isEqualTo(RotationOutcome.ROTATED);
        String late;
        try (Connection open = dataSource.getConnection()) {
            open.setAutoCommit(false);
            range.addAll(ids(appendMany(queue, 1000)));
            late = StreamDeliveryTest.appendRaw(open, queue, "late");
            range.addAll(ids(appendMany(queue, 1000)));

            StreamBatch first = streams.receive(queue, "a", null, 100);
            assertThat(ids(first)).containsExactlyElementsOf(range.subList(0, 100));
            assertThat(count("SELECT count(*) FROM " + schema + ".stream_locators WHERE start_tick = ? AND end_tick = ?",
                    first.startTick(), first.endTick())).as("chunks of 1,000 of the located range").isEqualTo(4);
            assertThat(count("SELECT count(DISTINCT s) FROM " + schema + ".stream_locators, unnest(segments) s"))
                    .isEqualTo(2);
            // not acked: the same batch again, read by its locator
            StreamBatch again = streams.receive(queue, "a", null, 100);
            assertThat(again.batchId()).isEqualTo(first.batchId());
            assertThat(ids(again)).isEqualTo(ids(first));
            assertThat(streams.ack(queue, first.batchId())).isTrue();
            open.commit();
        }
        List<String> expected = new ArrayList<>(range);
        expected.add(late);

        // part of the range for each consumer and the group's members, then a rotation that truncates segment 0
        List<String> a = new ArrayList<>(range.subList(0, 100));
        a.addAll(receiveBatches(queue, "a", 10, 100));
        List<String> b = receiveBatches(queue, "b", 7, 70);
        Map<String, List<String>> members = new ConcurrentHashMap<>();
        for (int i = 0; i < 5; i++) {
            StreamBatch first = streams.receive(queue, "g", "m0", 100);
            StreamBatch second = streams.receive(queue, "g", "m1", 100);
            members.computeIfAbsent("m0", key -> new CopyOnWriteArrayList<>()).addAll(ids(first));
            members.computeIfAbsent("m1", key -> new CopyOnWriteArrayList<>()).addAll(ids(second));
            assertThat(streams.ack(queue, second.batchId())).isTrue();
            assertThat(streams.ack(queue, first.batchId())).isTrue();
        }
        // a nack inside the range: the message comes again after the rest
        StreamBatch nacked = streams.receive(queue, "b", null, 70);
        b.addAll(ids(nacked));
        String retried = nacked.messages().get(3).id();
        assertThat(streams.nack(queue, nacked.batchId(), retried, Duration.ZERO, "boom").action())
                .isEqualTo(NackResult.RETRY);
        assertThat(streams.ack(queue, nacked.batchId())).isTrue();

        assertThat(streams.rotate(queue, true)).isEqualTo(RotationOutcome.ROTATED);
        assertThat(count("SELECT count(*) FROM " + schema + ".stream_events_0")).isZero();
        assertThat(count("SELECT count(*) FROM " + schema + ".stream_locators")).as("gone with segment 0").isZero();

        a.addAll(drain(queue, "a", null, 100));
        assertThat(a).containsExactlyElementsOf(expected);
        assertThat(count("SELECT count(*) FROM " + schema + ".stream_locators")).as("located again").isPositive();

        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            List<Future<?>> running = new ArrayList<>();
            for (String member : List.of("m0", "m1")) {
                running.add(pool.submit(() -> {
                    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                    while (members.values().stream().mapToInt(List::size).sum() < expected.size()
                            && System.nanoTime() < deadline) {
                        StreamBatch batch = streams.receive(queue, "g", member, 100);
                        if (!batch.isEmpty()) {
                            members.get(member).addAll(ids(batch));
                            assertThat(streams.ack(queue, batch.batchId())).isTrue();
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> member : running) {
                member.get(90, TimeUnit.SECONDS);
            }
        }
        finally {
            pool.shutdownNow();
        }
        List<String> group = new ArrayList<>();
        members.values().forEach(group::addAll);
        assertThat(group).as("every event once to the group").hasSameSizeAs(expected)
                .containsExactlyInAnyOrderElementsOf(expected);
        for (List<String> member : members.values()) {
            assertThat(member).as("each member's events in order").isSortedAccordingTo(
                    (x, y) -> Integer.compare(expected.indexOf(x), expected.indexOf(y)));
        }

        b.addAll(drain(queue, "b", null, 70));
        assertThat(streams.moveDueRetries(queue, 100)).isOne();
        assertThat(drain(queue, "b", null, 70)).containsExactly(retried);
        b.add(retried);
        List<String> expectedB = new ArrayList<>(expected);
        expectedB.add(retried);
        assertThat(b).containsExactlyElementsOf(expectedB);
        assertThat(b).doesNotContain("rolled-back");
    }

    @Test
    void aLaterBatchOfALargeRangeReadsItsOwnRowsNotTheRestOfTheRange() {
        String queue = "large-range-reads";
        String schema = "s3q_large-range-reads";
        try (HikariDataSource single = database.newDataSource(1)) {
            // one backend, so that its statistics can be flushed on demand before they are read
            JdbcTemplate one = new JdbcTemplate(single);
            StreamStore store = new StreamStore(one, new QueueCatalog(one));
            store.subscribe(queue, "c", null);
            List<String> expected = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                expected.addAll(ids(store.append(queue, messages(1000))));
            }
            List<String> received = new ArrayList<>();
            for (int batch = 0; batch < 12; batch++) {
                long before = eventBlocksRead(one, schema);
                StreamBatch next = store.receive(queue, "c", null, 50);
                long read = eventBlocksRead(one, schema) - before;
                received.addAll(ids(next));
                assertThat(store.ack(queue, next.batchId())).isTrue();
                if (batch > 0) {
                    // 50 rows fetched by address: a buffer each at most, against ~800 for the rest of the range
                    assertThat(read).as("event blocks read by batch %s of 50 in a range of 20,000", batch)
                            .isLessThan(120);
                }
            }
            // without its locator, the same receive reads the rest of the range (and locates it again)
            one.execute("TRUNCATE \"" + schema + "\".stream_locators");
            long before = eventBlocksRead(one, schema);
            StreamBatch unlocated = store.receive(queue, "c", null, 50);
            assertThat(eventBlocksRead(one, schema) - before).isGreaterThan(500);
            received.addAll(ids(unlocated));
            store.ack(queue, unlocated.batchId());

            for (StreamBatch batch = store.receive(queue, "c", null, 1000); !batch.isEmpty();
                    batch = store.receive(queue, "c", null, 1000)) {
                received.addAll(ids(batch));
                store.ack(queue, batch.batchId());
            }
            assertThat(received).containsExactlyElementsOf(expected);
        }
    }

    @Test
    void aQueueMadeBeforeLocatorsIsUpgradedToThem() {
        String queue = "large-range-upgrade";
        String schema = "\"s3q_" + queue + "\"";
        streams.subscribe(queue, "c", null);
        // as a queue made from the templates before locators: no locator table, an older template version
        jdbc.execute("DROP TABLE " + schema + ".stream_locators");
        jdbc.update("UPDATE s3p.queues SET template_version = 'before-locators' WHERE name = ?", queue);
        assertThat(jdbc.queryForObject("SELECT s3p.upgrade_queue_schemas()", Integer.class)).isOne();

        List<String> expected = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            expected.addAll(ids(appendMany(queue, 1000)));
        }
        StreamBatch first = streams.receive(queue, "c", null, 500);
        assertThat(count("SELECT count(*) FROM " + schema + ".stream_locators")).isEqualTo(3);
        List<String> received = new ArrayList<>(ids(first));
        assertThat(streams.ack(queue, first.batchId())).isTrue();
        received.addAll(drain(queue, "c", null, 500));
        assertThat(received).containsExactlyElementsOf(expected);
    }

    /** Heap and index blocks of the queue's segments that the one backend of {@code one} has read so far. */
    private static long eventBlocksRead(JdbcTemplate one, String schema) {
        one.queryForObject("SELECT pg_stat_force_next_flush()::text", String.class);
        one.queryForObject("SELECT 1", Integer.class);
        Long blocks = one.queryForObject("SELECT coalesce(sum(heap_blks_hit + heap_blks_read"
                + " + coalesce(idx_blks_hit, 0) + coalesce(idx_blks_read, 0)), 0) FROM pg_statio_user_tables"
                + " WHERE schemaname = ? AND relname LIKE 'stream\\_events\\__'", Long.class, schema);
        return blocks == null ? 0 : blocks;
    }

    private static List<String> receiveBatches(String queue, String consumer, int batches, int max) {
        List<String> received = new ArrayList<>();
        for (int i = 0; i < batches; i++) {
            StreamBatch batch = streams.receive(queue, consumer, null, max);
            assertThat(batch.messages()).hasSize(max);
            received.addAll(ids(batch));
            assertThat(streams.ack(queue, batch.batchId())).isTrue();
        }
        return received;
    }

    private static List<String> drain(String queue, String consumer, String member, int max) {
        List<String> received = new ArrayList<>();
        for (StreamBatch batch = streams.receive(queue, consumer, member, max); !batch.isEmpty();
                batch = streams.receive(queue, consumer, member, max)) {
            assertThat(batch.messages()).hasSizeLessThanOrEqualTo(max);
            received.addAll(ids(batch));
            assertThat(streams.ack(queue, batch.batchId())).isTrue();
        }
        return received;
    }

    private static List<NewStreamMessage> messages(int count) {
        List<NewStreamMessage> messages = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            messages.add(NewStreamMessage.of("t", "{\"i\":" + i + "}"));
        }
        return messages;
    }
}
