-- The fetch over several queues (and inside a caller's transaction) takes p_async_commit: a fetch that is a
-- transaction of its own commits without waiting for the WAL flush. Replaced rather than overloaded, so that a call
-- with the five arguments of before stays unambiguous.
DROP FUNCTION s3p.fetch_job_rows(text[], integer, text, bigint, bigint);

-- Claims up to p_count jobs from the queues in the order given: the first queue is drained before the next. One row
-- per claimed job, in claim order, with the queue it came from. With p_async_commit the transaction commits without
-- waiting for its WAL to be flushed, as a queue's claim_rows does with it (see there): only for a fetch that is a
-- transaction of its own.
CREATE FUNCTION s3p.fetch_job_rows(p_queues text[], p_count integer, p_worker text, p_vt_ms bigint,
                                   p_default_vt_ms bigint, p_async_commit boolean DEFAULT false)
RETURNS TABLE (queue text, id uuid, type text, state text, args jsonb, meta jsonb, tags jsonb, extra jsonb,
               priority integer, attempt integer, max_attempts integer, retry jsonb, timeout_ms bigint,
               visibility_timeout_ms bigint, scheduled_at timestamptz, expires_at timestamptz, worker_id text,
               lease_until timestamptz, created_at timestamptz, enqueued_at timestamptz, started_at timestamptz,
               completed_at timestamptz, cancelled_at timestamptz, discarded_at timestamptz, result jsonb,
               error jsonb, errors jsonb, retry_delay_ms bigint, dead_letter boolean, workflow_id uuid)
LANGUAGE plpgsql AS $$
DECLARE
    v_queue   text;
    v_claimed integer := 0;
    v_rows    integer;
BEGIN
    IF p_async_commit THEN
        PERFORM set_config('synchronous_commit', 'off', true);
    END IF;
    FOREACH v_queue IN ARRAY p_queues LOOP
        EXIT WHEN v_claimed >= p_count;
        CONTINUE WHEN NOT EXISTS (SELECT 1 FROM s3p.queues q WHERE q.name = v_queue);
        RETURN QUERY EXECUTE format(
            'SELECT %L::text, c.id, c.type, c.state, c.args, c.meta,'
            || ' CASE WHEN c.options ? ''tags'' THEN c.options -> ''tags'' END, c.extra, c.priority, c.attempt,'
            || ' c.max_attempts, c.retry, c.timeout_ms, c.visibility_timeout_ms, c.scheduled_at, c.expires_at,'
            || ' c.worker_id, c.lease_until, c.created_at, c.enqueued_at, c.started_at, c.completed_at,'
            || ' c.cancelled_at, c.discarded_at, c.result, c.error, c.errors, c.retry_delay_ms, c.dead_letter,'
            || ' c.workflow_id FROM %I.claim_rows($1, $2, $3, $4) c', v_queue, 's3q_' || v_queue)
            USING p_count - v_claimed, p_worker, p_vt_ms, p_default_vt_ms;
        GET DIAGNOSTICS v_rows = ROW_COUNT;
        v_claimed := v_claimed + v_rows;
    END LOOP;
END
$$;
