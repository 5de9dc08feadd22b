package io.pgvs3.core.job;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import io.pgvs3.core.UuidV7;
import io.pgvs3.core.catalog.QueueName;
import io.pgvs3.core.sql.Identifiers;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Prints the median wall and client CPU time of enqueueing 1000 jobs (256-byte args) per call and of one job per
 * call, by {@link JobStore#enqueueBatch} and by the JSON spec function {@code enqueue(jsonb)} that returns every
 * envelope (the path unique jobs take), interleaved round by round so that the load of a shared machine hits both
 * alike. A measurement, not a check: run it with {@code -Dpgvs3.measure=true}.
 */
@EnabledIfSystemProperty(named = "pgvs3.measure", matches = "true")
class JobEnqueueMeasurement extends JobStoreTestSupport {

    private static final int ROUNDS = Integer.getInteger("pgvs3.measure.rounds", 40);
    private static final String ARGS = "[{\"order_id\":\"0b6f3a52-3c0e-4b0e-9a51-1f0d1b2c3d4e\",\"customer_id\":"
            + "\"cus_4815162342\",\"currency\":\"EUR\",\"amount_cents\":129900,\"items\":[{\"sku\":\"SKU-100231\","
            + "\"qty\":2,\"price_cents\":49950},{\"sku\":\"SKU-200417\",\"qty\":1,\"price_cents\":30000}],"
            + "\"channel\":\"web\",\"note\":\"xxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"}]";

    private final JsonMapper mapper = JsonMapper.builder().build();
    private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();

    @Test
    void enqueue() {
        QueueName queue = QueueName.of("measure");
        List<NewJob> batch = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            batch.add(NewJob.builder("measure.job").queue(queue.value()).args(ARGS).build());
        }
        store.enqueueBatch(batch);
        measure("1000 per call", ROUNDS, () -> rowsPath(queue, batch), () -> specPath(queue, batch));
        List<NewJob> one = batch.subList(0, 1);
        measure("1 per call", ROUNDS * 20, () -> rowsPath(queue, one), () -> specPath(queue, one));
    }

    private void measure(String what, int rounds, Runnable rows, Runnable specs) {
        for (int i = 0; i < Math.max(20, rounds / 2); i++) {
            rows.run();
            specs.run();
        }
        long[][] wall = new long[2][rounds];
        long[][] cpu = new long[2][rounds];
        for (int i = 0; i < rounds; i++) {
            for (int path = 0; path < 2; path++) {
                long cpuStart = threads.getCurrentThreadCpuTime();
                long start = System.nanoTime();
                (path == 0 ? rows : specs).run();
                wall[path][i] = System.nanoTime() - start;
                cpu[path][i] = threads.getCurrentThreadCpuTime() - cpuStart;
            }
        }
        System.out.printf("MEASURE enqueue %s: typed arrays (enqueue_rows) wall %.2f ms, client CPU %.2f ms;"
                + " JSON spec (enqueue(jsonb)) wall %.2f ms, client CPU %.2f ms; median of %d rounds%n", what,
                median(wall[0]), median(cpu[0]), median(wall[1]), median(cpu[1]), rounds);
    }

    /** An enqueue of jobs without unique keys, without its notification. */
    private void rowsPath(QueueName queue, List<NewJob> jobs) {
        EnqueueRows rows = new EnqueueRows(mapper, queue);
        for (int i = 0; i < jobs.size(); i++) {
            rows.add(i + 1, jobs.get(i), UuidV7.generate().toString());
        }
        rows.insert(jdbc, false);
    }

    /** What an enqueue did before typed arrays: the JSON spec in, every envelope out and parsed. */
    private void specPath(QueueName queue, List<NewJob> jobs) {
        ArrayNode spec = mapper.createArrayNode();
        for (int i = 0; i < jobs.size(); i++) {
            spec.add(store.spec(jobs.get(i), UuidV7.generate().toString(), i + 1));
        }
        List<Job> created = new ArrayList<>(jobs.size());
        jdbc.query("SELECT e.ord, e.job::text, e.created FROM " + Identifiers.quote(queue.schema())
                + ".enqueue(?::jsonb, ?) e", rs -> {
                    created.add(Job.fromEnvelope((ObjectNode) mapper.readTree(rs.getString(2))));
                }, spec.toString(), false);
    }

    private static double median(long[] nanos) {
        long[] sorted = nanos.clone();
        Arrays.sort(sorted);
        return sorted[sorted.length / 2] / 1e6;
    }
}
