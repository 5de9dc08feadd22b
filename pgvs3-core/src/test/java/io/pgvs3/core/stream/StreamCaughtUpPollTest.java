package io.pgvs3.core.stream;

import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A receive of a consumer that is caught up, while nothing new has committed (a consumer polling while the next append
 * is still running), looks for new events by their transaction ids: it reads none of the events retained in the
 * segments, however many there are and however often the session has polled.
 */
class StreamCaughtUpPollTest extends StreamTestSupport {

    @Test
    void pollsOfACaughtUpConsumerReadNoRetainedEvents() throws Exception {
        String queue = "poll-caught-up";
        streams.subscribe(queue, "c", null);
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            expected.addAll(ids(appendMany(queue, 1000)));
        }
        List<String> received = new ArrayList<>();
        for (StreamBatch batch = streams.receive(queue, "c", null, 1000); !batch.isEmpty();
                batch = streams.receive(queue, "c", null, 1000)) {
            received.addAll(ids(batch));
            assertThat(streams.ack(queue, batch.batchId())).isTrue();
        }
        assertThat(received).containsExactlyElementsOf(expected);

        try (Connection connection = dataSource.getConnection()) {
            // one transaction that writes nothing, so that its counters add up and every receive may tick
            connection.setAutoCommit(false);
            // PL/pgSQL plans a statement with the actual arguments for its first five runs in a session, then may
            // keep a generic plan: the polls after those are the ones that show it
            for (int poll = 1; poll <= 12; poll++) {
                long before = eventRowsRead(connection, "s3q_" + queue);
                try (var statement = connection.prepareStatement(
                        "SELECT batch_id FROM \"s3q_" + queue + "\".stream_receive('c', '', 1000, NULL)");
                        var rows = statement.executeQuery()) {
                    assertThat(rows.next()).isTrue();
                    assertThat(rows.getObject(1)).as("poll %s", poll).isNull();
                }
                long read = eventRowsRead(connection, "s3q_" + queue) - before;
                assertThat(read).as("event rows read by poll %s of 20,000 retained events", poll).isLessThan(100);
            }
            connection.rollback();
        }
    }
}
