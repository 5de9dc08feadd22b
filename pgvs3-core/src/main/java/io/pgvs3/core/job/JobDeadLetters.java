package io.pgvs3.core.job;

import java.util.List;

import io.pgvs3.core.catalog.QueueName;
import io.pgvs3.core.job.AckBatcher.AckOutcome;

import org.springframework.jdbc.core.JdbcTemplate;

/** The dead-letter list of job queues: jobs discarded with their policy's {@code on_exhaustion} of dead letter. */
public class JobDeadLetters {

    static final String LIST_SQL = "SELECT d::text FROM s3p.dead_letter_jobs(?, ?, ?) d";

    static final String RETRY_SQL = "SELECT a.job::text, a.ok FROM s3p.job_action('retry_dead_letter', ?) a";

    static final String DELETE_SQL = "SELECT a.job::text, a.ok FROM s3p.job_action('delete_dead_letter', ?) a";

    private final JdbcTemplate jdbc;
    private final JobEventLog events;

    public JobDeadLetters(JdbcTemplate jdbc, JobEventLog events) {
        this.jdbc = jdbc;
        this.events = events;
    }

    /** Dead-lettered jobs of one queue, or of all queues when {@code queue} is null, oldest first. */
    public List<Job> list(String queue, int limit, int offset) {
        String name = queue == null ? null : QueueName.of(queue).value();
        return jdbc.query(LIST_SQL, (rs, row) -> Job.fromEnvelopeText(rs.getString(1)), name, limit, offset);
    }

    /** Makes a dead-lettered job available again with its attempt count reset. */
    public Job retry(String jobId) {
        return action(RETRY_SQL, jobId);
    }

    /** Deletes a dead-lettered job; answers it as it was. */
    public Job delete(String jobId) {
        return action(DELETE_SQL, jobId);
    }

    private Job action(String sql, String jobId) {
        AckOutcome outcome = JobActions.single(jdbc, events, sql, JobActions.jobUuid(jobId));
        if (outcome == null) {
            throw JobErrors.notInDeadLetters(jobId);
        }
        return outcome.job();
    }
}
