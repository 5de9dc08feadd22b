package io.pgvs3.core.job;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

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
