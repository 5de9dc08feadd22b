-- Cheaper hot paths of the jobs view.

-- STABLE like to_char and date_trunc on timestamptz, which it calls: declared IMMUTABLE it could not be inlined, so
-- every envelope ran it as a separate SQL function call per timestamp field (eight to sixteen per job).
CREATE OR REPLACE FUNCTION s3p.ts(p timestamptz) RETURNS text
LANGUAGE sql STABLE AS $$
    SELECT CASE WHEN date_trunc('second', p) = p THEN to_char(p AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')
                ELSE to_char(p AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') END
$$;

-- Locator rows whose queue no longer exists, removed in bounded batches. The queues named in the locator are
-- walked one index probe each (a skip scan over job_locator_queue), so a pass over a large locator with no
-- orphans costs a few probes instead of a scan of every row.
CREATE OR REPLACE FUNCTION s3p.prune_job_locator(p_limit integer) RETURNS bigint
LANGUAGE sql AS $$
    WITH RECURSIVE located(queue) AS (
        (SELECT l.queue FROM s3p.job_locator l ORDER BY l.queue LIMIT 1)
        UNION ALL
        SELECT (SELECT l.queue FROM s3p.job_locator l WHERE l.queue > located.queue ORDER BY l.queue LIMIT 1)
        FROM located
        WHERE located.queue IS NOT NULL
    ), gone AS (
        SELECT l.id
        FROM located g JOIN s3p.job_locator l ON l.queue = g.queue
        WHERE g.queue IS NOT NULL AND NOT EXISTS (SELECT 1 FROM s3p.queues q WHERE q.name = g.queue)
        LIMIT p_limit
    ), deleted AS (
        DELETE FROM s3p.job_locator l USING gone WHERE l.id = gone.id RETURNING 1
    )
    SELECT count(*) FROM deleted
$$;

-- Completes many jobs at once (one statement per queue involved). Returns one row per input position that names an
-- existing job: ok when it was active under the given worker's lease, else the job as it is. Positions missing
-- from the result name no job. Without p_envelopes a completed job is not read back (its row has job null), for
-- workers that only need to know the ack held.
DROP FUNCTION s3p.ack_jobs(uuid[], jsonb[], text[]);
CREATE FUNCTION s3p.ack_jobs(p_ids uuid[], p_results jsonb[], p_workers text[], p_envelopes boolean DEFAULT true)
RETURNS TABLE (ord integer, job jsonb, ok boolean)
LANGUAGE plpgsql AS $$
DECLARE
    v_group record;
BEGIN
    FOR v_group IN
        SELECT q.schema_name, array_agg(t.id ORDER BY t.n) AS ids, array_agg(t.result ORDER BY t.n) AS results,
               array_agg(t.worker ORDER BY t.n) AS workers, array_agg(t.n::integer ORDER BY t.n) AS ords
        FROM unnest(p_ids, p_results, p_workers) WITH ORDINALITY AS t(id, result, worker, n)
        JOIN s3p.job_locator l ON l.id = t.id
        JOIN s3p.queues q ON q.name = l.queue
        GROUP BY q.schema_name
        ORDER BY q.schema_name
    LOOP
        RETURN QUERY EXECUTE format('SELECT ($4)[a.ord], a.job, a.ok FROM %I.ack($1, $2, $3, $5) a', v_group.schema_name)
            USING v_group.ids, v_group.results, v_group.workers, v_group.ords, p_envelopes;
    END LOOP;
END
$$;
