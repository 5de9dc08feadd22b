package io.pgvs3.core.stream;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The stream functions return a batch's rows in storage order, unsorted; a receive hands them out in sequence order
 * all the same, however the rows lie in the segment: here a later append's rows fill the space a rolled-back append
 * left (after a vacuum), in front of an earlier append's rows.
 */
class StreamReceiveOrderTest extends StreamTestSupport {

    private static final String QUEUE = "orderstorage";

    @Test
    void rowsStoredOutOfSequenceOrderAreReceivedInSequenceOrder() throws Exception {
        streams.subscribe(QUEUE, "c", null);
        streams.subscribe(QUEUE, "group", null);
        try (Connection connection = dataSource.getConnection()) {
            connection.setAutoCommit(false);
            try (Statement statement = connection.createStatement()) {
                statement.execute("SELECT 1 FROM s3q_orderstorage.stream_append("
                        + "(SELECT array_agg(gen_random_uuid()::text) FROM generate_series(1, 500)), ARRAY['t'], "
                        + "(SELECT array_agg('{\"pad\":\"' || repeat('x', 200) || '\"}') FROM generate_series(1, 500)), "
                        + "NULL, false)");
            }
            connection.rollback();
        }
        List<String> expected = ids(appendMany(QUEUE, 5));
        jdbc.execute("VACUUM s3q_orderstorage.stream_events_0");
        expected.addAll(ids(appendMany(QUEUE, 5)));
        List<Long> stored = jdbc.queryForList(
                "SELECT seq FROM s3q_orderstorage.stream_events_0 ORDER BY ctid", Long.class);
        assertThat(stored).as("the later append's rows lie in front of the earlier one's").hasSize(10)
                .isNotEqualTo(stored.stream().sorted().toList());

        StreamBatch batch = streams.receive(QUEUE, "c", null, 100);
        assertThat(ids(batch)).containsExactlyElementsOf(expected);
        assertThat(seqs(batch)).isSorted();
        // an outstanding batch read again
        assertThat(ids(streams.receive(QUEUE, "c", null, 100))).containsExactlyElementsOf(expected);
        // a member's batch: allocated, then read in a second transaction
        StreamBatch member = streams.receive(QUEUE, "group", "m0", 100);
        assertThat(ids(member)).containsExactlyElementsOf(expected);
        // ack and receive in one call, past the end
        assertThat(streams.ackAndReceive(QUEUE, batch.batchId(), "c", null, 100).isEmpty()).isTrue();
        // the SQL functions themselves return the rows as they lie
        List<Long> returned = new ArrayList<>();
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery(
                        "SELECT seq FROM s3q_orderstorage.stream_batch_read(" + member.batchId() + ")")) {
            while (rows.next()) {
                returned.add(rows.getLong(1));
            }
        }
        assertThat(returned).containsExactlyInAnyOrderElementsOf(seqs(member));
    }

    private static List<Long> seqs(StreamBatch batch) {
        return batch.messages().stream().map(ReceivedMessage::seq).toList();
    }
}
