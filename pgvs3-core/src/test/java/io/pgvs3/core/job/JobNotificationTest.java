package io.pgvs3.core.job;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import io.pgvs3.core.UuidV7;
import io.pgvs3.core.catalog.QueueCatalog;
import io.pgvs3.core.catalog.QueueName;
import io.pgvs3.core.notify.NotificationHub;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.datasource.AbstractDataSource;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Listeners of a queue are woken after every enqueue that makes a job available, and only once it committed; those of
 * the store's own hub directly.
 */
class JobNotificationTest extends JobStoreTestSupport {

    @Test
    void anEnqueueOutsideATransactionWakesListenersAfterItCommitted() throws Exception {
        try (NotificationHub hub = new NotificationHub(dataSource)) {
            Semaphore woken = listen(hub, "wake-plain");

            store.enqueue(NewJob.builder("test.wake").queue("wake-plain").build());

            assertThat(woken.tryAcquire(5, TimeUnit.SECONDS)).isTrue();
            store.enqueue(NewJob.builder("test.later").queue("wake-plain")
                    .scheduledAt(Instant.now().plus(Duration.ofHours(1))).build());
            assertThat(woken.tryAcquire(500, TimeUnit.MILLISECONDS)).as("a scheduled job wakes nobody").isFalse();
        }
    }

    @Test
    void concurrentEnqueuesEachWakeListenersAfterTheirJob() throws Exception {
        try (NotificationHub hub = new NotificationHub(dataSource)) {
            Semaphore woken = listen(hub, "wake-many");
            List<Callable<Object>> producers = IntStream.range(0, 16).<Callable<Object>>mapToObj(i -> () ->
                    store.enqueue(NewJob.builder("test.wake").queue("wake-many").build())).toList();

            runTogether(producers);

            assertThat(woken.tryAcquire(5, TimeUnit.SECONDS)).isTrue();
            // whatever coalesced, the last wake-up came after the last job committed: a fetch now sees all of them
            woken.drainPermits();
            assertThat(store.fetch(List.of("wake-many"), 100, "w", null)).hasSize(16);
        }
    }

    @Test
    void aLoneEnqueueNotifiesFromItsOwnTransactionUnlessAnotherEnqueueIsNotifyingFromItsOwn() throws Exception {
        store.enqueue(NewJob.builder("test.wake").queue("wake-slot").build());
        String enqueue = "SELECT e.notified FROM \"s3q_wake-slot\".enqueue_job(?, 'test.wake', '[]', NULL, NULL, NULL,"
                + " 0, 3, '{}', NULL, NULL, NULL, NULL, NULL, 2) e";

        assertThat(jdbc.queryForObject(enqueue, Boolean.class, UUID.fromString(UuidV7.generate().toString())))
                .as("nobody else notifying").isTrue();
        try (Connection other = dataSource.getConnection(); Statement statement = other.createStatement()) {
            other.setAutoCommit(false);
            statement.execute(enqueue.replace("?", "'" + UuidV7.generate() + "'"));
            assertThat(jdbc.queryForObject(enqueue, Boolean.class, UUID.fromString(UuidV7.generate().toString())))
                    .as("another enqueue notifying from its open transaction").isFalse();
            other.commit();
        }
        assertThat(jdbc.queryForObject(enqueue, Boolean.class, UUID.fromString(UuidV7.generate().toString())))
                .as("that transaction ended").isTrue();
    }

    @Test
    void enqueuesWhileAnotherEnqueueIsNotifyingStillWakeListenersAfterTheirCommit() throws Exception {
        store.enqueue(NewJob.builder("test.wake").queue("wake-busy").build());
        try (NotificationHub hub = new NotificationHub(dataSource);
                Connection other = dataSource.getConnection(); Statement statement = other.createStatement()) {
            Semaphore woken = listen(hub, "wake-busy");
            other.setAutoCommit(false);
            statement.execute("SELECT \"s3q_wake-busy\".enqueue_notify(2)");

            store.enqueue(NewJob.builder("test.wake").queue("wake-busy").build());
            assertThat(woken.tryAcquire(5, TimeUnit.SECONDS)).as("one job").isTrue();
            store.enqueueBatch(List.of(NewJob.builder("test.wake").queue("wake-busy").build(),
                    NewJob.builder("test.wake").queue("wake-busy").build()));
            assertThat(woken.tryAcquire(5, TimeUnit.SECONDS)).as("a batch").isTrue();
            other.rollback();
        }
    }

    @Test
    void anEnqueueInsideATransactionWakesListenersOnlyAtItsCommit() throws Exception {
        TransactionTemplate transaction = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
        try (NotificationHub hub = new NotificationHub(dataSource)) {
            Semaphore woken = listen(hub, "wake-tx");

            transaction.executeWithoutResult(status -> {
                store.enqueue(NewJob.builder("test.wake").queue("wake-tx").build());
                try {
                    assertThat(woken.tryAcquire(500, TimeUnit.MILLISECONDS)).as("not before the commit").isFalse();
                }
                catch (InterruptedException ex) {
                    throw new IllegalStateException(ex);
                }
            });

            assertThat(woken.tryAcquire(5, TimeUnit.SECONDS)).isTrue();
        }
    }

    @Test
    void anEnqueueWakesTheListenersOfItsOwnHubDirectlyOnceItCommitted() throws Exception {
        // a hub that never connects: only the store's direct wake-up reaches the callbacks
        try (NotificationHub hub = new NotificationHub(new UnreachableDataSource())) {
            JobStore local = new JobStore(jdbc, new QueueCatalog(jdbc), JobStoreSettings.DEFAULTS, events, hub);
            Semaphore woken = new Semaphore(0);
            hub.listen(NotificationHub.channelFor(QueueName.of("wake-local")), woken::release);

            local.enqueue(NewJob.builder("test.wake").queue("wake-local").build());
            assertThat(woken.tryAcquire()).as("woken before the enqueue returned").isTrue();
            local.enqueueBatch(List.of(NewJob.builder("test.wake").queue("wake-local").build(),
                    NewJob.builder("test.wake").queue("wake-other").build()));
            assertThat(woken.tryAcquire()).as("a batch into several queues").isTrue();
            local.enqueue(NewJob.builder("test.later").queue("wake-local")
                    .scheduledAt(Instant.now().plus(Duration.ofHours(1))).build());
            assertThat(woken.tryAcquire()).as("a scheduled job wakes nobody").isFalse();

            TransactionTemplate transaction = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
            transaction.executeWithoutResult(status -> {
                local.enqueue(NewJob.builder("test.wake").queue("wake-local").build());
                assertThat(woken.tryAcquire()).as("not before the caller's commit").isFalse();
            });
            assertThat(woken.tryAcquire()).as("at the caller's commit").isTrue();
            transaction.executeWithoutResult(status -> {
                local.enqueue(NewJob.builder("test.wake").queue("wake-local").build());
                status.setRollbackOnly();
            });
            assertThat(woken.tryAcquire()).as("rolled back").isFalse();
            assertThat(hub.isConnected()).isFalse();
        }
    }

    private static final class UnreachableDataSource extends AbstractDataSource {

        @Override
        public Connection getConnection() throws SQLException {
            throw new SQLException("unreachable");
        }

        @Override
        public Connection getConnection(String username, String password) throws SQLException {
            throw new SQLException("unreachable");
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
