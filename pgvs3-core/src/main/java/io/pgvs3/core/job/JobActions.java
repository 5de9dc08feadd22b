package io.pgvs3.core.job;

import java.util.List;
import java.util.Optional;
import java.util.UUID;

import io.pgvs3.core.job.AckBatcher.AckOutcome;

import org.springframework.jdbc.core.JdbcTemplate;

/** What the job stores share to run one action on one job by id ({@code s3p.job_action}). */
final class JobActions {

    private JobActions() {
    }

    /** Runs a statement answering {@code (job::text, ok)} for one job; null when it found no job. */
    static AckOutcome single(JdbcTemplate jdbc, JobEventLog events, String sql, Object... args) {
        List<AckOutcome> rows = jdbc.query(sql,
                (rs, row) -> new AckOutcome(Job.fromEnvelopeText(rs.getString(1)), rs.getBoolean(2)), args);
        events.transitioned();
        return rows.isEmpty() ? null : rows.get(0);
    }

    /** A job id as a UUID; empty for anything that cannot be one (such a job does not exist). */
    static Optional<UUID> parseUuid(String value) {
        if (value == null || value.length() != 36) {
            return Optional.empty();
        }
        try {
            return Optional.of(UUID.fromString(value));
        }
        catch (IllegalArgumentException ex) {
            return Optional.empty();
        }
    }

    /** A job id as a UUID, or 404 {@code not_found}. */
    static UUID jobUuid(String jobId) {
        return parseUuid(jobId).orElseThrow(() -> JobErrors.jobNotFound(jobId));
    }
}
