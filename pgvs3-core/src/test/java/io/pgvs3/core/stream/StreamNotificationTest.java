package io.pgvs3.core.stream;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import io.pgvs3.core.catalog.QueueName;
import io.pgvs3.core.notify.NotificationHub;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Listeners of a queue are woken after every append, once it committed: by the appending transaction inside a
 * caller's transaction, else by a notification sent after the append's own commit.
 */
class StreamNotificationTest extends StreamTestSupport {

    @Test
    void anAppendOutsideATransactionWakesListenersAfterItCommitted() throws Exception {
        streams.subscribe("wake-plain", "c", null);
        try (NotificationHub hub = new NotificationHub(dataSource)) {
            Semaphore woken = listen(hub, "wake-plain");

            append("wake-plain", "t", "{}");

            assertThat(woken.tryAcquire(5, TimeUnit.SECONDS)).isTrue();
            assertThat(streams.receive("wake-plain", "c", null, 10).messages()).hasSize(1);
        }
    }

    @Test
    void concurrentAppendsEachWakeListenersAfterTheirEvents() throws Exception {
        streams.subscribe("wake-many", "c", null);
        try (NotificationHub hub = new NotificationHub(dataSource)) {
            Semaphore woken = listen(hub, "wake-many");
            CountDownLatch start = new CountDownLatch(1);
            ExecutorService pool = Executors.newFixedThreadPool(16);
            try {
                List<Future<AppendResult>> appends = IntStream.range(0, 16)
                        .mapToObj(i -> pool.submit(() -> {
                            start.await();
                            return append("wake-many", "t", "{\"i\":" + i + "}");
                        })).toList();
                start.countDown();
                for (Future<AppendResult> append : appends) {
                    append.get(30, TimeUnit.SECONDS);
                }
            }
            finally {
                pool.shutdownNow();
            }

            assertThat(woken.tryAcquire(5, TimeUnit.SECONDS)).isTrue();
            // whatever coalesced, the last wake-up came after the last append committed: a receive sees all of them
            assertThat(streams.receive("wake-many", "c", null, 100).messages()).hasSize(16);
        }
    }

    @Test
    void anAppendInsideATransactionWakesListenersOnlyAtItsCommit() throws Exception {
        TransactionTemplate transaction = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
        streams.subscribe("wake-tx", "c", null);
        try (NotificationHub hub = new NotificationHub(dataSource)) {
            Semaphore woken = listen(hub, "wake-tx");

            transaction.executeWithoutResult(status -> {
                append("wake-tx", "t", "{}");
                assertThat(tryAcquire(woken, 500)).as("not before the commit").isFalse();
            });
            assertThat(woken.tryAcquire(5, TimeUnit.SECONDS)).isTrue();

            transaction.executeWithoutResult(status -> {
                append("wake-tx", "t", "{}");
                status.setRollbackOnly();
            });
            assertThat(woken.tryAcquire(500, TimeUnit.MILLISECONDS)).as("a rolled back append wakes nobody").isFalse();
        }
    }

    @Test
    void theAppendFunctionNotifiesUnlessToldNotTo() throws Exception {
        streams.subscribe("wake-sql", "c", null);
        try (NotificationHub hub = new NotificationHub(dataSource)) {
            Semaphore woken = listen(hub, "wake-sql");

            jdbc.queryForList("SELECT seqs FROM \"s3q_wake-sql\".stream_append(ARRAY['a'], ARRAY['t'], ARRAY['{}'],"
                    + " NULL, false)");
            assertThat(woken.tryAcquire(500, TimeUnit.MILLISECONDS)).isFalse();

            jdbc.queryForList("SELECT seqs FROM \"s3q_wake-sql\".stream_append(ARRAY['b'], ARRAY['t'], ARRAY['{}'],"
                    + " NULL)");
            assertThat(woken.tryAcquire(5, TimeUnit.SECONDS)).isTrue();
        }
    }

    /**
     * A long-poll of this process woken by an append of this process need not wait for the notifying transaction and
     * the LISTEN connection's read (measured: 2 to 12 ms of an append's wake-up): the appending thread wakes it
     * before the append returns, and the notification still follows for every other process.
     */
    @Test
    void anAppendWakesThisProcesssListenersOnItsOwnThreadBeforeItReturns() throws Exception {
        streams.subscribe("wake-local", "c", null);
        try (NotificationHub hub = new NotificationHub(dataSource)) {
            StreamStore local = new StreamStore(jdbc, catalog, hub);
            Semaphore woken = listen(hub, "wake-local");
            List<Thread> wokenOn = new CopyOnWriteArrayList<>();
            hub.listen(NotificationHub.channelFor(QueueName.of("wake-local")),
                    () -> wokenOn.add(Thread.currentThread()));
            Thread.sleep(500);
            wokenOn.clear();

            local.append("wake-local", NewStreamMessage.of("t", "{}"));

            assertThat(wokenOn).as("woken by the appending thread before the append returned")
                    .contains(Thread.currentThread());
            assertThat(woken.tryAcquire(5, TimeUnit.SECONDS)).isTrue();
            // the notification for other processes comes too (on the hub's thread)
            long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
            while (wokenOn.stream().allMatch(Thread.currentThread()::equals) && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertThat(wokenOn).anyMatch(thread -> thread != Thread.currentThread());
            assertThat(local.receive("wake-local", "c", null, 10).messages()).hasSize(1);
        }
    }

    @Test
    void anAppendInsideATransactionWakesThisProcesssListenersAtItsCommitOnly() throws Exception {
        TransactionTemplate transaction = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
        streams.subscribe("wake-local-tx", "c", null);
        try (NotificationHub hub = new NotificationHub(dataSource)) {
            StreamStore local = new StreamStore(jdbc, catalog, hub);
            listen(hub, "wake-local-tx");
            List<Thread> wokenOn = new CopyOnWriteArrayList<>();
            hub.listen(NotificationHub.channelFor(QueueName.of("wake-local-tx")),
                    () -> wokenOn.add(Thread.currentThread()));
            Thread.sleep(500);
            wokenOn.clear();

            transaction.executeWithoutResult(status -> {
                local.append("wake-local-tx", NewStreamMessage.of("t", "{}"));
                assertThat(wokenOn).as("not before the commit").isEmpty();
            });
            assertThat(wokenOn).as("woken by the committing thread").contains(Thread.currentThread());

            wokenOn.clear();
            transaction.executeWithoutResult(status -> {
                local.append("wake-local-tx", NewStreamMessage.of("t", "{}"));
                status.setRollbackOnly();
            });
            assertThat(wokenOn).as("a rolled back append wakes nobody here").doesNotContain(Thread.currentThread());
        }
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

    private static Semaphore listen(NotificationHub hub, String queue) throws InterruptedException {
        Semaphore woken = new Semaphore(0);
        hub.listen(NotificationHub.channelFor(QueueName.of(queue)), woken::release);
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!hub.isConnected() && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertThat(hub.isConnected()).isTrue();
        // the LISTEN of a registration made before the connection was up runs within the hub's poll interval
        Thread.sleep(500);
        woken.drainPermits();
        return woken;
    }
}
