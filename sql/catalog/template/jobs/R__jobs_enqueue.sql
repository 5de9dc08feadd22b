-- The jobs view: enqueue (JSON specs, with unique-job checks), the array and single-row fast paths, and the
-- notification that wakes the queue's workers.
INSERT INTO s3p.queue_templates (part, position, body) VALUES ('jobs.enqueue', 12, $template$

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

-- The advisory lock key of a unique key: in this queue, or across queues for a policy without the queue dimension.
CREATE OR REPLACE FUNCTION @schema@.unique_lock_key(p_unique_key text, p_across_queues boolean) RETURNS bigint
LANGUAGE sql IMMUTABLE AS $fn$
    SELECT hashtextextended(CASE WHEN p_across_queues THEN 'pgvs3.unique:' || p_unique_key
                                 ELSE 'pgvs3.unique:' || @queue@ || ':' || p_unique_key END, 0)
$fn$;

-- Where a job's id is recorded: an id that carries this queue's id tag (@id_tag@, see V3__job_ids_carry_queue.sql;
-- every id the server generates for this queue) gets no row in s3p.job_locator, since lookups by id find this queue
-- from the id; its uniqueness is the job table's primary key here, and a probe of the locator refuses an id that a
-- client already used in another queue. Any other id gets its locator row, whose primary key makes it unique across
-- queues, after s3p.job_id_free_elsewhere checked the queue whose tag it may carry.

-- Inserts jobs given as a JSON array of normalised specs (see JobStore). A job whose id already exists anywhere is
-- skipped: its position is missing from the result. A spec with a unique key is checked first, under an advisory
-- lock on the key held to commit, so concurrent enqueues of one key cannot both pass; the key is looked up in this
-- queue, or with unique_global (a policy without the queue dimension) in every queue: on conflict it is rejected
-- (SQLSTATE S3410, the existing id in DETAIL), ignored (the existing job is returned, created = false) or replaces
-- the existing job (which is cancelled; with replace_except_schedule a new job replacing a scheduled one keeps the
-- time the old one was due). With p_notify, wakes listeners of the queue's channel after commit; a caller
-- that wakes them itself once its transaction committed passes false (see JobStore: a notifying transaction holds a
-- global lock until its commit record is flushed, so notifying inside every enqueue serialises concurrent producers).
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
            PERFORM pg_advisory_xact_lock(@schema@.unique_lock_key(v_unique.unique_key, true));
            SELECT * INTO v_found FROM s3p.unique_existing(v_unique.unique_key, v_unique.unique_states,
                                                           v_unique.unique_period_ms);
        ELSE
            PERFORM pg_advisory_xact_lock(@schema@.unique_lock_key(v_unique.unique_key, false));
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
                    USING ERRCODE = 'S3410', DETAIL = v_found.id::text;
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
        SELECT spec.id, @queue@ FROM spec
        WHERE s3p.job_id_tag(spec.id) IS DISTINCT FROM @id_tag@ AND s3p.job_id_free_elsewhere(spec.id, @queue@)
        ORDER BY spec.ord
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
        FROM spec s
        WHERE CASE WHEN s3p.job_id_tag(s.id) = @id_tag@ THEN NOT EXISTS (SELECT 1 FROM s3p.job_locator l WHERE l.id = s.id)
                   ELSE EXISTS (SELECT 1 FROM located l WHERE l.id = s.id) END
        ORDER BY s.ord
        ON CONFLICT (id) DO NOTHING
        RETURNING @schema@.envelope(j) AS job, j.id, j.type, j.state
    ), events AS (
        INSERT INTO s3p.job_events (type, queue, job_id, job_type, state, attempt)
        SELECT 'job.enqueued', @queue@, i.id, i.type, i.state, 0
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

-- Inserts jobs without unique keys, given as parallel arrays of one element per job in enqueue order (the JSON
-- values args, meta, options and extra as one JSON array each, NULL when no job has one; retry policies as a JSON
-- array of the distinct policies that p_retry_idx points into, 0-based). A column that holds the same value for every
-- job may be sent as NULL instead of an array, so that neither side builds, sends, parses and unnests a thousand
-- copies of it: p_priorities NULL is priority 0 for all, p_retry_idx NULL the first policy for all, p_max_attempts
-- NULL (or a NULL element) the max_attempts of the job's policy, and the optional columns (timeouts, times) NULL for
-- all. The caller knows everything else about the jobs, so nothing is read back: the result is the transaction's now(), which is created_at and enqueued_at of every
-- job and decides which are scheduled, and whether this call notified the queue's channel. An id that already
-- exists anywhere fails the statement (unique violation on job_locator_pkey or jobs_pkey), so either all jobs are inserted or
-- none. p_rate sets the queue's rate limit like options.rate_limit.max_per_second of enqueue. p_notify when some job
-- is available: 0 never, 1 always, 2 unless another transaction notifying this way has not yet ended (see
-- enqueue_notify).
CREATE OR REPLACE FUNCTION @schema@.enqueue_rows(p_ids uuid[], p_types text[], p_args jsonb, p_meta jsonb,
                                                 p_options jsonb, p_extra jsonb, p_priorities integer[],
                                                 p_max_attempts integer[], p_retries jsonb, p_retry_idx integer[],
                                                 p_timeouts bigint[], p_visibility_timeouts bigint[],
                                                 p_scheduled timestamptz[], p_expires timestamptz[],
                                                 p_rate double precision, p_notify integer)
RETURNS TABLE (enqueue_time timestamptz, notified boolean)
LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $fn$
DECLARE
    v_retry        jsonb := p_retries -> 0;
    v_max_attempts integer := (p_retries -> 0 ->> 'max_attempts')::integer;
BEGIN
    IF p_rate > 0 THEN
        UPDATE @schema@.job_settings SET rate_limit_per_second = p_rate, tokens = p_rate, refilled_at = clock_timestamp()
        WHERE rate_limit_per_second IS DISTINCT FROM p_rate;
    END IF;
    WITH located AS (
        INSERT INTO s3p.job_locator (id, queue) SELECT l.id, @queue@ FROM unnest(p_ids) AS l(id)
        WHERE s3p.job_id_tag(l.id) IS DISTINCT FROM @id_tag@ AND s3p.job_id_free_elsewhere(l.id, @queue@)
    ), inserted AS (
        INSERT INTO @schema@.jobs AS j (id, type, state, args, meta, options, extra, priority, max_attempts, retry,
                                        timeout_ms, visibility_timeout_ms, scheduled_at, expires_at)
        SELECT CASE WHEN s3p.job_id_tag(s.id) = @id_tag@
                         AND EXISTS (SELECT 1 FROM s3p.job_locator l WHERE l.id = s.id) THEN s3p.job_id_taken(s.id)
                    ELSE s.id END,
               s.type, CASE WHEN s.scheduled_at > now() THEN 'scheduled' ELSE 'available' END, s.args,
               nullif(s.meta, 'null'), nullif(s.options, 'null'), nullif(s.extra, 'null'), coalesce(s.priority, 0),
               coalesce(s.max_attempts, CASE WHEN s.retry_idx IS NULL THEN v_max_attempts
                                             ELSE (p_retries -> s.retry_idx ->> 'max_attempts')::integer END),
               CASE WHEN s.retry_idx IS NULL THEN v_retry ELSE p_retries -> s.retry_idx END,
               s.timeout_ms, s.visibility_timeout_ms, CASE WHEN s.scheduled_at > now() THEN s.scheduled_at END,
               s.expires_at
        FROM ROWS FROM (unnest(p_ids), unnest(p_types), jsonb_array_elements(p_args), jsonb_array_elements(p_meta),
                        jsonb_array_elements(p_options), jsonb_array_elements(p_extra), unnest(p_priorities),
                        unnest(p_max_attempts), unnest(p_retry_idx), unnest(p_timeouts),
                        unnest(p_visibility_timeouts), unnest(p_scheduled), unnest(p_expires))
             WITH ORDINALITY AS s(id, type, args, meta, options, extra, priority, max_attempts, retry_idx, timeout_ms,
                                  visibility_timeout_ms, scheduled_at, expires_at, n)
        ORDER BY s.n
        RETURNING j.id, j.type, j.state
    )
    INSERT INTO s3p.job_events (type, queue, job_id, job_type, state, attempt)
    SELECT 'job.enqueued', @queue@, i.id, i.type, i.state, 0 FROM inserted i;
    enqueue_time := now();
    notified := false;
    -- the notification slot of enqueue_notify, inline: a nested PL/pgSQL call costs a few microseconds per enqueue
    IF p_notify > 0 AND (p_scheduled IS NULL
                         OR EXISTS (SELECT 1 FROM unnest(p_scheduled) AS s(at) WHERE s.at IS NULL OR s.at <= now()))
       AND (p_notify = 1 OR (p_notify = 2 AND pg_try_advisory_xact_lock(s3p.enqueue_notify_lock_key()))) THEN
        PERFORM pg_notify('s3q_' || @queue@, 'jobs');
        notified := true;
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
    IF p_mode = 1 OR (p_mode = 2 AND pg_try_advisory_xact_lock(s3p.enqueue_notify_lock_key())) THEN
        PERFORM pg_notify('s3q_' || @queue@, 'jobs');
        RETURN true;
    END IF;
    RETURN false;
END
$fn$;

-- Inserts one job without a unique key: enqueue_rows for a single job, with one parameter per column instead of
-- arrays (called alternately in one session on PostgreSQL 15: 0.15 ms against 0.26 ms per job). Same result and
-- notification. Its three rows are one statement, as in enqueue_rows: each statement a PL/pgSQL function runs pays
-- for its own plan check, snapshot and executor start and end.
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
    WITH located AS (
        INSERT INTO s3p.job_locator (id, queue) SELECT p_id, @queue@
        WHERE s3p.job_id_tag(p_id) IS DISTINCT FROM @id_tag@ AND s3p.job_id_free_elsewhere(p_id, @queue@)
    ), inserted AS (
        INSERT INTO @schema@.jobs (id, type, state, args, meta, options, extra, priority, max_attempts, retry,
                                   timeout_ms, visibility_timeout_ms, scheduled_at, expires_at)
        VALUES (CASE WHEN s3p.job_id_tag(p_id) = @id_tag@
                      AND EXISTS (SELECT 1 FROM s3p.job_locator l WHERE l.id = p_id) THEN s3p.job_id_taken(p_id)
                 ELSE p_id END, p_type, v_state, p_args, p_meta, p_options, p_extra, p_priority, p_max_attempts, p_retry,
                p_timeout, p_visibility_timeout, CASE WHEN v_state = 'scheduled' THEN p_scheduled END, p_expires)
    )
    INSERT INTO s3p.job_events (type, queue, job_id, job_type, state, attempt)
    VALUES ('job.enqueued', @queue@, p_id, p_type, v_state, 0);
    enqueue_time := now();
    notified := false;
    -- the notification slot of enqueue_notify, inline: a nested PL/pgSQL call costs a few microseconds per enqueue
    IF p_notify > 0 AND v_state = 'available'
       AND (p_notify = 1 OR (p_notify = 2 AND pg_try_advisory_xact_lock(s3p.enqueue_notify_lock_key()))) THEN
        PERFORM pg_notify('s3q_' || @queue@, 'jobs');
        notified := true;
    END IF;
    RETURN NEXT;
END
$fn$;

$template$)
ON CONFLICT (part) DO UPDATE SET position = excluded.position, body = excluded.body;
