package io.pgvs3.core.stream;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Cooperative members outside a caller's transaction: the batch is allocated in a short transaction that commits
 * without waiting for the WAL flush, and its rows are read in a second one whose commit waits for it; acks take the
 * consumer's ack lock, not its consumer lock. Locks held by another session are tested with a {@code lock_timeout}
 * far above any wait the path should have, so a call that waits for them fails instead of passing slowly.
 */
class StreamMemberAllocationTest extends StreamTestSupport {

    @Test
    void anAckDoesNotWaitForTheConsumerLockThatAllocationsTake() throws Exception {
        String queue = "memberack";
        streams.subscribe(queue, "group", null);
        List<AppendResult> appended = appendMany(queue, 3);
        StreamBatch batch = streams.receive(queue, "group", "m0", 10);
        assertThat(ids(batch)).containsExactlyElementsOf(ids(appended));

        try (Connection holder = dataSource.getConnection(); Connection acker = dataSource.getConnection()) {
            holder.setAutoCommit(false);
            try (Statement statement = holder.createStatement()) {
                statement.execute("SELECT pg_advisory_xact_lock(s3q_memberack.stream_consumer_key(sub_id))"
                        + " FROM s3q_memberack.stream_subscriptions WHERE consumer = 'group'");
            }
            try (Statement statement = acker.createStatement()) {
                statement.execute("SET lock_timeout = '10s'");
                try (ResultSet rs = statement.executeQuery("SELECT s3q_memberack.stream_ack(" + batch.batchId() + ")")) {
                    rs.next();
                    assertThat(rs.getBoolean(1)).isTrue();
                }
                statement.execute("RESET lock_timeout");
            }
            holder.rollback();
        }
        assertThat(streams.info(queue).path("outstanding_batches").asLong()).isZero();
        assertThat(streams.receive(queue, "group", "m0", 10).isEmpty()).isTrue();
    }

    @Test
    void aMemberReadsItsRowsWithoutTheConsumerLock() throws Exception {
        String queue = "memberread";
        streams.subscribe(queue, "group", null);
        List<AppendResult> appended = appendMany(queue, 4);
        long batchId = count("SELECT batch_id FROM s3q_memberread.stream_allocate('group', 'm0', 10, NULL)");

        try (Connection holder = dataSource.getConnection(); Connection reader = dataSource.getConnection()) {
            holder.setAutoCommit(false);
            try (Statement statement = holder.createStatement()) {
                statement.execute("SELECT pg_advisory_xact_lock(s3q_memberread.stream_consumer_key(sub_id))"
                        + " FROM s3q_memberread.stream_subscriptions WHERE consumer = 'group'");
            }
            List<String> read = new ArrayList<>();
            try (Statement statement = reader.createStatement()) {
                statement.execute("SET lock_timeout = '10s'");
                try (ResultSet rs = statement.executeQuery(
                        "SELECT event_id FROM s3q_memberread.stream_batch_read(" + batchId + ") ORDER BY seq")) {
                    while (rs.next()) {
                        read.add(rs.getString(1));
                    }
                }
                statement.execute("RESET lock_timeout");
            }
            holder.rollback();
            assertThat(read).containsExactlyElementsOf(ids(appended));
        }
        // the member's outstanding batch is the allocated one
        StreamBatch again = streams.receive(queue, "group", "m0", 10);
        assertThat(again.batchId()).isEqualTo(batchId);
        assertThat(ids(again)).containsExactlyElementsOf(ids(appended));
    }

    @Test
    void theAllocationCommitsWithoutWaitingForTheFlushAndTheReadWaitsForIt() throws Exception {
        String queue = "memberflush";
        streams.subscribe(queue, "group", null);
        appendMany(queue, 2);
        try (Connection connection = dataSource.getConnection()) {
            connection.setAutoCommit(false);
            try (Statement statement = connection.createStatement()) {
                // the embedded test server runs with synchronous_commit off; a production session has it on
                statement.execute("SET synchronous_commit = on");
                connection.commit();
                assertThat(string(statement, "SELECT current_setting('synchronous_commit')")).isEqualTo("on");
                long batchId = count(statement,
                        "SELECT batch_id FROM s3q_memberflush.stream_allocate('group', 'm0', 10, NULL)");
                assertThat(batchId).isPositive();
                assertThat(string(statement, "SELECT current_setting('synchronous_commit')")).isEqualTo("off");
                connection.commit();

                // a transaction with an id that wrote WAL: its commit waits for the flush (synchronous_commit on)
                assertThat(string(statement, "SELECT current_setting('synchronous_commit')")).isEqualTo("on");
                assertThat(count(statement, "SELECT count(*) FROM s3q_memberflush.stream_batch_read(" + batchId + ")"))
                        .isEqualTo(2);
                assertThat(string(statement, "SELECT pg_current_xact_id_if_assigned()::text")).isNotNull();
                connection.commit();
            }
        }
    }

    @Test
    void anAllocationLostBeforeItsReadCommittedIsHandedOutAgain() throws Exception {
        String queue = "memberlost";
        streams.subscribe(queue, "group", null);
        List<AppendResult> appended = appendMany(queue, 5);
        // what a crash between the allocation's commit and its flush loses: the allocation and the ack with it
        StreamBatch first = streams.receive(queue, "group", "m0", 10);
        appendMany(queue, 2);
        try (Connection connection = dataSource.getConnection()) {
            connection.setAutoCommit(false);
            try (Statement statement = connection.createStatement()) {
                assertThat(count(statement, "SELECT batch_id FROM s3q_memberlost.stream_allocate('group', 'm0', 10, "
                        + first.batchId() + ")")).isPositive();
            }
            connection.rollback();
        }
        // the first batch is still outstanding and returned again, then the next one follows
        StreamBatch again = streams.receive(queue, "group", "m0", 10);
        assertThat(again.batchId()).isEqualTo(first.batchId());
        assertThat(ids(again)).containsExactlyElementsOf(ids(appended));
        StreamBatch next = streams.ackAndReceive(queue, again.batchId(), "group", "m0", 10);
        assertThat(next.messages()).hasSize(2);
        assertThat(streams.ack(queue, next.batchId())).isTrue();
        assertThat(streams.info(queue).path("outstanding_batches").asLong()).isZero();
    }

    @Test
    void aMemberWhoseConsumerUnsubscribedAfterTheAllocationGetsAnEmptyBatch() {
        String queue = "membergone";
        streams.subscribe(queue, "group", null);
        appendMany(queue, 2);
        long batchId = count("SELECT batch_id FROM s3q_membergone.stream_allocate('group', 'm0', 10, NULL)");
        assertThat(streams.unsubscribe(queue, "group")).isTrue();
        streams.compact(queue, true);
        assertThat(count("SELECT count(*) FROM s3q_membergone.stream_batch_read(" + batchId + ")")).isZero();
    }

    private static long count(Statement statement, String sql) throws SQLException {
        try (ResultSet rs = statement.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static String string(Statement statement, String sql) throws SQLException {
        try (ResultSet rs = statement.executeQuery(sql)) {
            rs.next();
            return rs.getString(1);
        }
    }
}
