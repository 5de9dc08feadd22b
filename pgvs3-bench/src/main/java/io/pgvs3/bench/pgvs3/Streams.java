package io.pgvs3.bench.pgvs3;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.pgvs3.bench.Payloads;
import io.pgvs3.core.stream.NewStreamMessage;
import io.pgvs3.core.stream.StreamBatch;
import io.pgvs3.core.stream.StreamStore;

/** Stream helpers shared by the stream scenarios. */
public final class Streams {

    public static final String TICKER = "bench-ticker";

    private Streams() {
    }

    public static List<NewStreamMessage> messages(int count) {
        List<NewStreamMessage> messages = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            messages.add(new NewStreamMessage(null, Payloads.TYPE, Payloads.json(), Map.of()));
        }
        return messages;
    }

    /**
     * Appends {@code events} in appends of {@code chunk} and closes a tick after each one (a receive of a helper
     * consumer makes the tick), so consumers subscribed before find a backlog of batches of exactly {@code chunk}.
     * Stops after {@code limit}; answers how many events it appended.
     */
    public static int fillBacklog(StreamStore store, String queue, int events, int chunk, Duration limit) {
        return fillBacklog(store, queue, events, chunk, limit, true);
    }

    /**
     * As {@link #fillBacklog(StreamStore, String, int, int, Duration)}, or with {@code ticked} false without any tick:
     * the whole backlog is then one range, which a consumer's first receive closes and its receives hand out in
     * batches of their max.
     */
    public static int fillBacklog(StreamStore store, String queue, int events, int chunk, Duration limit,
            boolean ticked) {
        if (ticked) {
            store.subscribe(queue, TICKER, null);
        }
        long deadline = System.nanoTime() + limit.toNanos();
        int done = 0;
        while (done < events && System.nanoTime() < deadline) {
            int size = Math.min(chunk, events - done);
            store.append(queue, messages(size));
            done += size;
            if (ticked) {
                StreamBatch batch = store.receive(queue, TICKER, null, chunk);
                if (batch.batchId() != null) {
                    store.ack(queue, batch.batchId());
                }
            }
        }
        if (ticked) {
            store.unsubscribe(queue, TICKER);
        }
        return done;
    }
}
