package io.pgvs3.core.stream;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class StreamCooperativeConcurrencyTest extends StreamTestSupport {

    private static final int PRODUCERS = 8;
    private static final int APPENDS_PER_PRODUCER = 60;
    private static final int MEMBERS = 4;

    @Test
    void eightProducersAndFourCooperativeMembers() throws Exception {
        String queue = "coop";
        streams.subscribe(queue, "group", null);
        Set<String> appended = ConcurrentHashMap.newKeySet();
        Set<String> delivered = ConcurrentHashMap.newKeySet();
        Set<Long> held = ConcurrentHashMap.newKeySet();
        List<String> violations = new java.util.concurrent.CopyOnWriteArrayList<>();
        AtomicBoolean producing = new AtomicBoolean(true);
        AtomicInteger batches = new AtomicInteger();
        AtomicInteger outOfOrderAcks = new AtomicInteger();
        CountDownLatch start = new CountDownLatch(1);

        ExecutorService pool = Executors.newFixedThreadPool(PRODUCERS + MEMBERS);
        try {
            List<Future<?>> producers = new ArrayList<>();
            for (int p = 0; p < PRODUCERS; p++) {
                producers.add(pool.submit(() -> {
                    start.await();
                    for (int i = 0; i < APPENDS_PER_PRODUCER; i++) {
                        int size = 1 + ThreadLocalRandom.current().nextInt(3);
                        appended.addAll(ids(appendMany(queue, size)));
                    }
                    return null;
                }));
            }
            List<Future<?>> members = new ArrayList<>();
            for (int m = 0; m < MEMBERS; m++) {
                String member = "m" + m;
                members.add(pool.submit(() -> {
                    start.await();
                    int idle = 0;
                    while (producing.get() || idle < 3) {
                        // a ceiling well below the events appended, so that members always share the work in
                        // many batches (with 1000, an idle machine drained it all in four or five)
                        StreamBatch batch = streams.receive(queue, "group", member, 100);
                        if (batch.isEmpty()) {
                            idle = producing.get() ? 0 : idle + 1;
                            Thread.sleep(5);
                            continue;
                        }
                        idle = 0;
                        for (ReceivedMessage message : batch.messages()) {
                            if (!held.add(message.seq())) {
                                violations.add("seq " + message.seq() + " is in two unacked batches");
                            }
                            delivered.add(message.id());
                        }
                        // hold the batch a little so members ack out of order
                        Thread.sleep(ThreadLocalRandom.current().nextInt(10));
                        batch.messages().forEach(message -> held.remove(message.seq()));
                        long cursorBefore = cursor(queue);
                        assertThat(streams.ack(queue, batch.batchId())).isTrue();
                        if (cursor(queue) == cursorBefore) {
                            outOfOrderAcks.incrementAndGet();
                        }
                        batches.incrementAndGet();
                    }
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> producer : producers) {
                producer.get(2, TimeUnit.MINUTES);
            }
            producing.set(false);
            for (Future<?> member : members) {
                member.get(2, TimeUnit.MINUTES);
            }
        }
        finally {
            pool.shutdownNow();
        }

        assertThat(violations).isEmpty();
        assertThat(appended).hasSizeGreaterThanOrEqualTo(PRODUCERS * APPENDS_PER_PRODUCER);
        assertThat(delivered).containsExactlyInAnyOrderElementsOf(appended);
        assertThat(batches.get()).isGreaterThan(MEMBERS);
        // every batch is acked, so the group cursor reached the end of the newest batch and nothing is outstanding
        assertThat(streams.info(queue).path("outstanding_batches").asLong()).isZero();
        assertThat(streams.consumers(queue).get(0).path("batches")).isEmpty();
        assertThat(count("SELECT count(*) FROM s3q_coop.stream_batches")).isPositive();
        streams.compact(queue, true);
        assertThat(count("SELECT count(*) FROM s3q_coop.stream_batches")).isZero();
        assertThat(streams.receive(queue, "group", "m0", 1000).isEmpty()).isTrue();
        System.out.printf("coop: %d events, %d batches, %d acks left the cursor in place%n", appended.size(),
                batches.get(), outOfOrderAcks.get());
    }

    @Test
    void fourMembersAckingWithTheirNextReceiveGetEveryEventOnceInDisjointBatches() throws Exception {
        String queue = "coopcombined";
        streams.subscribe(queue, "group", null);
        List<String> appended = new java.util.concurrent.CopyOnWriteArrayList<>();
        for (int i = 0; i < 40; i++) {
            appended.addAll(ids(appendMany(queue, 1 + i % 7)));
        }
        List<String> delivered = new java.util.concurrent.CopyOnWriteArrayList<>();
        Set<Long> held = ConcurrentHashMap.newKeySet();
        List<String> violations = new java.util.concurrent.CopyOnWriteArrayList<>();
        AtomicBoolean producing = new AtomicBoolean(true);
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(2 + MEMBERS);
        try {
            List<Future<?>> producers = new ArrayList<>();
            for (int p = 0; p < 2; p++) {
                producers.add(pool.submit(() -> {
                    start.await();
                    for (int i = 0; i < 40; i++) {
                        appended.addAll(ids(appendMany(queue, 1 + ThreadLocalRandom.current().nextInt(5))));
                    }
                    return null;
                }));
            }
            List<Future<?>> members = new ArrayList<>();
            for (int m = 0; m < MEMBERS; m++) {
                String member = "m" + m;
                members.add(pool.submit(() -> {
                    start.await();
                    Long pending = null;
                    int idle = 0;
                    while (producing.get() || idle < 3) {
                        // small ceilings, so that members also share ranges in parts
                        int max = 1 + ThreadLocalRandom.current().nextInt(6);
                        StreamBatch batch = pending == null ? streams.receive(queue, "group", member, max)
                                : streams.ackAndReceive(queue, pending, "group", member, max);
                        pending = null;
                        if (batch.isEmpty()) {
                            idle = producing.get() ? 0 : idle + 1;
                            Thread.sleep(5);
                            continue;
                        }
                        idle = 0;
                        for (ReceivedMessage message : batch.messages()) {
                            if (!held.add(message.seq())) {
                                violations.add("seq " + message.seq() + " is in two unacked batches");
                            }
                            delivered.add(message.id());
                        }
                        Thread.sleep(ThreadLocalRandom.current().nextInt(5));
                        batch.messages().forEach(message -> held.remove(message.seq()));
                        pending = batch.batchId();
                    }
                    if (pending != null) {
                        assertThat(streams.ack(queue, pending)).isTrue();
                    }
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> producer : producers) {
                producer.get(2, TimeUnit.MINUTES);
            }
            producing.set(false);
            for (Future<?> member : members) {
                member.get(2, TimeUnit.MINUTES);
            }
        }
        finally {
            pool.shutdownNow();
        }

        assertThat(violations).isEmpty();
        // every event exactly once: no event missing, none delivered twice
        assertThat(delivered).hasSameSizeAs(appended).containsExactlyInAnyOrderElementsOf(appended);
        assertThat(streams.info(queue).path("outstanding_batches").asLong()).isZero();
        assertThat(streams.consumers(queue).get(0).path("batches")).isEmpty();
        assertThat(streams.receive(queue, "group", "m0", 1000).isEmpty()).isTrue();
    }

    private static long cursor(String queue) {
        String schema = "\"s3q_" + queue + "\"";
        return count("SELECT " + schema + ".stream_cursor_tick(sub_id) FROM " + schema + ".stream_subscriptions"
                + " WHERE consumer = 'group'");
    }
}
