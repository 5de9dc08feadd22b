package io.pgvs3.core.job;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import org.springframework.jdbc.core.ConnectionCallback;

import static io.pgvs3.core.job.JobQueues.STATS_CAP;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/** The counts per state of a queue's stats: exact up to {@link JobQueues#STATS_CAP}, estimated above it. */
class JobQueueStatsTest extends JobStoreTestSupport {

    @Test
    void aStateWithUpToTheCapIsCountedExactly() {
        enqueue("stats-at-cap", STATS_CAP);
        store.fetch(List.of("stats-at-cap"), 2, "w", Duration.ofMinutes(1));

        Map<String, Object> stats = queues.stats("stats-at-cap");

        assertThat(count(stats, "available")).isEqualTo(STATS_CAP - 2);
        assertThat(count(stats, "active")).isEqualTo(2);
        assertThat(count(stats, "completed")).isZero();
        assertThat(estimated(stats)).isEmpty();
    }

    @Test
    void aStateWithMoreJobsThanTheCapIsEstimatedNeverBelowTheCapAndListedAsEstimated() {
        enqueue("stats-above-cap", STATS_CAP + 500);
        store.fetch(List.of("stats-above-cap"), 3, "w", Duration.ofMinutes(1));

        Map<String, Object> before = queues.stats("stats-above-cap");
        assertThat(count(before, "available")).isGreaterThan(STATS_CAP);
        assertThat(count(before, "active")).isEqualTo(3);
        assertThat(estimated(before)).containsExactly("available");

        jdbc.execute("ANALYZE \"s3q_stats-above-cap\".jobs");
        Map<String, Object> analysed = queues.stats("stats-above-cap");
        assertThat(count(analysed, "available")).isCloseTo(STATS_CAP + 497, within(50L));
        assertThat(estimated(analysed)).containsExactly("available");
        assertThat(analysed).containsKeys("name", "paused", "rate_limit_per_second");
    }

    @Test
    void countingATableNeverAnalysedScansNoTableAndNoWholeIndex() {
        enqueue("stats-unanalysed", STATS_CAP + 500);
        // before its first analysis the planner guessed its way to a sequential scan of every job for the dead-letter
        // count, and to bitmap scans, which read every entry of a partial index before the LIMIT can stop them
        assertThat(jdbc.queryForList("SELECT unnest(proconfig) FROM pg_proc"
                + " WHERE oid = '\"s3q_stats-unanalysed\".stats(integer)'::regprocedure", String.class))
                .contains("enable_seqscan=off", "enable_bitmapscan=off", "jit=off");
        long sequentialScans = jdbc.execute((ConnectionCallback<Long>) connection -> {
            connection.setAutoCommit(false);
            try (Statement statement = connection.createStatement()) {
                // the backend's counts not yet reported (earlier transactions' too), read before and after the call
                long before = sequentialScans(statement);
                statement.execute("SELECT \"s3q_stats-unanalysed\".stats(" + STATS_CAP + ")");
                return sequentialScans(statement) - before;
            }
            finally {
                connection.rollback();
                connection.setAutoCommit(true);
            }
        });
        assertThat(sequentialScans).isZero();
    }

    private static long sequentialScans(Statement statement) throws SQLException {
        try (ResultSet rs = statement.executeQuery("SELECT seq_scan FROM pg_stat_xact_user_tables"
                + " WHERE relid = '\"s3q_stats-unanalysed\".jobs'::regclass")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private void enqueue(String queue, int jobs) {
        for (int from = 0; from < jobs; from += 1000) {
            store.enqueueBatch(IntStream.range(from, Math.min(jobs, from + 1000))
                    .mapToObj(i -> NewJob.builder("stats.job").queue(queue).build()).toList());
        }
    }

    private static long count(Map<String, Object> stats, String state) {
        return ((JsonNode) stats.get(state)).asLong();
    }

    private static List<String> estimated(Map<String, Object> stats) {
        return ((JsonNode) stats.get("estimated")).valueStream().map(JsonNode::asString).toList();
    }
}
