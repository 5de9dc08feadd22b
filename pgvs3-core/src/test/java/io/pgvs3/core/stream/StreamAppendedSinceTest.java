package io.pgvs3.core.stream;

import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import io.pgvs3.core.catalog.QueueName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The marks long-polls wait from: a receive's mark tells, without receiving again, whether anything it may have
 * missed has committed since, for many queues in one call.
 */
@Tag("slow")
class StreamAppendedSinceTest extends StreamTestSupport {

    @Test
    void aMarkIsAppendedToOnlyOnceAnEventOfItsQueueCommittedAfterTheReceiveLooked() {
        streams.subscribe("since-a", "c", null);
        streams.subscribe("since-b", "c", null);
        MarkedBatch a = streams.receiveMarked("since-a", "c", null, 10);
        MarkedBatch b = streams.receiveMarked("since-b", "c", null, 10);
        assertThat(a.batch().isEmpty()).isTrue();
        assertThat(a.mark().queue()).isEqualTo(QueueName.of("since-a"));
        assertThat(a.mark().snapshot()).matches("\\d+:\\d+:[\\d,]*");

        // other transactions commit (on other tables, and a queue of their own), none appends to a or b
        streams.append("since-other", NewStreamMessage.of("t", "{}"));
        assertThat(streams.appendedSince(List.of(a.mark(), b.mark()))).isEmpty();

        append("since-b", "t", "{}");
        assertThat(streams.appendedSince(List.of(a.mark(), b.mark()))).containsExactly(b.mark());

        // a receive after the append looks from a later mark, and receives the event
        MarkedBatch again = streams.receiveMarked("since-b", "c", null, 10);
        assertThat(again.batch().messages()).hasSize(1);
    }

    @Test
    void anAppendInProgressWhenTheReceiveLookedCountsOnceItCommits() throws Exception {
        streams.subscribe("since-open", "c", null);
        try (Connection open = dataSource.getConnection()) {
            open.setAutoCommit(false);
            try (Statement statement = open.createStatement()) {
                statement.execute("SELECT * FROM \"s3q_since-open\".stream_append(ARRAY['id-1'], ARRAY['t'], "
                        + "ARRAY['{}'], NULL, true)");
            }
            MarkedBatch before = streams.receiveMarked("since-open", "c", null, 10);
            assertThat(before.batch().isEmpty()).isTrue();
            assertThat(streams.appendedSince(List.of(before.mark()))).isEmpty();
            open.commit();
            assertThat(streams.appendedSince(List.of(before.mark()))).containsExactly(before.mark());
        }
    }

    @Test
    void manyQueuesAreCheckedTogetherAndADroppedQueueCountsAsAppendedTo() {
        List<AppendMark> marks = new ArrayList<>();
        for (int i = 0; i < StreamIdleChecks.PROBE_CHUNK + 20; i++) {
            String queue = "since-many-" + i;
            streams.subscribe(queue, "c", null);
            marks.add(streams.receiveMarked(queue, "c", null, 10).mark());
        }
        append("since-many-3", "t", "{}");
        append("since-many-" + (StreamIdleChecks.PROBE_CHUNK + 5), "t", "{}");
        assertThat(streams.appendedSince(marks)).containsExactlyInAnyOrder(marks.get(3),
                marks.get(StreamIdleChecks.PROBE_CHUNK + 5));

        catalog.drop(QueueName.of("since-many-7"));
        Set<AppendMark> appended = streams.appendedSince(marks);
        assertThat(appended).contains(marks.get(7), marks.get(3));
    }
}
