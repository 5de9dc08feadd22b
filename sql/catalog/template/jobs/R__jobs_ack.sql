-- The jobs view: what a worker reports about a job it holds: ack, nack (with the retry policy's back-off and
-- dead-lettering) and heartbeat.
INSERT INTO s3p.queue_templates (part, position, body) VALUES ('jobs.ack', 14, $template$

-- Completes jobs that are active under the given worker (a null worker, on either side, matches any lease).
-- Returns a row per input position naming a job of this queue: ok with the completed job's row (null unless
-- p_rows), or the job's row as it is when it was not active. The caller builds what it answers from the row (the
-- Java client builds the envelope itself, as for a fetch); ack below answers envelopes for s3p.ack_jobs.
-- Both parts must be primary-key probes per job, whatever the statistics say. A constant state = 'active' would let
-- the planner walk the partial lease index instead (every active job of every worker, per ack) whenever the
-- statistics were gathered while few jobs were active; compared with a column of the input it cannot, and the
-- id = ANY conditions give the probes an index condition when the input's size is unknown to a cached plan.
CREATE OR REPLACE FUNCTION @schema@.ack_rows(p_ids uuid[], p_results jsonb[], p_workers text[],
                                             p_rows boolean DEFAULT true)
RETURNS TABLE (ord integer, ok boolean, job @schema@.jobs)
LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $fn$
#variable_conflict use_column
DECLARE
    r      record;
    v_done integer[] := '{}';
BEGIN
    FOR r IN
        -- materialised, so that acked_state stays a column of the input and never becomes a constant (see above)
        WITH input AS MATERIALIZED (
            SELECT t.id, t.result, t.worker, t.n::integer AS n, 'active'::text AS acked_state
            FROM unnest(p_ids, p_results, p_workers) WITH ORDINALITY AS t(id, result, worker, n)
        ), completed AS (
            UPDATE @schema@.jobs j
            SET state = 'completed', result = i.result, error = NULL, completed_at = now(), finished_at = now(),
                lease_until = NULL, deadline_at = NULL
            FROM input i
            WHERE j.id = ANY (p_ids) AND j.id = i.id AND j.state = i.acked_state
              AND (i.worker IS NULL OR j.worker_id IS NULL OR j.worker_id = i.worker)
            RETURNING i.n, CASE WHEN p_rows THEN j END AS acked, j.id, j.type, j.attempt, j.worker_id, j.workflow_id,
                      j.result, floor(extract(epoch FROM j.completed_at - j.started_at) * 1000)::bigint AS duration_ms
        ), events AS (
            INSERT INTO s3p.job_events (type, queue, job_id, job_type, state, attempt, worker_id, duration_ms)
            SELECT 'job.completed', @queue@, c.id, c.type, 'completed', c.attempt, c.worker_id, c.duration_ms
            FROM completed c
        )
        SELECT c.n, c.acked, c.id, c.workflow_id, c.result FROM completed c
    LOOP
        ord := r.n;
        ok := true;
        job := r.acked;
        v_done := v_done || r.n;
        RETURN NEXT;
        IF r.workflow_id IS NOT NULL THEN
            PERFORM s3p.workflow_advance(r.id, 'completed', r.result);
        END IF;
    END LOOP;
    -- the rest, looked up only when some ack did not apply (the usual batch completes every job it names)
    IF cardinality(v_done) < cardinality(p_ids) THEN
        RETURN QUERY
        SELECT t.n::integer, false, j
        FROM unnest(p_ids) WITH ORDINALITY AS t(id, n)
        JOIN @schema@.jobs j ON j.id = t.id
        WHERE j.id = ANY (p_ids) AND t.n::integer <> ALL (v_done);
    END IF;
END
$fn$;

-- ack_rows answered as envelopes, for s3p.ack_jobs: ok with the completed job (without it unless p_envelopes), or
-- the job as it is when it was not active.
CREATE OR REPLACE FUNCTION @schema@.ack(p_ids uuid[], p_results jsonb[], p_workers text[],
                                        p_envelopes boolean DEFAULT true)
RETURNS TABLE (ord integer, job jsonb, ok boolean)
LANGUAGE sql AS $fn$
    SELECT a.ord, CASE WHEN (a.job).id IS NOT NULL THEN @schema@.envelope(a.job) END, a.ok
    FROM @schema@.ack_rows(p_ids, p_results, p_workers, p_envelopes) a
$fn$;

-- Whether an error is final under a retry policy: the error says it is not retryable, or its code, type or
-- details.error_class matches non_retryable_errors (exactly, or by prefix for an entry ending in '*').
CREATE OR REPLACE FUNCTION @schema@.non_retryable(p_retry jsonb, p_error jsonb) RETURNS boolean
LANGUAGE sql IMMUTABLE AS $fn$
    SELECT coalesce(p_error ->> 'retryable', '') = 'false'
        OR EXISTS (
            SELECT 1
            FROM jsonb_array_elements_text(coalesce(p_retry -> 'non_retryable_errors', '[]'::jsonb)) AS p(pattern),
                 unnest(ARRAY[p_error ->> 'code', p_error ->> 'type', p_error -> 'details' ->> 'error_class']) AS n(name)
            WHERE n.name IS NOT NULL
              AND CASE WHEN right(p.pattern, 1) = '*' THEN starts_with(n.name, rtrim(p.pattern, '*'))
                       ELSE n.name = p.pattern END)
$fn$;

-- The delay before retry number p_attempt (the attempt that just failed) under a retry policy, in ms.
CREATE OR REPLACE FUNCTION @schema@.backoff_ms(p_retry jsonb, p_attempt integer) RETURNS bigint
LANGUAGE plpgsql VOLATILE AS $fn$
DECLARE
    v_initial double precision := coalesce((p_retry ->> 'initial_interval_ms')::double precision, 1000);
    v_coef    double precision := coalesce((p_retry ->> 'backoff_coefficient')::double precision, 2);
    v_max     double precision := coalesce((p_retry ->> 'max_interval_ms')::double precision, 300000);
    v_delay   double precision;
BEGIN
    BEGIN
        v_delay := CASE coalesce(p_retry ->> 'backoff_strategy', 'exponential')
            WHEN 'constant' THEN v_initial
            WHEN 'linear' THEN v_initial * p_attempt
            WHEN 'polynomial' THEN v_initial * power(p_attempt, v_coef)
            ELSE v_initial * power(v_coef, greatest(p_attempt - 1, 0))
        END;
    EXCEPTION WHEN numeric_value_out_of_range THEN
        -- the curve left the range of double precision (many attempts, a large coefficient): far past the cap
        v_delay := v_max;
    END;
    v_delay := least(v_delay, v_max);
    IF coalesce((p_retry ->> 'jitter')::boolean, false) THEN
        v_delay := least(v_delay * (0.5 + random()), v_max);
    END IF;
    RETURN round(v_delay)::bigint;
END
$fn$;

-- Records a failure of an active, locked job and moves it on: back to available when requeued, retryable with a
-- back-off while attempts remain and the error is retryable, else discarded (dead-lettered if the policy says so).
CREATE OR REPLACE FUNCTION @schema@.fail(p_id uuid, p_error jsonb, p_requeue boolean) RETURNS @schema@.jobs
LANGUAGE plpgsql AS $fn$
DECLARE
    j       @schema@.jobs;
    v_error jsonb;
    v_delay bigint;
BEGIN
    SELECT * INTO j FROM @schema@.jobs WHERE id = p_id;
    v_error := jsonb_strip_nulls(jsonb_build_object(
        'code', coalesce(p_error ->> 'code', 'handler_error'),
        'type', coalesce(p_error ->> 'type', p_error -> 'details' ->> 'error_class', p_error ->> 'code', 'handler_error'),
        'message', coalesce(p_error ->> 'message', ''),
        'retryable', p_error -> 'retryable',
        'attempt', j.attempt,
        'occurred_at', s3p.ts(now())))
        || CASE WHEN p_error ? 'details' THEN jsonb_build_object('details', p_error -> 'details') ELSE '{}'::jsonb END;
    IF p_requeue THEN
        UPDATE @schema@.jobs
        SET state = 'available', error = v_error, errors = errors || v_error, worker_id = NULL, lease_until = NULL,
            deadline_at = NULL
        WHERE id = p_id RETURNING * INTO j;
        PERFORM nextval('@schema@.jobs_rewinds');
        PERFORM @schema@.emit('job.requeued', j, jsonb_build_object('error', v_error));
    ELSIF j.attempt >= j.max_attempts OR @schema@.non_retryable(j.retry, p_error) THEN
        UPDATE @schema@.jobs
        SET state = 'discarded', error = v_error, errors = errors || v_error, lease_until = NULL, deadline_at = NULL,
            dead_letter = coalesce(retry ->> 'on_exhaustion', 'discard') = 'dead_letter',
            discarded_at = now(), completed_at = now(), finished_at = now(), retry_delay_ms = NULL
        WHERE id = p_id RETURNING * INTO j;
        PERFORM @schema@.emit('job.failed', j, jsonb_build_object('error', v_error, 'will_retry', false));
        PERFORM @schema@.emit('job.discarded', j, jsonb_build_object('dead_letter', j.dead_letter));
        IF j.workflow_id IS NOT NULL THEN
            PERFORM s3p.workflow_advance(j.id, 'failed', NULL);
        END IF;
    ELSE
        v_delay := @schema@.backoff_ms(j.retry, j.attempt);
        UPDATE @schema@.jobs
        SET state = 'retryable', error = v_error, errors = errors || v_error, lease_until = NULL, deadline_at = NULL,
            scheduled_at = now() + make_interval(secs => v_delay / 1000.0), retry_delay_ms = v_delay
        WHERE id = p_id RETURNING * INTO j;
        PERFORM @schema@.emit('job.failed', j, jsonb_build_object('error', v_error, 'will_retry', true));
        PERFORM @schema@.emit('job.retrying', j, jsonb_build_object('retry_delay_ms', v_delay,
                                                                     'next_attempt_at', s3p.ts(j.scheduled_at)));
    END IF;
    RETURN j;
END
$fn$;

CREATE OR REPLACE FUNCTION @schema@.nack(p_id uuid, p_worker text, p_error jsonb, p_requeue boolean)
RETURNS TABLE (job jsonb, ok boolean)
LANGUAGE plpgsql AS $fn$
DECLARE
    j @schema@.jobs;
BEGIN
    SELECT * INTO j FROM @schema@.jobs WHERE id = p_id FOR UPDATE;
    IF NOT FOUND THEN
        RETURN;
    END IF;
    IF j.state <> 'active' OR (p_worker IS NOT NULL AND j.worker_id IS NOT NULL AND j.worker_id <> p_worker) THEN
        RETURN QUERY SELECT @schema@.envelope(j), false;
        RETURN;
    END IF;
    j := @schema@.fail(p_id, p_error, p_requeue);
    RETURN QUERY SELECT @schema@.envelope(j), true;
END
$fn$;

-- Extends the leases of active jobs held by the worker. The directive is the conformance suite's test hook
-- (options.metadata.test_directive of the job): quiet or terminate.
-- A job locked by another transaction at that moment (its ack, nack or cancel, or another heartbeat) is skipped and
-- left out of the answer: a heartbeat that waited for it would hold the leases it already extended while it waited,
-- and a batch ack taking the same jobs in another order would deadlock with it. A worker's heartbeat renews a lease
-- well before it runs out, so a job skipped once is extended by the next one.
CREATE OR REPLACE FUNCTION @schema@.extend(p_ids uuid[], p_worker text, p_vt_ms bigint, p_default_vt_ms bigint)
RETURNS TABLE (id uuid, directive text)
LANGUAGE sql AS $fn$
    WITH held AS (
        SELECT h.id FROM @schema@.jobs h
        WHERE h.id = ANY (p_ids) AND h.state = 'active'
          AND (p_worker IS NULL OR h.worker_id IS NULL OR h.worker_id = p_worker)
        FOR UPDATE SKIP LOCKED
    )
    UPDATE @schema@.jobs j
    SET lease_until = now() + make_interval(secs => coalesce(p_vt_ms, j.visibility_timeout_ms, p_default_vt_ms) / 1000.0)
    FROM held
    WHERE j.id = held.id
    RETURNING j.id, j.options -> 'metadata' ->> 'test_directive'
$fn$;

$template$)
ON CONFLICT (part) DO UPDATE SET position = excluded.position, body = excluded.body;
