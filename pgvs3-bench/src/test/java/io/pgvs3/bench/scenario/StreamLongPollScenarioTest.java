package io.pgvs3.bench.scenario;

import java.util.Arrays;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class StreamLongPollScenarioTest {

    @Test
    void everyQueueIsSentOnceAndTheWokenOnesAreSpreadThroughTheSendingOrder() {
        for (int queues : new int[] { 40, 500 }) {
            int[] order = StreamLongPollScenario.sendOrder(queues);
            assertThat(Arrays.stream(order).sorted().toArray()).isEqualTo(IntStream.range(0, queues).toArray());
            int stride = queues / StreamLongPollScenario.WOKEN;
            for (int woken = 0; woken < StreamLongPollScenario.WOKEN; woken++) {
                assertThat(order[woken * stride]).isEqualTo(woken);
            }
        }
    }
}
