package io.pgvs3.bench.scenario;

import java.sql.Connection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

import io.pgvs3.bench.BenchContext;
import io.pgvs3.bench.BenchDatabase;
import io.pgvs3.bench.BenchOptions;
import io.pgvs3.bench.CpuGroups;
import io.pgvs3.bench.CpuMeter;
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

    /** The single consumer's drain at ceiling 1000 of a backlog appended without a tick: one range of every event. */
    public static final String UNTICKED = "streams.consume.ceiling1000.unticked";

    public static final String FAN_OUT = "streams.consume.fanout" + GROUP + ".ceiling1000";

    public static final String COOPERATIVE = "streams.consume.members" + GROUP + ".ceiling1000";

    /** The same drains with {@code StreamStore.ackAndReceive}: each batch acked by the call that receives the next. */
    public static final String COMBINED = "streams.consume.ceiling1000.combined";

    public static final String FAN_OUT_COMBINED = FAN_OUT + ".combined";

    public static final String COOPERATIVE_COMBINED = COOPERATIVE + ".combined";

    /** Who spends the CPU of a drain: the consumer threads, the rest of the JVM, and PostgreSQL. */
    static final List<String> CPU_GROUPS = List.of(CpuGroups.CLIENT, CpuMeter.JVM_OTHER, CpuMeter.POSTGRES);

    public static String cpuMetric(String metric, String group) {
        return metric + ".cpu." + group.replaceAll("[^a-z]+", "_").replaceAll("_$", "");
    }

    /**
     * The deliveries per second of a fan-out drain while every consumer is still receiving: up to the moment the
     * first consumer has had its whole share. After it, fewer consumers share the machine, and the rest of the drain
     * measures how unevenly the consumers got through the backlog rather than how they run together.
     */
    public static String together(String metric) {
        return metric + ".together";
    }

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
                (how the rate depends on how far the consumer lags), and at ceiling 1000 on a backlog appended \
                without any tick (*one range*: no receive ran while it was appended, so the first receive closes \
                one range of the whole backlog and the receives hand it out in batches of 1000). *Fan-out*: %d \
                consumers each reading the whole backlog, one thread each; the rate counts every delivery. \
                *Cooperative*: %d members of one consumer sharing the backlog, one thread each. Rows marked \
                *ack + receive in one call* drain with `StreamStore.ackAndReceive(queue, batchId, consumer, member, \
                max)` instead, as a `@StreamListener` does: each call acks the batch before and receives the next \
                one, in one transaction (one commit per batch instead of two). Each drain also reports the CPU time \
                per delivery of the consumer threads, of the rest of the JVM and of PostgreSQL, and the cores in \
                use (all that CPU time ÷ the drain's time: client and PostgreSQL share the machine's cores, so \
                several consumers can drain at most cores ÷ one consumer's cores times its rate); a fan-out drain \
                reports when the first and the last consumer had its whole share, and its rate up to the first \
                (*while all %d receive*), when fewer consumers share the machine than at the start."""
                .formatted(SHORT_BACKLOG, GROUP, GROUP, GROUP);
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
        drain(context, UNTICKED, "receive + ack, ceiling 1000, 1 consumer, backlog in one range",
                context.options().scaled(400_000, 5_000), 1000, 1, false, false, false);
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
        drain(context, metric, label, events, ceiling, threads, cooperative, combined, true);
    }

    private void drain(BenchContext context, String metric, String label, int events, int ceiling, int threads,
            boolean cooperative, boolean combined, boolean ticked) throws Exception {
        try (BenchDatabase database = context.newDatabase(); Connection connection = database.connect(true)) {
            Core core = Core.on(database, threads + 2, true);
            StreamStore store = core.streams();
            for (int i = 0; i < (cooperative ? 1 : threads); i++) {
                store.subscribe(QUEUE, "consumer-" + i, null);
            }
            int filled = Streams.fillBacklog(store, QUEUE, events, ceiling,
                    context.options().fillLimit().multipliedBy(2), ticked);
            context.resetStatements();
            long deliveries = (long) filled * (cooperative ? 1 : threads);
            CpuMeter meter = CpuMeter.of(thread -> thread.startsWith("bench-load-") ? CpuGroups.CLIENT
                    : CpuGroups.SERVER, connection);
            // when each fan-out consumer had its whole share, from the start of the drain: a tail that one consumer
            // drains alone would show as a late last finish
            AtomicLongArray finished = new AtomicLongArray(threads);
            LongAdder delivered = new LongAdder();
            AtomicReference<long[]> firstDone = new AtomicReference<>();
            Map<String, Long> before = meter.read();
            AtomicReference<Map<String, Long>> after = new AtomicReference<>();
            long start = System.nanoTime();
            Load.Drained drained = Load.drain(threads, deliveries, context.options().drainLimit(), index -> {
                String consumer = "consumer-" + (cooperative ? 0 : index);
                String member = cooperative ? "member-" + index : null;
                Load.Worker worker;
                if (combined) {
                    worker = new CombinedWorker(store, consumer, member, ceiling);
                }
                else {
                    worker = () -> {
                        StreamBatch batch = store.receive(QUEUE, consumer, member, ceiling);
                        if (batch.batchId() == null) {
                            return 0;
                        }
                        store.ack(QUEUE, batch.batchId());
                        return batch.messages().size();
                    };
                }
                return cooperative ? worker : new Share(worker, filled, delivered, () -> {
                    long now = System.nanoTime();
                    finished.set(index, now);
                    firstDone.compareAndSet(null, new long[] { now, delivered.sum() });
                });
            }, () -> after.set(meter.read()));
            Map<String, Long> spent = CpuMeter.between(before, after.get());
            context.record(metric, label, "events/s", drained.rate(), "threads=" + threads + " ceiling=" + ceiling
                    + " " + drained.describe() + " " + Sync.setting(true) + finishes(finished, start));
            long[] first = firstDone.get();
            if (!cooperative && threads > 1 && first != null) {
                double seconds = (first[0] - start) / 1e9;
                context.record(together(metric), label.replace("(all deliveries)", "(all deliveries while all "
                        + threads + " receive)"), "events/s", first[1] / seconds, String.format(
                        "threads=%d ceiling=%d %d deliveries in %.2f s, until the first consumer had its %d events",
                        threads, ceiling, first[1], seconds, filled));
            }
            for (String group : drained.items() == 0 ? List.<String>of() : CPU_GROUPS) {
                context.record(cpuMetric(metric, group), label + ": CPU of the " + group + " per delivery",
                        "µs/event", spent.getOrDefault(group, 0L) / 1e3 / drained.settled(),
                        "threads=" + threads + " deliveries=" + drained.settled());
            }
            if (drained.items() > 0 && drained.seconds() > 0) {
                // how close the drain came to using the whole machine: client, server and PostgreSQL share its cores,
                // so a ratio of several consumers to one cannot exceed these cores ÷ the one consumer's
                double cores = spent.values().stream().mapToLong(Long::longValue).sum() / 1e9 / drained.seconds();
                context.record(cpuMetric(metric, "cores"), label + ": cores in use (all CPU time ÷ drain time)",
                        "cores", cores, "threads=" + threads + " of " + Runtime.getRuntime().availableProcessors()
                                + " cores");
            }
            context.profile(database, label);
        }
    }

    /** For the settings column of a fan-out drain: when the first and the last consumer had their whole share. */
    private static String finishes(AtomicLongArray finished, long start) {
        if (finished.length() < 2) {
            return "";
        }
        long first = Long.MAX_VALUE;
        long last = 0;
        for (int i = 0; i < finished.length(); i++) {
            long at = finished.get(i) == 0 ? Long.MAX_VALUE : finished.get(i) - start;
            first = Math.min(first, at);
            last = Math.max(last, at);
        }
        return last == Long.MAX_VALUE ? "" : String.format(" consumers done at %.2f–%.2f s", first / 1e9, last / 1e9);
    }

    /** A fan-out consumer's worker that notes when the consumer has had its whole share of the backlog. */
    private static final class Share implements Load.Worker {

        private final Load.Worker worker;
        private final long share;
        private final LongAdder delivered;
        private final Runnable done;
        private long received;

        Share(Load.Worker worker, long share, LongAdder delivered, Runnable done) {
            this.worker = worker;
            this.share = share;
            this.delivered = delivered;
            this.done = done;
        }

        @Override
        public long step() throws Exception {
            long items = worker.step();
            delivered.add(items);
            if (received < share && received + items >= share) {
                done.run();
            }
            received += items;
            return items;
        }

        @Override
        public void close() throws Exception {
            worker.close();
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
