package io.pgvs3.core.stream;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import com.zaxxer.hikari.HikariDataSource;
import io.pgvs3.core.catalog.QueueCatalog;
import io.pgvs3.core.error.Pgvs3Exception;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Appends with dedupe keys: a key stored within the dedupe window is answered, not stored again. */
class StreamIdempotentAppendTest extends StreamTestSupport {

    private static NewStreamMessage keyed(String key, int n) {
        return new NewStreamMessage(null, "t", "{\"n\":" + n + "}", null, key);
    }

    private static long stored(String queue, String key) {
        return count("SELECT count(*) FROM " + "s3q_" + queue + ".stream_events WHERE dedupe_key = ?", key);
    }

    @Test
    void aRepeatedKeyIsAnsweredWithTheFirstAppend() {
        String queue = "idemsingle";
        AppendResult first = streams.append(queue, new NewStreamMessage("order-1", "order.created", "{\"n\":1}",
                null, "k1"));
        AppendResult again = streams.append(queue, new NewStreamMessage("other-id", "other.type", "{\"n\":2}", null,
                "k1"));

        assertThat(first.duplicate()).isFalse();
        assertThat(again.duplicate()).isTrue();
        assertThat(again.id()).isEqualTo("order-1");
        assertThat(again.seq()).isEqualTo(first.seq());
        assertThat(again.type()).isEqualTo("order.created");
        assertThat(again.createdAt()).isEqualTo(first.createdAt());
        assertThat(stored(queue, "k1")).isEqualTo(1);
        assertThat(count("SELECT count(*) FROM s3q_idemsingle.stream_events")).isEqualTo(1);
    }

    @Test
    void aBatchStoresItsNewMessagesAndAnswersItsDuplicatesPerMessage() {
        String queue = "idembatch";
        AppendResult earlier = streams.append(queue, keyed("a", 0));
        List<AppendResult> results = streams.append(queue, List.of(keyed("b", 1), NewStreamMessage.of("t", "{}"),
                keyed("a", 2), keyed("b", 3), keyed("c", 4)));

        assertThat(results).extracting(AppendResult::duplicate).containsExactly(false, false, true, true, false);
        assertThat(results.get(2).seq()).isEqualTo(earlier.seq());
        assertThat(results.get(2).id()).isEqualTo(earlier.id());
        assertThat(results.get(3).seq()).isEqualTo(results.get(0).seq());
        assertThat(results.get(3).id()).isEqualTo(results.get(0).id());
        // the stored messages keep the argument order, one sequence number each
        assertThat(results.get(0).seq()).isLessThan(results.get(1).seq());
        assertThat(results.get(1).seq()).isLessThan(results.get(4).seq());
        assertThat(count("SELECT count(*) FROM s3q_idembatch.stream_events")).isEqualTo(4);

        List<AppendResult> repeat = streams.append(queue, List.of(keyed("c", 5), keyed("a", 6)));
        assertThat(repeat).extracting(AppendResult::seq).containsExactly(results.get(4).seq(), earlier.seq());
        assertThat(repeat).allMatch(AppendResult::duplicate);
        assertThat(count("SELECT count(*) FROM s3q_idembatch.stream_events")).isEqualTo(4);
    }

    @Test
    void aConsumerReceivesEachKeyOnce() {
        String queue = "idemconsume";
        streams.subscribe(queue, "c", null);
        Set<Long> seqs = new HashSet<>();
        for (int round = 0; round < 3; round++) {
            List<NewStreamMessage> batch = new ArrayList<>();
            for (int i = 0; i < 50; i++) {
                batch.add(keyed("key-" + i, i));
            }
            streams.append(queue, batch).forEach(result -> seqs.add(result.seq()));
        }
        assertThat(seqs).hasSize(50);
        StreamBatch received = streams.receive(queue, "c", null, 1000);
        assertThat(received.messages()).hasSize(50);
        assertThat(received.messages()).extracting(ReceivedMessage::seq).containsExactlyInAnyOrderElementsOf(seqs);
        streams.ack(queue, received.batchId());
        assertThat(streams.receive(queue, "c", null, 1000).isEmpty()).isTrue();
    }

    @Test
    void aKeyOlderThanTheWindowIsANewEvent() throws Exception {
        String queue = "idemwindow";
        streams.append(queue, NewStreamMessage.of("t", "{}"));
        assertThat(streams.config(queue).dedupeWindow()).isEqualTo(StreamConfig.DEFAULT_DEDUPE_WINDOW);
        assertThat(streams.updateConfig(queue, null, null, Duration.ofMillis(500)).dedupeWindow())
                .isEqualTo(Duration.ofMillis(500));

        AppendResult first = streams.append(queue, keyed("w", 1));
        assertThat(streams.append(queue, keyed("w", 2)).duplicate()).isTrue();
        Thread.sleep(700);
        AppendResult second = streams.append(queue, keyed("w", 3));
        assertThat(second.duplicate()).isFalse();
        assertThat(second.seq()).isGreaterThan(first.seq());
        // the window now runs from the second event
        AppendResult third = streams.append(queue, keyed("w", 4));
        assertThat(third.duplicate()).isTrue();
        assertThat(third.seq()).isEqualTo(second.seq());
        assertThat(stored(queue, "w")).isEqualTo(2);
    }

    @Test
    void theWindowIsBoundedByRetention() {
        String queue = "idemconfig";
        streams.append(queue, NewStreamMessage.of("t", "{}"));
        assertThatThrownBy(() -> streams.updateConfig(queue, null, null, Duration.ofDays(8)))
                .isInstanceOfSatisfying(Pgvs3Exception.class,
                        ex -> assertThat(ex.getMessage()).contains("must not exceed retention"));
        streams.updateConfig(queue, null, null, Duration.ofHours(1));
        // a shorter retention is accepted and caps the window in effect; a longer one lifts the cap again
        StreamConfig shorter = streams.updateConfig(queue, null, Duration.ofMinutes(30), null);
        assertThat(shorter.dedupeWindow()).isEqualTo(Duration.ofMinutes(30));
        assertThat(streams.config(queue).dedupeWindow()).isEqualTo(Duration.ofMinutes(30));
        assertThat(streams.updateConfig(queue, null, Duration.ofHours(2), null).dedupeWindow())
                .isEqualTo(Duration.ofHours(1));
        assertThatThrownBy(() -> streams.updateConfig(queue, null, Duration.ofMinutes(20), Duration.ofMinutes(25)))
                .isInstanceOf(Pgvs3Exception.class);
        StreamConfig both = streams.updateConfig(queue, null, Duration.ofMinutes(30), Duration.ofMinutes(10));
        assertThat(both.retention()).isEqualTo(Duration.ofMinutes(30));
        assertThat(both.dedupeWindow()).isEqualTo(Duration.ofMinutes(10));
        assertThatThrownBy(() -> streams.updateConfig(queue, null, null, Duration.ZERO))
                .isInstanceOf(Pgvs3Exception.class);
        assertThat(streams.config(queue).dedupeWindow()).isEqualTo(Duration.ofMinutes(10));
    }

    @Test
    void badKeysAreRefusedAndNothingIsWritten() {
        String queue = "idembad";
        streams.append(queue, NewStreamMessage.of("t", "{}"));
        for (String key : List.of("", "x".repeat(256), "a\0b")) {
            assertThatThrownBy(() -> streams.append(queue, List.of(keyed("fine", 0), keyed(key, 1))))
                    .isInstanceOfSatisfying(Pgvs3Exception.class,
                            ex -> assertThat(ex.getMessage()).contains("dedupe_key"));
        }
        assertThat(count("SELECT count(*) FROM s3q_idembad.stream_events")).isEqualTo(1);
        // 255 characters outside the BMP are 255 keys characters, as PostgreSQL counts them
        assertThat(streams.append(queue, keyed("\uD83D\uDE00".repeat(255), 2)).duplicate()).isFalse();
    }

    @Test
    void keysAreFoundInOlderSegmentsUntilRotationTruncatesThem() {
        String queue = "idemrotation";
        AppendResult first = streams.append(queue, keyed("r", 1));
        assertThat(streams.rotate(queue, true)).isEqualTo(RotationOutcome.ROTATED);
        AppendResult afterOne = streams.append(queue, keyed("r", 2));
        assertThat(afterOne.duplicate()).isTrue();
        assertThat(afterOne.seq()).isEqualTo(first.seq());
        assertThat(streams.rotate(queue, true)).isEqualTo(RotationOutcome.ROTATED);
        assertThat(streams.append(queue, keyed("r", 3)).seq()).isEqualTo(first.seq());

        // the third forced rotation truncates segment 0, which held the key: a forced rotation ends the window early
        assertThat(streams.rotate(queue, true)).isEqualTo(RotationOutcome.ROTATED);
        AppendResult fresh = streams.append(queue, keyed("r", 4));
        assertThat(fresh.duplicate()).isFalse();
        assertThat(fresh.seq()).isGreaterThan(first.seq());
        assertThat(streams.append(queue, keyed("r", 5)).seq()).isEqualTo(fresh.seq());
    }

    @Test
    void dedupeTrafficLeavesNoDeadTuplesInTheSegments() {
        String queue = "idembloat";
        String schema = "s3q_" + queue;
        try (HikariDataSource single = database.newDataSource(1)) {
            JdbcTemplate one = new JdbcTemplate(single);
            StreamStore store = new StreamStore(one, new QueueCatalog(one));
            for (int round = 0; round < 20; round++) {
                List<NewStreamMessage> batch = new ArrayList<>();
                for (int i = 0; i < 100; i++) {
                    batch.add(keyed("k" + (round * 50 + i), i));
                }
                store.append(queue, batch);
                if (round == 10) {
                    store.rotate(queue, true);
                }
            }
            one.queryForObject("SELECT pg_stat_force_next_flush()::text", String.class);
            List<Map<String, Object>> stats = one.queryForList("SELECT relname, n_tup_ins, n_dead_tup, n_tup_del, "
                    + "n_tup_upd FROM pg_stat_user_tables WHERE schemaname = ? AND relname LIKE 'stream_events_%'",
                    schema);
            assertThat(stats).hasSize(3);
            long inserted = 0;
            for (Map<String, Object> row : stats) {
                assertThat(((Number) row.get("n_dead_tup")).longValue()).as("dead tuples of %s", row.get("relname"))
                        .isZero();
                assertThat(((Number) row.get("n_tup_upd")).longValue()).isZero();
                assertThat(((Number) row.get("n_tup_del")).longValue()).isZero();
                inserted += ((Number) row.get("n_tup_ins")).longValue();
            }
            // 20 rounds of 100 keys, each round repeating the previous round's last 50
            assertThat(inserted).isEqualTo(50L * 20 + 50);
        }
    }

    @Test
    void concurrentAppendsOfOneKeyStoreItOnce() throws Exception {
        String queue = "idemrace";
        streams.subscribe(queue, "c", null);
        int threads = 8;
        int rounds = 25;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            CyclicBarrier barrier = new CyclicBarrier(threads);
            List<Future<List<AppendResult>>> futures = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                futures.add(pool.submit(() -> {
                    List<AppendResult> mine = new ArrayList<>();
                    for (int round = 0; round < rounds; round++) {
                        barrier.await(30, TimeUnit.SECONDS);
                        // two keys per append, in an order that differs by thread
                        List<NewStreamMessage> batch = thread % 2 == 0
                                ? List.of(keyed("race-" + round, thread), keyed("pair-" + round, thread))
                                : List.of(keyed("pair-" + round, thread), keyed("race-" + round, thread));
                        mine.addAll(streams.append(queue, batch));
                    }
                    return mine;
                }));
            }
            Map<String, Set<Long>> seqsByKey = new java.util.HashMap<>();
            int duplicates = 0;
            for (Future<List<AppendResult>> future : futures) {
                for (AppendResult result : future.get(120, TimeUnit.SECONDS)) {
                    String key = jdbc.queryForObject("SELECT dedupe_key FROM s3q_idemrace.stream_events WHERE seq = ?",
                            String.class, result.seq());
                    seqsByKey.computeIfAbsent(key, k -> new HashSet<>()).add(result.seq());
                    duplicates += result.duplicate() ? 1 : 0;
                }
            }
            assertThat(seqsByKey).hasSize(2 * rounds);
            assertThat(seqsByKey.values()).allMatch(seqs -> seqs.size() == 1);
            assertThat(duplicates).isEqualTo(2 * rounds * (threads - 1));
            assertThat(count("SELECT count(*) FROM s3q_idemrace.stream_events")).isEqualTo(2L * rounds);

            StreamBatch received = streams.receive(queue, "c", null, 10_000);
            assertThat(received.messages()).hasSize(2 * rounds);
        }
        finally {
            pool.shutdownNow();
        }
    }

    @Test
    void appendsWaitingOnAnUncommittedKeyAnswerWithItOnceItCommits() throws Exception {
        String queue = "idemwait";
        streams.append(queue, NewStreamMessage.of("t", "{}"));
        TransactionTemplate transaction = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
        int waiters = 5;
        ExecutorService pool = Executors.newFixedThreadPool(waiters + 1);
        try {
            CountDownLatch appended = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            Future<AppendResult> holder = pool.submit(() -> transaction.execute(status -> {
                AppendResult result = streams.append(queue, keyed("held", 0));
                appended.countDown();
                try {
                    assertThat(release.await(60, TimeUnit.SECONDS)).isTrue();
                }
                catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException(ex);
                }
                return result;
            }));
            assertThat(appended.await(30, TimeUnit.SECONDS)).isTrue();
            List<Future<AppendResult>> others = new ArrayList<>();
            for (int i = 1; i <= waiters; i++) {
                int n = i;
                others.add(pool.submit(() -> streams.append(queue, keyed("held", n))));
            }
            // every other append is blocked on the holder's uncommitted key, not answered from a stale probe
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (count("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                    + "AND wait_event_type = 'Lock' AND query LIKE '%stream_append_keyed%'") < waiters) {
                assertThat(System.nanoTime()).isLessThan(deadline);
                Thread.sleep(20);
            }
            release.countDown();
            AppendResult first = holder.get(30, TimeUnit.SECONDS);
            assertThat(first.duplicate()).isFalse();
            for (Future<AppendResult> other : others) {
                AppendResult result = other.get(30, TimeUnit.SECONDS);
                assertThat(result.duplicate()).isTrue();
                assertThat(result.seq()).isEqualTo(first.seq());
                assertThat(result.id()).isEqualTo(first.id());
            }
            assertThat(stored(queue, "held")).isEqualTo(1);
        }
        finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aRolledBackFirstAppendLeavesTheKeyFree() {
        String queue = "idemrollback";
        streams.append(queue, NewStreamMessage.of("t", "{}"));
        TransactionTemplate transaction = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
        transaction.executeWithoutResult(status -> {
            assertThat(streams.append(queue, keyed("gone", 0)).duplicate()).isFalse();
            status.setRollbackOnly();
        });
        AppendResult stored = streams.append(queue, keyed("gone", 1));
        assertThat(stored.duplicate()).isFalse();
        assertThat(stored(queue, "gone")).isEqualTo(1);
    }
}
