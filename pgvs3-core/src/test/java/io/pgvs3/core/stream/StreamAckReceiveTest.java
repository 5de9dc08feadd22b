package io.pgvs3.core.stream;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.pgvs3.core.error.ErrorCode;
import io.pgvs3.core.error.Pgvs3Exception;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@link StreamStore#ackAndReceive}: the ack of one batch and the receive of the next in one transaction. */
class StreamAckReceiveTest extends StreamTestSupport {

    @Test
    void acksTheBatchAndReturnsTheNextOneMakingTheTickItNeeds() {
        String queue = "ackrecv";
        streams.subscribe(queue, "c", null);
        List<AppendResult> first = appendMany(queue, 3);
        StreamBatch one = streams.receive(queue, "c", null, 10);
        assertThat(ids(one)).containsExactlyElementsOf(ids(first));

        // the events of the next batch committed after the latest tick: the combined call makes the tick
        List<AppendResult> second = appendMany(queue, 2);
        long ticks = count("SELECT count(*) FROM s3q_ackrecv.stream_ticks");
        StreamBatch two = streams.ackAndReceive(queue, one.batchId(), "c", null, 10);
        assertThat(ids(two)).containsExactlyElementsOf(ids(second));
        assertThat(count("SELECT count(*) FROM s3q_ackrecv.stream_ticks")).isEqualTo(ticks + 1);
        assertThat(streams.ack(queue, one.batchId())).isFalse();

        // nothing new: the ack still happens, the result is empty, and no tick is made
        StreamBatch none = streams.ackAndReceive(queue, two.batchId(), "c", null, 10);
        assertThat(none.isEmpty()).isTrue();
        assertThat(streams.ack(queue, two.batchId())).isFalse();
        assertThat(count("SELECT count(*) FROM s3q_ackrecv.stream_ticks")).isEqualTo(ticks + 1);

        AppendResult third = append(queue, "t", "{}");
        assertThat(ids(streams.receive(queue, "c", null, 10))).containsExactly(third.id());
    }

    @Test
    void aRangeLargerThanMaxIsHandedOutInOrderAcrossCombinedCalls() {
        String queue = "ackrecvrange";
        streams.subscribe(queue, "c", null);
        List<String> appended = ids(appendMany(queue, 10));
        List<String> delivered = new ArrayList<>();
        StreamBatch batch = streams.receive(queue, "c", null, 3);
        while (!batch.isEmpty()) {
            delivered.addAll(ids(batch));
            batch = streams.ackAndReceive(queue, batch.batchId(), "c", null, 3);
        }
        assertThat(delivered).containsExactlyElementsOf(appended);
        assertThat(streams.receive(queue, "c", null, 100).isEmpty()).isTrue();
    }

    @Test
    void aBatchOfAnotherConsumerIsRefusedAndNothingIsAckedOrAllocated() {
        String queue = "ackrecvother";
        streams.subscribe(queue, "a", null);
        streams.subscribe(queue, "b", null);
        appendMany(queue, 2);
        StreamBatch a = streams.receive(queue, "a", null, 10);
        long batches = count("SELECT count(*) FROM s3q_ackrecvother.stream_batches");
        assertThatThrownBy(() -> streams.ackAndReceive(queue, a.batchId(), "b", null, 10))
                .isInstanceOfSatisfying(Pgvs3Exception.class,
                        ex -> assertThat(ex.code()).isEqualTo(ErrorCode.INVALID_REQUEST));
        assertThat(count("SELECT count(*) FROM s3q_ackrecvother.stream_batches")).isEqualTo(batches);
        // a's batch is still outstanding and comes back; b still gets both events
        assertThat(streams.receive(queue, "a", null, 10).batchId()).isEqualTo(a.batchId());
        assertThat(streams.receive(queue, "b", null, 10).messages()).hasSize(2);
        assertThatThrownBy(() -> streams.ackAndReceive(queue, 999_999, "a", null, 10))
                .isInstanceOfSatisfying(Pgvs3Exception.class, ex -> assertThat(ex.code()).isEqualTo(ErrorCode.NOT_FOUND));
    }

    /**
     * The receive runs before the ack writes anything: a tick it makes inside a caller's transaction does not count
     * the transaction as committed, so events the same transaction appends afterwards are delivered later.
     */
    @Test
    void eventsAppendedLaterInTheSameTransactionAreNotLost() {
        String queue = "ackrecvtx";
        streams.subscribe(queue, "c", null);
        appendMany(queue, 1);
        StreamBatch one = streams.receive(queue, "c", null, 10);
        List<AppendResult> next = appendMany(queue, 2);
        TransactionTemplate tx = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
        List<AppendResult> inside = new ArrayList<>();
        StreamBatch two = tx.execute(status -> {
            StreamBatch received = streams.ackAndReceive(queue, one.batchId(), "c", null, 10);
            inside.addAll(appendMany(queue, 2));
            return received;
        });
        assertThat(ids(two)).containsExactlyElementsOf(ids(next));
        StreamBatch three = streams.ackAndReceive(queue, two.batchId(), "c", null, 10);
        assertThat(ids(three)).containsExactlyElementsOf(ids(inside));
    }

    /** Four cooperative members cycling with the combined call share the backlog: every event exactly once. */
    @Test
    void cooperativeMembersCyclingWithTheCombinedCallGetEveryEventOnce() throws Exception {
        String queue = "ackrecvgroup";
        streams.subscribe(queue, "g", null);
        int producers = 2;
        int appendsEach = 40;
        Set<String> delivered = ConcurrentHashMap.newKeySet();
        List<String> duplicates = new ArrayList<>();
        CountDownLatch produced = new CountDownLatch(producers);
        ExecutorService pool = Executors.newFixedThreadPool(producers + 4);
        try {
            List<Future<?>> work = new ArrayList<>();
            for (int p = 0; p < producers; p++) {
                work.add(pool.submit(() -> {
                    for (int i = 0; i < appendsEach; i++) {
                        appendMany(queue, 5);
                    }
                    produced.countDown();
                    return null;
                }));
            }
            for (int m = 0; m < 4; m++) {
                String member = "m" + m;
                work.add(pool.submit(() -> {
                    Long pending = null;
                    int idle = 0;
                    while (idle < 3) {
                        StreamBatch batch = pending == null ? streams.receive(queue, "g", member, 7)
                                : streams.ackAndReceive(queue, pending, "g", member, 7);
                        pending = null;
                        if (batch.isEmpty()) {
                            if (batch.batchId() != null) {
                                streams.ack(queue, batch.batchId());
                            }
                            if (produced.getCount() == 0) {
                                idle++;
                            }
                            Thread.sleep(5);
                            continue;
                        }
                        idle = 0;
                        for (String id : ids(batch)) {
                            if (!delivered.add(id)) {
                                synchronized (duplicates) {
                                    duplicates.add(id);
                                }
                            }
                        }
                        pending = batch.batchId();
                    }
                    if (pending != null) {
                        streams.ack(queue, pending);
                    }
                    return null;
                }));
            }
            for (Future<?> future : work) {
                future.get(60, TimeUnit.SECONDS);
            }
        }
        finally {
            pool.shutdownNow();
        }
        assertThat(duplicates).isEmpty();
        assertThat(delivered).hasSize(producers * appendsEach * 5);
        assertThat(count("SELECT count(*) FROM s3q_ackrecvgroup.stream_events"))
                .isEqualTo(producers * appendsEach * 5);
    }
}
