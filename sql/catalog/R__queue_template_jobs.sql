-- The jobs part of every queue namespace: one mutable row per job, partial indexes per state, and the functions
-- of the job lifecycle. Every function works on this queue's table only; the s3p.* entry points find the queue.
INSERT INTO s3p.queue_templates (part, position, body) VALUES ('jobs', 10, $template$

CREATE TABLE IF NOT EXISTS @schema@.jobs (
    id                    uuid PRIMARY KEY,
    seq                   bigserial NOT NULL,
    type                  text NOT NULL,
    state                 text NOT NULL CHECK (state IN ('scheduled', 'available', 'pending', 'active', 'completed',
                                                         'retryable', 'cancelled', 'discarded')),
    args                  jsonb NOT NULL,
    meta                  jsonb,
    options               jsonb,
    extra                 jsonb,
    priority              integer NOT NULL DEFAULT 0,
    attempt               integer NOT NULL DEFAULT 0,
    max_attempts          integer NOT NULL,
    retry                 jsonb NOT NULL,
    timeout_ms            bigint,
    visibility_timeout_ms bigint,
    scheduled_at          timestamptz,
    expires_at            timestamptz,
    worker_id             text,
    lease_until           timestamptz,
    deadline_at           timestamptz,
    created_at            timestamptz NOT NULL DEFAULT now(),
    enqueued_at           timestamptz NOT NULL DEFAULT now(),
    started_at            timestamptz,
    completed_at          timestamptz,
    cancelled_at          timestamptz,
    discarded_at          timestamptz,
    finished_at           timestamptz,
    result                jsonb,
    error                 jsonb,
    errors                jsonb NOT NULL DEFAULT '[]',
    retry_delay_ms        bigint,
    dead_letter           boolean NOT NULL DEFAULT false
);

-- The claim order (priority, then FIFO), due scheduled and retryable jobs, leases and deadlines of active jobs,
-- and terminal jobs for retention: each index holds only the rows in its state.
CREATE INDEX IF NOT EXISTS jobs_available ON @schema@.jobs (priority DESC, seq) WHERE state = 'available';
CREATE INDEX IF NOT EXISTS jobs_due ON @schema@.jobs (scheduled_at) WHERE state IN ('scheduled', 'retryable');
CREATE INDEX IF NOT EXISTS jobs_lease ON @schema@.jobs (lease_until) WHERE state = 'active';
CREATE INDEX IF NOT EXISTS jobs_deadline ON @schema@.jobs (deadline_at) WHERE state = 'active' AND deadline_at IS NOT NULL;
CREATE INDEX IF NOT EXISTS jobs_finished ON @schema@.jobs (finished_at)
    WHERE state IN ('completed', 'cancelled', 'discarded') AND NOT dead_letter;
CREATE INDEX IF NOT EXISTS jobs_dead_letter ON @schema@.jobs (finished_at) WHERE dead_letter;

ALTER TABLE @schema@.jobs ADD COLUMN IF NOT EXISTS unique_key text;
ALTER TABLE @schema@.jobs ADD COLUMN IF NOT EXISTS workflow_id uuid;
CREATE INDEX IF NOT EXISTS jobs_unique_key ON @schema@.jobs (unique_key, seq) WHERE unique_key IS NOT NULL;

-- Per-queue job settings: paused (fetch hands out nothing, enqueue still works) and a rate limit on claims, kept
-- as a token bucket of rate_limit_per_second tokens.
CREATE TABLE IF NOT EXISTS @schema@.job_settings (
    singleton             boolean PRIMARY KEY DEFAULT true CHECK (singleton),
    paused                boolean NOT NULL DEFAULT false,
    rate_limit_per_second double precision CHECK (rate_limit_per_second > 0),
    tokens                double precision NOT NULL DEFAULT 0,
    refilled_at           timestamptz NOT NULL DEFAULT now()
);
INSERT INTO @schema@.job_settings (singleton) VALUES (true) ON CONFLICT DO NOTHING;

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

-- Cancels a job replaced by a unique job (enqueued here or, for a policy unique across queues, in another queue).
CREATE OR REPLACE FUNCTION @schema@.unique_replaced(p_id uuid) RETURNS void
LANGUAGE plpgsql AS $fn$
DECLARE
    v_job @schema@.jobs;
BEGIN
    UPDATE @schema@.jobs
    SET state = 'cancelled', cancelled_at = now(), finished_at = now(), lease_until = NULL, deadline_at = NULL
    WHERE id = p_id AND state NOT IN ('completed', 'cancelled', 'discarded')
    RETURNING * INTO v_job;
    IF FOUND THEN
        PERFORM @schema@.emit('job.cancelled', v_job, jsonb_build_object('replaced', true));
    END IF;
END
$fn$;

-- Inserts jobs given as a JSON array of normalised specs (see JobStore). A job whose id already exists anywhere is
-- skipped: its position is missing from the result. A spec with a unique key is checked first, under an advisory
-- lock on the key held to commit, so concurrent enqueues of one key cannot both pass; the key is looked up in this
-- queue, or with unique_global (a policy without the queue dimension) in every queue: on conflict it is rejected
-- (SQLSTATE PV409, the existing id in DETAIL), ignored (the existing job is returned, created = false) or replaces
-- the existing job (which is cancelled; with replace_except_schedule a new job replacing a scheduled one keeps the
-- time the old one was due). With p_notify, wakes listeners of the queue's channel after commit; a caller
-- that wakes them itself once its transaction committed passes false (see JobStore: a notifying transaction holds a
-- global lock until its commit record is flushed, so notifying inside every enqueue serialises concurrent producers).
DROP FUNCTION IF EXISTS @schema@.enqueue(jsonb);
CREATE OR REPLACE FUNCTION @schema@.enqueue(p_jobs jsonb, p_notify boolean DEFAULT true)
RETURNS TABLE (ord integer, job jsonb, created boolean)
LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $fn$
DECLARE
    v_available boolean;
    v_unique    record;
    v_found     record;
    v_skip      integer[] := '{}';
    v_keep_at   jsonb := '{}';
    v_rate      double precision;
BEGIN
    SELECT max((e -> 'options' -> 'rate_limit' ->> 'max_per_second')::double precision) INTO v_rate
    FROM jsonb_array_elements(p_jobs) e WHERE jsonb_typeof(e -> 'options' -> 'rate_limit' -> 'max_per_second') = 'number';
    IF v_rate > 0 THEN
        UPDATE @schema@.job_settings SET rate_limit_per_second = v_rate, tokens = v_rate, refilled_at = clock_timestamp()
        WHERE rate_limit_per_second IS DISTINCT FROM v_rate;
    END IF;
    FOR v_unique IN
        SELECT u.ord, coalesce(u.unique_key, md5(u.unique_parts::text)) AS unique_key, u.unique_states,
               u.unique_period_ms, u.on_conflict, coalesce(u.unique_global, false) AS unique_global
        FROM jsonb_to_recordset(p_jobs) AS u(ord integer, unique_key text, unique_parts jsonb, unique_states text[],
                                             unique_period_ms bigint, on_conflict text, unique_global boolean)
        WHERE u.unique_key IS NOT NULL OR u.unique_parts IS NOT NULL
        ORDER BY 2
    LOOP
        IF v_unique.unique_global THEN
            PERFORM pg_advisory_xact_lock(hashtextextended('s3q.unique:' || v_unique.unique_key, 0));
            SELECT * INTO v_found FROM s3p.unique_existing(v_unique.unique_key, v_unique.unique_states,
                                                           v_unique.unique_period_ms);
        ELSE
            PERFORM pg_advisory_xact_lock(hashtextextended('s3q.unique:' || @queue@ || ':' || v_unique.unique_key, 0));
            SELECT 's3q_' || @queue@ AS schema_name, j.id, j.state, j.scheduled_at INTO v_found FROM @schema@.jobs j
            WHERE j.unique_key = v_unique.unique_key AND j.state = ANY (v_unique.unique_states)
              AND (v_unique.unique_period_ms IS NULL
                   OR j.created_at > now() - make_interval(secs => v_unique.unique_period_ms / 1000.0))
            ORDER BY j.seq DESC LIMIT 1;
        END IF;
        IF FOUND THEN
            IF v_unique.on_conflict = 'ignore' THEN
                v_skip := v_skip || v_unique.ord;
                ord := v_unique.ord;
                EXECUTE format('SELECT %I.envelope(j) FROM %I.jobs j WHERE j.id = $1', v_found.schema_name,
                               v_found.schema_name) INTO job USING v_found.id;
                created := false;
                RETURN NEXT;
            ELSIF v_unique.on_conflict IN ('replace', 'replace_except_schedule') THEN
                IF v_unique.on_conflict = 'replace_except_schedule' AND v_found.state = 'scheduled' THEN
                    v_keep_at := v_keep_at || jsonb_build_object(v_unique.ord::text, v_found.scheduled_at);
                END IF;
                EXECUTE format('SELECT %I.unique_replaced($1)', v_found.schema_name) USING v_found.id;
            ELSE
                RAISE EXCEPTION 'a job with unique key % already exists', v_unique.unique_key
                    USING ERRCODE = 'PV409', DETAIL = v_found.id::text;
            END IF;
        END IF;
    END LOOP;

    RETURN QUERY
    WITH spec AS (
        SELECT s.ord, s.id, s.type, s.args, s.meta, s.options, s.extra, s.priority, s.max_attempts, s.retry,
               s.timeout_ms, s.visibility_timeout_ms,
               coalesce((v_keep_at ->> s.ord::text)::timestamptz, s.scheduled_at) AS scheduled_at, s.expires_at,
               s.unique_key, s.unique_parts, s.workflow_id
        FROM jsonb_to_recordset(p_jobs) AS s(ord integer, id uuid, type text, args jsonb, meta jsonb, options jsonb,
             extra jsonb, priority integer, max_attempts integer, retry jsonb, timeout_ms bigint,
             visibility_timeout_ms bigint, scheduled_at timestamptz, expires_at timestamptz, unique_key text,
             unique_parts jsonb, workflow_id uuid)
        WHERE s.ord <> ALL (v_skip)
    ), located AS (
        INSERT INTO s3p.job_locator (id, queue)
        SELECT spec.id, @queue@ FROM spec ORDER BY spec.ord
        ON CONFLICT DO NOTHING
        RETURNING id
    ), inserted AS (
        INSERT INTO @schema@.jobs AS j (id, type, state, args, meta, options, extra, priority, max_attempts, retry,
                                        timeout_ms, visibility_timeout_ms, scheduled_at, expires_at, unique_key,
                                        workflow_id)
        SELECT s.id, s.type, CASE WHEN s.scheduled_at > now() THEN 'scheduled' ELSE 'available' END, s.args, s.meta,
               s.options, s.extra, s.priority, s.max_attempts, s.retry, s.timeout_ms, s.visibility_timeout_ms,
               CASE WHEN s.scheduled_at > now() THEN s.scheduled_at END, s.expires_at,
               coalesce(s.unique_key, md5(s.unique_parts::text)), s.workflow_id
        FROM spec s JOIN located l ON l.id = s.id
        ORDER BY s.ord
        RETURNING @schema@.envelope(j) AS job, j.id, j.type, j.state
    ), events AS (
        INSERT INTO s3p.job_events (type, queue, job_id, data)
        SELECT 'job.enqueued', @queue@, i.id, jsonb_build_object('job_id', i.id, 'job_type', i.type, 'queue', @queue@,
                                                                  'state', i.state, 'attempt', 0)
        FROM inserted i
    )
    SELECT s.ord, i.job, true FROM inserted i JOIN spec s ON s.id = i.id ORDER BY s.ord;
    IF NOT p_notify THEN
        RETURN;
    END IF;
    SELECT EXISTS (SELECT 1 FROM jsonb_array_elements(p_jobs) e
                   WHERE (e ->> 'scheduled_at') IS NULL OR (e ->> 'scheduled_at')::timestamptz <= now())
    INTO v_available;
    IF v_available THEN
        PERFORM pg_notify('s3q_' || @queue@, 'jobs');
    END IF;
END
$fn$;

-- Counts the moves that make a job available at a place in the claim order that claims may already have passed
-- (promotion of due jobs, expired leases, requeues, releases, dead-letter retries). Claims compare it with the value
-- they last saw to know that their resume point (see claim_rows) may hide a job. A sequence: bumping it writes no
-- row version, so it costs nothing under a held snapshot.
CREATE SEQUENCE IF NOT EXISTS @schema@.jobs_rewinds;

-- Inserts jobs without unique keys, given as parallel arrays of one element per job in enqueue order (the JSON
-- values args, meta, options and extra as one JSON array each, NULL when no job has one; retry policies as a JSON
-- array of the distinct policies that p_retry_idx points into, 0-based). The caller knows everything else about the
-- jobs, so nothing is read back: the result is the transaction's now(), which is created_at and enqueued_at of every
-- job and decides which are scheduled, and whether this call notified the queue's channel. An id that already
-- exists anywhere fails the statement (unique violation on job_locator_pkey), so either all jobs are inserted or
-- none. p_rate sets the queue's rate limit like options.rate_limit.max_per_second of enqueue. p_notify when some job
-- is available: 0 never, 1 always, 2 unless another transaction notifying this way has not yet ended (see
-- enqueue_notify).
DROP FUNCTION IF EXISTS @schema@.enqueue_rows(uuid[], text[], jsonb, jsonb, jsonb, jsonb, integer[], integer[], jsonb,
                                              integer[], bigint[], bigint[], timestamptz[], timestamptz[],
                                              double precision, boolean);
CREATE OR REPLACE FUNCTION @schema@.enqueue_rows(p_ids uuid[], p_types text[], p_args jsonb, p_meta jsonb,
                                                 p_options jsonb, p_extra jsonb, p_priorities integer[],
                                                 p_max_attempts integer[], p_retries jsonb, p_retry_idx integer[],
                                                 p_timeouts bigint[], p_visibility_timeouts bigint[],
                                                 p_scheduled timestamptz[], p_expires timestamptz[],
                                                 p_rate double precision, p_notify integer)
RETURNS TABLE (enqueue_time timestamptz, notified boolean)
LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $fn$
BEGIN
    IF p_rate > 0 THEN
        UPDATE @schema@.job_settings SET rate_limit_per_second = p_rate, tokens = p_rate, refilled_at = clock_timestamp()
        WHERE rate_limit_per_second IS DISTINCT FROM p_rate;
    END IF;
    WITH located AS (
        INSERT INTO s3p.job_locator (id, queue) SELECT l.id, @queue@ FROM unnest(p_ids) AS l(id)
    ), inserted AS (
        INSERT INTO @schema@.jobs AS j (id, type, state, args, meta, options, extra, priority, max_attempts, retry,
                                        timeout_ms, visibility_timeout_ms, scheduled_at, expires_at)
        SELECT s.id, s.type, CASE WHEN s.scheduled_at > now() THEN 'scheduled' ELSE 'available' END, s.args,
               nullif(s.meta, 'null'), nullif(s.options, 'null'), nullif(s.extra, 'null'), s.priority,
               s.max_attempts, p_retries -> s.retry_idx, s.timeout_ms, s.visibility_timeout_ms,
               CASE WHEN s.scheduled_at > now() THEN s.scheduled_at END, s.expires_at
        FROM ROWS FROM (unnest(p_ids), unnest(p_types), jsonb_array_elements(p_args), jsonb_array_elements(p_meta),
                        jsonb_array_elements(p_options), jsonb_array_elements(p_extra), unnest(p_priorities),
                        unnest(p_max_attempts), unnest(p_retry_idx), unnest(p_timeouts),
                        unnest(p_visibility_timeouts), unnest(p_scheduled), unnest(p_expires))
             WITH ORDINALITY AS s(id, type, args, meta, options, extra, priority, max_attempts, retry_idx, timeout_ms,
                                  visibility_timeout_ms, scheduled_at, expires_at, n)
        ORDER BY s.n
        RETURNING j.id, j.type, j.state
    )
    INSERT INTO s3p.job_events (type, queue, job_id, data)
    SELECT 'job.enqueued', @queue@, i.id, jsonb_build_object('job_id', i.id, 'job_type', i.type, 'queue', @queue@,
                                                             'state', i.state, 'attempt', 0)
    FROM inserted i;
    enqueue_time := now();
    notified := false;
    IF p_notify > 0 AND EXISTS (SELECT 1 FROM unnest(p_scheduled) AS s(at) WHERE s.at IS NULL OR s.at <= now()) THEN
        notified := @schema@.enqueue_notify(p_notify);
    END IF;
    RETURN NEXT;
END
$fn$;

-- Notifies the queue's channel from the calling transaction when p_mode is 1, or when it is 2 and no other
-- transaction that notified in mode 2 is still running; answers whether it notified. PostgreSQL holds a global lock
-- from a notifying transaction's commit until its commit record is flushed, so producers that all notified from their
-- own transactions would commit one at a time. In mode 2 only one transaction at a time notifies (the one holding
-- the advisory lock, released at its end); the others leave the wake-up to the caller, which sends it after their
-- commit from a transaction that does not wait for a flush (see QueueNotifier). A lone producer thus commits its jobs
-- and their wake-up in one transaction.
CREATE OR REPLACE FUNCTION @schema@.enqueue_notify(p_mode integer) RETURNS boolean
LANGUAGE plpgsql AS $fn$
BEGIN
    IF p_mode = 1 OR (p_mode = 2 AND pg_try_advisory_xact_lock(hashtextextended('s3p.enqueue-notify', 0))) THEN
        PERFORM pg_notify('s3q_' || @queue@, 'jobs');
        RETURN true;
    END IF;
    RETURN false;
END
$fn$;

-- Inserts one job without a unique key: enqueue_rows for a single job, with one parameter per column instead of
-- arrays (called alternately in one session on PostgreSQL 15: 0.15 ms against 0.26 ms per job). Same result and
-- notification.
CREATE OR REPLACE FUNCTION @schema@.enqueue_job(p_id uuid, p_type text, p_args jsonb, p_meta jsonb, p_options jsonb,
                                                p_extra jsonb, p_priority integer, p_max_attempts integer,
                                                p_retry jsonb, p_timeout bigint, p_visibility_timeout bigint,
                                                p_scheduled timestamptz, p_expires timestamptz,
                                                p_rate double precision, p_notify integer)
RETURNS TABLE (enqueue_time timestamptz, notified boolean)
LANGUAGE plpgsql AS $fn$
DECLARE
    v_state text := CASE WHEN p_scheduled > now() THEN 'scheduled' ELSE 'available' END;
BEGIN
    IF p_rate > 0 THEN
        UPDATE @schema@.job_settings SET rate_limit_per_second = p_rate, tokens = p_rate, refilled_at = clock_timestamp()
        WHERE rate_limit_per_second IS DISTINCT FROM p_rate;
    END IF;
    INSERT INTO s3p.job_locator (id, queue) VALUES (p_id, @queue@);
    INSERT INTO @schema@.jobs (id, type, state, args, meta, options, extra, priority, max_attempts, retry, timeout_ms,
                               visibility_timeout_ms, scheduled_at, expires_at)
    VALUES (p_id, p_type, v_state, p_args, p_meta, p_options, p_extra, p_priority, p_max_attempts, p_retry, p_timeout,
            p_visibility_timeout, CASE WHEN v_state = 'scheduled' THEN p_scheduled END, p_expires);
    INSERT INTO s3p.job_events (type, queue, job_id, data)
    VALUES ('job.enqueued', @queue@, p_id, jsonb_build_object('job_id', p_id, 'job_type', p_type, 'queue', @queue@,
                                                              'state', v_state, 'attempt', 0));
    enqueue_time := now();
    notified := false;
    IF p_notify > 0 AND v_state = 'available' THEN
        notified := @schema@.enqueue_notify(p_notify);
    END IF;
    RETURN NEXT;
END
$fn$;

-- Makes due scheduled and retryable jobs available (discarding those past expires_at); returns how many. It waits
-- for rows another transaction is promoting rather than skipping them, so a fetch that runs while the maintenance
-- pass promotes a job still sees that job once the pass commits. Rows are locked in scheduled_at order everywhere.
CREATE OR REPLACE FUNCTION @schema@.promote(p_limit integer) RETURNS bigint
LANGUAGE plpgsql AS $fn$
DECLARE
    v_count bigint;
BEGIN
    WITH due AS (
        SELECT id FROM @schema@.jobs
        WHERE state IN ('scheduled', 'retryable') AND scheduled_at <= now()
        ORDER BY scheduled_at
        LIMIT p_limit
        FOR UPDATE
    ), promoted AS (
        UPDATE @schema@.jobs j
        SET state = CASE WHEN j.expires_at <= now() THEN 'discarded' ELSE 'available' END,
            discarded_at = CASE WHEN j.expires_at <= now() THEN now() END,
            finished_at = CASE WHEN j.expires_at <= now() THEN now() END
        WHERE j.id = ANY (ARRAY(SELECT due.id FROM due))
        RETURNING 1
    )
    SELECT count(*) INTO v_count FROM promoted;
    IF v_count > 0 THEN
        PERFORM nextval('@schema@.jobs_rewinds');
    END IF;
    RETURN v_count;
END
$fn$;

-- Claims up to p_count available jobs in priority then FIFO order, after promoting due ones, and returns their rows
-- in that order. The lease is the fetch's visibility timeout, else the job's own, else the server default. A paused
-- queue hands out nothing; a rate-limited one at most the tokens its bucket holds.
--
-- The jobs are locked first and then updated by ctid (a locked row's version cannot change under the lock), which
-- spares a primary-key probe per job.
--
-- Resume point: a claimed job leaves a dead entry at the head of jobs_available that no scan can skip while a
-- snapshot older than the claim is held (vacuum and index-entry killing both wait for the xmin horizon), so a
-- claim that starts at the head walks every job claimed since that horizon. Each session therefore remembers where
-- its last claim started taking jobs (priority, seq) and resumes there. The point is only a hint, and these rules
-- keep it from hiding a job for long:
-- * a job of a higher priority than the point is looked for first (an index probe above the point);
-- * a job made available again (jobs_rewinds changed since the point was taken) sends the claim back to the head;
-- * a claim that resuming leaves short of p_count continues from the head, so a job behind the point is found as
--   soon as the jobs ahead of it run out (and always by a claim on a queue that seemed empty);
-- * the point is taken by a scan from the head and trusted for at most p_resume_ms after that scan; a job that
--   becomes visible behind it some other way (an enqueue that committed after jobs with later seq were claimed, a
--   rolled-back claim of another session, a move whose rewind was counted before it committed: nextval is not
--   transactional) therefore waits at most that long while later jobs are claimed ahead of it.
CREATE OR REPLACE FUNCTION @schema@.claim_rows(p_count integer, p_worker text, p_vt_ms bigint, p_default_vt_ms bigint,
                                               p_resume_ms bigint DEFAULT 1000)
RETURNS SETOF @schema@.jobs
LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $fn$
DECLARE
    v_settings @schema@.job_settings;
    v_count    integer := p_count;
    v_tokens   double precision;
    v_claimed  integer;
    v_hint_key text := 'pgvs3.claim_resume_' || '@schema@.jobs'::regclass::oid;
    v_hint     bigint[];
    v_rewinds  bigint;
    v_now_ms   bigint := (extract(epoch FROM clock_timestamp()) * 1000)::bigint;
    v_ids      tid[];
    v_prios    integer[];
    v_seqs     bigint[];
    v_more     tid[];
    v_more_p   integer[];
    v_more_s   bigint[];
    v_resume   boolean;
BEGIN
    SELECT * INTO v_settings FROM @schema@.job_settings;
    IF v_settings.paused THEN
        RETURN;
    END IF;
    IF v_settings.rate_limit_per_second IS NOT NULL THEN
        SELECT * INTO v_settings FROM @schema@.job_settings FOR UPDATE;
        v_tokens := least(v_settings.rate_limit_per_second,
                          v_settings.tokens + extract(epoch FROM clock_timestamp() - v_settings.refilled_at)
                                              * v_settings.rate_limit_per_second);
        v_count := least(p_count, floor(v_tokens)::integer);
        IF v_count < 1 THEN
            RETURN;
        END IF;
    END IF;
    IF EXISTS (SELECT 1 FROM @schema@.jobs WHERE state IN ('scheduled', 'retryable') AND scheduled_at <= now()) THEN
        PERFORM @schema@.promote(1000);
    END IF;
    -- read after the promotion above, which bumps it; the hint: {priority, seq, rewinds, taken at (epoch ms)}
    v_rewinds := coalesce(pg_sequence_last_value('@schema@.jobs_rewinds'::regclass), 0);
    v_hint := string_to_array(current_setting(v_hint_key, true), ',', '')::bigint[];
    v_resume := v_hint IS NOT NULL AND v_hint[1] IS NOT NULL AND v_hint[3] = v_rewinds
        AND v_now_ms - v_hint[4] <= p_resume_ms AND v_now_ms >= v_hint[4]
        -- written as max() so that the plan is an index probe that stops at the point's priority
        AND (SELECT max(priority) FROM @schema@.jobs WHERE state = 'available' AND priority > v_hint[1]::integer)
            IS NULL;
    IF v_resume THEN
        SELECT array_agg(c.ctid ORDER BY c.seq), array_agg(c.priority ORDER BY c.seq), array_agg(c.seq ORDER BY c.seq)
        INTO v_ids, v_prios, v_seqs
        FROM (SELECT ctid, priority, seq FROM @schema@.jobs
              WHERE state = 'available' AND priority = v_hint[1]::integer AND seq >= v_hint[2]
                AND (expires_at IS NULL OR expires_at > now())
              ORDER BY priority DESC, seq
              LIMIT v_count
              FOR UPDATE SKIP LOCKED) c;
        IF cardinality(v_ids) > 0 THEN
            v_hint[1] := v_prios[1];
            v_hint[2] := v_seqs[1];
        END IF;
    END IF;
    -- from the head: without a usable point, and also when resuming came up short (the point's priority has no more
    -- jobs after it), which takes lower priorities and any job that became visible behind the point, in claim order
    IF coalesce(cardinality(v_ids), 0) < v_count THEN
        SELECT array_agg(c.ctid ORDER BY c.priority DESC, c.seq), array_agg(c.priority ORDER BY c.priority DESC, c.seq),
               array_agg(c.seq ORDER BY c.priority DESC, c.seq)
        INTO v_more, v_more_p, v_more_s
        FROM (SELECT ctid, priority, seq FROM @schema@.jobs
              WHERE state = 'available' AND (expires_at IS NULL OR expires_at > now())
                AND ctid <> ALL (coalesce(v_ids, '{}'))
              ORDER BY priority DESC, seq
              LIMIT v_count - coalesce(cardinality(v_ids), 0)
              FOR UPDATE SKIP LOCKED) c;
        v_ids := coalesce(v_ids, '{}') || coalesce(v_more, '{}');
        v_prios := coalesce(v_prios, '{}') || coalesce(v_more_p, '{}');
        v_seqs := coalesce(v_seqs, '{}') || coalesce(v_more_s, '{}');
        -- a scan from the head takes a new point: where this claim starts in claim order
        SELECT ARRAY[c.p, c.s, v_rewinds, v_now_ms] INTO v_hint
        FROM unnest(v_prios, v_seqs) AS c(p, s) ORDER BY c.p DESC, c.s LIMIT 1;
        IF NOT FOUND THEN
            v_hint := ARRAY[NULL, NULL, v_rewinds, v_now_ms]::bigint[];
        END IF;
    END IF;
    PERFORM set_config(v_hint_key, array_to_string(v_hint, ',', ''), false);
    IF coalesce(cardinality(v_ids), 0) = 0 THEN
        RETURN;
    END IF;
    RETURN QUERY
    WITH claimed AS (
        UPDATE @schema@.jobs j
        SET state = 'active',
            attempt = j.attempt + 1,
            worker_id = p_worker,
            started_at = now(),
            lease_until = now() + make_interval(secs => coalesce(p_vt_ms, j.visibility_timeout_ms, p_default_vt_ms) / 1000.0),
            deadline_at = CASE WHEN j.timeout_ms IS NULL THEN NULL
                               ELSE now() + make_interval(secs => j.timeout_ms / 1000.0) END
        WHERE j.ctid = ANY (v_ids)
        RETURNING j.*
    ), events AS (
        INSERT INTO s3p.job_events (type, queue, job_id, data)
        SELECT 'job.started', @queue@, c.id, jsonb_build_object('job_id', c.id, 'job_type', c.type, 'queue', @queue@,
                                                                 'state', c.state, 'attempt', c.attempt,
                                                                 'worker_id', p_worker)
        FROM claimed c
    )
    SELECT c.* FROM claimed c ORDER BY c.priority DESC, c.seq;
    GET DIAGNOSTICS v_claimed = ROW_COUNT;
    IF v_settings.rate_limit_per_second IS NOT NULL THEN
        UPDATE @schema@.job_settings SET tokens = v_tokens - v_claimed, refilled_at = clock_timestamp();
    END IF;
END
$fn$;

-- The claim with each job as its OJS envelope (see claim_rows).
CREATE OR REPLACE FUNCTION @schema@.claim(p_count integer, p_worker text, p_vt_ms bigint, p_default_vt_ms bigint)
RETURNS SETOF jsonb
LANGUAGE sql AS $fn$
    SELECT @schema@.envelope(c) FROM @schema@.claim_rows(p_count, p_worker, p_vt_ms, p_default_vt_ms) c
$fn$;

-- Cheap counts per state for the stats route: each is an index scan of its partial index, capped at p_cap rows.
CREATE OR REPLACE FUNCTION @schema@.stats(p_cap integer) RETURNS jsonb
LANGUAGE sql STABLE AS $fn$
    SELECT jsonb_build_object(
        'available', (SELECT count(*) FROM (SELECT 1 FROM @schema@.jobs WHERE state = 'available' LIMIT p_cap) t),
        'active', (SELECT count(*) FROM (SELECT 1 FROM @schema@.jobs WHERE state = 'active' LIMIT p_cap) t),
        'scheduled', (SELECT count(*) FROM (SELECT 1 FROM @schema@.jobs WHERE state = 'scheduled' LIMIT p_cap) t),
        'retryable', (SELECT count(*) FROM (SELECT 1 FROM @schema@.jobs WHERE state = 'retryable' LIMIT p_cap) t),
        'completed', (SELECT count(*) FROM (SELECT 1 FROM @schema@.jobs
                                            WHERE state = 'completed' AND NOT dead_letter LIMIT p_cap) t),
        'cancelled', (SELECT count(*) FROM (SELECT 1 FROM @schema@.jobs
                                            WHERE state = 'cancelled' AND NOT dead_letter LIMIT p_cap) t),
        'discarded', (SELECT count(*) FROM (SELECT 1 FROM @schema@.jobs
                                            WHERE state = 'discarded' AND NOT dead_letter LIMIT p_cap) t),
        'dead_letter', (SELECT count(*) FROM (SELECT 1 FROM @schema@.jobs WHERE dead_letter LIMIT p_cap) t),
        'paused', (SELECT paused FROM @schema@.job_settings),
        'rate_limit_per_second', (SELECT rate_limit_per_second FROM @schema@.job_settings))
$fn$;

-- Completes jobs that are active under the given worker (a null worker, on either side, matches any lease).
-- Returns a row per input position naming a job of this queue: ok with the completed job (without it unless
-- p_envelopes), or the job as it is when it was not active.
-- Both parts must be primary-key probes per job, whatever the statistics say. A constant state = 'active' would let
-- the planner walk the partial lease index instead (every active job of every worker, per ack) whenever the
-- statistics were gathered while few jobs were active; compared with a column of the input it cannot, and the
-- id = ANY conditions give the probes an index condition when the input's size is unknown to a cached plan.
DROP FUNCTION IF EXISTS @schema@.ack(uuid[], jsonb[], text[]);
CREATE OR REPLACE FUNCTION @schema@.ack(p_ids uuid[], p_results jsonb[], p_workers text[],
                                        p_envelopes boolean DEFAULT true)
RETURNS TABLE (ord integer, job jsonb, ok boolean)
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
            RETURNING i.n, CASE WHEN p_envelopes THEN @schema@.envelope(j) END AS envelope, j.id, j.type, j.attempt, j.worker_id, j.workflow_id,
                      j.result, floor(extract(epoch FROM j.completed_at - j.started_at) * 1000)::bigint AS duration_ms
        ), events AS (
            INSERT INTO s3p.job_events (type, queue, job_id, data)
            SELECT 'job.completed', @queue@, c.id,
                   jsonb_build_object('job_id', c.id, 'job_type', c.type, 'queue', @queue@, 'state', 'completed',
                                      'attempt', c.attempt, 'worker_id', c.worker_id, 'duration_ms', c.duration_ms)
            FROM completed c
        )
        SELECT c.n, c.envelope, c.id, c.workflow_id, c.result FROM completed c
    LOOP
        ord := r.n;
        job := r.envelope;
        ok := true;
        v_done := v_done || r.n;
        RETURN NEXT;
        IF r.workflow_id IS NOT NULL THEN
            PERFORM s3p.workflow_advance(r.id, 'completed', r.result);
        END IF;
    END LOOP;
    -- the rest, looked up only when some ack did not apply (the usual batch completes every job it names)
    IF cardinality(v_done) < cardinality(p_ids) THEN
        RETURN QUERY
        SELECT t.n::integer, @schema@.envelope(j), false
        FROM unnest(p_ids) WITH ORDINALITY AS t(id, n)
        JOIN @schema@.jobs j ON j.id = t.id
        WHERE j.id = ANY (p_ids) AND t.n::integer <> ALL (v_done);
    END IF;
END
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

CREATE OR REPLACE FUNCTION @schema@.cancel(p_id uuid) RETURNS TABLE (job jsonb, ok boolean)
LANGUAGE plpgsql AS $fn$
DECLARE
    j @schema@.jobs;
BEGIN
    UPDATE @schema@.jobs
    SET state = 'cancelled', cancelled_at = now(), finished_at = now(), lease_until = NULL, deadline_at = NULL
    WHERE id = p_id AND state IN ('scheduled', 'available', 'pending', 'active', 'retryable')
    RETURNING * INTO j;
    IF FOUND THEN
        PERFORM @schema@.emit('job.cancelled', j, '{}'::jsonb);
        IF j.workflow_id IS NOT NULL THEN
            PERFORM s3p.workflow_advance(j.id, 'failed', NULL);
        END IF;
        RETURN QUERY SELECT @schema@.envelope(j), true;
        RETURN;
    END IF;
    SELECT * INTO j FROM @schema@.jobs WHERE id = p_id;
    IF FOUND THEN
        RETURN QUERY SELECT @schema@.envelope(j), false;
    END IF;
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
    IF FOUND THEN
        PERFORM nextval('@schema@.jobs_rewinds');
        PERFORM pg_notify('s3q_' || @queue@, 'jobs');
        RETURN QUERY SELECT @schema@.envelope(j), true;
        RETURN;
    END IF;
    SELECT * INTO j FROM @schema@.jobs WHERE id = p_id;
    IF FOUND THEN
        RETURN QUERY SELECT @schema@.envelope(j), false;
    END IF;
END
$fn$;

-- Extends the leases of active jobs held by the worker. The directive is the conformance suite's test hook
-- (options.metadata.test_directive of the job): quiet or terminate.
CREATE OR REPLACE FUNCTION @schema@.extend(p_ids uuid[], p_worker text, p_vt_ms bigint, p_default_vt_ms bigint)
RETURNS TABLE (id uuid, directive text)
LANGUAGE sql AS $fn$
    UPDATE @schema@.jobs j
    SET lease_until = now() + make_interval(secs => coalesce(p_vt_ms, j.visibility_timeout_ms, p_default_vt_ms) / 1000.0)
    WHERE j.id = ANY (p_ids) AND j.state = 'active'
      AND (p_worker IS NULL OR j.worker_id IS NULL OR j.worker_id = p_worker)
    RETURNING j.id, j.options -> 'metadata' ->> 'test_directive'
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

CREATE INDEX IF NOT EXISTS jobs_expiry ON @schema@.jobs (expires_at)
    WHERE expires_at IS NOT NULL AND state IN ('scheduled', 'available', 'retryable');

-- One maintenance step for this queue, each part bounded by p_limit rows: execution timeouts fail their job with
-- code timeout, expired leases go back to available, due jobs are promoted, jobs past expires_at are discarded and
-- terminal jobs older than their retention are deleted. Returns how many jobs it touched. Every step reads a partial
-- index made for it; sequential scans are ruled out because a queue that grew since its statistics were last
-- gathered (autovacuum analyses it a minute or more later) looked small enough to scan whole on every pass. JIT is
-- off because a statement left with only a sequential scan carries the huge cost that rules it out, which would
-- otherwise make PostgreSQL compile that statement on every pass.
CREATE OR REPLACE FUNCTION @schema@.maintain(p_limit integer, p_retention_ms bigint, p_dead_letter_retention_ms bigint)
RETURNS bigint
LANGUAGE plpgsql SET enable_seqscan = off SET jit = off AS $fn$
DECLARE
    v_total bigint := 0;
    v_count bigint;
    v_id    uuid;
BEGIN
    FOR v_id IN
        SELECT id FROM @schema@.jobs WHERE state = 'active' AND deadline_at <= now()
        ORDER BY deadline_at LIMIT p_limit FOR UPDATE SKIP LOCKED
    LOOP
        PERFORM @schema@.fail(v_id, jsonb_build_object('code', 'timeout', 'type', 'timeout', 'retryable', true,
                                                       'message', 'job exceeded its timeout_ms'), false);
        v_total := v_total + 1;
    END LOOP;

    WITH expired AS (
        SELECT id FROM @schema@.jobs WHERE state = 'active' AND lease_until <= now()
        ORDER BY lease_until LIMIT p_limit FOR UPDATE SKIP LOCKED
    )
    UPDATE @schema@.jobs j SET state = 'available', worker_id = NULL, lease_until = NULL, deadline_at = NULL
    FROM expired e WHERE j.id = e.id;
    GET DIAGNOSTICS v_count = ROW_COUNT;
    v_total := v_total + v_count;
    IF v_count > 0 THEN
        PERFORM nextval('@schema@.jobs_rewinds');
        PERFORM pg_notify('s3q_' || @queue@, 'jobs');
    END IF;

    v_total := v_total + @schema@.promote(p_limit);

    WITH past AS (
        SELECT id FROM @schema@.jobs
        WHERE expires_at <= now() AND state IN ('scheduled', 'available', 'retryable')
        LIMIT p_limit FOR UPDATE SKIP LOCKED
    )
    UPDATE @schema@.jobs j SET state = 'discarded', discarded_at = now(), finished_at = now()
    FROM past p WHERE j.id = p.id;
    GET DIAGNOSTICS v_count = ROW_COUNT;
    v_total := v_total + v_count;

    WITH old AS (
        SELECT id FROM @schema@.jobs
        WHERE state IN ('completed', 'cancelled', 'discarded') AND NOT dead_letter
          AND finished_at < now() - make_interval(secs => p_retention_ms / 1000.0)
        LIMIT p_limit
    ), deleted AS (
        DELETE FROM @schema@.jobs j USING old WHERE j.id = old.id RETURNING j.id
    )
    DELETE FROM s3p.job_locator l USING deleted d WHERE l.id = d.id;
    GET DIAGNOSTICS v_count = ROW_COUNT;
    v_total := v_total + v_count;

    WITH old AS (
        SELECT id FROM @schema@.jobs
        WHERE dead_letter AND finished_at < now() - make_interval(secs => p_dead_letter_retention_ms / 1000.0)
        LIMIT p_limit
    ), deleted AS (
        DELETE FROM @schema@.jobs j USING old WHERE j.id = old.id RETURNING j.id
    )
    DELETE FROM s3p.job_locator l USING deleted d WHERE l.id = d.id;
    GET DIAGNOSTICS v_count = ROW_COUNT;
    RETURN v_total + v_count;
END
$fn$;

$template$)
ON CONFLICT (part) DO UPDATE SET position = excluded.position, body = excluded.body;
