-- The jobs view: a job row as its OJS envelope, and the job event every transition records.
INSERT INTO s3p.queue_templates (part, position, body) VALUES ('jobs.rows', 11, $template$

-- The hot-path functions (enqueue, claim, ack) run with plan_cache_mode = force_generic_plan. Their statements are
-- written so that the generic plan is the right one (primary-key probes for the jobs they name, the claim order
-- index for the head of the queue), and a custom plan would be re-planned on every call: the cost of planning the
-- inlined envelope alone is several times the cost of running the statement.

-- The OJS envelope of a job: unknown top-level fields the client sent, overlaid by every system field.
CREATE OR REPLACE FUNCTION @schema@.envelope(j @schema@.jobs) RETURNS jsonb
LANGUAGE sql STABLE AS $fn$
    SELECT coalesce(j.extra, '{}'::jsonb)
        || jsonb_strip_nulls(jsonb_build_object(
            'specversion', '1.0',
            'id', j.id,
            'type', j.type,
            'queue', @queue@,
            'state', j.state,
            'priority', j.priority,
            'attempt', j.attempt,
            'max_attempts', j.max_attempts,
            'timeout_ms', j.timeout_ms,
            'visibility_timeout_ms', j.visibility_timeout_ms,
            'created_at', s3p.ts(j.created_at),
            'enqueued_at', s3p.ts(j.enqueued_at),
            'scheduled_at', s3p.ts(j.scheduled_at),
            'expires_at', s3p.ts(j.expires_at),
            'started_at', s3p.ts(j.started_at),
            'completed_at', s3p.ts(j.completed_at),
            'cancelled_at', s3p.ts(j.cancelled_at),
            'discarded_at', s3p.ts(j.discarded_at),
            'next_attempt_at', CASE WHEN j.state = 'retryable' THEN s3p.ts(j.scheduled_at) END,
            'retry_delay_ms', j.retry_delay_ms,
            'worker_id', CASE WHEN j.state = 'active' THEN j.worker_id END,
            'lease_expires_at', CASE WHEN j.state = 'active' THEN s3p.ts(j.lease_until) END,
            'dead_letter', CASE WHEN j.dead_letter THEN true END,
            'workflow_id', j.workflow_id,
            'retry', j.retry))
        || jsonb_build_object('args', j.args, 'errors', j.errors)
        || CASE WHEN j.meta IS NULL THEN '{}'::jsonb ELSE jsonb_build_object('meta', j.meta) END
        || CASE WHEN j.options IS NULL OR NOT j.options ? 'tags' THEN '{}'::jsonb
                ELSE jsonb_build_object('tags', j.options -> 'tags') END
        || CASE WHEN j.result IS NULL THEN '{}'::jsonb ELSE jsonb_build_object('result', j.result) END
        || CASE WHEN j.error IS NULL THEN '{}'::jsonb ELSE jsonb_build_object('error', j.error) END
$fn$;

CREATE OR REPLACE FUNCTION @schema@.emit(p_type text, j @schema@.jobs, p_data jsonb) RETURNS void
LANGUAGE sql AS $fn$
    INSERT INTO s3p.job_events (type, queue, job_id, data)
    VALUES (p_type, @queue@, j.id, jsonb_build_object('job_id', j.id, 'job_type', j.type, 'queue', @queue@,
                                                      'state', j.state, 'attempt', j.attempt) || p_data)
$fn$;

$template$)
ON CONFLICT (part) DO UPDATE SET position = excluded.position, body = excluded.body;
