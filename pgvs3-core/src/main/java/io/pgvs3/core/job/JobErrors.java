package io.pgvs3.core.job;

import java.sql.SQLException;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.pgvs3.core.error.ErrorCode;
import io.pgvs3.core.error.Pgvs3Exception;
import io.pgvs3.core.error.SqlErrors;

import org.springframework.dao.DataAccessException;

/** The OJS errors of the job operations, and PostgreSQL's refusals of an enqueue translated to them. */
final class JobErrors {

    /** The primary keys that make a job id unique: the locator's across queues, the job table's within one. */
    private static final Set<String> JOB_ID_KEYS = Set.of("job_locator_pkey", "jobs_pkey");

    private static final Pattern UUID_TEXT = Pattern.compile("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");

    private JobErrors() {
    }

    static Pgvs3Exception jobNotFound(String jobId) {
        return new Pgvs3Exception(ErrorCode.NOT_FOUND, "job " + jobId + " not found", Map.of("job_id", String.valueOf(jobId)));
    }

    static Pgvs3Exception notInDeadLetters(String jobId) {
        return Pgvs3Exception.notFound("job " + jobId + " is not in the dead-letter list");
    }

    static Pgvs3Exception duplicate(String jobId) {
        return new Pgvs3Exception(ErrorCode.DUPLICATE, "a job with id " + jobId + " already exists",
                Map.of("job_id", jobId));
    }

    static Pgvs3Exception notActive(Job job, String workerId, String action) {
        String reason = job.state() == JobState.ACTIVE
                ? "is leased to another worker than " + workerId
                : "is " + job.state().wireValue() + ", not active";
        return new Pgvs3Exception(ErrorCode.CONFLICT, "job " + job.id() + " cannot be " + action + ": it " + reason,
                Map.of("job_id", job.id(), "state", job.state().wireValue()));
    }

    /** A failed insert of jobs without unique keys: an id that exists already is 409 {@code duplicate}. */
    static RuntimeException ofInsert(DataAccessException ex) {
        SQLException sql = SqlErrors.sqlException(ex);
        if (sql != null && SqlErrors.UNIQUE_VIOLATION.equals(sql.getSQLState())
                && SqlErrors.constraint(sql) != null && JOB_ID_KEYS.contains(SqlErrors.constraint(sql))) {
            String detail = SqlErrors.detail(sql);
            Matcher id = detail == null ? null : UUID_TEXT.matcher(detail);
            return id != null && id.find() ? duplicate(id.group())
                    : new Pgvs3Exception(ErrorCode.DUPLICATE, "a job with one of these ids already exists", Map.of(), ex);
        }
        return unstorableText(ex);
    }

    /** A failed enqueue of unique jobs: one rejected on conflict is 409 {@code duplicate} naming the existing job. */
    static RuntimeException ofUniqueEnqueue(DataAccessException ex) {
        SQLException sql = SqlErrors.sqlException(ex);
        if (sql != null && SqlErrors.UNIQUE_JOB_CONFLICT.equals(sql.getSQLState())) {
            String existing = SqlErrors.detail(sql);
            return new Pgvs3Exception(ErrorCode.DUPLICATE, "a job with the same unique key already exists"
                    + (existing != null ? ": " + existing : ""),
                    existing != null ? Map.of("existing_job_id", existing) : Map.of(), ex);
        }
        // an id that exists in the queue its tag names (see s3p.job_id_free_elsewhere) is refused, not skipped
        return ofInsert(ex);
    }

    /**
     * PostgreSQL's refusal of text inside the job's JSON that Jackson accepts (such as {@code \u0000}) as a client
     * error; anything else unchanged.
     */
    static RuntimeException unstorableText(DataAccessException ex) {
        if (SqlErrors.hasState(ex, SqlErrors.UNSTORABLE_TEXT)) {
            return new Pgvs3Exception(ErrorCode.INVALID_PAYLOAD,
                    "args, meta, options or extra hold text PostgreSQL cannot store (such as U+0000)", Map.of(), ex);
        }
        return ex;
    }
}
