package io.pgvs3.spring.web.streams;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import com.zaxxer.hikari.HikariDataSource;
import io.pgvs3.core.catalog.QueueName;
import io.pgvs3.core.notify.NotificationHub;
import io.pgvs3.core.stream.StreamBatch;
import io.pgvs3.test.TestPostgres;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The waiting protocol of {@code wait_ms} receives against a real LISTEN connection: the attempts are counted and
 * their results chosen by the test, so that it can tell which attempt ran and why.
 */
class StreamLongPollTests {

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
    void anAppendBetweenTheFirstAttemptAndTheListenIsSeenWithoutANotification() throws Exception {
        try (NotificationHub hub = new NotificationHub(dataSource); StreamLongPoll longPoll = new StreamLongPoll(hub, 2)) {
            // the caller's first attempt found nothing; the append commits before the channel is LISTENed to, and
            // its notification (if any) is gone: the wake-up after the LISTEN makes the waiter look again
            AtomicBoolean appended = new AtomicBoolean(true);
            Attempts attempts = new Attempts(() -> appended.get() ? batch(7L) : empty());
            long started = System.nanoTime();
            StreamBatch batch = longPoll.await(QueueName.of("lp-race"), Duration.ofSeconds(20), attempts)
                    .get(10, TimeUnit.SECONDS);
            assertThat(batch.batchId()).isEqualTo(7L);
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started)).isLessThan(5000);
        }
    }

    @Test
    void aNotificationWakesTheWaiterAndTheDeadlineAnswersWithoutAnotherAttempt() throws Exception {
        try (NotificationHub hub = new NotificationHub(dataSource); StreamLongPoll longPoll = new StreamLongPoll(hub, 2)) {
            QueueName queue = QueueName.of("lp-wake");
            String channel = NotificationHub.channelFor(queue);
            AtomicBoolean appended = new AtomicBoolean();
            Attempts attempts = new Attempts(() -> appended.get() ? batch(9L) : empty());

            hub.listen(channel, () -> {
            });
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!hub.isListening(channel) && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertThat(hub.isListening(channel)).isTrue();

            // nothing happens: one attempt at once (an append may have come after the caller's first), then the
            // empty answer at the deadline, without asking again
            long started = System.nanoTime();
            StreamBatch idle = longPoll.await(queue, Duration.ofMillis(1500), attempts).get(10, TimeUnit.SECONDS);
            long idleMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
            assertThat(idle.isEmpty()).isTrue();
            assertThat(idleMs).isBetween(1450L, 4000L);
            assertThat(attempts.count()).isEqualTo(1);

            // the notification of an append wakes a waiter
            attempts.reset();
            CompletableFuture<StreamBatch> waiting = longPoll.await(queue, Duration.ofSeconds(20), attempts);
            Thread.sleep(300);
            assertThat(waiting).isNotDone();
            assertThat(attempts.count()).isEqualTo(1);
            appended.set(true);
            long notified = System.nanoTime();
            jdbc.execute("SELECT pg_notify('" + channel + "', 'stream')");
            assertThat(waiting.get(5, TimeUnit.SECONDS).batchId()).isEqualTo(9L);
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - notified)).isLessThan(2000);
            assertThat(attempts.count()).isEqualTo(2);
        }
    }

    @Test
    void whileTheHubCannotListenTheWaiterPollsAndTriesOnceMoreAtTheDeadline() throws Exception {
        HikariDataSource broken = new HikariDataSource();
        broken.setJdbcUrl("jdbc:postgresql://127.0.0.1:1/none");
        broken.setInitializationFailTimeout(-1);
        broken.setConnectionTimeout(250);
        try (broken; NotificationHub hub = new NotificationHub(broken); StreamLongPoll longPoll = new StreamLongPoll(hub, 2)) {
            Attempts attempts = new Attempts(StreamLongPollTests::empty);
            StreamBatch batch = longPoll.await(QueueName.of("lp-down"), Duration.ofMillis(1000), attempts)
                    .get(10, TimeUnit.SECONDS);
            assertThat(batch.isEmpty()).isTrue();
            // every 250 ms while disconnected, and once more at the deadline
            assertThat(attempts.count()).isGreaterThanOrEqualTo(3);
        }
    }

    private static StreamBatch empty() {
        return new StreamBatch(null, 1, 1, List.of());
    }

    private static StreamBatch batch(long id) {
        return new StreamBatch(id, 1, 2, List.of());
    }

    private static final class Attempts implements Supplier<StreamBatch> {

        private final Supplier<StreamBatch> result;
        private final AtomicInteger count = new AtomicInteger();

        Attempts(Supplier<StreamBatch> result) {
            this.result = result;
        }

        @Override
        public StreamBatch get() {
            count.incrementAndGet();
            return result.get();
        }

        int count() {
            return count.get();
        }

        void reset() {
            count.set(0);
        }
    }
}
