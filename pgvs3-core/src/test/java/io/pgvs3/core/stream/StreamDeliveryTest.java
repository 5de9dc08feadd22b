package io.pgvs3.core.stream;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.pgvs3.core.UuidV7;
import io.pgvs3.core.error.ErrorCode;
import io.pgvs3.core.error.Pgvs3Exception;
import org.junit.jupiter.api.Test;

import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class StreamDeliveryTest extends StreamTestSupport {

    @Test
    void appendReceiveAckRoundTrip() {
        streams.subscribe("round-trip", "c", null);
        AppendResult appended = streams.append("round-trip",
                new NewStreamMessage("my-id", "order.created", "{\"n\": 1}", Map.of("trace", "t1")));
        assertThat(appended.id()).isEqualTo("my-id");

        StreamBatch batch = streams.receive("round-trip", "c", null, 10);
        assertThat(batch.batchId()).isNotNull();
        assertThat(batch.messages()).singleElement().satisfies(message -> {
            assertThat(message.id()).isEqualTo("my-id");
            assertThat(message.type()).isEqualTo("order.created");
            assertThat(message.payloadJson()).isEqualTo("{\"n\": 1}");
            assertThat(message.headers()).containsEntry("trace", "t1");
            assertThat(message.retryCount()).isZero();
        });
        assertThat(streams.ack("round-trip", batch.batchId())).isTrue();
        assertThat(streams.ack("round-trip", batch.batchId())).isFalse();
        assertThat(streams.receive("round-trip", "c", null, 10).isEmpty()).isTrue();
        assertThatThrownBy(() -> streams.ack("round-trip", 999_999))
                .isInstanceOfSatisfying(Pgvs3Exception.class, ex -> assertThat(ex.code()).isEqualTo(ErrorCode.NOT_FOUND));
    }

    @Test
    void theReadsOfEventsRunWithoutJit() {
        // on a segment of millions of events the difference's generic plan is estimated above jit_above_cost, and
        // compiling it cost ten times the receive itself
        streams.subscribe("no-jit", "c", null);
        List<String> configs = jdbc.queryForList("SELECT p.proname || ' ' || array_to_string(p.proconfig, ',') "
                + "FROM pg_proc p WHERE p.pronamespace = '\"s3q_no-jit\"'::regnamespace "
                + "AND p.proname IN ('stream_receive', 'stream_batch_read') ORDER BY p.proname", String.class);
        assertThat(configs).hasSize(2).allSatisfy(config -> assertThat(config).contains("jit=off"));
    }

    @Test
    void generatedIdsAreUuidV7() {
        AppendResult appended = append("uuid", "t", "{}");
        assertThat(java.util.UUID.fromString(appended.id()).version()).isEqualTo(7);
    }

    @Test
    void everyMessageOfABatchIsStoredUnderTheSequenceNumberOfItsPosition() {
        String queue = "batch-order";
        List<NewStreamMessage> messages = new ArrayList<>();
        for (int i = 0; i < StreamAppends.MAX_BATCH; i++) {
            messages.add(new NewStreamMessage(i % 7 == 0 ? "given-" + i : null, "type-" + (i % 3),
                    "{\"i\": " + i + "}", i % 5 == 0 ? Map.of("h", "v" + i) : null));
        }
        List<AppendResult> appended = streams.append(queue, messages);
        List<NewStreamMessage> oneType = List.of(NewStreamMessage.of("only", "{\"k\": 1}"),
                new NewStreamMessage("given-one", "only", "[2]", null), NewStreamMessage.of("only", "3"));
        List<AppendResult> plain = streams.append(queue, oneType);

        List<AppendResult> all = new ArrayList<>(appended);
        all.addAll(plain);
        assertThat(all).extracting(AppendResult::seq).isSorted().doesNotHaveDuplicates();
        assertThat(all).extracting(AppendResult::id).doesNotHaveDuplicates();
        List<NewStreamMessage> sent = new ArrayList<>(messages);
        sent.addAll(oneType);
        List<Map<String, Object>> rows = jdbc.queryForList("SELECT seq, event_id, type, payload::text AS payload, "
                + "headers::text AS headers FROM \"s3q_batch-order\".stream_events ORDER BY seq");
        assertThat(rows).hasSameSizeAs(sent);
        for (int i = 0; i < rows.size(); i++) {
            NewStreamMessage message = sent.get(i);
            Map<String, Object> row = rows.get(i);
            assertThat(row.get("seq")).isEqualTo(all.get(i).seq());
            assertThat(row.get("event_id")).isEqualTo(all.get(i).id());
            if (message.id() != null) {
                assertThat(all.get(i).id()).isEqualTo(message.id());
            }
            else {
                assertThat(UuidV7.isValid(all.get(i).id())).isTrue();
            }
            assertThat(row.get("type")).isEqualTo(message.type());
            assertThat(row.get("payload")).isEqualTo(message.payloadJson());
            assertThat(row.get("headers")).isEqualTo(message.headers().isEmpty() ? "{}"
                    : "{\"h\": \"" + message.headers().get("h") + "\"}");
        }
    }

    @Test
    void aSingleTypeStandsForEveryMessageAndOtherTypeCountsAreRefused() {
        streams.subscribe("one-type", "c", null);
        jdbc.queryForList("SELECT seqs FROM \"s3q_one-type\".stream_append(ARRAY['a', 'b'], ARRAY['t'], "
                + "ARRAY['1', '2'], NULL)");
        assertThat(jdbc.queryForList("SELECT type FROM \"s3q_one-type\".stream_events ORDER BY seq", String.class))
                .containsExactly("t", "t");
        assertThatThrownBy(() -> jdbc.queryForList("SELECT seqs FROM \"s3q_one-type\".stream_append("
                + "ARRAY['a', 'b'], ARRAY['t', 'u', 'v'], ARRAY['1', '2'], NULL)"))
                .isInstanceOf(DataAccessException.class)
                .hasMessageContaining("an append holds between 1 and 1000 messages");
        assertThatThrownBy(() -> jdbc.queryForList("SELECT seqs FROM \"s3q_one-type\".stream_append("
                + "ARRAY['a', 'b'], ARRAY[NULL]::text[], ARRAY['1', '2'], NULL)"))
                .isInstanceOf(DataAccessException.class);
        assertThat(count("SELECT count(*) FROM \"s3q_one-type\".stream_events")).isEqualTo(2);
    }

    @Test
    void eventCommittedLateBehindHigherSequencesIsDeliveredByALaterReceive() throws Exception {
        String queue = "seq-gap";
        streams.subscribe(queue, "c", null);
        try (Connection open = dataSource.getConnection()) {
            open.setAutoCommit(false);
            String late = appendRaw(open, queue, "late");

            List<AppendResult> committed = appendMany(queue, 3);
            assertThat(committed.get(0).seq()).isGreaterThan(seqOf(queue, late));
            StreamBatch first = streams.receive(queue, "c", null, 100);
            assertThat(ids(first)).containsExactlyElementsOf(ids(committed));
            assertThat(streams.ack(queue, first.batchId())).isTrue();
            assertThat(streams.receive(queue, "c", null, 100).isEmpty()).isTrue();

            open.commit();
            StreamBatch second = streams.receive(queue, "c", null, 100);
            assertThat(ids(second)).containsExactly(late);
            streams.ack(queue, second.batchId());
        }
    }

    @Test
    void rolledBackAppendIsNeverDelivered() throws Exception {
        String queue = "rolled-back";
        streams.subscribe(queue, "c", null);
        try (Connection open = dataSource.getConnection()) {
            open.setAutoCommit(false);
            appendRaw(open, queue, "ghost");
            AppendResult kept = append(queue, "t", "{}");
            assertThat(ids(streams.receive(queue, "c", null, 100))).containsExactly(kept.id());
            open.rollback();
        }
        StreamBatch batch = streams.receive(queue, "c", null, 100);
        streams.ack(queue, batch.batchId());
        AppendResult after = append(queue, "t", "{}");
        StreamBatch next = streams.receive(queue, "c", null, 100);
        assertThat(ids(next)).containsExactly(after.id());
    }

    @Test
    void receiveNeverTicksInsideATransactionThatAppended() {
        String queue = "outbox";
        streams.subscribe(queue, "c", null);
        long ticks = count("SELECT count(*) FROM s3q_outbox.stream_ticks");
        TransactionTemplate tx = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
        StreamBatch inside = tx.execute(status -> {
            append(queue, "t", "{}");
            return streams.receive(queue, "c", null, 10);
        });
        assertThat(inside.isEmpty()).isTrue();
        assertThat(count("SELECT count(*) FROM s3q_outbox.stream_ticks")).isEqualTo(ticks);
        assertThat(streams.receive(queue, "c", null, 10).messages()).hasSize(1);
    }

    @Test
    void aTickIsReusedByTheNextConsumer() {
        String queue = "reuse";
        streams.subscribe(queue, "a", null);
        streams.subscribe(queue, "b", null);
        appendMany(queue, 2);
        long before = count("SELECT count(*) FROM s3q_reuse.stream_ticks");
        StreamBatch a = streams.receive(queue, "a", null, 10);
        StreamBatch b = streams.receive(queue, "b", null, 10);
        assertThat(count("SELECT count(*) FROM s3q_reuse.stream_ticks")).isEqualTo(before + 1);
        assertThat(a.endTick()).isEqualTo(b.endTick());
        // an idle poll creates no tick
        streams.ack(queue, a.batchId());
        streams.receive(queue, "a", null, 10);
        assertThat(count("SELECT count(*) FROM s3q_reuse.stream_ticks")).isEqualTo(before + 1);
    }

    @Test
    void fanOutDeliversEveryEventToEveryConsumerExactlyOnce() {
        String queue = "fan-out";
        List<String> consumers = List.of("a", "b", "c");
        consumers.forEach(c -> streams.subscribe(queue, c, null));
        streams.subscribe(queue, "never-acks", null);
        List<String> expected = new ArrayList<>();
        Map<String, List<String>> received = new java.util.HashMap<>();
        StreamBatch pinned = null;
        for (int round = 0; round < 5; round++) {
            expected.addAll(ids(appendMany(queue, 7)));
            for (String consumer : consumers) {
                StreamBatch batch = streams.receive(queue, consumer, null, 100);
                received.computeIfAbsent(consumer, key -> new ArrayList<>()).addAll(ids(batch));
                assertThat(streams.ack(queue, batch.batchId())).isTrue();
            }
            StreamBatch again = streams.receive(queue, "never-acks", null, 100);
            if (pinned == null) {
                pinned = again;
            }
            assertThat(again.batchId()).isEqualTo(pinned.batchId());
            assertThat(ids(again)).isEqualTo(ids(pinned));
        }
        for (String consumer : consumers) {
            assertThat(received.get(consumer)).containsExactlyElementsOf(expected);
            assertThat(streams.receive(queue, consumer, null, 100).isEmpty()).isTrue();
        }
        assertThat(ids(pinned)).hasSize(7);
    }

    @Test
    void rangeLargerThanMaxIsDeliveredInBatchesOfMax() {
        String queue = "too-large";
        streams.subscribe(queue, "c", null);
        List<AppendResult> appended = appendMany(queue, 5);
        StreamBatch batch = streams.receive(queue, "c", null, 4);
        assertThat(ids(batch)).containsExactlyElementsOf(ids(appended).subList(0, 4));
        // an outstanding batch is returned again even when another max is asked for later
        assertThat(streams.receive(queue, "c", null, 5).batchId()).isEqualTo(batch.batchId());
        streams.ack(queue, batch.batchId());
        StreamBatch rest = streams.receive(queue, "c", null, 4);
        assertThat(ids(rest)).containsExactlyElementsOf(ids(appended).subList(4, 5));
        assertThat(rest.startTick()).isEqualTo(batch.startTick());
        assertThat(rest.endTick()).isEqualTo(batch.endTick());
    }

    @Test
    void nackRetriesWithCountThenDeadLettersThenReplaysAndPurges() {
        String queue = "nack";
        streams.subscribe(queue, "c", null);
        streams.updateConfig(queue, 2, null);
        AppendResult appended = append(queue, "t", "{\"x\":1}");
        StreamMaintenanceTask retries = StreamMaintenanceTask.retries(catalog, streams);

        for (int attempt = 0; attempt <= 2; attempt++) {
            StreamBatch batch = streams.receive(queue, "c", null, 10);
            assertThat(batch.messages()).singleElement().satisfies(m -> assertThat(m.id()).isEqualTo(appended.id()));
            int retryCount = batch.messages().get(0).retryCount();
            assertThat(retryCount).isEqualTo(attempt);
            NackResult nack = streams.nack(queue, batch.batchId(), appended.id(), Duration.ZERO, "boom " + attempt);
            if (attempt < 2) {
                assertThat(nack).isEqualTo(new NackResult(appended.id(), NackResult.RETRY, attempt + 1));
            }
            else {
                assertThat(nack).isEqualTo(new NackResult(appended.id(), NackResult.DEAD_LETTER, 2));
            }
            assertThatThrownBy(() -> streams.nack(queue, batch.batchId(), appended.id(), null, null))
                    .isInstanceOfSatisfying(Pgvs3Exception.class,
                            ex -> assertThat(ex.code()).isEqualTo(ErrorCode.CONFLICT));
            assertThat(streams.ack(queue, batch.batchId())).isTrue();
            assertThat(retries.run()).isEqualTo(attempt < 2 ? 1 : 0);
        }
        assertThat(streams.receive(queue, "c", null, 10).isEmpty()).isTrue();

        var letters = streams.deadLetters(queue, 10, 0);
        assertThat(letters.path("total").asLong()).isEqualTo(1);
        var letter = letters.path("dead_letters").get(0);
        assertThat(letter.path("message_id").asString()).isEqualTo(appended.id());
        assertThat(letter.path("reason").asString()).isEqualTo("boom 2");
        assertThat(letter.path("consumer").asString()).isEqualTo("c");

        assertThat(streams.replayDeadLetter(queue, letter.path("id").asLong())).isTrue();
        assertThat(streams.replayDeadLetter(queue, letter.path("id").asLong())).isFalse();
        StreamBatch replayed = streams.receive(queue, "c", null, 10);
        assertThat(replayed.messages()).singleElement().satisfies(m -> {
            assertThat(m.id()).isEqualTo(appended.id());
            assertThat(m.retryCount()).isZero();
        });
        streams.updateConfig(queue, 0, null);
        assertThat(streams.nack(queue, replayed.batchId(), appended.id(), null, "again").action())
                .isEqualTo(NackResult.DEAD_LETTER);
        streams.ack(queue, replayed.batchId());
        assertThat(streams.replayDeadLetters(queue)).isEqualTo(1);
        StreamBatch again = streams.receive(queue, "c", null, 10);
        streams.nack(queue, again.batchId(), appended.id(), null, "last");
        streams.ack(queue, again.batchId());
        assertThat(streams.purgeDeadLetters(queue, Duration.ofHours(1))).isZero();
        assertThat(streams.purgeDeadLetters(queue, Duration.ZERO)).isEqualTo(1);
        assertThat(streams.deadLetters(queue, 10, 0).path("total").asLong()).isZero();
    }

    @Test
    void nackOfAMessageOutsideTheBatchIsNotFound() {
        String queue = "nack-missing";
        streams.subscribe(queue, "c", null);
        append(queue, "t", "{}");
        StreamBatch batch = streams.receive(queue, "c", null, 10);
        assertThatThrownBy(() -> streams.nack(queue, batch.batchId(), "nope", null, null))
                .isInstanceOfSatisfying(Pgvs3Exception.class, ex -> assertThat(ex.code()).isEqualTo(ErrorCode.NOT_FOUND));
        streams.ack(queue, batch.batchId());
        assertThatThrownBy(() -> streams.nack(queue, batch.batchId(), batch.messages().get(0).id(), null, null))
                .isInstanceOfSatisfying(Pgvs3Exception.class, ex -> assertThat(ex.code()).isEqualTo(ErrorCode.CONFLICT));
    }

    @Test
    void subscribeFromTickZeroReplaysRetainedEvents() {
        String queue = "replay";
        List<AppendResult> early = appendMany(queue, 3);
        streams.subscribe(queue, "first", null);
        StreamBatch none = streams.receive(queue, "first", null, 10);
        // the namespace's floor tick predates every append, so the first subscriber sees them all
        assertThat(ids(none)).containsExactlyElementsOf(ids(early));
        streams.ack(queue, none.batchId());
        Subscription late = streams.subscribe(queue, "late", null);
        assertThat(late.created()).isTrue();
        assertThat(streams.receive(queue, "late", null, 10).isEmpty()).isTrue();
        Subscription replay = streams.subscribe(queue, "replay", 0L);
        assertThat(ids(streams.receive(queue, "replay", null, 10))).containsExactlyElementsOf(ids(early));
        assertThat(streams.subscribe(queue, "replay", null).created()).isFalse();
        assertThat(replay.lastTick()).isEqualTo(1);
        assertThatThrownBy(() -> streams.subscribe(queue, "bad", 12345L))
                .isInstanceOfSatisfying(Pgvs3Exception.class, ex -> assertThat(ex.code()).isEqualTo(ErrorCode.NOT_FOUND));
        assertThat(streams.unsubscribe(queue, "replay")).isTrue();
        assertThat(streams.unsubscribe(queue, "replay")).isFalse();
    }

    @Test
    void operationsOnAMissingQueueAreNotFoundAndCreateNothing() {
        assertThatThrownBy(() -> streams.receive("missing", "c", null, 10))
                .isInstanceOfSatisfying(Pgvs3Exception.class, ex -> assertThat(ex.code()).isEqualTo(ErrorCode.NOT_FOUND));
        assertThatThrownBy(() -> streams.ack("missing", 1))
                .isInstanceOfSatisfying(Pgvs3Exception.class, ex -> assertThat(ex.code()).isEqualTo(ErrorCode.NOT_FOUND));
        assertThat(count("SELECT count(*) FROM s3p.queues WHERE name = 'missing'")).isZero();
    }

    @Test
    void invalidPayloadIsRejectedAndNothingIsWritten() {
        streams.subscribe("bad-payload", "c", null);
        assertThatThrownBy(() -> streams.append("bad-payload",
                List.of(NewStreamMessage.of("t", "{}"), NewStreamMessage.of("t", "{not json"))))
                .isInstanceOfSatisfying(Pgvs3Exception.class,
                        ex -> assertThat(ex.code()).isEqualTo(ErrorCode.INVALID_PAYLOAD));
        assertThat(count("SELECT count(*) FROM \"s3q_bad-payload\".stream_events")).isZero();
    }

    static String appendRaw(Connection connection, String queue, String id) throws Exception {
        try (PreparedStatement ps = connection.prepareStatement("SELECT cardinality(seqs) FROM \"s3q_" + queue
                + "\".stream_append(ARRAY[?], ARRAY['t'], ARRAY['{}'], NULL)")) {
            ps.setString(1, id);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                assertThat(rs.getInt(1)).isEqualTo(1);
                return id;
            }
        }
    }

    /** The seq of an event still uncommitted: the one sequence value no visible event has. */
    static long seqOf(String queue, String id) {
        String schema = "\"s3q_" + queue + "\"";
        return count("SELECT min(s) FROM generate_series(1, (SELECT last_value FROM " + schema + ".stream_seq)) s"
                + " WHERE NOT EXISTS (SELECT 1 FROM " + schema + ".stream_events e WHERE e.seq = s)");
    }
}
