package io.pgvs3.core.job;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import io.pgvs3.core.catalog.QueueCatalog;
import io.pgvs3.core.catalog.QueueName;
import io.pgvs3.core.error.ErrorCode;
import io.pgvs3.core.error.Pgvs3Exception;
import io.pgvs3.core.stream.ReceivedMessage;
import io.pgvs3.core.stream.RotationOutcome;
import io.pgvs3.core.stream.StreamBatch;
import io.pgvs3.core.stream.StreamStore;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Job lifecycle events appended to a stream in the transactions of the transitions. */
@Tag("slow")
class JobEventStreamTest extends JobStoreTestSupport {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    private QueueCatalog catalog;
    private StreamStore streams;

    @BeforeAll
    void streams() {
        catalog = new QueueCatalog(jdbc);
        streams = new StreamStore(jdbc, catalog);
    }

    @AfterEach
    void optOut() {
        events.eventStreams().all().keySet().forEach(queue -> events.eventStreams().disable(queue));
    }

    @Test
    void everyTransitionOfAnOptedInQueueIsAppendedAsTheEventLogRecordsIt() {
        store.enqueue(NewJob.builder("test.setup").queue("orders").build());
        assertThat(events.eventStreams().enable("orders", null)).isEqualTo("orders.events");
        assertThat(events.eventStreams().stream("orders")).contains("orders.events");
        streams.subscribe("orders.events", "audit", null);
        long mark = jdbc.queryForObject("SELECT coalesce(max(id), 0) FROM s3p.job_events", Long.class);

        Job done = store.enqueue(NewJob.builder("order.ship").queue("orders").args("[1]").build());
        Job failing = store.enqueue(NewJob.builder("order.ship").queue("orders").build());
        store.enqueue(NewJob.builder("order.ship").queue("other").build());
        List<Job> fetched = store.fetch(List.of("orders"), 10, "w1", null);
        assertThat(fetched).hasSize(3);
        store.ack(done.id(), "w1", "{\"ok\":true}");
        store.nack(failing.id(), "w1", JobError.of("boom", "failed"), false);
        store.cancel(failing.id());

        List<ReceivedMessage> received = drain("orders.events", "audit");
        List<Map<String, Object>> events = jdbc.queryForList(
                "SELECT id::text AS eid, type, " + JobEventLog.DATA + " AS data, occurred_at FROM s3p.job_events"
                        + " WHERE queue = 'orders' AND id > ? ORDER BY id", mark);
        assertThat(received).extracting(ReceivedMessage::id).containsExactlyElementsOf(
                events.stream().map(e -> (String) e.get("eid")).toList());
        assertThat(received).extracting(ReceivedMessage::type).containsExactly("job.enqueued", "job.enqueued",
                "job.started", "job.started", "job.started", "job.completed", "job.failed", "job.retrying",
                "job.cancelled");
        for (int i = 0; i < received.size(); i++) {
            assertThat(JSON.readTree(received.get(i).payloadJson()))
                    .isEqualTo(JSON.readTree((String) events.get(i).get("data")));
            assertThat(received.get(i).createdAt())
                    .isEqualTo(((java.sql.Timestamp) events.get(i).get("occurred_at")).toInstant());
        }
        JsonNode completed = JSON.readTree(received.get(5).payloadJson());
        assertThat(completed.get("job_id").asString()).isEqualTo(done.id());
        assertThat(completed.get("queue").asString()).isEqualTo("orders");
        assertThat(completed.get("state").asString()).isEqualTo("completed");
    }

    @Test
    void aRolledBackTransitionAppendsNothing() {
        catalog.ensure(QueueName.of("rollback"));
        events.eventStreams().enable("rollback", "rollback-audit");
        streams.subscribe("rollback-audit", "c", null);
        TransactionTemplate transaction = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
        transaction.executeWithoutResult(status -> {
            store.enqueue(NewJob.builder("test.rollback").queue("rollback").build());
            status.setRollbackOnly();
        });
        Job kept = transaction.execute(status -> store.enqueue(NewJob.builder("test.rollback").queue("rollback").build()));

        List<ReceivedMessage> received = drain("rollback-audit", "c");
        assertThat(received).extracting(ReceivedMessage::type).containsExactly("job.enqueued");
        assertThat(JSON.readTree(received.get(0).payloadJson()).get("job_id").asString()).isEqualTo(kept.id());
    }

    @Test
    void optingOutStopsTheEventsAndRemovesTheTriggerWithTheLastOptIn() {
        catalog.ensure(QueueName.of("first"));
        catalog.ensure(QueueName.of("second"));
        events.eventStreams().enable("first", "shared-audit");
        events.eventStreams().enable("second", "shared-audit");
        streams.subscribe("shared-audit", "c", null);
        assertThat(trigger()).isTrue();
        store.enqueue(NewJob.builder("test.a").queue("first").build());
        store.enqueue(NewJob.builder("test.b").queue("second").build());

        assertThat(events.eventStreams().disable("first")).contains("shared-audit");
        assertThat(trigger()).isTrue();
        store.enqueue(NewJob.builder("test.a").queue("first").build());
        store.enqueue(NewJob.builder("test.b").queue("second").build());
        assertThat(drain("shared-audit", "c")).extracting(m -> JSON.readTree(m.payloadJson()).get("queue").asString())
                .containsExactly("first", "second", "second");

        assertThat(events.eventStreams().disable("second")).contains("shared-audit");
        assertThat(events.eventStreams().disable("second")).isEmpty();
        assertThat(trigger()).isFalse();
        store.enqueue(NewJob.builder("test.b").queue("second").build());
        assertThat(drain("shared-audit", "c")).isEmpty();
        assertThat(events.eventStreams().stream("second")).isEmpty();
    }

    @Test
    void droppingTheStreamRemovesTheOptInAndMaintenanceTheTrigger() {
        catalog.ensure(QueueName.of("dropping"));
        events.eventStreams().enable("dropping", "dropped-audit");
        catalog.drop(QueueName.of("dropped-audit"));
        assertThat(events.eventStreams().stream("dropping")).isEmpty();
        Job job = store.enqueue(NewJob.builder("test.after-drop").queue("dropping").build());
        assertThat(store.get(job.id())).isPresent();
        assertThat(trigger()).as("dropped with the stream's schema").isFalse();
        events.eventStreams().syncTriggers();
        assertThat(trigger()).isFalse();
    }

    @Test
    void badInputIsRefusedWithTheOjsErrors() {
        assertThatThrownBy(() -> events.eventStreams().enable("no-such-queue", null))
                .isInstanceOfSatisfying(Pgvs3Exception.class, ex -> assertThat(ex.code()).isEqualTo(ErrorCode.NOT_FOUND));
        assertThatThrownBy(() -> events.eventStreams().stream("no-such-queue"))
                .isInstanceOfSatisfying(Pgvs3Exception.class, ex -> assertThat(ex.code()).isEqualTo(ErrorCode.NOT_FOUND));
        store.enqueue(NewJob.builder("test.bad").queue("bad-input").build());
        assertThatThrownBy(() -> events.eventStreams().enable("bad-input", "Not A Name"))
                .isInstanceOfSatisfying(Pgvs3Exception.class,
                        ex -> assertThat(ex.code()).isEqualTo(ErrorCode.INVALID_REQUEST));
        String longest = "q".repeat(59);
        store.enqueue(NewJob.builder("test.bad").queue(longest).build());
        assertThatThrownBy(() -> events.eventStreams().enable(longest, null))
                .isInstanceOfSatisfying(Pgvs3Exception.class,
                        ex -> assertThat(ex.code()).isEqualTo(ErrorCode.INVALID_REQUEST));
        assertThat(events.eventStreams().stream("bad-input")).isEmpty();
    }

    /**
     * Workers drain jobs (some failing once) while the target stream is rotated and compacted as fast as possible
     * and a consumer reads it: every event arrives exactly once and, per job, in the event log's order.
     */
    @Test
    void aDrainWhileTheStreamRotatesDeliversEveryEventOnceInOrderPerJob() throws Exception {
        int jobs = 2000;
        catalog.ensure(QueueName.of("drain"));
        events.eventStreams().enable("drain", "drain-audit");
        streams.subscribe("drain-audit", "c", null);
        List<NewJob> batch = new ArrayList<>();
        for (int i = 0; i < jobs; i++) {
            batch.add(NewJob.builder("test.drain").queue("drain").args("[" + i + "]")
                    .retry(new RetryPolicy(2, Duration.ZERO, 1.0, Duration.ZERO, false, "constant", List.of(),
                            RetryPolicy.DISCARD))
                    .build());
            if (batch.size() == 500) {
                store.enqueueBatch(batch);
                batch.clear();
            }
        }
        AtomicInteger finished = new AtomicInteger();
        AtomicBoolean done = new AtomicBoolean();
        AtomicInteger rotations = new AtomicInteger();
        List<ReceivedMessage> received = new ArrayList<>();
        List<Callable<Object>> tasks = new ArrayList<>();
        for (int w = 0; w < 3; w++) {
            String worker = "w" + w;
            tasks.add(() -> {
                while (finished.get() < jobs) {
                    List<Job> fetched = store.fetch(List.of("drain"), 20, worker, null);
                    if (fetched.isEmpty()) {
                        maintenance.maintain();
                        Thread.sleep(5);
                        continue;
                    }
                    for (Job job : fetched) {
                        if (job.attempt() == 1 && Math.floorMod(job.argsJson().hashCode(), 4) == 0) {
                            store.nack(job.id(), worker, JobError.of("flaky", "first attempt fails"), false);
                        }
                        else {
                            store.ack(job.id(), worker, null);
                            finished.incrementAndGet();
                        }
                    }
                }
                return null;
            });
        }
        tasks.add(() -> {
            while (finished.get() < jobs) {
                if (streams.rotate("drain-audit", true) == RotationOutcome.ROTATED) {
                    rotations.incrementAndGet();
                }
                streams.compact("drain-audit", true);
                Thread.sleep(2);
            }
            return null;
        });
        tasks.add(() -> {
            while (!done.get()) {
                StreamBatch got = streams.receive("drain-audit", "c", null, 500);
                if (got.isEmpty()) {
                    if (finished.get() >= jobs) {
                        done.set(true);
                    }
                    Thread.sleep(5);
                    continue;
                }
                received.addAll(got.messages());
                streams.ack("drain-audit", got.batchId());
            }
            return null;
        });
        runTogether(tasks);
        received.addAll(drain("drain-audit", "c"));

        Map<String, List<String>> expected = perJob(jdbc.queryForList(
                "SELECT id::text AS eid, job_id::text AS job FROM s3p.job_events WHERE queue = 'drain' ORDER BY id"));
        List<Map<String, Object>> got = new ArrayList<>();
        for (ReceivedMessage message : received) {
            got.add(Map.of("eid", message.id(), "job", JSON.readTree(message.payloadJson()).get("job_id").asString()));
        }
        assertThat(received).extracting(ReceivedMessage::id).doesNotHaveDuplicates();
        assertThat(perJob(got)).isEqualTo(expected);
        assertThat(expected).hasSize(jobs);
        assertThat(received.size()).isGreaterThan(3 * jobs);
        assertThat(rotations.get()).isPositive();
    }

    /**
     * Dropping the stream while workers drain the queue: the drop takes the job_events lock before the stream's, so
     * no transition deadlocks with it or fails; the trigger goes with the stream and the drain completes.
     */
    @Test
    void droppingTheStreamDuringADrainFailsNoTransition() throws Exception {
        int jobs = 600;
        catalog.ensure(QueueName.of("drop-drain"));
        events.eventStreams().enable("drop-drain", "drop-drain-audit");
        List<NewJob> batch = new ArrayList<>();
        for (int i = 0; i < jobs; i++) {
            batch.add(NewJob.builder("test.drop").queue("drop-drain").build());
        }
        store.enqueueBatch(batch);
        AtomicInteger finished = new AtomicInteger();
        List<Callable<Object>> tasks = new ArrayList<>();
        for (int w = 0; w < 3; w++) {
            String worker = "w" + w;
            tasks.add(() -> {
                while (finished.get() < jobs) {
                    List<Job> fetched = store.fetch(List.of("drop-drain"), 5, worker, null);
                    for (Job job : fetched) {
                        store.ack(job.id(), worker, null);
                        finished.incrementAndGet();
                    }
                    if (fetched.isEmpty()) {
                        Thread.sleep(5);
                    }
                }
                return null;
            });
        }
        tasks.add(() -> {
            while (finished.get() < jobs / 3) {
                Thread.sleep(5);
            }
            assertThat(catalog.drop(QueueName.of("drop-drain-audit"))).isTrue();
            return null;
        });
        runTogether(tasks);

        assertThat(finished.get()).isEqualTo(jobs);
        assertThat(trigger()).isFalse();
        assertThat(events.eventStreams().stream("drop-drain")).isEmpty();
        assertThat(jdbc.queryForObject("SELECT count(*) FROM s3p.job_events WHERE queue = 'drop-drain'"
                + " AND type = 'job.completed'", Long.class)).isEqualTo(jobs);
    }

    /**
     * A transaction that recorded job events holds the job_events lock until it ends and appends to the stream with
     * every transition. Dropping the stream meanwhile waits for that transaction, which appends again and commits;
     * the drop then removes the stream and its trigger. (drop_queue takes the job_events lock before any of the
     * stream's: DROP SCHEMA alone locks the stream's objects in the order it visits them and the trigger's table
     * last, which can deadlock with the transaction's next append, though not in the order this test met.)
     */
    @Test
    void aStreamDroppedDuringAnOpenTransitionWaitsForItWithoutDeadlock() throws Exception {
        catalog.ensure(QueueName.of("open-tx"));
        events.eventStreams().enable("open-tx", "open-tx-audit");
        TransactionTemplate transaction = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
        java.util.concurrent.CountDownLatch recorded = new java.util.concurrent.CountDownLatch(1);
        AtomicBoolean dropped = new AtomicBoolean();
        List<Callable<Object>> tasks = List.of(() -> {
            transaction.executeWithoutResult(status -> {
                store.enqueue(NewJob.builder("test.open").queue("open-tx").build());
                recorded.countDown();
                // the drop, in a transaction of its own, is now waiting for a lock
                long deadline = System.nanoTime() + 10_000_000_000L;
                while (!dropWaits() && System.nanoTime() < deadline) {
                    Thread.onSpinWait();
                }
                assertThat(dropWaits()).as("the drop waits for this transaction").isTrue();
                store.enqueue(NewJob.builder("test.open").queue("open-tx").build());
            });
            return null;
        }, () -> {
            recorded.await();
            // inside a transaction the drop is not retried: a deadlock would fail it
            transaction.executeWithoutResult(status -> dropped.set(catalog.drop(QueueName.of("open-tx-audit"))));
            return null;
        });
        runTogether(tasks);

        assertThat(dropped.get()).isTrue();
        assertThat(trigger()).isFalse();
        assertThat(jdbc.queryForObject("SELECT count(*) FROM s3p.job_events WHERE queue = 'open-tx'", Long.class))
                .isEqualTo(2);
    }

    private boolean dropWaits() {
        // inside a transaction pg_stat_activity is read once and kept, unless the snapshot is cleared
        jdbc.queryForList("SELECT pg_stat_clear_snapshot()");
        return Boolean.TRUE.equals(jdbc.queryForObject("SELECT EXISTS (SELECT 1 FROM pg_stat_activity"
                + " WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%drop_queue%')",
                Boolean.class));
    }

    private static Map<String, List<String>> perJob(List<Map<String, Object>> events) {
        Map<String, List<String>> perJob = new LinkedHashMap<>();
        for (Map<String, Object> event : events) {
            perJob.computeIfAbsent((String) event.get("job"), j -> new ArrayList<>()).add((String) event.get("eid"));
        }
        return perJob;
    }

    private List<ReceivedMessage> drain(String queue, String consumer) {
        List<ReceivedMessage> all = new ArrayList<>();
        while (true) {
            StreamBatch batch = streams.receive(queue, consumer, null, 1000);
            if (batch.isEmpty()) {
                return all;
            }
            all.addAll(batch.messages());
            streams.ack(queue, batch.batchId());
        }
    }

    private boolean trigger() {
        return Boolean.TRUE.equals(jdbc.queryForObject("SELECT EXISTS (SELECT 1 FROM pg_trigger"
                + " WHERE tgrelid = 's3p.job_events'::regclass AND NOT tgisinternal)", Boolean.class));
    }
}
