-- The jobs view: promotion of due jobs and the claim (fetch) of available ones.
INSERT INTO s3p.queue_templates (part, position, body) VALUES ('jobs.claim', 13, $template$

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
--
-- Commit: with p_async_commit the claim's transaction commits without waiting for its WAL to be flushed
-- (synchronous_commit off for the transaction). Only for a claim that is a transaction of its own: the setting holds
-- for the whole transaction, and would make a caller's writes around the claim asynchronous too. A crash before the
-- flush loses the claim with everything it wrote (the jobs' move to active and their attempt, the job.started
-- events, the rate limit's tokens, a promotion): the jobs are as they were and are delivered again, which a lease
-- implies anyway (at-least-once). Whatever a client is told is durable commits synchronously later, and that
-- commit's flush covers the claim's commit record, written to the WAL before it.
DROP FUNCTION IF EXISTS @schema@.claim_rows(integer, text, bigint, bigint, bigint);
CREATE OR REPLACE FUNCTION @schema@.claim_rows(p_count integer, p_worker text, p_vt_ms bigint, p_default_vt_ms bigint,
                                               p_resume_ms bigint DEFAULT 1000,
                                               p_async_commit boolean DEFAULT false)
RETURNS SETOF @schema@.jobs
LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $fn$
DECLARE
    v_settings @schema@.job_settings;
    v_paused   boolean;
    v_limited  boolean;
    v_due      boolean;
    v_hint_text text;
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
    v_commit   text;
BEGIN
    IF p_async_commit THEN
        v_commit := set_config('synchronous_commit', 'off', true);
    END IF;
    -- one statement for what every call reads: the settings and whether any job is due for promotion
    SELECT s.paused, s.rate_limit_per_second IS NOT NULL, d.due
    INTO v_paused, v_limited, v_due
    FROM (SELECT EXISTS (SELECT 1 FROM @schema@.jobs WHERE state IN ('scheduled', 'retryable') AND scheduled_at <= now())
              AS due) d
    LEFT JOIN @schema@.job_settings s ON true;
    IF v_paused THEN
        RETURN;
    END IF;
    IF v_limited THEN
        SELECT * INTO v_settings FROM @schema@.job_settings FOR UPDATE;
        v_tokens := least(v_settings.rate_limit_per_second,
                          v_settings.tokens + extract(epoch FROM clock_timestamp() - v_settings.refilled_at)
                                              * v_settings.rate_limit_per_second);
        v_count := least(p_count, floor(v_tokens)::integer);
        IF v_count < 1 THEN
            RETURN;
        END IF;
    END IF;
    IF v_due THEN
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
    -- an assignment, which PL/pgSQL evaluates as a simple expression: PERFORM would run a query through the executor
    v_hint_text := set_config(v_hint_key, array_to_string(v_hint, ',', ''), false);
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
        INSERT INTO s3p.job_events (type, queue, job_id, job_type, state, attempt, worker_id)
        SELECT 'job.started', @queue@, c.id, c.type, c.state, c.attempt, p_worker
        FROM claimed c
    )
    SELECT c.* FROM claimed c ORDER BY c.priority DESC, c.seq;
    GET DIAGNOSTICS v_claimed = ROW_COUNT;
    IF v_limited THEN
        UPDATE @schema@.job_settings SET tokens = v_tokens - v_claimed, refilled_at = clock_timestamp();
    END IF;
END
$fn$;

$template$)
ON CONFLICT (part) DO UPDATE SET position = excluded.position, body = excluded.body;
