-- The jobs view: the per-queue maintenance step (timeouts, expired leases, promotion, expiry, retention) and the
-- state counts of the stats route.
INSERT INTO s3p.queue_templates (part, position, body) VALUES ('jobs.maintenance', 16, $template$

-- Counts per state for the stats route. Each state is counted exactly by an index scan of its partial index that
-- stops after p_cap + 1 rows, so a count up to p_cap is exact and costs at most p_cap + 1 index entries (with a heap
-- fetch each until vacuum has marked their pages all-visible: about 1-3.5 us per row on PostgreSQL 15, so counting up
-- to 100,000 took 100-360 ms in a queue of 1M jobs never vacuumed). A state with more jobs than that gets the
-- planner's estimate instead (never below p_cap + 1) and is named in 'estimated'. Sequential and bitmap scans are
-- ruled out: before the table was first analysed the planner, guessing from no statistics, counted dead-lettered
-- jobs by a sequential scan of every job and available ones by a bitmap scan, which reads the whole partial index
-- before the LIMIT can stop it (220 ms and 50 ms at 1M available jobs on PostgreSQL 15). JIT is off as in maintain:
-- job_settings has only a sequential scan, whose cost with scans ruled out would have it compiled on every call.
CREATE OR REPLACE FUNCTION @schema@.stats(p_cap integer) RETURNS jsonb
LANGUAGE plpgsql SET enable_seqscan = off SET enable_bitmapscan = off SET jit = off AS $fn$
DECLARE
    v_counts    jsonb;
    v_state     text;
    v_estimated text[] := '{}';
BEGIN
    SELECT jsonb_build_object(
        'available', (SELECT count(*) FROM (SELECT 1 FROM @schema@.jobs WHERE state = 'available' LIMIT p_cap + 1) t),
        'active', (SELECT count(*) FROM (SELECT 1 FROM @schema@.jobs WHERE state = 'active' LIMIT p_cap + 1) t),
        'scheduled', (SELECT count(*) FROM (SELECT 1 FROM @schema@.jobs WHERE state = 'scheduled' LIMIT p_cap + 1) t),
        'retryable', (SELECT count(*) FROM (SELECT 1 FROM @schema@.jobs WHERE state = 'retryable' LIMIT p_cap + 1) t),
        'completed', (SELECT count(*) FROM (SELECT 1 FROM @schema@.jobs
                                            WHERE state = 'completed' AND NOT dead_letter LIMIT p_cap + 1) t),
        'cancelled', (SELECT count(*) FROM (SELECT 1 FROM @schema@.jobs
                                            WHERE state = 'cancelled' AND NOT dead_letter LIMIT p_cap + 1) t),
        'discarded', (SELECT count(*) FROM (SELECT 1 FROM @schema@.jobs
                                            WHERE state = 'discarded' AND NOT dead_letter LIMIT p_cap + 1) t),
        'dead_letter', (SELECT count(*) FROM (SELECT 1 FROM @schema@.jobs WHERE dead_letter LIMIT p_cap + 1) t))
    INTO v_counts;
    FOR v_state IN SELECT c.key FROM jsonb_each(v_counts) c WHERE c.value::integer > p_cap ORDER BY c.key LOOP
        v_counts := v_counts || jsonb_build_object(v_state, greatest(p_cap + 1, @schema@.stats_estimate(v_state)));
        v_estimated := v_estimated || v_state;
    END LOOP;
    RETURN v_counts || jsonb_build_object(
        'estimated', to_jsonb(v_estimated),
        'paused', (SELECT paused FROM @schema@.job_settings),
        'rate_limit_per_second', (SELECT rate_limit_per_second FROM @schema@.job_settings));
END
$fn$;

-- The planner's estimate of the jobs in a state of the stats route: the table's row count from its last vacuum or
-- analyze scaled to its current size, times the state's share in its statistics (so it follows growth at once, and a
-- change of the mix of states once autovacuum has analysed the table). EXPLAIN cannot run in a STABLE function, so
-- this one and stats are VOLATILE.
CREATE OR REPLACE FUNCTION @schema@.stats_estimate(p_state text) RETURNS bigint
LANGUAGE plpgsql AS $fn$
DECLARE
    v_plan json;
BEGIN
    EXECUTE 'EXPLAIN (FORMAT JSON) SELECT 1 FROM @schema@.jobs WHERE '
        || CASE WHEN p_state = 'dead_letter' THEN 'dead_letter'
                WHEN p_state IN ('completed', 'cancelled', 'discarded') THEN format('state = %L AND NOT dead_letter', p_state)
                ELSE format('state = %L', p_state) END
        INTO v_plan;
    RETURN (v_plan -> 0 -> 'Plan' ->> 'Plan Rows')::numeric::bigint;
END
$fn$;

CREATE INDEX IF NOT EXISTS jobs_expiry ON @schema@.jobs (expires_at)
    WHERE expires_at IS NOT NULL AND state IN ('scheduled', 'available', 'retryable');

-- One maintenance step for this queue, each part bounded by p_limit rows: execution timeouts fail their job with code
-- timeout, expired leases go back to available, due jobs are promoted, jobs past expires_at are discarded and terminal
-- jobs older than their retention are deleted. Returns how many jobs it touched. Every step reads a partial index made
-- for it (timeouts and expired leases share jobs_active, keyed by whichever of the two ends first: a job whose lease
-- ended before its deadline is passed over by the timeout step and taken by the lease step right after, so each step
-- reads at most the other's rows besides its own); sequential scans are ruled out because a queue that grew since its
-- statistics were last gathered (autovacuum analyses it a minute or more later) looked small enough to scan whole on
-- every pass. JIT is off because a statement left with only a sequential scan carries the huge cost that rules it out,
-- which would otherwise make PostgreSQL compile that statement on every pass.
CREATE OR REPLACE FUNCTION @schema@.maintain(p_limit integer, p_retention_ms bigint, p_dead_letter_retention_ms bigint)
RETURNS bigint
LANGUAGE plpgsql SET enable_seqscan = off SET jit = off AS $fn$
DECLARE
    v_total bigint := 0;
    v_count bigint;
    v_id    uuid;
BEGIN
    FOR v_id IN
        SELECT id FROM @schema@.jobs
        WHERE state = 'active' AND least(lease_until, deadline_at) <= now() AND deadline_at <= now()
        ORDER BY least(lease_until, deadline_at) LIMIT p_limit FOR UPDATE SKIP LOCKED
    LOOP
        PERFORM @schema@.fail(v_id, jsonb_build_object('code', 'timeout', 'type', 'timeout', 'retryable', true,
                                                       'message', 'job exceeded its timeout_ms'), false);
        v_total := v_total + 1;
    END LOOP;

    WITH expired AS (
        SELECT id FROM @schema@.jobs
        WHERE state = 'active' AND least(lease_until, deadline_at) <= now() AND lease_until <= now()
        ORDER BY least(lease_until, deadline_at) LIMIT p_limit FOR UPDATE SKIP LOCKED
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
