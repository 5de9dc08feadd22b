package io.pgvs3.spring.web.streams;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

import com.zaxxer.hikari.HikariDataSource;
import io.pgvs3.core.catalog.CatalogMigrator;
import io.pgvs3.core.catalog.QueueCatalog;
import io.pgvs3.core.catalog.QueueName;
import io.pgvs3.core.notify.NotificationHub;
import io.pgvs3.core.stream.AppendMark;
import io.pgvs3.core.stream.MarkedBatch;
import io.pgvs3.core.stream.NewStreamMessage;
import io.pgvs3.core.stream.ReceiveTarget;
import io.pgvs3.core.stream.StreamBatch;
import io.pgvs3.core.stream.StreamStore;
import io.pgvs3.test.TestPostgres;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.ConnectionHolder;
import org.springframework.jdbc.datasource.DelegatingDataSource;
import org.springframework.transaction.support.TransactionSynchronizationManager;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The waiting protocol of {@code wait_ms} receives against a real LISTEN connection: the attempts and probes are
 * counted and their results chosen by the test (or real, on a migrated database), so that it can tell which ran and
 * why. A hub whose connection is held back until a test lets it go shows what happens to a receive whose first
 * attempt ran before its channel was LISTENed to.
 */
@Tag("slow")
class StreamLongPollTests {

    static HikariDataSource dataSource;
    static JdbcTemplate jdbc;

    static StreamStore streams;

    @BeforeAll
    static void database() {
        dataSource = TestPostgres.get().newDatabase().newDataSource(4);
        new CatalogMigrator(dataSource).migrate();
        jdbc = new JdbcTemplate(dataSource);
        streams = new StreamStore(jdbc, new QueueCatalog(jdbc));
    }

    @AfterAll
    static void close() {
        dataSource.close();
    }

    @Test
    void anAppendBetweenTheFirstAttemptAndTheListenIsFoundByOneProbeAndReceived() throws Exception {
        Gate gate = new Gate();
        Probes probes = new Probes(marks -> Set.copyOf(marks));
        try (NotificationHub hub = new NotificationHub(gate); StreamLongPoll longPoll = new StreamLongPoll(hub, probes, 2)) {
            // the first attempt finds nothing before the channel is LISTENed to; an append commits before the
            // LISTEN, and its notification is gone: the probe after the LISTEN finds it, and only then is the
            // receive tried again
            AtomicBoolean appended = new AtomicBoolean();
            Attempts attempts = new Attempts(() -> appended.get() ? batch(7L) : empty());
            attempts.afterFirst(() -> {
                appended.set(true);
                gate.open();
            });
            long started = System.nanoTime();
            StreamBatch batch = longPoll.receive(QueueName.of("lp-race"), Duration.ofSeconds(20), attempts)
                    .get(10, TimeUnit.SECONDS);
            assertThat(batch.batchId()).isEqualTo(7L);
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started)).isLessThan(5000);
            assertThat(attempts.count()).isEqualTo(2);
            assertThat(probes.marks()).isEqualTo(1);
        }
    }

    @Test
    void aFirstAttemptBeforeTheListenThatMissedNothingIsNotTriedAgain() throws Exception {
        Gate gate = new Gate();
        Probes probes = new Probes(marks -> Set.of());
        try (NotificationHub hub = new NotificationHub(gate); StreamLongPoll longPoll = new StreamLongPoll(hub, probes, 2)) {
            Attempts attempts = new Attempts(StreamLongPollTests::empty);
            attempts.afterFirst(gate::open);
            long started = System.nanoTime();
            StreamBatch batch = longPoll.receive(QueueName.of("lp-quiet"), Duration.ofMillis(1500), attempts)
                    .get(10, TimeUnit.SECONDS);
            long waitedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
            assertThat(batch.isEmpty()).isTrue();
            assertThat(waitedMs).isBetween(1450L, 6000L);
            // one attempt, one probe after the LISTEN, and at the deadline neither
            assertThat(attempts.count()).isEqualTo(1);
            assertThat(probes.marks()).isEqualTo(1);
        }
    }

    @Test
    void aNotificationWakesTheWaiterAndTheDeadlineAnswersWithoutAnotherAttempt() throws Exception {
        Probes probes = new Probes(marks -> Set.copyOf(marks));
        try (NotificationHub hub = new NotificationHub(dataSource);
                StreamLongPoll longPoll = new StreamLongPoll(hub, probes, 2)) {
            QueueName queue = QueueName.of("lp-wake");
            String channel = NotificationHub.channelFor(queue);
            AtomicBoolean appended = new AtomicBoolean();
            Attempts attempts = new Attempts(() -> appended.get() ? batch(9L) : empty());

            listening(hub, channel);

            // nothing happens: the first attempt runs while the channel is LISTENed to, then the empty answer at
            // the deadline, without asking again
            long started = System.nanoTime();
            StreamBatch idle = longPoll.receive(queue, Duration.ofMillis(1500), attempts).get(10, TimeUnit.SECONDS);
            long idleMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
            assertThat(idle.isEmpty()).isTrue();
            assertThat(idleMs).isBetween(1450L, 6000L);
            assertThat(attempts.count()).isEqualTo(1);
            assertThat(probes.marks()).isZero();

            // the notification of an append wakes a waiter
            attempts.reset();
            CompletableFuture<StreamBatch> waiting = longPoll.receive(queue, Duration.ofSeconds(20), attempts);
            waitWhile(() -> attempts.count() == 0);
            Thread.sleep(300);
            assertThat(waiting).isNotDone();
            assertThat(attempts.count()).isEqualTo(1);
            appended.set(true);
            long notified = System.nanoTime();
            jdbc.execute("SELECT pg_notify('" + channel + "', 'stream')");
            assertThat(waiting.get(5, TimeUnit.SECONDS).batchId()).isEqualTo(9L);
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - notified)).isLessThan(2000);
            assertThat(attempts.count()).isEqualTo(2);
            assertThat(probes.marks()).isZero();
        }
    }

    @Test
    void aWokenWaiterGoesAheadOfFirstAttemptsStillQueued() throws Exception {
        Probes probes = new Probes(marks -> Set.copyOf(marks));
        try (NotificationHub hub = new NotificationHub(dataSource);
                StreamLongPoll longPoll = new StreamLongPoll(hub, probes, 1)) {
            QueueName woken = QueueName.of("lp-first-in-line");
            String channel = NotificationHub.channelFor(woken);
            listening(hub, channel);
            List<String> order = new CopyOnWriteArrayList<>();
            AtomicBoolean appended = new AtomicBoolean();
            CompletableFuture<StreamBatch> waiting = longPoll.receive(woken, Duration.ofSeconds(20), () -> {
                order.add("woken");
                return marked(appended.get() ? batch(5L) : empty());
            });
            waitWhile(() -> order.isEmpty());
            // the only worker is busy with one first attempt, three more wait behind it
            CountDownLatch release = new CountDownLatch(1);
            longPoll.receive(QueueName.of("lp-busy"), Duration.ofSeconds(20), () -> {
                order.add("busy");
                try {
                    release.await(10, TimeUnit.SECONDS);
                }
                catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                }
                return marked(batch(1L));
            });
            for (int i = 0; i < 3; i++) {
                longPoll.receive(QueueName.of("lp-queued-" + i), Duration.ofSeconds(20), () -> {
                    order.add("queued");
                    return marked(batch(2L));
                });
            }
            waitWhile(() -> !order.contains("busy"));
            appended.set(true);
            jdbc.execute("SELECT pg_notify('" + channel + "', 'stream')");
            Thread.sleep(500);
            release.countDown();
            assertThat(waiting.get(10, TimeUnit.SECONDS).batchId()).isEqualTo(5L);
            waitWhile(() -> order.size() < 6);
            assertThat(order).containsExactly("woken", "busy", "woken", "queued", "queued", "queued");
        }
    }

    @Test
    void whileTheHubCannotListenTheWaiterPollsAndTriesOnceMoreAtTheDeadline() throws Exception {
        HikariDataSource broken = new HikariDataSource();
        broken.setJdbcUrl("jdbc:postgresql://127.0.0.1:1/none");
        broken.setInitializationFailTimeout(-1);
        broken.setConnectionTimeout(250);
        Probes probes = new Probes(marks -> Set.of());
        try (broken; NotificationHub hub = new NotificationHub(broken);
                StreamLongPoll longPoll = new StreamLongPoll(hub, probes, 2)) {
            Attempts attempts = new Attempts(StreamLongPollTests::empty);
            StreamBatch batch = longPoll.receive(QueueName.of("lp-down"), Duration.ofMillis(1000), attempts)
                    .get(10, TimeUnit.SECONDS);
            assertThat(batch.isEmpty()).isTrue();
            // at once, every 250 ms while disconnected, and once more at the deadline; never a probe, which only
            // means something while the channel is LISTENed to
            assertThat(attempts.count()).isGreaterThanOrEqualTo(3);
            assertThat(probes.marks()).isZero();
        }
    }

    @Test
    void aRealAppendCommittedBeforeTheListenIsReceived() throws Exception {
        String queue = subscribed("lp-real");
        Gate gate = new Gate();
        Probes probes = new Probes(streams::appendedSince);
        try (NotificationHub hub = new NotificationHub(gate); StreamLongPoll longPoll = new StreamLongPoll(hub, probes, 2)) {
            AtomicInteger attempts = new AtomicInteger();
            StreamBatch batch = longPoll.receive(QueueName.of(queue), Duration.ofSeconds(20), () -> {
                MarkedBatch attempt = streams.receiveMarked(queue, "c", null, 10);
                if (attempts.incrementAndGet() == 1) {
                    // committed (and notified) while nothing LISTENs yet
                    streams.append(queue, NewStreamMessage.of("t", "{\"n\":1}"));
                    gate.open();
                }
                return attempt;
            }).get(10, TimeUnit.SECONDS);
            assertThat(batch.messages()).hasSize(1);
            assertThat(attempts.get()).isEqualTo(2);
            assertThat(probes.marks()).isEqualTo(1);
        }
    }

    @Test
    void anIdleFirstCheckRunsNoReceiveAndAnAppendCommittedBeforeTheListenIsStillReceived() throws Exception {
        String queue = subscribed("lp-idle-race");
        Gate gate = new Gate();
        Probes probes = new Probes(streams::appendedSince);
        // the check finds nothing, then an append commits (and notifies) before the channel is LISTENed to: its
        // notification is gone, and only the check's mark can tell
        Checks checks = new Checks(targets -> {
            Map<ReceiveTarget, MarkedBatch> idle = streams.idle(targets);
            streams.append(queue, NewStreamMessage.of("t", "{\"n\":1}"));
            gate.open();
            return idle;
        });
        try (NotificationHub hub = new NotificationHub(gate);
                StreamLongPoll longPoll = new StreamLongPoll(hub, probes, checks, 2)) {
            AtomicInteger attempts = new AtomicInteger();
            StreamBatch batch = longPoll.receive(new ReceiveTarget(QueueName.of(queue), "c", null),
                    Duration.ofSeconds(20), counted(queue, attempts)).get(10, TimeUnit.SECONDS);
            assertThat(batch.messages()).hasSize(1);
            assertThat(checks.idle()).isEqualTo(1);
            assertThat(probes.marks()).isEqualTo(1);
            // no receive for the first look, one once the probe found the append
            assertThat(attempts.get()).isEqualTo(1);
        }
    }

    @Test
    void anIdleFirstCheckWhileListenedToWaitsForTheNotificationAndTheDeadlineWithoutAReceive() throws Exception {
        String queue = subscribed("lp-idle-wake");
        Probes probes = new Probes(streams::appendedSince);
        Checks checks = new Checks(streams::idle);
        try (NotificationHub hub = new NotificationHub(dataSource);
                StreamLongPoll longPoll = new StreamLongPoll(hub, probes, checks, 2)) {
            String channel = NotificationHub.channelFor(QueueName.of(queue));
            listening(hub, channel);
            ReceiveTarget target = new ReceiveTarget(QueueName.of(queue), "c", null);
            AtomicInteger attempts = new AtomicInteger();
            Supplier<MarkedBatch> attempt = counted(queue, attempts);

            long started = System.nanoTime();
            StreamBatch quiet = longPoll.receive(target, Duration.ofMillis(1500), attempt).get(10, TimeUnit.SECONDS);
            assertThat(quiet.isEmpty()).isTrue();
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started)).isBetween(1450L, 6000L);
            assertThat(attempts.get()).isZero();
            assertThat(probes.marks()).isZero();

            CompletableFuture<StreamBatch> waiting = longPoll.receive(target, Duration.ofSeconds(20), attempt);
            waitWhile(() -> checks.idle() < 2);
            Thread.sleep(200);
            assertThat(waiting).isNotDone();
            long appended = System.nanoTime();
            streams.append(queue, NewStreamMessage.of("t", "{}"));
            assertThat(waiting.get(5, TimeUnit.SECONDS).messages()).hasSize(1);
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - appended)).isLessThan(2000);
            assertThat(attempts.get()).isEqualTo(1);
            assertThat(probes.marks()).isZero();

            // once the queue has been received from, a long-poll receives at once instead of checking first
            int checked = checks.targets();
            StreamBatch again = longPoll.receive(target, Duration.ofMillis(300), attempt).get(10, TimeUnit.SECONDS);
            assertThat(again.isEmpty()).isFalse();
            assertThat(attempts.get()).isEqualTo(2);
            assertThat(checks.targets()).isEqualTo(checked);
        }
    }

    @Test
    void aCheckThatFindsSomethingToReceiveLeadsToAReceive() throws Exception {
        String queue = subscribed("lp-check-busy");
        streams.append(queue, NewStreamMessage.of("t", "{}"));
        Checks checks = new Checks(streams::idle);
        try (NotificationHub hub = new NotificationHub(dataSource);
                StreamLongPoll longPoll = new StreamLongPoll(hub, marks -> Set.copyOf(marks), checks, 2)) {
            AtomicInteger attempts = new AtomicInteger();
            long started = System.nanoTime();
            StreamBatch batch = longPoll.receive(new ReceiveTarget(QueueName.of(queue), "c", null),
                    Duration.ofSeconds(20), counted(queue, attempts)).get(10, TimeUnit.SECONDS);
            assertThat(batch.messages()).hasSize(1);
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started)).isLessThan(5000);
            assertThat(checks.targets()).isEqualTo(1);
            assertThat(checks.idle()).isZero();
            assertThat(attempts.get()).isEqualTo(1);
        }
    }

    @Test
    void waitersArrivingWhileACheckRunsAreCheckedTogether() throws Exception {
        int queues = 20;
        for (int i = 0; i < queues; i++) {
            streams.subscribe("lp-together-" + i, "c", null);
        }
        CountDownLatch allArrived = new CountDownLatch(1);
        AtomicInteger calls = new AtomicInteger();
        Checks checks = new Checks(targets -> {
            if (calls.incrementAndGet() == 1) {
                try {
                    allArrived.await(10, TimeUnit.SECONDS);
                }
                catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                }
            }
            return streams.idle(targets);
        });
        // two workers: one checker at a time, the other worker stays free for wake-ups
        try (NotificationHub hub = new NotificationHub(dataSource);
                StreamLongPoll longPoll = new StreamLongPoll(hub, streams::appendedSince, checks, 2)) {
            AtomicInteger attempts = new AtomicInteger();
            List<CompletableFuture<StreamBatch>> waiting = new ArrayList<>();
            for (int i = 0; i < queues; i++) {
                String queue = "lp-together-" + i;
                waiting.add(longPoll.receive(new ReceiveTarget(QueueName.of(queue), "c", null),
                        Duration.ofMillis(1500), counted(queue, attempts)));
            }
            allArrived.countDown();
            for (CompletableFuture<StreamBatch> future : waiting) {
                assertThat(future.get(15, TimeUnit.SECONDS).isEmpty()).isTrue();
            }
            // the first check took what had arrived when it started, the second all the rest
            assertThat(calls.get()).isBetween(1, 2);
            assertThat(checks.targets()).isEqualTo(queues);
            assertThat(checks.idle()).isEqualTo(queues);
            assertThat(attempts.get()).isZero();
        }
    }

    @Test
    void aWokenWaiterOfAQueueNeverReceivedFromReceivesWhereItsFunctionsAreAlreadyPlanned() throws Exception {
        // queue names without '-', so that the schema appears unquoted in the statements the backend has planned
        String warm = subscribed("lplanewarm");
        String cold = subscribed("lplanecold");
        Checks checks = new Checks(streams::idle);
        // the lane warms one queue: the first waiter's; the second waiter is woken as without a lane
        StreamLongPoll.WakeLaneSettings lane = new StreamLongPoll.WakeLaneSettings(dataSource,
                target -> streams.warmReceive(target.queue().value(), target.consumer(), target.member()), 1);
        try (NotificationHub hub = new NotificationHub(dataSource);
                StreamLongPoll longPoll = new StreamLongPoll(hub, streams::appendedSince, checks, 2, lane)) {
            PlannedAttempt warmAttempt = new PlannedAttempt(warm);
            CompletableFuture<StreamBatch> warmWaiting = longPoll.receive(
                    new ReceiveTarget(QueueName.of(warm), "c", null), Duration.ofSeconds(20), warmAttempt);
            waitWhile(() -> !longPoll.warmedOnLane(QueueName.of(warm)));
            assertThat(longPoll.warmedOnLane(QueueName.of(warm))).isTrue();
            PlannedAttempt coldAttempt = new PlannedAttempt(cold);
            CompletableFuture<StreamBatch> coldWaiting = longPoll.receive(
                    new ReceiveTarget(QueueName.of(cold), "c", null), Duration.ofSeconds(20), coldAttempt);
            waitWhile(() -> checks.idle() < 2);
            assertThat(checks.idle()).isEqualTo(2);
            assertThat(longPoll.warmedOnLane(QueueName.of(cold))).isFalse();

            streams.append(warm, NewStreamMessage.of("t", "{}"));
            assertThat(warmWaiting.get(10, TimeUnit.SECONDS).messages()).hasSize(1);
            streams.append(cold, NewStreamMessage.of("t", "{}"));
            assertThat(coldWaiting.get(10, TimeUnit.SECONDS).messages()).hasSize(1);

            // the woken receive on the lane found the receive's functions compiled and most of their statements
            // planned by the warm-up; the one on a pooled connection planned them all then
            assertThat(warmAttempt.compiledBefore).isTrue();
            assertThat(coldAttempt.planned).isGreaterThanOrEqualTo(25);
            // the statements up to the tick (more than ten) were planned by the warm-up, not by the woken receive
            assertThat(warmAttempt.planned).isLessThan(coldAttempt.planned - 10);
            assertThat(warmAttempt.thread).startsWith("pgvs3-long-poll-lane-");
            assertThat(coldAttempt.thread).doesNotStartWith("pgvs3-long-poll-lane-");
            // the warm-up left nothing behind: one tick made by the woken receive, one batch, no other cursor row
            assertThat(jdbc.queryForObject("SELECT count(*) FROM s3q_lplanewarm.stream_batches", Long.class))
                    .isEqualTo(1);
            assertThat(jdbc.queryForObject("SELECT count(*) FROM s3q_lplanewarm.stream_ticks", Long.class))
                    .isEqualTo(jdbc.queryForObject("SELECT count(*) FROM s3q_lplanecold.stream_ticks", Long.class));
        }
    }

    @Test
    void theLaneWarmsTheQueuesOfTheFirstWaitersWhicheverFirstLookEndsFirst() throws Exception {
        String first = subscribed("lplanefirst");
        String second = subscribed("lplanesecond");
        CountDownLatch firstChecking = new CountDownLatch(1);
        CountDownLatch secondChecked = new CountDownLatch(1);
        // the first waiter's check ends after the second's, and after the second's warm-up would have been queued
        Checks checks = new Checks(targets -> {
            boolean ofFirst = targets.stream().anyMatch(target -> target.queue().value().equals(first));
            if (ofFirst) {
                firstChecking.countDown();
                try {
                    secondChecked.await(10, TimeUnit.SECONDS);
                    Thread.sleep(300);
                }
                catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                }
            }
            Map<ReceiveTarget, MarkedBatch> idle = streams.idle(targets);
            if (!ofFirst) {
                secondChecked.countDown();
            }
            return idle;
        });
        StreamLongPoll.WakeLaneSettings lane = new StreamLongPoll.WakeLaneSettings(dataSource,
                target -> streams.warmReceive(target.queue().value(), target.consumer(), target.member()), 1);
        // four workers: two checks side by side
        try (NotificationHub hub = new NotificationHub(dataSource);
                StreamLongPoll longPoll = new StreamLongPoll(hub, streams::appendedSince, checks, 4, lane)) {
            PlannedAttempt firstAttempt = new PlannedAttempt(first);
            CompletableFuture<StreamBatch> firstWaiting = longPoll.receive(
                    new ReceiveTarget(QueueName.of(first), "c", null), Duration.ofSeconds(20), firstAttempt);
            assertThat(firstChecking.await(10, TimeUnit.SECONDS)).isTrue();
            CompletableFuture<StreamBatch> secondWaiting = longPoll.receive(
                    new ReceiveTarget(QueueName.of(second), "c", null), Duration.ofSeconds(20),
                    () -> streams.receiveMarked(second, "c", null, 10));
            waitWhile(() -> checks.idle() < 2 || !longPoll.warmedOnLane(QueueName.of(first)));
            assertThat(checks.idle()).isEqualTo(2);
            assertThat(longPoll.warmedOnLane(QueueName.of(first))).isTrue();
            assertThat(longPoll.warmedOnLane(QueueName.of(second))).isFalse();

            streams.append(first, NewStreamMessage.of("t", "{}"));
            assertThat(firstWaiting.get(10, TimeUnit.SECONDS).messages()).hasSize(1);
            assertThat(firstAttempt.thread).startsWith("pgvs3-long-poll-lane-");
            streams.append(second, NewStreamMessage.of("t", "{}"));
            assertThat(secondWaiting.get(10, TimeUnit.SECONDS).messages()).hasSize(1);
        }
    }

    /** A queue with consumer {@code c}. */
    private static String subscribed(String queue) {
        streams.subscribe(queue, "c", null);
        return queue;
    }

    /** A real receive of consumer {@code c}, counted. */
    private static Supplier<MarkedBatch> counted(String queue, AtomicInteger attempts) {
        return () -> {
            attempts.incrementAndGet();
            return streams.receiveMarked(queue, "c", null, 10);
        };
    }

    /** Registers the channel with the hub and waits until it is LISTENed to. */
    private static void listening(NotificationHub hub, String channel) throws InterruptedException {
        hub.listen(channel, () -> {
        });
        waitWhile(() -> !hub.isListening(channel));
        assertThat(hub.isListening(channel)).isTrue();
    }

    /** Waits while {@code condition} holds, for 10 seconds at most. */
    private static void waitWhile(BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (condition.getAsBoolean() && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
    }

    private static MarkedBatch marked(StreamBatch batch) {
        return new MarkedBatch(batch, new AppendMark(QueueName.of("lp"), "1:1:"));
    }

    private static StreamBatch empty() {
        return new StreamBatch(null, 1, 1, List.of());
    }

    private static StreamBatch batch(long id) {
        return new StreamBatch(id, 1, 2, List.of());
    }

    /**
     * A real receive of consumer {@code c} that notes, on the connection it runs on, whether that backend had compiled
     * the queue's receive function before the receive that found something, and how many statements of the queue's
     * functions that receive planned (PostgreSQL keeps each compiled PL/pgSQL function, and each plan of one of its
     * statements, in a memory context named after it).
     */
    private static final class PlannedAttempt implements Supplier<MarkedBatch> {

        private static final String PLANS = "SELECT count(*) FROM pg_backend_memory_contexts "
                + "WHERE name = 'CachedPlan' AND position(? in ident) > 0";

        private static final String COMPILED = "SELECT EXISTS (SELECT 1 FROM pg_backend_memory_contexts "
                + "WHERE name = 'PL/pgSQL function' AND starts_with(ident, ?))";

        private final String queue;
        /** Whether the receive function was compiled on the connection before the receive that found something. */
        volatile boolean compiledBefore;
        volatile int planned = -1;
        volatile String thread;

        PlannedAttempt(String queue) {
            this.queue = queue;
        }

        @Override
        public MarkedBatch get() {
            // one connection for the counts and the receive: the lane's, else one bound here
            boolean bound = TransactionSynchronizationManager.hasResource(dataSource);
            Connection own = null;
            try {
                if (!bound) {
                    own = dataSource.getConnection();
                    TransactionSynchronizationManager.bindResource(dataSource, new ConnectionHolder(own));
                }
                boolean compiled = jdbc.queryForObject(COMPILED, Boolean.class, "s3q_" + queue + ".stream_receive(");
                int before = plans();
                MarkedBatch result = streams.receiveMarked(queue, "c", null, 10);
                if (!result.batch().isEmpty()) {
                    compiledBefore = compiled;
                    planned = plans() - before;
                    thread = Thread.currentThread().getName();
                }
                return result;
            }
            catch (SQLException ex) {
                throw new IllegalStateException(ex);
            }
            finally {
                if (own != null) {
                    TransactionSynchronizationManager.unbindResource(dataSource);
                    try {
                        own.close();
                    }
                    catch (SQLException ex) {
                        // returned to the pool or not: the test's pool closes with it
                    }
                }
            }
        }

        private int plans() {
            return jdbc.queryForObject(PLANS, Integer.class, "s3q_" + queue + ".");
        }
    }

    /** The test database for the hub, whose connections wait until {@link #open()}. */
    private static final class Gate extends DelegatingDataSource {

        private final CountDownLatch open = new CountDownLatch(1);

        Gate() {
            super(dataSource);
        }

        void open() {
            open.countDown();
        }

        @Override
        public Connection getConnection() throws SQLException {
            try {
                open.await(30, TimeUnit.SECONDS);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                throw new SQLException("interrupted", ex);
            }
            return super.getConnection();
        }
    }

    private static final class Probes implements StreamLongPoll.AppendProbe {

        private final StreamLongPoll.AppendProbe answer;
        private final AtomicInteger marks = new AtomicInteger();

        Probes(StreamLongPoll.AppendProbe answer) {
            this.answer = answer;
        }

        @Override
        public Set<AppendMark> appendedSince(Collection<AppendMark> checked) {
            marks.addAndGet(checked.size());
            return answer.appendedSince(checked);
        }

        int marks() {
            return marks.get();
        }
    }

    private static final class Checks implements StreamLongPoll.IdleProbe {

        private final StreamLongPoll.IdleProbe answer;
        private final AtomicInteger targets = new AtomicInteger();
        private final AtomicInteger idle = new AtomicInteger();

        Checks(StreamLongPoll.IdleProbe answer) {
            this.answer = answer;
        }

        @Override
        public Map<ReceiveTarget, MarkedBatch> idle(Collection<ReceiveTarget> checked) {
            targets.addAndGet(checked.size());
            Map<ReceiveTarget, MarkedBatch> result = answer.idle(checked);
            idle.addAndGet(result.size());
            return result;
        }

        int targets() {
            return targets.get();
        }

        int idle() {
            return idle.get();
        }
    }

    private static final class Attempts implements Supplier<MarkedBatch> {

        private final Supplier<StreamBatch> result;
        private final AtomicInteger count = new AtomicInteger();
        private volatile Runnable afterFirst = () -> {
        };

        Attempts(Supplier<StreamBatch> result) {
            this.result = result;
        }

        void afterFirst(Runnable action) {
            afterFirst = action;
        }

        @Override
        public MarkedBatch get() {
            int n = count.incrementAndGet();
            StreamBatch batch = result.get();
            if (n == 1) {
                afterFirst.run();
            }
            return new MarkedBatch(batch, new AppendMark(QueueName.of("lp"), "1:1:" + n));
        }

        int count() {
            return count.get();
        }

        void reset() {
            count.set(0);
        }
    }
}
