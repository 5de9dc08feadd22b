package io.pgvs3.core.stream;

import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import tools.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code max} on receive is what a batch holds at most: the events between two ticks that are more than that come
 * as consecutive batches of {@code max}, each ack moving the consumer past exactly its events.
 */
class StreamReceiveMaxTest extends StreamTestSupport {

    @Test
    void anAtomicAppendOfAThousandComesAsTenBatchesOfAHundredInOrder() {
        String queue = "cap-thousand";
        streams.subscribe(queue, "c", null);
        List<String> expected = ids(appendMany(queue, 1000));
        Long range = null;
        for (int i = 0; i < 10; i++) {
            StreamBatch batch = streams.receive(queue, "c", null, 100);
            assertThat(ids(batch)).containsExactlyElementsOf(expected.subList(i * 100, i * 100 + 100));
            if (range == null) {
                range = batch.endTick();
            }
            assertThat(batch.endTick()).as("every part of the range has the range's end tick").isEqualTo(range);
            // not acked yet: the same batch again
            assertThat(streams.receive(queue, "c", null, 100).batchId()).isEqualTo(batch.batchId());
            assertThat(streams.ack(queue, batch.batchId())).isTrue();
            JsonNode consumer = consumer(queue, "c");
            assertThat(consumer.path("lag").asLong()).as("lag after %s batches", i + 1).isEqualTo(900 - i * 100L);
            assertThat(consumer.path("batches")).isEmpty();
            if (i < 9) {
                assertThat(consumer.path("last_seq").asLong()).isPositive();
            }
            else {
                assertThat(consumer.path("last_tick").asLong()).isEqualTo(range);
                assertThat(consumer.path("last_seq").asLong()).isZero();
            }
        }
        assertThat(streams.receive(queue, "c", null, 100).isEmpty()).isTrue();
        // the next append is a range of its own, after the whole of the first one
        List<String> more = ids(appendMany(queue, 3));
        StreamBatch next = streams.receive(queue, "c", null, 100);
        assertThat(ids(next)).containsExactlyElementsOf(more);
        assertThat(next.startTick()).isEqualTo(range);
    }

    @Test
    void aNackInAPartialBatchRetriesOnlyThatMessage() {
        String queue = "cap-nack";
        streams.subscribe(queue, "c", null);
        List<String> expected = ids(appendMany(queue, 10));
        StreamBatch first = streams.receive(queue, "c", null, 3);
        assertThat(ids(first)).containsExactlyElementsOf(expected.subList(0, 3));
        assertThat(streams.nack(queue, first.batchId(), expected.get(1), Duration.ZERO, "boom").action())
                .isEqualTo(NackResult.RETRY);
        assertThat(streams.ack(queue, first.batchId())).isTrue();
        List<String> rest = new ArrayList<>();
        for (StreamBatch batch = streams.receive(queue, "c", null, 3); !batch.isEmpty();
                batch = streams.receive(queue, "c", null, 3)) {
            assertThat(batch.messages()).hasSizeLessThanOrEqualTo(3);
            rest.addAll(ids(batch));
            streams.ack(queue, batch.batchId());
            if (rest.size() == 7) {
                assertThat(streams.moveDueRetries(queue, 100)).isOne();
            }
        }
        assertThat(rest.subList(0, 7)).containsExactlyElementsOf(expected.subList(3, 10));
        assertThat(rest.subList(7, rest.size())).containsExactly(expected.get(1));
    }

    @Test
    void aPartialBatchNotAckedIsDeliveredAgainExactly() {
        String queue = "cap-again";
        streams.subscribe(queue, "c", null);
        List<String> expected = ids(appendMany(queue, 10));
        StreamBatch first = streams.receive(queue, "c", null, 4);
        assertThat(streams.ack(queue, first.batchId())).isTrue();
        StreamBatch second = streams.receive(queue, "c", null, 4);
        assertThat(ids(second)).containsExactlyElementsOf(expected.subList(4, 8));
        // a consumer that restarts (with another max) gets the outstanding batch again, unchanged
        for (int max : List.of(4, 1, 100)) {
            StreamBatch again = streams.receive(queue, "c", null, max);
            assertThat(again.batchId()).isEqualTo(second.batchId());
            assertThat(ids(again)).isEqualTo(ids(second));
        }
        JsonNode batch = streams.batch(queue, second.batchId()).orElseThrow();
        assertThat(batch.path("count").asInt()).isEqualTo(4);
        assertThat(batch.path("complete").asBoolean()).isFalse();
        assertThat(streams.ack(queue, second.batchId())).isTrue();
        assertThat(streams.batch(queue, second.batchId())).isEmpty();
        StreamBatch last = streams.receive(queue, "c", null, 4);
        assertThat(ids(last)).containsExactlyElementsOf(expected.subList(8, 10));
        assertThat(streams.ack(queue, last.batchId())).isTrue();
        assertThat(streams.receive(queue, "c", null, 4).isEmpty()).isTrue();
    }

    @Test
    void aBatchWhoseSequenceNumbersHaveAGapHoldsExactlyItsEvents() throws Exception {
        String queue = "cap-gap";
        streams.subscribe(queue, "c", null);
        streams.subscribe(queue, "d", null);
        List<String> expected = ids(appendMany(queue, 3));
        // a rolled-back append draws sequence numbers and leaves no event: the range's numbers have a gap
        try (Connection connection = dataSource.getConnection()) {
            connection.setAutoCommit(false);
            StreamDeliveryTest.appendRaw(connection, queue, "rolled-back-1");
            StreamDeliveryTest.appendRaw(connection, queue, "rolled-back-2");
            connection.rollback();
        }
        expected.addAll(ids(appendMany(queue, 3)));

        StreamBatch first = streams.receive(queue, "c", null, 4);
        assertThat(ids(first)).containsExactlyElementsOf(expected.subList(0, 4));
        assertThat(jdbc.queryForObject("SELECT seqs::text FROM \"s3q_cap-gap\".stream_batches WHERE batch_id = ?",
                String.class, first.batchId())).isEqualTo(seqRanges(first));
        assertThat(ids(streams.receive(queue, "c", null, 4))).as("the same batch again, read by its numbers")
                .containsExactlyElementsOf(expected.subList(0, 4));
        assertThat(streams.ack(queue, first.batchId())).isTrue();
        StreamBatch rest = streams.receive(queue, "c", null, 4);
        assertThat(ids(rest)).containsExactlyElementsOf(expected.subList(4, 6));
        assertThat(streams.ack(queue, rest.batchId())).isTrue();
        assertThat(streams.receive(queue, "c", null, 4).isEmpty()).isTrue();

        StreamBatch whole = streams.receive(queue, "d", null, 100);
        assertThat(ids(whole)).containsExactlyElementsOf(expected);
        assertThat(streams.batch(queue, whole.batchId()).orElseThrow().path("count").asInt()).isEqualTo(6);
        assertThat(jdbc.queryForObject("SELECT seqs::text FROM \"s3q_cap-gap\".stream_batches WHERE batch_id = ?",
                String.class, whole.batchId())).isEqualTo(seqRanges(whole));
    }

    /** The sequence numbers of a batch's messages as PostgreSQL writes an int8multirange of them. */
    private static String seqRanges(StreamBatch batch) {
        List<String> ranges = new ArrayList<>();
        List<Long> seqs = batch.messages().stream().map(ReceivedMessage::seq).toList();
        int from = 0;
        for (int i = 1; i <= seqs.size(); i++) {
            if (i == seqs.size() || seqs.get(i) != seqs.get(i - 1) + 1) {
                ranges.add("[" + seqs.get(from) + "," + (seqs.get(i - 1) + 1) + ")");
                from = i;
            }
        }
        return "{" + String.join(",", ranges) + "}";
    }

    @Test
    void membersShareARangeInPartsAndTheCursorMovesOverContiguousAcks() {
        String queue = "cap-members";
        streams.subscribe(queue, "g", null);
        List<String> expected = ids(appendMany(queue, 1000));
        StreamBatch a = streams.receive(queue, "g", "a", 100);
        StreamBatch b = streams.receive(queue, "g", "b", 100);
        assertThat(ids(a)).containsExactlyElementsOf(expected.subList(0, 100));
        assertThat(ids(b)).containsExactlyElementsOf(expected.subList(100, 200));
        // b first: only marked, the cursor stays at the start of the range
        assertThat(streams.ack(queue, b.batchId())).isTrue();
        assertThat(consumer(queue, "g").path("last_seq").asLong()).isZero();
        assertThat(streams.ack(queue, b.batchId())).isFalse();
        StreamBatch c = streams.receive(queue, "g", "b", 100);
        assertThat(ids(c)).containsExactlyElementsOf(expected.subList(200, 300));
        // a's ack moves the cursor over a and b
        assertThat(streams.ack(queue, a.batchId())).isTrue();
        JsonNode consumer = consumer(queue, "g");
        assertThat(consumer.path("lag").asLong()).isEqualTo(800);
        assertThat(consumer.path("batches")).hasSize(1);
        assertThat(consumer.path("batches").get(0).path("id").asLong()).isEqualTo(c.batchId());
        StreamBatch d = streams.receive(queue, "g", "a", 100);
        assertThat(ids(d)).containsExactlyElementsOf(expected.subList(300, 400));
        streams.ack(queue, c.batchId());
        streams.ack(queue, d.batchId());
        assertThat(consumer(queue, "g").path("lag").asLong()).isEqualTo(600);
    }

    @Test
    void concurrentMembersWithASmallMaxGetEveryEventOnce() throws Exception {
        String queue = "cap-concurrent";
        streams.subscribe(queue, "g", null);
        int appends = 12;
        int perAppend = 250;
        Set<String> expected = ConcurrentHashMap.newKeySet();
        List<String> received = new CopyOnWriteArrayList<>();
        AtomicBoolean producing = new AtomicBoolean(true);
        ExecutorService pool = Executors.newFixedThreadPool(5);
        try {
            Future<?> producer = pool.submit(() -> {
                for (int i = 0; i < appends; i++) {
                    expected.addAll(ids(appendMany(queue, perAppend)));
                }
                producing.set(false);
                return null;
            });
            List<Future<Integer>> members = new ArrayList<>();
            for (int m = 0; m < 4; m++) {
                String member = "m" + m;
                int max = 7 + 13 * m;
                members.add(pool.submit(() -> {
                    int batches = 0;
                    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
                    while (System.nanoTime() < deadline) {
                        boolean done = !producing.get();
                        StreamBatch batch = streams.receive(queue, "g", member, max);
                        if (batch.isEmpty()) {
                            if (done && received.size() >= appends * perAppend) {
                                return batches;
                            }
                            Thread.sleep(5);
                            continue;
                        }
                        assertThat(batch.messages()).hasSizeLessThanOrEqualTo(max);
                        received.addAll(ids(batch));
                        assertThat(streams.ack(queue, batch.batchId())).isTrue();
                        batches++;
                    }
                    return batches;
                }));
            }
            producer.get(2, TimeUnit.MINUTES);
            int batches = 0;
            for (Future<Integer> member : members) {
                batches += member.get(3, TimeUnit.MINUTES);
            }
            assertThat(batches).isGreaterThan(appends * perAppend / 46);
        }
        finally {
            pool.shutdownNow();
        }
        Set<String> unique = new HashSet<>(received);
        assertThat(received).as("no event is delivered twice").hasSize(unique.size());
        assertThat(unique).as("no event is skipped").isEqualTo(expected);
        assertThat(consumer(queue, "g").path("lag").asLong()).isZero();
        assertThat(consumer(queue, "g").path("batches")).isEmpty();
    }

    @Test
    void compactionAndRotationInTheMiddleOfARangeLoseNothing() {
        String queue = "cap-maintenance";
        streams.subscribe(queue, "c", null);
        streams.subscribe(queue, "g", null);
        List<String> expected = ids(appendMany(queue, 1000));
        StreamBatch first = streams.receive(queue, "c", null, 100);
        streams.ack(queue, first.batchId());
        StreamBatch outstanding = streams.receive(queue, "c", null, 100);
        StreamBatch member = streams.receive(queue, "g", "m0", 150);
        streams.ack(queue, member.batchId());
        StreamBatch memberOutstanding = streams.receive(queue, "g", "m1", 150);
        // more ranges behind this one, and ticks that nothing but the cursors' ranges need
        List<String> later = ids(appendMany(queue, 50));
        streams.tick(queue, 1);
        for (int i = 0; i < 3; i++) {
            streams.compact(queue, true);
            streams.rotate(queue, true);
        }
        assertThat(streams.rotate(queue, true)).as("the events the cursors have not passed pin their segment")
                .isEqualTo(RotationOutcome.PINNED);
        streams.compact(queue, true);

        StreamBatch again = streams.receive(queue, "c", null, 100);
        assertThat(again.batchId()).isEqualTo(outstanding.batchId());
        assertThat(ids(again)).containsExactlyElementsOf(expected.subList(100, 200));
        streams.ack(queue, again.batchId());
        List<String> rest = new ArrayList<>(expected.subList(0, 200));
        for (StreamBatch batch = streams.receive(queue, "c", null, 100); !batch.isEmpty();
                batch = streams.receive(queue, "c", null, 100)) {
            rest.addAll(ids(batch));
            streams.ack(queue, batch.batchId());
            streams.compact(queue, true);
        }
        List<String> all = new ArrayList<>(expected);
        all.addAll(later);
        assertThat(rest).containsExactlyElementsOf(all);

        assertThat(streams.receive(queue, "g", "m1", 150).batchId()).isEqualTo(memberOutstanding.batchId());
        List<String> group = new ArrayList<>(ids(member));
        group.addAll(ids(memberOutstanding));
        streams.ack(queue, memberOutstanding.batchId());
        for (StreamBatch batch = streams.receive(queue, "g", "m0", 150); !batch.isEmpty();
                batch = streams.receive(queue, "g", "m0", 150)) {
            group.addAll(ids(batch));
            streams.ack(queue, batch.batchId());
        }
        assertThat(group).containsExactlyElementsOf(all);
    }

    @Test
    void lateCommitsBeforeAndAfterTheRangeAreDelivered() throws Exception {
        String queue = "cap-late";
        streams.subscribe(queue, "c", null);
        List<String> received = new ArrayList<>();
        String inside;
        String after;
        try (Connection early = dataSource.getConnection(); Connection late = dataSource.getConnection()) {
            early.setAutoCommit(false);
            late.setAutoCommit(false);
            // a low sequence number that commits before the range's tick: inside the range, first by seq
            inside = StreamDeliveryTest.appendRaw(early, queue, "inside");
            // a lower-or-equal position that commits only after the range's tick: in a later range
            after = StreamDeliveryTest.appendRaw(late, queue, "after");
            List<String> committed = ids(appendMany(queue, 5));
            early.commit();
            StreamBatch first = streams.receive(queue, "c", null, 2);
            assertThat(ids(first)).containsExactly(inside, committed.get(0));
            received.addAll(ids(first));
            streams.ack(queue, first.batchId());
            late.commit();
            for (StreamBatch batch = streams.receive(queue, "c", null, 2); !batch.isEmpty();
                    batch = streams.receive(queue, "c", null, 2)) {
                received.addAll(ids(batch));
                streams.ack(queue, batch.batchId());
            }
            List<String> all = new ArrayList<>(List.of(inside));
            all.addAll(committed);
            all.add(after);
            assertThat(received).containsExactlyElementsOf(all);
        }
    }

    private static JsonNode consumer(String queue, String name) {
        for (JsonNode consumer : streams.consumers(queue)) {
            if (consumer.path("name").asString().equals(name)) {
                return consumer;
            }
        }
        throw new AssertionError("no consumer " + name + " in " + streams.consumers(queue));
    }
}
