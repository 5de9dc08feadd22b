-- The jobs view: cancel, release, and the dead-letter actions (retry, delete).
INSERT INTO s3p.queue_templates (part, position, body) VALUES ('jobs.cancel', 15, $template$

-- The answer of a job action that did not apply (cancel, release): the job as it stands and false; no row when the
-- queue holds no such job.
CREATE OR REPLACE FUNCTION @schema@.job_unchanged(p_id uuid) RETURNS TABLE (job jsonb, ok boolean)
LANGUAGE plpgsql STABLE AS $fn$
BEGIN
    RETURN QUERY SELECT @schema@.envelope(j), false FROM @schema@.jobs j WHERE j.id = p_id;
END
$fn$;

CREATE OR REPLACE FUNCTION @schema@.cancel(p_id uuid) RETURNS TABLE (job jsonb, ok boolean)
LANGUAGE plpgsql AS $fn$
DECLARE
    j @schema@.jobs;
BEGIN
    UPDATE @schema@.jobs
    SET state = 'cancelled', cancelled_at = now(), finished_at = now(), lease_until = NULL, deadline_at = NULL
    WHERE id = p_id AND state IN ('scheduled', 'available', 'pending', 'active', 'retryable')
    RETURNING * INTO j;
    IF NOT FOUND THEN
        RETURN QUERY SELECT * FROM @schema@.job_unchanged(p_id);
        RETURN;
    END IF;
    PERFORM @schema@.emit('job.cancelled', j, '{}'::jsonb);
    IF j.workflow_id IS NOT NULL THEN
        PERFORM s3p.workflow_advance(j.id, 'failed', NULL);
    END IF;
    RETURN QUERY SELECT @schema@.envelope(j), true;
END
$fn$;

-- Hands an active job back unprocessed (a worker shutting down): available at once, the attempt not counted.
CREATE OR REPLACE FUNCTION @schema@.release(p_id uuid, p_worker text) RETURNS TABLE (job jsonb, ok boolean)
LANGUAGE plpgsql AS $fn$
DECLARE
    j @schema@.jobs;
BEGIN
    UPDATE @schema@.jobs
    SET state = 'available', attempt = greatest(attempt - 1, 0), worker_id = NULL, lease_until = NULL,
        deadline_at = NULL, started_at = NULL
    WHERE id = p_id AND state = 'active' AND (p_worker IS NULL OR worker_id IS NULL OR worker_id = p_worker)
    RETURNING * INTO j;
    IF NOT FOUND THEN
        RETURN QUERY SELECT * FROM @schema@.job_unchanged(p_id);
        RETURN;
    END IF;
    PERFORM nextval('@schema@.jobs_rewinds');
    PERFORM pg_notify('s3q_' || @queue@, 'jobs');
    RETURN QUERY SELECT @schema@.envelope(j), true;
END
$fn$;

CREATE OR REPLACE FUNCTION @schema@.retry_dead_letter(p_id uuid) RETURNS TABLE (job jsonb, ok boolean)
LANGUAGE plpgsql AS $fn$
DECLARE
    j @schema@.jobs;
BEGIN
    UPDATE @schema@.jobs
    SET state = 'available', attempt = 0, dead_letter = false, error = NULL, discarded_at = NULL,
        completed_at = NULL, finished_at = NULL, started_at = NULL, scheduled_at = NULL, retry_delay_ms = NULL,
        worker_id = NULL, enqueued_at = now()
    WHERE id = p_id AND dead_letter
    RETURNING * INTO j;
    IF FOUND THEN
        PERFORM nextval('@schema@.jobs_rewinds');
        PERFORM @schema@.emit('job.enqueued', j, jsonb_build_object('from_dead_letter', true));
        PERFORM pg_notify('s3q_' || @queue@, 'jobs');
        RETURN QUERY SELECT @schema@.envelope(j), true;
    END IF;
END
$fn$;

CREATE OR REPLACE FUNCTION @schema@.delete_dead_letter(p_id uuid) RETURNS TABLE (job jsonb, ok boolean)
LANGUAGE plpgsql AS $fn$
DECLARE
    j @schema@.jobs;
BEGIN
    DELETE FROM @schema@.jobs WHERE id = p_id AND dead_letter RETURNING * INTO j;
    IF FOUND THEN
        DELETE FROM s3p.job_locator WHERE s3p.job_locator.id = p_id;
        RETURN QUERY SELECT @schema@.envelope(j), true;
    END IF;
END
$fn$;

$template$)
ON CONFLICT (part) DO UPDATE SET position = excluded.position, body = excluded.body;
