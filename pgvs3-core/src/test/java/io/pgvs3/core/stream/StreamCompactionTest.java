package io.pgvs3.core.stream;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.pgvs3.core.error.ErrorCode;
import io.pgvs3.core.error.Pgvs3Exception;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

@Tag("slow")
class StreamCompactionTest extends StreamTestSupport {

    @Test
    void manyReceivesLeaveABoundedNumberOfTicksAfterMaintenance() {
        String queue = "tick-bound";
        int cycles = 2000;
        streams.subscribe(queue, "c", null);
        List<String> appended = new ArrayList<>();
        for (int i = 0; i < cycles; i++) {
            appended.add(append(queue, "t", "{}").id());
            StreamBatch batch = streams.receive(queue, "c", null, 10);
            assertThat(batch.messages()).hasSize(1);
            streams.ack(queue, batch.batchId());
        }
        assertThat(count("SELECT count(*) FROM \"s3q_tick-bound\".stream_ticks")).isEqualTo(cycles + 1);

        StreamMaintenanceTask compaction = StreamMaintenanceTask.tickCleanup(catalog, streams);
        assertThat(compaction.run()).as("not due: compacted when the namespace was made, and few rows").isZero();
        jdbc.update("UPDATE \"s3q_tick-bound\".stream_meta SET compacted_at = now() - interval '11 minutes'");
        assertThat(compaction.run()).isGreaterThan(cycles - 2 * cycles / 100 - 5);

        // the first and the last tick of every 100 sequence numbers, the cursor's tick and the floor tick
        assertThat(count("SELECT count(*) FROM \"s3q_tick-bound\".stream_ticks")).isLessThanOrEqualTo(2 * cycles / 100 + 3);
        assertThat(count("SELECT count(*) FROM \"s3q_tick-bound\".stream_cursors")).isEqualTo(1);
        assertThat(count("SELECT count(*) FROM \"s3q_tick-bound\".stream_batches")).isZero();
        jdbc.update("UPDATE \"s3q_tick-bound\".stream_meta SET compacted_at = now() - interval '11 minutes'");
        assertThat(compaction.run()).as("nothing new since the last compaction").isZero();

        // a replay from the floor tick still finds a tick every 100 events, so a batch of 100 always fits
        streams.subscribe(queue, "replay", 0L);
        List<String> replayed = new ArrayList<>();
        for (StreamBatch batch = streams.receive(queue, "replay", null, 100); !batch.isEmpty();
                batch = streams.receive(queue, "replay", null, 100)) {
            batch.messages().forEach(message -> replayed.add(message.id()));
            streams.ack(queue, batch.batchId());
        }
        assertThat(replayed).containsExactlyElementsOf(appended);

        // the consumer carries on where it was
        AppendResult next = append(queue, "t", "{}");
        assertThat(ids(streams.receive(queue, "c", null, 10))).containsExactly(next.id());
    }

    @Test
    void compactionCarriesOutstandingBatchesWithTheirAcksAndNacks() {
        String queue = "carry";
        streams.subscribe(queue, "fan", null);
        streams.subscribe(queue, "group", null);
        streams.subscribe(queue, "gone", null);
        appendMany(queue, 3);
        StreamBatch fan = streams.receive(queue, "fan", null, 10);
        streams.nack(queue, fan.batchId(), fan.messages().get(0).id(), Duration.ofHours(1), "later");
        StreamBatch first = streams.receive(queue, "group", "m0", 10);
        appendMany(queue, 2);
        StreamBatch second = streams.receive(queue, "group", "m1", 10);
        assertThat(streams.ack(queue, second.batchId())).isTrue();
        StreamBatch gone = streams.receive(queue, "gone", null, 10);
        assertThat(streams.unsubscribe(queue, "gone")).isTrue();

        for (int i = 0; i < 2; i++) {
            streams.compact(queue, true);
            assertThat(count("SELECT count(*) FROM s3q_carry.stream_cursors")).isEqualTo(2);
            assertThat(count("SELECT count(*) FROM s3q_carry.stream_batches")).isEqualTo(3);

            assertThat(streams.receive(queue, "fan", null, 10).batchId()).isEqualTo(fan.batchId());
            assertThatThrownBy(() -> streams.nack(queue, fan.batchId(), fan.messages().get(0).id(), null, null))
                    .isInstanceOfSatisfying(Pgvs3Exception.class, ex -> assertThat(ex.code()).isEqualTo(ErrorCode.CONFLICT));
            assertThat(streams.batch(queue, fan.batchId()).orElseThrow().path("nacked").asInt()).isEqualTo(1);
            assertThat(streams.batch(queue, second.batchId()).orElseThrow().path("acked_at").isNull()).isFalse();
            assertThat(streams.ack(queue, second.batchId())).isFalse();
            assertThat(streams.receive(queue, "group", "m0", 10).batchId()).isEqualTo(first.batchId());
            assertThat(streams.batch(queue, gone.batchId())).isEmpty();
            assertThat(streams.ack(queue, gone.batchId())).as("released by unsubscribe").isFalse();
        }

        assertThat(streams.ack(queue, first.batchId())).isTrue();
        assertThat(streams.consumers(queue).get(1).path("last_tick").asLong()).isEqualTo(second.endTick());
        assertThat(streams.ack(queue, fan.batchId())).isTrue();
        streams.compact(queue, true);
        assertThat(count("SELECT count(*) FROM s3q_carry.stream_batches")).isZero();
        assertThat(count("SELECT count(*) FROM s3q_carry.stream_acks")).isZero();
        assertThat(count("SELECT count(*) FROM s3q_carry.stream_nacks")).isZero();
        assertThat(streams.receive(queue, "fan", null, 10).messages()).hasSize(2);
        assertThat(streams.receive(queue, "group", "m0", 10).isEmpty()).isTrue();

        // a consumer that subscribes again under the same name starts clean
        assertThat(streams.subscribe(queue, "gone", null).created()).isTrue();
        assertThat(streams.receive(queue, "gone", null, 10).isEmpty()).isTrue();
    }

    @Test
    void compactionIsBusyWhileAReaderHoldsTheOldPart() throws Exception {
        String queue = "busy";
        streams.subscribe(queue, "c", null);
        append(queue, "t", "{}");
        streams.receive(queue, "c", null, 10);
        long epoch = count("SELECT last_value FROM s3q_busy.stream_meta_epoch");
        try (var connection = dataSource.getConnection()) {
            connection.setAutoCommit(false);
            try (var statement = connection.createStatement()) {
                statement.execute("SELECT s3q_busy.stream_consumers()");
            }
            assertThat(streams.compact(queue, true)).isZero();
            assertThat(count("SELECT last_value FROM s3q_busy.stream_meta_epoch")).isEqualTo(epoch);
            connection.rollback();
        }
        streams.compact(queue, true);
        assertThat(count("SELECT last_value FROM s3q_busy.stream_meta_epoch")).isEqualTo(epoch + 1);
        assertThat(count("SELECT count(*) FROM s3q_busy.stream_batches")).isEqualTo(1);
    }
}
