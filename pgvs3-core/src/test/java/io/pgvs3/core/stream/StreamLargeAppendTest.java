package io.pgvs3.core.stream;

import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;

import io.pgvs3.core.catalog.QueueName;
import io.pgvs3.core.error.ErrorCode;
import io.pgvs3.core.error.Pgvs3Exception;
import io.pgvs3.core.notify.NotificationHub;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/** Appends of hundreds of messages: what they store, how they fail, and how they meet rotations. */
class StreamLargeAppendTest extends StreamTestSupport {

    @Test
    void rowsAreStoredAsGivenWithSequenceNumbersInArgumentOrderAndOneTransaction() {
        String queue = "large-rows";
        List<NewStreamMessage> messages = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            // backslashes, quotes, tabs and newlines in JSON strings, non-ASCII text and a surrogate pair
            String payload = "{\"i\":" + i + ",\"s\":\"a\\\\b\\\"c\\td\\ne\",\"u\":\"é€\uD83D\uDE00\"}";
            Map<String, String> headers = i % 3 == 0 ? Map.of("h", "v" + i, "x\ty", "é") : null;
            messages.add(new NewStreamMessage(i % 2 == 0 ? null : "id-" + i, "type." + (i % 5), payload, headers));
        }
        List<AppendResult> appended = streams.append(queue, messages);

        assertThat(appended).hasSize(1000);
        for (int i = 1; i < 1000; i++) {
            assertThat(appended.get(i).seq()).isGreaterThan(appended.get(i - 1).seq());
        }
        List<Map<String, Object>> rows = jdbc.queryForList("SELECT seq, event_id, type, payload::text AS payload, "
                + "headers::text AS headers, txid::text AS txid, created_at, segment FROM \"s3q_large-rows\".stream_events "
                + "ORDER BY seq");
        assertThat(rows).hasSize(1000);
        for (int i = 0; i < 1000; i++) {
            Map<String, Object> row = rows.get(i);
            NewStreamMessage message = messages.get(i);
            assertThat(row.get("seq")).isEqualTo(appended.get(i).seq());
            assertThat(row.get("event_id")).isEqualTo(appended.get(i).id());
            if (message.id() != null) {
                assertThat(appended.get(i).id()).isEqualTo(message.id());
            }
            assertThat(row.get("type")).isEqualTo(message.type()).isEqualTo(appended.get(i).type());
            assertThat(row.get("payload")).isEqualTo(message.payloadJson());
            assertThat(row.get("headers")).isEqualTo(message.headers().isEmpty() ? "{}"
                    : jdbc.queryForObject("SELECT ?::jsonb::text", String.class,
                            "{\"h\":\"v" + i + "\",\"x\\ty\":\"é\"}"));
            assertThat(((Number) row.get("segment")).intValue()).isZero();
        }
        assertThat(rows.stream().map(row -> row.get("txid")).distinct()).hasSize(1);
        assertThat(rows.stream().map(row -> row.get("created_at")).distinct()).hasSize(1);
        assertThat(appended.get(0).createdAt())
                .isEqualTo(((java.sql.Timestamp) rows.get(0).get("created_at")).toInstant());

        // after a rotation, into the new current segment, and received in order
        streams.subscribe(queue, "c", 0L);
        assertThat(streams.rotate(queue, true)).isEqualTo(RotationOutcome.ROTATED);
        List<AppendResult> next = appendMany(queue, 200);
        assertThat(count("SELECT count(*) FROM \"s3q_large-rows\".stream_events_1")).isEqualTo(200);
        List<String> expected = ids(appended);
        expected.addAll(ids(next));
        assertThat(drain(queue, "c")).containsExactlyElementsOf(expected);
    }

    @Test
    void aMessageThatIsNotJsonFailsTheWholeAppendAndLeavesTheConnectionUsable() {
        String queue = "large-bad";
        appendMany(queue, 1);
        long before = count("SELECT count(*) FROM \"s3q_large-bad\".stream_events");
        List<NewStreamMessage> messages = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
            messages.add(NewStreamMessage.of("t", i == 321 ? "{\"broken\":" : "{\"i\":" + i + "}"));
        }
        Pgvs3Exception failed = catchPgvs3(() -> streams.append(queue, messages));

        assertThat(failed.code()).isEqualTo(ErrorCode.INVALID_PAYLOAD);
        assertThat(failed.getMessage()).isEqualTo("payload or headers are not valid JSON");
        assertThat(count("SELECT count(*) FROM \"s3q_large-bad\".stream_events")).isEqualTo(before);
        // nothing of the failed append is left on the connection: the next append works
        assertThat(appendMany(queue, 100)).hasSize(100);
        assertThat(count("SELECT count(*) FROM \"s3q_large-bad\".stream_events")).isEqualTo(before + 100);

        List<NewStreamMessage> withNul = new ArrayList<>(messages.subList(0, 100));
        withNul.set(50, NewStreamMessage.of("t", "{\"s\":\"a\u0000b\"}"));
        assertThat(catchPgvs3(() -> streams.append(queue, withNul)).code()).isEqualTo(ErrorCode.INVALID_PAYLOAD);
        assertThat(count("SELECT count(*) FROM \"s3q_large-bad\".stream_events")).isEqualTo(before + 100);
    }

    @Test
    void anAppendWaitingForARotationWritesIntoTheSegmentTheRotationMadeCurrent() throws Exception {
        String queue = "large-wait";
        streams.subscribe(queue, "c", 0L);
        appendMany(queue, 100);
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try (Connection rotation = dataSource.getConnection()) {
            rotation.setAutoCommit(false);
            try (Statement statement = rotation.createStatement()) {
                // drain first so that the rotation may truncate what it finds; here it moves 0 -> 1
                drain(queue, "c");
                statement.execute("SELECT \"s3q_large-wait\".stream_rotate(true)");
            }
            Future<List<AppendResult>> append = pool.submit(() -> appendMany(queue, 100));
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (count("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted "
                    + "AND database = (SELECT oid FROM pg_database WHERE datname = current_database())") == 0) {
                assertThat(System.nanoTime()).isLessThan(deadline);
                Thread.sleep(20);
            }
            assertThat(append.isDone()).isFalse();
            rotation.commit();
            List<AppendResult> appended = append.get(10, TimeUnit.SECONDS);
            assertThat(count("SELECT count(*) FROM \"s3q_large-wait\".stream_events_1")).isEqualTo(100);
            assertThat(drain(queue, "c")).containsExactlyElementsOf(ids(appended));
        }
        finally {
            pool.shutdownNow();
        }
    }

    @Test
    void concurrentAppendsRacingRotationsLoseNothing() throws Exception {
        String queue = "large-race";
        streams.subscribe(queue, "c", 0L);
        int appenders = 3;
        int size = 150;
        ExecutorService pool = Executors.newFixedThreadPool(appenders + 1);
        Set<String> appended = ConcurrentHashMap.newKeySet();
        AtomicInteger batches = new AtomicInteger();
        AtomicBoolean truncated = new AtomicBoolean();
        AtomicBoolean appending = new AtomicBoolean(true);
        CountDownLatch start = new CountDownLatch(1);
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        try {
            // until a rotation has truncated a segment that held events of this race, and at least 12 batches
            List<Future<?>> producers = IntStream.range(0, appenders).<Future<?>>mapToObj(p -> pool.submit(() -> {
                start.await();
                while ((batches.get() < 12 || !truncated.get()) && System.nanoTime() < deadline) {
                    appended.addAll(ids(appendMany(queue, size)));
                    batches.incrementAndGet();
                    // a moment without the shared lock, in which a rotation can take the exclusive one
                    Thread.sleep(5);
                }
                return null;
            })).toList();
            Future<Integer> rotator = pool.submit(() -> {
                start.await();
                int rotated = 0;
                while (appending.get()) {
                    if (streams.rotate(queue, true) == RotationOutcome.ROTATED) {
                        rotated++;
                        truncated.set(count("SELECT count(*) FROM \"s3q_large-race\".stream_config "
                                + "WHERE truncated_seal IS NOT NULL") > 0);
                    }
                    Thread.sleep(5);
                }
                return rotated;
            });
            start.countDown();
            List<String> received = new ArrayList<>();
            boolean done = false;
            while (!done) {
                done = producers.stream().allMatch(Future::isDone);
                received.addAll(drain(queue, "c"));
            }
            for (Future<?> producer : producers) {
                producer.get();
            }
            appending.set(false);
            assertThat(rotator.get(10, TimeUnit.SECONDS)).isGreaterThanOrEqualTo(3);
            assertThat(truncated).as("a rotation truncated a segment while appends ran").isTrue();
            received.addAll(drain(queue, "c"));
            assertThat(appended).hasSize(batches.get() * size);
            assertThat(received).doesNotHaveDuplicates();
            assertThat(new HashSet<>(received)).isEqualTo(appended);
        }
        finally {
            appending.set(false);
            pool.shutdownNow();
        }
    }

    @Test
    void anAppendInACallersTransactionCommitsAndNotifiesWithIt() throws Exception {
        String queue = "large-tx";
        TransactionTemplate transaction = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
        streams.subscribe(queue, "c", null);
        try (NotificationHub hub = new NotificationHub(dataSource)) {
            Semaphore woken = new Semaphore(0);
            hub.listen(NotificationHub.channelFor(QueueName.of(queue)), woken::release);
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (!hub.isConnected() && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            Thread.sleep(500);
            woken.drainPermits();

            transaction.executeWithoutResult(status -> {
                appendMany(queue, 100);
                status.setRollbackOnly();
            });
            assertThat(count("SELECT count(*) FROM \"s3q_large-tx\".stream_events")).isZero();
            assertThat(woken.tryAcquire(500, TimeUnit.MILLISECONDS)).as("a rolled back append wakes nobody").isFalse();

            List<AppendResult> appended = transaction.execute(status -> {
                List<AppendResult> result = appendMany(queue, 100);
                assertThat(tryAcquire(woken, 300)).as("not before the commit").isFalse();
                return result;
            });
            assertThat(woken.tryAcquire(5, TimeUnit.SECONDS)).isTrue();
            assertThat(drain(queue, "c")).containsExactlyElementsOf(ids(appended));
        }
    }

    private static List<String> drain(String queue, String consumer) {
        List<String> received = new ArrayList<>();
        StreamBatch batch;
        while (!(batch = streams.receive(queue, consumer, null, 1000)).isEmpty()) {
            received.addAll(ids(batch));
            streams.ack(queue, batch.batchId());
        }
        return received;
    }

    private static boolean tryAcquire(Semaphore semaphore, long millis) {
        try {
            return semaphore.tryAcquire(millis, TimeUnit.MILLISECONDS);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(ex);
        }
    }

    private static Pgvs3Exception catchPgvs3(Runnable append) {
        try {
            append.run();
        }
        catch (Pgvs3Exception ex) {
            return ex;
        }
        throw new AssertionError("the append did not fail");
    }
}
