package io.pgvs3.core.job;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

import io.pgvs3.core.ResourceNames;
import io.pgvs3.core.error.Pgvs3Exception;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.RowMapper;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Cron registrations ({@code s3p.crons}) and their firing. {@link #fireDue()} locks due rows with
 * {@code FOR UPDATE SKIP LOCKED}, enqueues each one's job and moves {@code next_run_at} to the first occurrence
 * after now, all in one transaction: each occurrence fires on exactly one instance, and occurrences missed while no
 * instance ran fire once. With overlap policy {@code skip} (the default) an occurrence is skipped while the job of the
 * previous one has not finished.
 */
public class CronStore {

    public static final Set<String> OVERLAP_POLICIES = Set.of("skip", "allow");

    private static final String COLUMNS = "name, expression, timezone, overlap_policy, enabled, queue,"
            + " job_template::text, next_run_at, last_run_at, last_job_id::text, created_at";

    static final String REGISTER_SQL = "INSERT INTO s3p.crons (name, expression, timezone, overlap_policy, job_template,"
            + " queue, next_run_at) VALUES (?, ?, ?, ?, ?::jsonb, ?, ?) ON CONFLICT (name) DO UPDATE SET"
            + " expression = excluded.expression, timezone = excluded.timezone,"
            + " overlap_policy = excluded.overlap_policy, job_template = excluded.job_template,"
            + " queue = excluded.queue, next_run_at = excluded.next_run_at, enabled = true, updated_at = now()"
            + " RETURNING " + COLUMNS;

    static final String LIST_SQL = "SELECT " + COLUMNS + " FROM s3p.crons ORDER BY name";

    static final String GET_SQL = "SELECT " + COLUMNS + " FROM s3p.crons WHERE name = ?";

    static final String DELETE_SQL = "DELETE FROM s3p.crons WHERE name = ? RETURNING " + COLUMNS;

    static final String SET_ENABLED_SQL = "UPDATE s3p.crons SET enabled = ?, next_run_at = ?, updated_at = now()"
            + " WHERE name = ? RETURNING " + COLUMNS;

    /** Up to 100 due crons, locked by this pass; another instance's pass skips them. */
    static final String CLAIM_DUE_SQL = "SELECT " + COLUMNS + " FROM s3p.crons WHERE enabled AND next_run_at <= now()"
            + " ORDER BY next_run_at LIMIT 100 FOR UPDATE SKIP LOCKED";

    static final String FIRED_SQL = "UPDATE s3p.crons SET next_run_at = ?, last_run_at = now(), last_job_id = ?::uuid,"
            + " updated_at = now() WHERE name = ?";

    static final String DELETE_ALL_SQL = "DELETE FROM s3p.crons";

    private final JdbcTemplate jdbc;
    private final Function<String, JobStore> jobsByQueue;
    private final Function<JsonNode, NewJob> templateParser;
    private final TransactionTemplate transactions;
    private final JsonMapper mapper = JsonMapper.builder().build();
    private final RowMapper<Cron> rowMapper = this::cron;

    /** Crons whose occurrences go to {@code jobs}, their templates read as OJS job envelopes. */
    public CronStore(JdbcTemplate jdbc, JobStore jobs) {
        this(jdbc, JobRequests::parse, queue -> jobs);
    }

    /** As {@link #CronStore(JdbcTemplate, Function, Function)}, templates read as OJS job envelopes. */
    public CronStore(JdbcTemplate jdbc, Function<String, JobStore> jobsByQueue) {
        this(jdbc, JobRequests::parse, jobsByQueue);
    }

    /**
     * @param templateParser turns a job template (an OJS job envelope) into a job, validating it
     */
    public CronStore(JdbcTemplate jdbc, JobStore jobs, Function<JsonNode, NewJob> templateParser) {
        this(jdbc, templateParser, queue -> jobs);
    }

    /**
     * For queues spread over several clusters: the crons live in this catalog, each occurrence's job goes to the
     * store of its queue. An enqueue on another database commits on its own, before the cron row moves on: if this
     * transaction then fails, the occurrence fires again on the next pass.
     *
     * @param jobsByQueue the job store holding a queue
     */
    public CronStore(JdbcTemplate jdbc, Function<JsonNode, NewJob> templateParser,
            Function<String, JobStore> jobsByQueue) {
        this.jdbc = jdbc;
        this.jobsByQueue = jobsByQueue;
        this.templateParser = templateParser;
        this.transactions = new TransactionTemplate(new DataSourceTransactionManager(jdbc.getDataSource()));
    }

    /** Registers a cron, or replaces the one of that name. */
    public Cron register(String name, String expression, String timezone, String overlapPolicy, JsonNode jobTemplate) {
        ResourceNames.require(name, "name");
        String policy = overlapPolicy == null ? "skip" : overlapPolicy;
        if (!OVERLAP_POLICIES.contains(policy)) {
            throw Pgvs3Exception.invalidRequest("overlap_policy must be skip or allow", "overlap_policy");
        }
        CronSchedule schedule = CronSchedule.parse(expression, timezone);
        if (jobTemplate == null || !jobTemplate.isObject()) {
            throw Pgvs3Exception.invalidRequest("'job_template' must be a job envelope object", "job_template");
        }
        NewJob job = templateParser.apply(jobTemplate);
        return jdbc.queryForObject(REGISTER_SQL, rowMapper, name, schedule.expression(), schedule.zone().getId(), policy,
                jobTemplate.toString(), job.queue().value(), Timestamp.from(schedule.next(Instant.now())));
    }

    public List<Cron> list() {
        return jdbc.query(LIST_SQL, rowMapper);
    }

    /** The cron of that name; a name no cron could have is a 400, as on {@link #register}. */
    public Optional<Cron> get(String name) {
        ResourceNames.require(name, "name");
        return jdbc.query(GET_SQL, rowMapper, name).stream().findFirst();
    }

    public Cron delete(String name) {
        ResourceNames.require(name, "name");
        return jdbc.query(DELETE_SQL, rowMapper, name).stream()
                .findFirst().orElseThrow(() -> Pgvs3Exception.notFound("cron '" + name + "' not found"));
    }

    /**
     * Enables or disables a cron. Enabling schedules its next run from now, so a cron that was off for a while
     * does not fire at once for the occurrence it missed.
     */
    public Cron setEnabled(String name, boolean enabled) {
        Cron cron = get(name).orElseThrow(() -> Pgvs3Exception.notFound("cron '" + name + "' not found"));
        Instant next = enabled && !cron.enabled()
                ? CronSchedule.parse(cron.expression(), cron.timezone()).next(Instant.now()) : cron.nextRunAt();
        return jdbc.query(SET_ENABLED_SQL, rowMapper, enabled, Timestamp.from(next), name).stream().findFirst()
                .orElseThrow(() -> Pgvs3Exception.notFound("cron '" + name + "' not found"));
    }

    /** Fires every due cron once; returns how many occurrences were handled (fired or skipped). */
    public long fireDue() {
        Long handled = transactions.execute(status -> {
            List<Cron> due = jdbc.query(CLAIM_DUE_SQL, rowMapper);
            for (Cron cron : due) {
                String jobId = cron.lastJobId();
                if (!overlapping(cron)) {
                    NewJob job = templateParser.apply(cron.jobTemplate());
                    jobId = jobsByQueue.apply(job.queue().value()).enqueue(job).id();
                }
                Instant next = CronSchedule.parse(cron.expression(), cron.timezone()).next(Instant.now());
                jdbc.update(FIRED_SQL, Timestamp.from(next), jobId, cron.name());
            }
            return (long) due.size();
        });
        return handled == null ? 0 : handled;
    }

    public void deleteAll() {
        jdbc.update(DELETE_ALL_SQL);
    }

    private boolean overlapping(Cron cron) {
        if (!"skip".equals(cron.overlapPolicy()) || cron.lastJobId() == null) {
            return false;
        }
        return jobsByQueue.apply(cron.queue()).get(cron.lastJobId()).map(job -> !job.state().isTerminal()).orElse(false);
    }

    private Cron cron(ResultSet rs, int row) throws SQLException {
        Timestamp lastRun = rs.getTimestamp("last_run_at");
        return new Cron(rs.getString("name"), rs.getString("expression"), rs.getString("timezone"),
                rs.getString("overlap_policy"), rs.getBoolean("enabled"), rs.getString("queue"),
                mapper.readTree(rs.getString("job_template")), rs.getTimestamp("next_run_at").toInstant(),
                lastRun == null ? null : lastRun.toInstant(), rs.getString("last_job_id"),
                rs.getTimestamp("created_at").toInstant());
    }
}
