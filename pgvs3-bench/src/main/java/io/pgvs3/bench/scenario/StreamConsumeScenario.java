package io.pgvs3.bench.scenario;

import java.util.List;

import io.pgvs3.bench.BenchContext;
import io.pgvs3.bench.BenchDatabase;
import io.pgvs3.bench.BenchOptions;
import io.pgvs3.bench.Load;
import io.pgvs3.bench.Scenario;
import io.pgvs3.bench.pgvs3.Core;
import io.pgvs3.bench.pgvs3.Streams;
import io.pgvs3.core.stream.StreamBatch;
import io.pgvs3.core.stream.StreamStore;

/**
 * Scenario 3: draining a stream backlog with receive + ack through the core {@code StreamStore}.
 */
public final class StreamConsumeScenario implements Scenario {

    public static final List<Integer> CEILINGS = List.of(100, 1000);
    public static final int GROUP = 4;
    public static final int SHORT_BACKLOG = 20_000;

    private static final String QUEUE = "bench-consume";

    public static String ceilingMetric(int ceiling) {
        return "streams.consume.ceiling" + ceiling;
    }

    public static final String SHORT = "streams.consume.ceiling1000.short";

    public static final String FAN_OUT = "streams.consume.fanout" + GROUP + ".ceiling1000";

    public static final String COOPERATIVE = "streams.consume.members" + GROUP + ".ceiling1000";

    /** The same drains with {@code StreamStore.ackAndReceive}: each batch acked by the call that receives the next. */
    public static final String COMBINED = "streams.consume.ceiling1000.combined";

    public static final String FAN_OUT_COMBINED = FAN_OUT + ".combined";

    public static final String COOPERATIVE_COMBINED = COOPERATIVE + ".combined";

    @Override
    public String id() {
        return "streams-consume";
    }

    @Override
    public String title() {
        return "3. Stream consume";
    }

    @Override
    public String description(BenchOptions options) {
        return """
                A backlog is appended first (appends of N events, a tick after each, so that batches hold N \
                events), then drained by `StreamStore.receive(queue, consumer, member, max)` + \
                `StreamStore.ack(queue, batchId)` (two calls, two transactions, per batch), timed until every \
                event is delivered or the time limit passed (the settings column says which). *Single consumer* at \
                ceilings (`max`) 100 and 1000, one thread, and at ceiling 1000 on a short backlog of %,d events \
                (how the rate depends on how far the consumer lags). *Fan-out*: %d \
                consumers each reading the whole backlog, one thread each; the rate counts every delivery. \
                *Cooperative*: %d members of one consumer sharing the backlog, one thread each. Rows marked \
                *ack + receive in one call* drain with `StreamStore.ackAndReceive(queue, batchId, consumer, member, \
                max)` instead, as a `@StreamListener` does: each call acks the batch before and receives the next \
                one, in one transaction (one commit per batch instead of two)."""
                .formatted(SHORT_BACKLOG, GROUP, GROUP);
    }

    @Override
    public void run(BenchContext context) throws Exception {
        for (int ceiling : CEILINGS) {
            int events = ceiling == 1000 ? context.options().scaled(400_000, 5_000) : context.options().scaled(100_000, 2_000);
            drain(context, ceilingMetric(ceiling), "receive + ack, ceiling " + ceiling + ", 1 consumer", events,
                    ceiling, 1, false);
        }
        drain(context, SHORT, "receive + ack, ceiling 1000, 1 consumer, short backlog",
                context.options().scaled(SHORT_BACKLOG, 2_000), 1000, 1, false);
        drain(context, FAN_OUT, "receive + ack, ceiling 1000, " + GROUP + " fan-out consumers (all deliveries)",
                context.options().scaled(200_000, 4_000), 1000, GROUP, false);
        drain(context, COOPERATIVE, "receive + ack, ceiling 1000, " + GROUP + " cooperative members of one consumer",
                context.options().scaled(400_000, 8_000), 1000, GROUP, true);
        drain(context, COMBINED, "ack + receive in one call, ceiling 1000, 1 consumer",
                context.options().scaled(400_000, 5_000), 1000, 1, false, true);
        drain(context, FAN_OUT_COMBINED, "ack + receive in one call, ceiling 1000, " + GROUP
                + " fan-out consumers (all deliveries)", context.options().scaled(200_000, 4_000), 1000, GROUP, false,
                true);
        drain(context, COOPERATIVE_COMBINED, "ack + receive in one call, ceiling 1000, " + GROUP
                + " cooperative members of one consumer", context.options().scaled(400_000, 8_000), 1000, GROUP, true,
                true);
    }

    private void drain(BenchContext context, String metric, String label, int events, int ceiling, int threads,
            boolean cooperative) throws Exception {
        drain(context, metric, label, events, ceiling, threads, cooperative, false);
    }

    private void drain(BenchContext context, String metric, String label, int events, int ceiling, int threads,
            boolean cooperative, boolean combined) throws Exception {
        try (BenchDatabase database = context.newDatabase()) {
            Core core = Core.on(database, threads + 2, true);
            StreamStore store = core.streams();
            for (int i = 0; i < (cooperative ? 1 : threads); i++) {
                store.subscribe(QUEUE, "consumer-" + i, null);
            }
            int filled = Streams.fillBacklog(store, QUEUE, events, ceiling, context.options().fillLimit().multipliedBy(2));
            context.resetStatements();
            long deliveries = (long) filled * (cooperative ? 1 : threads);
            Load.Drained drained = Load.drain(threads, deliveries, context.options().drainLimit(), index -> {
                String consumer = "consumer-" + (cooperative ? 0 : index);
                String member = cooperative ? "member-" + index : null;
                if (combined) {
                    return new CombinedWorker(store, consumer, member, ceiling);
                }
                return () -> {
                    StreamBatch batch = store.receive(QUEUE, consumer, member, ceiling);
                    if (batch.batchId() == null) {
                        return 0;
                    }
                    store.ack(QUEUE, batch.batchId());
                    return batch.messages().size();
                };
            });
            context.record(metric, label, "events/s", drained.rate(), "threads=" + threads + " ceiling=" + ceiling
                    + " " + drained.describe() + " " + Sync.setting(true));
            context.profile(database, label);
        }
    }

    /** Drains with ack + receive in one call: the batch received last is acked by the next call. */
    private static final class CombinedWorker implements Load.Worker {

        private final StreamStore store;
        private final String consumer;
        private final String member;
        private final int ceiling;
        private Long pending;

        CombinedWorker(StreamStore store, String consumer, String member, int ceiling) {
            this.store = store;
            this.consumer = consumer;
            this.member = member;
            this.ceiling = ceiling;
        }

        @Override
        public long step() {
            StreamBatch batch = pending == null ? store.receive(QUEUE, consumer, member, ceiling)
                    : store.ackAndReceive(QUEUE, pending, consumer, member, ceiling);
            pending = batch.batchId() != null && !batch.messages().isEmpty() ? batch.batchId() : null;
            if (batch.batchId() != null && pending == null) {
                store.ack(QUEUE, batch.batchId());
            }
            return batch.messages().size();
        }

        @Override
        public void close() {
            if (pending != null) {
                store.ack(QUEUE, pending);
            }
        }
    }
}
