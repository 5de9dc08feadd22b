package io.pgvs3.core.stream;

import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.pgvs3.core.catalog.QueueName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.SingleConnectionDataSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The idle check long-polls start with: a target it reports idle has nothing to receive (a receive right after
 * answers the same empty batch), and its mark catches every append that commits afterwards; any state in which a
 * receive could hand something out is left to a receive.
 */
@Tag("slow")
class StreamIdleTest extends StreamTestSupport {

    @Test
    void aCaughtUpConsumerIsIdleUntilAnAppendCommitsAndThenOnlyAReceiveAnswersForIt() {
        streams.subscribe("idle-a", "c", null);
        ReceiveTarget target = new ReceiveTarget(QueueName.of("idle-a"), "c", null);

        MarkedBatch idle = idleOne(target);
        assertThat(idle).isNotNull();
        assertThat(idle.batch().isEmpty()).isTrue();
        assertThat(idle.mark().queue()).isEqualTo(QueueName.of("idle-a"));
        StreamBatch received = streams.receive("idle-a", "c", null, 10);
        assertThat(received.isEmpty()).isTrue();
        assertThat(idle.batch().startTick()).isEqualTo(received.startTick());
        assertThat(idle.batch().endTick()).isEqualTo(received.endTick());
        assertThat(streams.appendedSince(List.of(idle.mark()))).isEmpty();

        append("idle-a", "t", "{}");
        // the mark taken before the append sees it; the queue is no longer idle
        assertThat(streams.appendedSince(List.of(idle.mark()))).containsExactly(idle.mark());
        assertThat(idleOne(target)).isNull();

        // the batch handed out is outstanding until acked: a receive would hand it out again
        StreamBatch batch = streams.receive("idle-a", "c", null, 10);
        assertThat(batch.messages()).hasSize(1);
        assertThat(idleOne(target)).isNull();
        assertThat(streams.ack("idle-a", batch.batchId())).isTrue();

        MarkedBatch afterAck = idleOne(target);
        assertThat(afterAck).isNotNull();
        assertThat(streams.receive("idle-a", "c", null, 10).isEmpty()).isTrue();
    }

    @Test
    void aRangeDeliveredInPartsIsNotIdleUntilItsLastPartIsAcked() {
        streams.subscribe("idle-range", "c", null);
        appendMany("idle-range", 3);
        ReceiveTarget target = new ReceiveTarget(QueueName.of("idle-range"), "c", null);
        for (int i = 0; i < 3; i++) {
            assertThat(idleOne(target)).isNull();
            StreamBatch part = streams.receive("idle-range", "c", null, 1);
            assertThat(part.messages()).hasSize(1);
            streams.ack("idle-range", part.batchId());
        }
        // the cursor may still stand inside the range: then a receive moves it, and the check after finds it idle
        if (idleOne(target) == null) {
            assertThat(streams.receive("idle-range", "c", null, 1).isEmpty()).isTrue();
        }
        assertThat(idleOne(target)).isNotNull();
    }

    @Test
    void anAppendInProgressDuringTheCheckIsCaughtByTheMarkOnceItCommits() throws Exception {
        streams.subscribe("idle-open", "c", null);
        ReceiveTarget target = new ReceiveTarget(QueueName.of("idle-open"), "c", null);
        try (Connection open = dataSource.getConnection()) {
            open.setAutoCommit(false);
            try (Statement statement = open.createStatement()) {
                statement.execute("SELECT * FROM \"s3q_idle-open\".stream_append(ARRAY['id-1'], ARRAY['t'], "
                        + "ARRAY['{}'], NULL, false)");
            }
            MarkedBatch idle = idleOne(target);
            assertThat(idle).isNotNull();
            assertThat(streams.appendedSince(List.of(idle.mark()))).isEmpty();
            open.commit();
            assertThat(streams.appendedSince(List.of(idle.mark()))).containsExactly(idle.mark());
        }
        assertThat(streams.receive("idle-open", "c", null, 10).messages()).hasSize(1);
    }

    @Test
    void unknownConsumersAndMissingQueuesAreLeftToTheReceiveAndManyQueuesAreCheckedTogether() {
        List<ReceiveTarget> targets = new ArrayList<>();
        for (int i = 0; i < StreamIdleChecks.PROBE_CHUNK + 20; i++) {
            String queue = "idle-many-" + i;
            streams.subscribe(queue, "c", null);
            targets.add(new ReceiveTarget(QueueName.of(queue), "c", i % 2 == 0 ? null : "m"));
        }
        append("idle-many-3", "t", "{}");
        append("idle-many-" + (StreamIdleChecks.PROBE_CHUNK + 5), "t", "{}");
        ReceiveTarget stranger = new ReceiveTarget(QueueName.of("idle-many-1"), "nobody", null);
        List<ReceiveTarget> asked = new ArrayList<>(targets);
        asked.add(stranger);
        Map<ReceiveTarget, MarkedBatch> idle = streams.idle(asked);
        assertThat(idle).hasSize(targets.size() - 2);
        assertThat(idle).doesNotContainKeys(targets.get(3), targets.get(StreamIdleChecks.PROBE_CHUNK + 5), stranger);

        catalog.drop(QueueName.of("idle-many-7"));
        // the chunk holding the dropped queue is left to the receives, the other chunk is still checked
        Map<ReceiveTarget, MarkedBatch> afterDrop = streams.idle(targets);
        assertThat(afterDrop).doesNotContainKey(targets.get(7));
        assertThat(afterDrop).containsKey(targets.get(StreamIdleChecks.PROBE_CHUNK + 1));
    }

    @Test
    void checksOfACaughtUpConsumerReadNoRetainedEventsHoweverOftenTheyRun() throws Exception {
        String queue = "idle-retained";
        streams.subscribe(queue, "c", null);
        for (int i = 0; i < 20; i++) {
            appendMany(queue, 1000);
        }
        for (StreamBatch batch = streams.receive(queue, "c", null, 1000); !batch.isEmpty();
                batch = streams.receive(queue, "c", null, 1000)) {
            assertThat(streams.ack(queue, batch.batchId())).isTrue();
        }
        ReceiveTarget target = new ReceiveTarget(QueueName.of(queue), "c", null);
        try (Connection connection = dataSource.getConnection()) {
            // one transaction that writes nothing, so that its counters add up; the driver prepares a statement on
            // the server from its fifth run, and PostgreSQL may keep a generic plan after five more
            connection.setAutoCommit(false);
            StreamIdleChecks checks = new StreamIdleChecks(
                    new JdbcTemplate(new SingleConnectionDataSource(connection, true)), catalog);
            for (int check = 1; check <= 15; check++) {
                long before = eventRowsRead(connection, "s3q_" + queue);
                MarkedBatch idle = checks.idle(List.of(target)).get(target);
                assertThat(idle).as("check %s", check).isNotNull();
                assertThat(checks.appendedSince(List.of(idle.mark()))).isEmpty();
                long read = eventRowsRead(connection, "s3q_" + queue) - before;
                assertThat(read).as("event rows read by check %s of 20,000 retained events", check).isLessThan(100);
            }
            connection.rollback();
        }
    }

    @Test
    void aNeverAppendedQueueIsCheckedWithoutOpeningItsLogCursorsTicksOrBatches() throws Exception {
        String queue = "idle-fresh";
        streams.subscribe(queue, "c", null);
        ReceiveTarget target = new ReceiveTarget(QueueName.of(queue), "c", null);
        ReceiveTarget stranger = new ReceiveTarget(QueueName.of(queue), "nobody", null);
        MarkedBatch idle;
        List<String> opened;
        try (Connection connection = dataSource.getConnection()) {
            // in one transaction, so that every relation the check planned or read is still locked at its end
            connection.setAutoCommit(false);
            StreamIdleChecks checks = new StreamIdleChecks(
                    new JdbcTemplate(new SingleConnectionDataSource(connection, true)), catalog);
            Map<ReceiveTarget, MarkedBatch> found = checks.idle(List.of(target, stranger));
            assertThat(found).containsOnlyKeys(target);
            idle = found.get(target);
            opened = new JdbcTemplate(new SingleConnectionDataSource(connection, true)).queryForList(
                    "SELECT c.relname::text FROM pg_locks l JOIN pg_class c ON c.oid = l.relation "
                            + "WHERE l.pid = pg_backend_pid() AND c.relnamespace = ?::regnamespace ORDER BY 1",
                    String.class, "\"s3q_" + queue + "\"");
            connection.rollback();
        }
        assertThat(opened).isNotEmpty().allSatisfy(relation -> assertThat(relation)
                .matches("stream_subscriptions.*|stream_seq|stream_tick_seq"));
        StreamBatch received = streams.receive(queue, "c", null, 10);
        assertThat(received.isEmpty()).isTrue();
        assertThat(idle.batch().startTick()).isEqualTo(received.startTick());
        assertThat(idle.batch().endTick()).isEqualTo(received.endTick());

        // an append after the check is caught by its mark, and the queue is then checked as any other
        assertThat(streams.appendedSince(List.of(idle.mark()))).isEmpty();
        append(queue, "t", "{}");
        assertThat(streams.appendedSince(List.of(idle.mark()))).containsExactly(idle.mark());
        assertThat(idleOne(target)).isNull();
    }

    @Test
    void anAppendRolledBackBeforeTheCheckLeavesTheQueueToTheFullCheck() throws Exception {
        String queue = "idle-rolled-back";
        streams.subscribe(queue, "c", null);
        ReceiveTarget target = new ReceiveTarget(QueueName.of(queue), "c", null);
        try (Connection open = dataSource.getConnection()) {
            open.setAutoCommit(false);
            try (Statement statement = open.createStatement()) {
                statement.execute("SELECT * FROM \"s3q_" + queue + "\".stream_append(ARRAY['id-1'], ARRAY['t'], "
                        + "ARRAY['{}'], NULL, false)");
            }
            open.rollback();
        }
        MarkedBatch idle = idleOne(target);
        assertThat(idle).isNotNull();
        StreamBatch received = streams.receive(queue, "c", null, 10);
        assertThat(received.isEmpty()).isTrue();
        assertThat(idle.batch().startTick()).isEqualTo(received.startTick());
    }

    private static MarkedBatch idleOne(ReceiveTarget target) {
        return streams.idle(List.of(target)).get(target);
    }
}
