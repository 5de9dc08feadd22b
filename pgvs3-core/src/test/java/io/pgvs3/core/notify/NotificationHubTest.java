package io.pgvs3.core.notify;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import com.zaxxer.hikari.HikariDataSource;
import io.pgvs3.core.catalog.QueueName;
import io.pgvs3.test.TestPostgres;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;

class NotificationHubTest {

    static HikariDataSource dataSource;
    static JdbcTemplate jdbc;

    @BeforeAll
    static void database() {
        dataSource = TestPostgres.get().newDatabase().newDataSource(4);
        jdbc = new JdbcTemplate(dataSource);
    }

    @AfterAll
    static void close() {
        dataSource.close();
    }

    @Test
    void channelIsTheQueueSchema() {
        assertThat(NotificationHub.channelFor(QueueName.of("orders.v2"))).isEqualTo("s3q_orders.v2");
    }

    @Test
    void notificationArrivesAndStopsAfterTheRegistrationCloses() throws Exception {
        try (NotificationHub hub = new NotificationHub(dataSource)) {
            Semaphore woken = new Semaphore(0);
            NotificationHub.Registration registration = hub.listen("s3q_orders.v2", woken::release);
            awaitConnected(hub);
            woken.drainPermits();
            jdbc.execute("SELECT pg_notify('s3q_orders.v2', 'stream')");
            assertThat(woken.tryAcquire(5, TimeUnit.SECONDS)).isTrue();
            jdbc.execute("SELECT pg_notify('another', 'stream')");
            assertThat(woken.tryAcquire(500, TimeUnit.MILLISECONDS)).isFalse();

            registration.close();
            jdbc.execute("SELECT pg_notify('s3q_orders.v2', 'stream')");
            assertThat(woken.tryAcquire(500, TimeUnit.MILLISECONDS)).isFalse();
        }
    }

    @Test
    void reconnectsAndListensAgainAfterItsBackendIsTerminated() throws Exception {
        try (NotificationHub hub = new NotificationHub(dataSource)) {
            Semaphore woken = new Semaphore(0);
            hub.listen("s3q_reconnect", woken::release);
            awaitConnected(hub);
            Integer listener = listenerPid();
            assertThat(listener).isNotNull();

            jdbc.execute("SELECT pg_terminate_backend(" + listener + ")");
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            Integer replaced = listener;
            while (System.nanoTime() < deadline && (replaced == null || replaced.equals(listener) || !hub.isConnected())) {
                Thread.sleep(50);
                replaced = listenerPid();
            }
            assertThat(replaced).isNotNull().isNotEqualTo(listener);
            assertThat(hub.isConnected()).isTrue();

            woken.drainPermits();
            jdbc.execute("SELECT pg_notify('s3q_reconnect', 'stream')");
            assertThat(woken.tryAcquire(5, TimeUnit.SECONDS)).isTrue();
        }
    }

    @Test
    void aRegistrationIsWokenOnceItsListenHasRunSoThatItLooksAgain() throws Exception {
        try (NotificationHub hub = new NotificationHub(dataSource)) {
            hub.listen("s3q_warm", () -> {
            });
            awaitConnected(hub);

            Semaphore woken = new Semaphore(0);
            hub.listen("s3q_fresh", woken::release);
            // no notification is sent: the wake-up says "LISTEN has run, look again"
            assertThat(woken.tryAcquire(5, TimeUnit.SECONDS)).isTrue();
            assertThat(hub.isListening("s3q_fresh")).isTrue();
            assertThat(woken.tryAcquire(300, TimeUnit.MILLISECONDS)).isFalse();

            // a notification sent right after registering, perhaps before the LISTEN ran, still wakes it
            Semaphore racing = new Semaphore(0);
            hub.listen("s3q_racing", racing::release);
            jdbc.execute("SELECT pg_notify('s3q_racing', 'stream')");
            assertThat(racing.tryAcquire(5, TimeUnit.SECONDS)).isTrue();
        }
    }

    @Test
    void hundredsOfChannelsRegisteredAtOnceAreListenedToTogetherOnOneConnection() throws Exception {
        int channels = 300;
        try (NotificationHub hub = new NotificationHub(dataSource)) {
            hub.listen("s3q_first", () -> {
            });
            awaitConnected(hub);

            Semaphore listened = new Semaphore(0);
            Semaphore notified = new Semaphore(0);
            AtomicBoolean notifying = new AtomicBoolean();
            ExecutorService pool = Executors.newFixedThreadPool(16);
            long started = System.nanoTime();
            try {
                List<Future<?>> registrations = new ArrayList<>();
                for (int i = 0; i < channels; i++) {
                    String channel = "s3q_many-" + i;
                    registrations.add(pool.submit(() -> hub.listen(channel,
                            () -> (notifying.get() ? notified : listened).release())));
                }
                for (Future<?> registration : registrations) {
                    registration.get(10, TimeUnit.SECONDS);
                }
            }
            finally {
                pool.shutdownNow();
            }
            long registeredMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
            // one LISTEN at a time, each waiting for the hub's poll, took seconds for this many channels
            assertThat(registeredMs).as("registering %d channels took %d ms", channels, registeredMs)
                    .isLessThan(1000);
            assertThat(listened.tryAcquire(channels, 5, TimeUnit.SECONDS)).isTrue();
            assertThat(hub.listeningChannels()).isEqualTo(channels + 1);

            notifying.set(true);
            jdbc.execute("SELECT pg_notify('s3q_many-' || i, 'stream') FROM generate_series(0, " + (channels - 1)
                    + ") AS i");
            assertThat(notified.tryAcquire(channels, 5, TimeUnit.SECONDS)).isTrue();
            assertThat(listenerPids()).hasSize(1);
        }
        // the connection went back to the pool without its name and channels
        assertThat(listenerPids()).isEmpty();
    }

    private static List<Integer> listenerPids() {
        return jdbc.queryForList("SELECT pid FROM pg_stat_activity WHERE datname = current_database() "
                + "AND application_name = ? ORDER BY backend_start DESC", Integer.class,
                NotificationHub.APPLICATION_NAME);
    }

    private static Integer listenerPid() {
        List<Integer> pids = listenerPids();
        return pids.isEmpty() ? null : pids.get(0);
    }

    private static void awaitConnected(NotificationHub hub) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!hub.isConnected() && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertThat(hub.isConnected()).isTrue();
        // the LISTEN of a registration made before the connection was up runs when it connects
        Thread.sleep(NotificationHub.POLL_MILLIS);
    }
}
