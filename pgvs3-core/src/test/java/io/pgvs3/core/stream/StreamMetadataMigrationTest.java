package io.pgvs3.core.stream;

import java.util.List;

import io.pgvs3.core.error.ErrorCode;
import io.pgvs3.core.error.Pgvs3Exception;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A namespace made by an earlier streams template keeps its consumers, cursors, outstanding batches and events when
 * the template runs again: the first one (ticks and batches in plain tables, the cursor a column of the
 * subscription), and the one that kept payloads as jsonb and a batch's sequence numbers as an array.
 */
class StreamMetadataMigrationTest extends StreamTestSupport {

    private static final String QUEUE = "legacy";
    private static final String SCHEMA = "s3q_legacy";

    @Test
    void upgradeMovesCursorsAndOutstandingBatchesIntoTheNewTables() {
        streams.subscribe(QUEUE, "placeholder", null);
        // the first layout, with its state: ticks 1..3, fan-out consumer "fan" at tick 2 with batch 1 (2 -> 3, one
        // message nacked), cooperative group "group" at tick 1 with batch 2 (1 -> 2, unacked) and batch 3 (2 -> 3,
        // acked out of order)
        jdbc.execute("DROP TABLE " + SCHEMA + ".stream_ticks, " + SCHEMA + ".stream_cursors, " + SCHEMA
                + ".stream_batches, " + SCHEMA + ".stream_acks, " + SCHEMA + ".stream_nacks CASCADE");
        jdbc.execute("DELETE FROM " + SCHEMA + ".stream_subscriptions");
        jdbc.execute("ALTER TABLE " + SCHEMA + ".stream_subscriptions DROP COLUMN sub_id, ADD COLUMN last_tick bigint");
        jdbc.execute("CREATE TABLE " + SCHEMA + ".stream_ticks (tick_id bigint PRIMARY KEY, snapshot pg_snapshot NOT NULL,"
                + " max_seq bigint NOT NULL, created_at timestamptz NOT NULL DEFAULT now())");
        jdbc.execute("CREATE TABLE " + SCHEMA + ".stream_batches (batch_id bigint PRIMARY KEY, consumer text NOT NULL,"
                + " member text NOT NULL DEFAULT '', start_tick bigint NOT NULL, end_tick bigint NOT NULL,"
                + " nacked bigint[] NOT NULL DEFAULT '{}', created_at timestamptz NOT NULL DEFAULT now(),"
                + " acked_at timestamptz)");
        jdbc.execute("CREATE UNIQUE INDEX stream_batches_active ON " + SCHEMA
                + ".stream_batches (consumer, member) WHERE acked_at IS NULL");
        jdbc.execute("CREATE INDEX stream_batches_consumer ON " + SCHEMA + ".stream_batches (consumer, start_tick)");
        jdbc.execute("CREATE TABLE " + SCHEMA + ".stream_batch_events (batch_id bigint PRIMARY KEY, seqs bigint[] NOT NULL)");

        tick(1);
        List<AppendResult> early = appendMany(QUEUE, 2);
        tick(2);
        List<AppendResult> late = appendMany(QUEUE, 2);
        tick(3);
        jdbc.queryForObject("SELECT setval('" + SCHEMA + ".stream_tick_seq', 3)", Long.class);
        jdbc.queryForObject("SELECT setval('" + SCHEMA + ".stream_batch_seq', 3)", Long.class);
        jdbc.update("INSERT INTO " + SCHEMA + ".stream_subscriptions (consumer, last_tick) VALUES ('fan', 2), ('group', 1)");
        jdbc.update("INSERT INTO " + SCHEMA + ".stream_batches (batch_id, consumer, member, start_tick, end_tick, nacked,"
                + " acked_at) VALUES (1, 'fan', '', 2, 3, ARRAY[?]::bigint[], NULL), (2, 'group', 'm0', 1, 2, '{}', NULL),"
                + " (3, 'group', 'm1', 2, 3, '{}', now())", late.get(0).seq());
        jdbc.update("INSERT INTO " + SCHEMA + ".stream_batch_events VALUES (1, ARRAY[?, ?]::bigint[]),"
                + " (2, ARRAY[?, ?]::bigint[]), (3, ARRAY[?, ?]::bigint[])", late.get(0).seq(), late.get(1).seq(),
                early.get(0).seq(), early.get(1).seq(), late.get(0).seq(), late.get(1).seq());

        upgrade();
        assertThat(count("SELECT count(*) FROM pg_class WHERE relnamespace = ?::regnamespace"
                + " AND relname IN ('stream_batch_events', 'stream_ticks_v1', 'stream_batches_v1')", SCHEMA)).isZero();
        assertThat(count("SELECT count(*) FROM pg_attribute WHERE attrelid = ?::regclass AND attname = 'last_tick'",
                SCHEMA + ".stream_subscriptions")).isZero();
        upgrade();

        JsonNode consumers = streams.consumers(QUEUE);
        assertThat(consumers.get(0).path("name").asString()).isEqualTo("fan");
        assertThat(consumers.get(0).path("last_tick").asLong()).isEqualTo(2);
        assertThat(consumers.get(1).path("last_tick").asLong()).isEqualTo(1);
        assertThat(consumers.get(1).path("batches")).hasSize(2);
        assertThat(consumers.get(1).path("batches").get(1).path("acked_at").isNull()).isFalse();

        StreamBatch fan = streams.receive(QUEUE, "fan", null, 10);
        assertThat(fan.batchId()).isEqualTo(1);
        assertThat(ids(fan)).containsExactlyElementsOf(ids(late));
        assertThatThrownBy(() -> streams.nack(QUEUE, 1, late.get(0).id(), null, null))
                .isInstanceOfSatisfying(Pgvs3Exception.class, ex -> assertThat(ex.code()).isEqualTo(ErrorCode.CONFLICT));
        assertThat(streams.ack(QUEUE, 1)).isTrue();
        assertThat(streams.receive(QUEUE, "fan", null, 10).isEmpty()).isTrue();

        assertThat(ids(streams.receive(QUEUE, "group", "m0", 10))).containsExactlyElementsOf(ids(early));
        assertThat(streams.ack(QUEUE, 3)).isFalse();
        assertThat(streams.ack(QUEUE, 2)).isTrue();
        assertThat(streams.consumers(QUEUE).get(1).path("last_tick").asLong()).isEqualTo(3);

        // new batches continue the old numbering
        AppendResult next = append(QUEUE, "t", "{}");
        StreamBatch after = streams.receive(QUEUE, "fan", null, 10);
        assertThat(after.batchId()).isEqualTo(4);
        assertThat(ids(after)).containsExactly(next.id());
    }

    @Test
    void upgradeConvertsArraysOfSequenceNumbersAndJsonbPayloads() {
        String queue = "jsonb-era";
        String schema = "\"s3q_jsonb-era\"";
        streams.subscribe(queue, "c", null);
        List<AppendResult> appended = streams.append(queue, List.of(NewStreamMessage.of("t", "{\"a\": 1}"),
                NewStreamMessage.of("t", "{\"b\": [1, 2]}"), NewStreamMessage.of("t", "3")));
        StreamBatch outstanding = streams.receive(queue, "c", null, 10);
        streams.nack(queue, outstanding.batchId(), appended.get(2).id(), null, "to the dead letters");
        streams.updateConfig(queue, 0, null);
        streams.nack(queue, outstanding.batchId(), appended.get(1).id(), null, "dead");
        // the previous layout: payloads as jsonb, a batch's sequence numbers as bigint[], functions answering jsonb
        jdbc.execute("CREATE FUNCTION public.seq_array(int8multirange) RETURNS bigint[] LANGUAGE sql AS"
                + " 'SELECT array_agg(s ORDER BY s) FROM unnest($1) r, generate_series(lower(r), upper(r) - 1) s'");
        jdbc.execute("ALTER TABLE " + schema + ".stream_batches ALTER COLUMN seqs TYPE bigint[] USING public.seq_array(seqs)");
        jdbc.execute("DROP FUNCTION public.seq_array(int8multirange)");
        for (String table : List.of("stream_events", "stream_retry_events", "stream_dead_letters")) {
            jdbc.execute("ALTER TABLE " + schema + "." + table + " ALTER COLUMN payload TYPE jsonb USING payload::jsonb");
        }
        jdbc.execute("DROP FUNCTION " + schema + ".stream_receive(text, text, integer)");
        jdbc.execute("CREATE FUNCTION " + schema + ".stream_receive(p_consumer text, p_member text, p_max integer)"
                + " RETURNS TABLE (batch_id bigint, start_tick bigint, end_tick bigint, seq bigint, event_id text,"
                + " type text, payload jsonb, headers jsonb, retry_count integer, created_at timestamptz)"
                + " LANGUAGE sql AS 'SELECT NULL::bigint, 0::bigint, 0::bigint, NULL::bigint, NULL, NULL, NULL::jsonb,"
                + " NULL::jsonb, NULL::integer, NULL::timestamptz'");
        jdbc.execute("DROP FUNCTION " + schema + ".stream_batch_messages(bigint)");
        jdbc.execute("CREATE FUNCTION " + schema + ".stream_batch_messages(p_batch_id bigint)"
                + " RETURNS TABLE (batch_id bigint, start_tick bigint, end_tick bigint, seq bigint, event_id text,"
                + " type text, payload jsonb, headers jsonb, retry_count integer, created_at timestamptz)"
                + " LANGUAGE sql AS 'SELECT NULL::bigint, 0::bigint, 0::bigint, NULL::bigint, NULL, NULL, NULL::jsonb,"
                + " NULL::jsonb, NULL::integer, NULL::timestamptz'");
        jdbc.execute("DROP FUNCTION " + schema + ".stream_dead_letter_list(integer, integer)");
        jdbc.execute("CREATE FUNCTION " + schema + ".stream_dead_letter_list(p_limit integer, p_offset integer)"
                + " RETURNS jsonb LANGUAGE sql AS 'SELECT NULL::jsonb'");

        jdbc.update("UPDATE s3p.queues SET template_version = 'previous' WHERE name = ?", queue);
        assertThat(jdbc.queryForObject("SELECT s3p.upgrade_queue_schemas()", Integer.class)).isEqualTo(1);

        assertThat(jdbc.queryForList("SELECT format_type(a.atttypid, a.atttypmod) FROM pg_attribute a"
                + " WHERE a.attname = 'payload' AND a.attrelid IN (?::regclass, ?::regclass, ?::regclass)", String.class,
                schema + ".stream_events", schema + ".stream_retry_events", schema + ".stream_dead_letters"))
                .containsExactly("json", "json", "json");
        assertThat(jdbc.queryForObject("SELECT seqs::text FROM " + schema + ".stream_batches", String.class))
                .isEqualTo("{[" + appended.get(0).seq() + "," + (appended.get(2).seq() + 1) + ")}");
        StreamBatch again = streams.receive(queue, "c", null, 10);
        assertThat(again.batchId()).isEqualTo(outstanding.batchId());
        assertThat(again.messages()).extracting(ReceivedMessage::payloadJson)
                .containsExactly("{\"a\": 1}", "{\"b\": [1, 2]}", "3");
        assertThat(streams.batch(queue, again.batchId()).orElseThrow().path("count").asInt()).isEqualTo(3);
        JsonNode deadLetters = streams.deadLetters(queue, 10, 0);
        assertThat(deadLetters.path("total").asInt()).isEqualTo(1);
        assertThat(deadLetters.path("dead_letters").get(0).path("payload").path("b").get(1).asInt()).isEqualTo(2);
        assertThat(streams.nack(queue, again.batchId(), appended.get(0).id(), null, null).action())
                .isEqualTo("dead_letter");
        assertThat(streams.ack(queue, again.batchId())).isTrue();
    }

    @Test
    void upgradeGivesCursorsAndBatchesOfTickOnlyPositionsTheirPlaceInARange() {
        String queue = "tick-positions";
        String schema = "\"s3q_tick-positions\"";
        streams.subscribe(queue, "c", null);
        streams.subscribe(queue, "g", null);
        List<String> first = ids(streams.append(queue, List.of(NewStreamMessage.of("t", "1"), NewStreamMessage.of("t", "2"))));
        StreamBatch outstanding = streams.receive(queue, "c", null, 10);
        StreamBatch acked = streams.receive(queue, "g", "m0", 10);
        streams.ack(queue, acked.batchId());
        // the previous layout: a position was a tick, a batch always a whole range
        jdbc.execute("DROP INDEX " + schema + ".stream_batches_sub_pos, " + schema + ".stream_batches_member_pos");
        jdbc.execute("ALTER TABLE " + schema + ".stream_cursors DROP COLUMN seq, DROP COLUMN range_end");
        jdbc.execute("ALTER TABLE " + schema + ".stream_batches DROP COLUMN after_seq, DROP COLUMN complete");
        jdbc.execute("CREATE INDEX stream_batches_sub ON " + schema + ".stream_batches (sub_id, start_tick)");
        jdbc.execute("CREATE INDEX stream_batches_member ON " + schema + ".stream_batches (sub_id, member, start_tick)");

        jdbc.update("UPDATE s3p.queues SET template_version = 'previous' WHERE name = ?", queue);
        assertThat(jdbc.queryForObject("SELECT s3p.upgrade_queue_schemas()", Integer.class)).isEqualTo(1);

        assertThat(jdbc.queryForList("SELECT indexname FROM pg_indexes WHERE schemaname = ? AND tablename = 'stream_batches'",
                String.class, "s3q_" + queue)).containsExactlyInAnyOrder("stream_batches_batch", "stream_batches_sub_pos",
                        "stream_batches_member_pos");
        StreamBatch again = streams.receive(queue, "c", null, 1);
        assertThat(again.batchId()).isEqualTo(outstanding.batchId());
        assertThat(ids(again)).containsExactlyElementsOf(first);
        assertThat(streams.ack(queue, again.batchId())).isTrue();
        List<String> next = ids(streams.append(queue, List.of(NewStreamMessage.of("t", "3"), NewStreamMessage.of("t", "4"))));
        for (String consumer : List.of("c", "g")) {
            StreamBatch part = streams.receive(queue, consumer, consumer.equals("g") ? "m1" : null, 1);
            assertThat(ids(part)).as(consumer).containsExactly(next.get(0));
            assertThat(streams.ack(queue, part.batchId())).isTrue();
            StreamBatch rest = streams.receive(queue, consumer, consumer.equals("g") ? "m0" : null, 1);
            assertThat(ids(rest)).as(consumer).containsExactly(next.get(1));
            assertThat(streams.ack(queue, rest.batchId())).isTrue();
        }
    }

    private static void tick(long id) {
        jdbc.update("INSERT INTO " + SCHEMA + ".stream_ticks (tick_id, snapshot, max_seq)"
                + " SELECT ?, pg_current_snapshot(), coalesce((SELECT max(seq) FROM " + SCHEMA + ".stream_events), 0)", id);
    }

    private static void upgrade() {
        jdbc.update("UPDATE s3p.queues SET template_version = 'first' WHERE name = ?", QUEUE);
        assertThat(jdbc.queryForObject("SELECT s3p.upgrade_queue_schemas()", Integer.class)).isEqualTo(1);
    }
}
