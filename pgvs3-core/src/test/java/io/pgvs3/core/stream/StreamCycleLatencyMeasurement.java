package io.pgvs3.core.stream;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.Arrays;

import com.zaxxer.hikari.HikariDataSource;
import io.pgvs3.core.catalog.QueueCatalog;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Prints the median latency of one receive + ack cycle, with and without a {@code REPEATABLE READ} snapshot held
 * open on another connection. A measurement, not a check: run it with {@code -Dpgvs3.measure=true}.
 */
@EnabledIfSystemProperty(named = "pgvs3.measure", matches = "true")
class StreamCycleLatencyMeasurement extends StreamTestSupport {

    private static final int CYCLES = Integer.getInteger("pgvs3.measure.cycles", 6000);
    private static final int WINDOW = 1000;

    @Test
    void receiveAndAckLatency() throws Exception {
        measure("free", false);
        measure("held", true);
    }

    private void measure(String queue, boolean holdSnapshot) throws Exception {
        try (HikariDataSource single = database.newDataSource(1); Connection holder = dataSource.getConnection()) {
            JdbcTemplate one = new JdbcTemplate(single);
            StreamStore store = new StreamStore(one, new QueueCatalog(one));
            store.subscribe(queue, "c", null);
            if (holdSnapshot) {
                holder.setAutoCommit(false);
                holder.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
                try (Statement statement = holder.createStatement();
                        ResultSet rs = statement.executeQuery("SELECT count(*) FROM s3p.queues")) {
                    rs.next();
                }
            }
            long[] nanos = new long[CYCLES];
            for (int i = 0; i < CYCLES; i++) {
                store.append(queue, NewStreamMessage.of("t", "{\"i\":" + i + "}"));
                long started = System.nanoTime();
                StreamBatch batch = store.receive(queue, "c", null, 100);
                store.ack(queue, batch.batchId());
                nanos[i] = System.nanoTime() - started;
            }
            if (holdSnapshot) {
                holder.rollback();
            }
            System.out.printf("MEASURE %s snapshot: receive+ack median first %d cycles %.3f ms, last %d cycles %.3f ms,"
                    + " all %.3f ms (%d cycles)%n", holdSnapshot ? "held" : "no", WINDOW,
                    median(Arrays.copyOfRange(nanos, 0, WINDOW)), WINDOW,
                    median(Arrays.copyOfRange(nanos, CYCLES - WINDOW, CYCLES)), median(nanos), CYCLES);
        }
    }

    /**
     * Events per second received and acked from atomic appends of 1,000, with a receive max of 1,000 and of 100: with
     * a tick after every append (as the ticker makes them for a lagging consumer), and as one range of 20 appends.
     */
    @Test
    void receiveAndAckThroughputOfLargeRanges() {
        boolean oneRange = Boolean.parseBoolean(System.getProperty("pgvs3.measure.one-range", "true"));
        int[] maxes = Arrays.stream(System.getProperty("pgvs3.measure.maxes", "1000,100,1000,100").split(","))
                .mapToInt(Integer::parseInt).toArray();
        for (boolean ticked : oneRange ? new boolean[] { true, false } : new boolean[] { true }) {
            for (int max : maxes) {
                String queue = "range-" + ticked + "-" + max + "-" + System.nanoTime();
                streams.subscribe(queue, "c", null);
                for (int i = 0; i < 20; i++) {
                    appendMany(queue, 1000);
                    if (ticked) {
                        streams.tick(queue, 1);
                    }
                }
                long started = System.nanoTime();
                int received = 0;
                int batches = 0;
                for (StreamBatch batch = streams.receive(queue, "c", null, max); !batch.isEmpty();
                        batch = streams.receive(queue, "c", null, max)) {
                    received += batch.messages().size();
                    streams.ack(queue, batch.batchId());
                    batches++;
                }
                double seconds = (System.nanoTime() - started) / 1e9;
                System.out.printf("MEASURE %s, max %d: %d events in %d batches, %.0f events/s, %.3f ms per receive+ack%n",
                        ticked ? "tick per append of 1000" : "one range of 20000", max, received, batches,
                        received / seconds, seconds * 1000 / batches);
            }
        }
    }

    private static double median(long[] values) {
        long[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[sorted.length / 2] / 1_000_000.0;
    }
}
