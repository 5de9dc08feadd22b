package io.pgvs3.core.job;

import java.util.LinkedHashMap;
import java.util.Map;

import io.pgvs3.core.catalog.QueueCatalog;
import io.pgvs3.core.catalog.QueueName;
import io.pgvs3.core.error.Pgvs3Exception;
import io.pgvs3.core.sql.QueueStatement;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.jdbc.core.JdbcTemplate;

/** Administration of job queues: pausing, rate limits, statistics, and the reset of the job tables. */
public class JobQueues {

    /**
     * Counts of the stats route are exact up to this many jobs per state; a state with more is estimated (see
     * {@link #stats}), so a large queue costs no full count.
     */
    public static final int STATS_CAP = 1_000;


    static final QueueStatement PAUSE_SQL = QueueStatement.of("UPDATE {job_settings} SET paused = ?");

    static final QueueStatement RATE_LIMIT_SQL = QueueStatement.of(
            "UPDATE {job_settings} SET rate_limit_per_second = ?,"
            + " tokens = coalesce(?, 0), refilled_at = clock_timestamp()");

    static final QueueStatement STATS_SQL = QueueStatement.of("SELECT {stats}(?)::text");

    static final String DELETE_ALL_SQL = "TRUNCATE s3p.job_locator, s3p.job_events, s3p.workflows, s3p.workflow_jobs";

    private final JdbcTemplate jdbc;
    private final QueueCatalog catalog;
    private final JobEventLog events;
    private final JsonMapper mapper = JsonMapper.builder().build();

    public JobQueues(JdbcTemplate jdbc, QueueCatalog catalog, JobEventLog events) {
        this.jdbc = jdbc;
        this.catalog = catalog;
        this.events = events;
    }

    /** Pauses a queue: fetches hand out none of its jobs until it is resumed; enqueueing still works. */
    public Map<String, Object> pause(String queue) {
        return setPaused(QueueName.of(queue), true);
    }

    public Map<String, Object> resume(String queue) {
        return setPaused(QueueName.of(queue), false);
    }

    private Map<String, Object> setPaused(QueueName queue, boolean paused) {
        catalog.withQueue(queue, () -> jdbc.update(PAUSE_SQL.in(queue.schema()), paused));
        return stats(queue.value());
    }

    /** Limits how many jobs fetches may claim from a queue per second; null removes the limit. */
    public void rateLimit(String queue, Double perSecond) {
        QueueName name = QueueName.of(queue);
        if (perSecond != null && !(perSecond > 0)) {
            throw Pgvs3Exception.invalidRequest("rate limit must be positive", "max_per_second");
        }
        catalog.withQueue(name, () -> jdbc.update(RATE_LIMIT_SQL.in(name.schema()), perSecond, perSecond));
    }

    /**
     * Jobs per state of a queue, each counted by an index scan of its partial index that stops after
     * {@link #STATS_CAP} + 1 rows: a count up to the cap is exact, a larger one is the planner's estimate (at least
     * the cap + 1) and its state is listed in {@code estimated}; plus {@code paused} and the rate limit.
     */
    public Map<String, Object> stats(String queue) {
        QueueName name = QueueName.of(queue);
        if (!catalog.exists(name)) {
            throw Pgvs3Exception.notFound("queue '" + queue + "' does not exist");
        }
        String json = catalog.withQueue(name,
                () -> jdbc.queryForObject(STATS_SQL.in(name.schema()), String.class, STATS_CAP));
        Map<String, Object> stats = new LinkedHashMap<>();
        stats.put("name", name.value());
        mapper.readTree(json).properties().forEach(field -> stats.put(field.getKey(), field.getValue()));
        return stats;
    }

    /** Empties the s3p-level job tables (for the test-only admin reset, after every queue was dropped). */
    public void deleteAll() {
        jdbc.execute(DELETE_ALL_SQL);
        events.eventStreams().syncTriggers();
    }

}
