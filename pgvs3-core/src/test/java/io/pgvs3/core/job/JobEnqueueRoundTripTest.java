package io.pgvs3.core.job;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import io.pgvs3.core.catalog.QueueCatalog;
import io.pgvs3.core.catalog.QueueName;
import io.pgvs3.core.notify.NotificationHub;
import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.AbstractDataSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a one-job enqueue outside a transaction costs in round trips: one connection, one statement and one
 * transaction, which writes the job's three rows and sends the queue's notification with them; no catalog query for
 * a known queue and no second transaction to notify.
 */
class JobEnqueueRoundTripTest extends JobStoreTestSupport {

    @Test
    void aOneJobEnqueueIsOneStatementInOneTransactionThatAlsoNotifies() throws Exception {
        CountingDataSource counting = new CountingDataSource();
        JobStore countingStore = storeOn(counting);
        countingStore.enqueue(NewJob.builder("test.trip").queue("round-trip").build());
        try (Connection listener = dataSource.getConnection(); Statement listen = listener.createStatement()) {
            listen.execute("LISTEN \"" + NotificationHub.channelFor(QueueName.of("round-trip")) + "\"");
            counting.reset();

            Job job = countingStore.enqueue(NewJob.builder("test.trip").queue("round-trip").args("[1]").build());

            PGNotification[] notifications = listener.unwrap(PGConnection.class).getNotifications(5_000);
            assertThat(notifications).hasSize(1);
            assertThat(notifications[0].getParameter()).isEqualTo("jobs");
            // a notification sent from a transaction of its own afterwards would show here
            Thread.sleep(300);
            assertThat(counting.connections).hasValue(1);
            assertThat(counting.statements).singleElement().asString().contains("\"s3q_round-trip\"");
            assertThat(counting.transactionCalls).as("autocommit: the statement is the transaction").isEmpty();
            assertThat(listener.unwrap(PGConnection.class).getNotifications(200)).isNullOrEmpty();
            Map<String, Object> xmins = jdbc.queryForMap("SELECT j.xmin::text AS job, e.xmin::text AS event"
                    + " FROM \"s3q_round-trip\".jobs j"
                    + " JOIN s3p.job_events e ON e.job_id = j.id AND e.type = 'job.enqueued' WHERE j.id = ?::uuid",
                    job.id());
            assertThat(xmins.get("job")).isEqualTo(xmins.get("event"));
            // a generated id carries its queue: no locator row
            assertThat(jdbc.queryForObject("SELECT count(*) FROM s3p.job_locator WHERE id = ?::uuid", Long.class,
                    job.id())).isZero();
        }
    }

    @Test
    void repeatedEnqueuesOfKnownQueuesQueryNoCatalog() {
        CountingDataSource counting = new CountingDataSource();
        JobStore countingStore = storeOn(counting);
        countingStore.enqueue(NewJob.builder("test.trip").queue("round-trip-known").build());
        counting.reset();

        for (int i = 0; i < 5; i++) {
            countingStore.enqueue(NewJob.builder("test.trip").queue("round-trip-known").build());
        }

        assertThat(counting.connections).hasValue(5);
        assertThat(counting.statements).hasSize(5).allSatisfy(sql -> assertThat(sql).doesNotContain("s3p.queues")
                .doesNotContain("ensure_queue_schema"));
    }

    /** A job store whose every connection, statement and transaction call goes through {@code counting}. */
    private static JobStore storeOn(CountingDataSource counting) {
        JdbcTemplate countingJdbc = new JdbcTemplate(counting);
        QueueCatalog catalog = new QueueCatalog(countingJdbc);
        return new JobStore(countingJdbc, catalog, JobStoreSettings.DEFAULTS, new JobEventLog(countingJdbc, catalog));
    }

    /** Counts the connections taken, the statements prepared or created and the transaction calls made on them. */
    private final class CountingDataSource extends AbstractDataSource {

        final AtomicInteger connections = new AtomicInteger();
        final List<String> statements = new CopyOnWriteArrayList<>();
        final List<String> transactionCalls = new CopyOnWriteArrayList<>();

        void reset() {
            connections.set(0);
            statements.clear();
            transactionCalls.clear();
        }

        @Override
        public Connection getConnection() throws SQLException {
            connections.incrementAndGet();
            Connection target = dataSource.getConnection();
            return (Connection) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Connection.class},
                    (proxy, method, args) -> {
                        String name = method.getName();
                        if (name.startsWith("prepare") || name.equals("createStatement")) {
                            statements.add(args == null || args.length == 0 ? "<statement>" : String.valueOf(args[0]));
                        }
                        else if (name.equals("commit") || name.equals("rollback")
                                || (name.equals("setAutoCommit") && Boolean.FALSE.equals(args[0]))) {
                            transactionCalls.add(name);
                        }
                        try {
                            return method.invoke(target, args);
                        }
                        catch (InvocationTargetException ex) {
                            throw ex.getCause();
                        }
                    });
        }

        @Override
        public Connection getConnection(String username, String password) throws SQLException {
            return getConnection();
        }
    }
}
