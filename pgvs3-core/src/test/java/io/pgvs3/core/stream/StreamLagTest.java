package io.pgvs3.core.stream;

import java.util.ArrayList;
import java.util.List;

import io.pgvs3.core.error.ErrorCode;
import io.pgvs3.core.error.Pgvs3Exception;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Consumers that fall behind producers: batch sizes within the receive's max, and the ticker. */
class StreamLagTest extends StreamTestSupport {

    @Test
    void consumerThatLaggedBehindThousandsOfEventsDrainsThemAll() {
        String queue = "lagging";
        streams.subscribe(queue, "slow", null);
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < 60; i++) {
            expected.addAll(ids(appendMany(queue, 100)));
        }
        // the first receive makes one tick spanning all 6,000 events: it comes in batches of the receive's max
        StreamBatch first = streams.receive(queue, "slow", null, 1000);
        assertThat(ids(first)).containsExactlyElementsOf(expected.subList(0, 1000));
        streams.ack(queue, first.batchId());
        assertThat(drain(queue, "slow", 1000)).containsExactlyElementsOf(expected.subList(1000, 6000));
        assertThat(streams.receive(queue, "slow", null, 1000).isEmpty()).isTrue();
    }

    @Test
    void tickerKeepsBatchesOfALaggingConsumerWithinItsCeiling() {
        String queue = "ticked";
        jdbc.queryForObject("SELECT s3p.ensure_queue_schema(?)", String.class, queue);
        List<String> expected = new ArrayList<>(ids(appendMany(queue, 10)));
        assertThat(streams.tick(queue, 10)).isZero(); // no tick without subscribers
        streams.subscribe(queue, "slow", null);
        assertThat(streams.tick(queue, 11)).isZero(); // fewer new events than asked for
        assertThat(streams.tick(queue, 10)).isOne(); // the subscriber starts at the floor tick, before those 10
        assertThat(streams.tick(queue, 1)).isZero(); // nothing new
        int ticks = 0;
        for (int i = 0; i < 50; i++) {
            expected.addAll(ids(appendMany(queue, 100)));
            ticks += streams.tick(queue, 500);
        }
        assertThat(ticks).isEqualTo(10);
        List<String> received = new ArrayList<>();
        int batches = 0;
        StreamBatch batch;
        while (!(batch = streams.receive(queue, "slow", null, 1000)).isEmpty()) {
            assertThat(batch.messages()).hasSizeLessThanOrEqualTo(1000);
            received.addAll(ids(batch));
            streams.ack(queue, batch.batchId());
            batches++;
        }
        assertThat(received).containsExactlyElementsOf(expected);
        // the newest tick whose span fits is taken, not the nearest one: two ticks of 500 per batch (and the 10)
        assertThat(batches).isEqualTo(6);
    }

    @Test
    void receiveTakesTheNewestTickThatFitsItsMax() {
        String queue = "fits";
        streams.subscribe(queue, "c", null);
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            expected.addAll(ids(appendMany(queue, 1000)));
            streams.tick(queue, 100);
        }
        StreamBatch first = streams.receive(queue, "c", null, 3000);
        assertThat(ids(first)).containsExactlyElementsOf(expected.subList(0, 3000));
        streams.ack(queue, first.batchId());
        StreamBatch second = streams.receive(queue, "c", null, 1000);
        assertThat(ids(second)).containsExactlyElementsOf(expected.subList(3000, 4000));
        streams.ack(queue, second.batchId());
        assertThat(drain(queue, "c", 100_000)).containsExactlyElementsOf(expected.subList(4000, 10_000));
    }

    @Test
    void maxIsBoundedByTheStoreCeiling() {
        streams.subscribe("bounded", "c", null);
        assertThat(streams.receive("bounded", "c", null, StreamStore.MAX_RECEIVE).isEmpty()).isTrue();
        assertThatThrownBy(() -> streams.receive("bounded", "c", null, StreamStore.MAX_RECEIVE + 1))
                .isInstanceOfSatisfying(Pgvs3Exception.class,
                        ex -> assertThat(ex.code()).isEqualTo(ErrorCode.INVALID_REQUEST));
    }

    /** Receives and acks until empty; every batch holds at most {@code ceiling} messages. */
    static List<String> drain(String queue, String consumer, int ceiling) {
        List<String> received = new ArrayList<>();
        while (true) {
            StreamBatch batch = streams.receive(queue, consumer, null, ceiling);
            if (batch.isEmpty()) {
                return received;
            }
            assertThat(batch.messages()).hasSizeLessThanOrEqualTo(ceiling);
            received.addAll(ids(batch));
            streams.ack(queue, batch.batchId());
        }
    }
}
