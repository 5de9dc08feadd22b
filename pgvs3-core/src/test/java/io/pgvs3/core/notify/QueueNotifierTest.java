package io.pgvs3.core.notify;

import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import com.zaxxer.hikari.HikariDataSource;
import io.pgvs3.test.TestPostgres;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;

class QueueNotifierTest {

    static HikariDataSource dataSource;

    @BeforeAll
    static void database() {
        dataSource = TestPostgres.get().newDatabase().newDataSource(4);
    }

    @AfterAll
    static void close() {
        dataSource.close();
    }

    @Test
    void signalsFromManyThreadsCoalesceIntoFewNotificationsAndEveryChannelIsNotified()
            throws Exception {
        List<String> channels = List.of("s3q_n-a", "s3q_n-b", "s3q_n-c");
        int threads = 8;
        int perThread = 500;
        try (Connection listener = dataSource.getConnection()) {
            try (Statement statement = listener.createStatement()) {
                statement.execute("LISTEN \"s3q_n-a\"; LISTEN \"s3q_n-b\"; LISTEN \"s3q_n-c\"");
            }
            QueueNotifier notifier = new QueueNotifier(new JdbcTemplate(dataSource), "stream");
            CountDownLatch start = new CountDownLatch(1);
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            long returnedWithin;
            try {
                List<Future<Long>> signallers = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    int offset = t;
                    signallers.add(pool.submit(() -> {
                        start.await();
                        long slowest = 0;
                        for (int i = 0; i < perThread; i++) {
                            long before = System.nanoTime();
                            notifier.signal(channels.get((i + offset) % channels.size()));
                            slowest = Math.max(slowest, System.nanoTime() - before);
                        }
                        return slowest;
                    }));
                }
                start.countDown();
                long slowest = 0;
                for (Future<Long> signaller : signallers) {
                    slowest = Math.max(slowest, signaller.get(30, TimeUnit.SECONDS));
                }
                returnedWithin = TimeUnit.NANOSECONDS.toMillis(slowest);
            }
            finally {
                pool.shutdownNow();
            }
            // the signals are done: each channel gets notified
            Map<String, Integer> received = new HashMap<>();
            PGConnection pg = listener.unwrap(PGConnection.class);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (System.nanoTime() < deadline) {
                PGNotification[] notifications = pg.getNotifications(300);
                if (notifications == null || notifications.length == 0) {
                    if (received.size() == channels.size()) {
                        break;
                    }
                    continue;
                }
                for (PGNotification notification : notifications) {
                    assertThat(notification.getParameter()).isEqualTo("stream");
                    received.merge(notification.getName(), 1, Integer::sum);
                }
            }
            assertThat(received).containsOnlyKeys(channels);
            int total = received.values().stream().mapToInt(Integer::intValue).sum();
            // a signal never waits for the database: it only marks the channel
            assertThat(returnedWithin).isLessThan(1000);
            assertThat(total).as("notifications for %d signals", threads * perThread).isLessThan(threads * perThread / 4);
        }
    }
}
