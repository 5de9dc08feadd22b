-- The s3p-level part of the jobs view: where each job lives, the job event log, and the entry points that find a
-- job's queue by id so that get, ack, nack, cancel and heartbeat are one round trip each.

-- Insert-only map from job id to queue. Its primary key is what makes a client-chosen job id unique across all
-- queues; rows are deleted only when their job is pruned or their queue is dropped.
CREATE TABLE s3p.job_locator (
    id    uuid PRIMARY KEY,
    queue text NOT NULL
);
CREATE INDEX job_locator_queue ON s3p.job_locator (queue);

-- Lifecycle events (job.enqueued, job.started, job.completed, ...), pruned by the maintenance pass. The table is
-- UNLOGGED: three events per job would otherwise about double the WAL of the enqueue-fetch-ack path. The price is
-- that a crash restart empties it (and standbys do not have it); events are an observability log, not job state.
-- The id sequence stays logged, so ids keep growing across a crash and a reader's after-cursor stays valid.
CREATE SEQUENCE s3p.job_event_ids;
CREATE UNLOGGED TABLE s3p.job_events (
    id          bigint PRIMARY KEY DEFAULT nextval('s3p.job_event_ids'),
    occurred_at timestamptz NOT NULL DEFAULT now(),
    type        text NOT NULL,
    queue       text NOT NULL,
    job_id      uuid,
    data        jsonb NOT NULL
);
CREATE INDEX job_events_occurred_at ON s3p.job_events (occurred_at);
ALTER SEQUENCE s3p.job_event_ids OWNED BY s3p.job_events.id;

-- RFC 3339 text of a timestamp in UTC with millisecond precision, the form every envelope field uses.
-- Whole seconds are written without a fraction, so a timestamp a client sent as 2099-12-31T23:59:59Z reads back alike.
CREATE FUNCTION s3p.ts(p timestamptz) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE WHEN date_trunc('second', p) = p THEN to_char(p AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')
                ELSE to_char(p AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') END
$$;

-- The schema of the queue that holds a job, or null when the job (or its queue) does not exist.
CREATE FUNCTION s3p.job_schema(p_id uuid) RETURNS text
LANGUAGE sql STABLE AS $$
    SELECT q.schema_name FROM s3p.job_locator l JOIN s3p.queues q ON q.name = l.queue WHERE l.id = p_id
$$;

CREATE FUNCTION s3p.get_job(p_id uuid) RETURNS jsonb
LANGUAGE plpgsql STABLE AS $$
DECLARE
    v_schema text := s3p.job_schema(p_id);
    v_job    jsonb;
BEGIN
    IF v_schema IS NULL THEN
        RETURN NULL;
    END IF;
    EXECUTE format('SELECT %1$I.envelope(j) FROM %1$I.jobs j WHERE j.id = $1', v_schema) INTO v_job USING p_id;
    RETURN v_job;
END
$$;

-- Claims up to p_count jobs from the queues in the order given: the first queue is drained before the next.
CREATE FUNCTION s3p.fetch_jobs(p_queues text[], p_count integer, p_worker text, p_vt_ms bigint, p_default_vt_ms bigint)
RETURNS SETOF jsonb
LANGUAGE plpgsql AS $$
DECLARE
    v_queue   text;
    v_claimed integer := 0;
    v_job     jsonb;
BEGIN
    FOREACH v_queue IN ARRAY p_queues LOOP
        EXIT WHEN v_claimed >= p_count;
        CONTINUE WHEN NOT EXISTS (SELECT 1 FROM s3p.queues WHERE name = v_queue);
        FOR v_job IN EXECUTE format('SELECT c FROM %I.claim($1, $2, $3, $4) c', 's3q_' || v_queue)
                USING p_count - v_claimed, p_worker, p_vt_ms, p_default_vt_ms LOOP
            v_claimed := v_claimed + 1;
            RETURN NEXT v_job;
        END LOOP;
    END LOOP;
END
$$;

-- Completes many jobs at once (one statement per queue involved). Returns one row per input position that names an
-- existing job: ok when it was active under the given worker's lease, else the job as it is. Positions missing
-- from the result name no job.
CREATE FUNCTION s3p.ack_jobs(p_ids uuid[], p_results jsonb[], p_workers text[])
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
        RETURN QUERY EXECUTE format('SELECT ($4)[a.ord], a.job, a.ok FROM %I.ack($1, $2, $3) a', v_group.schema_name)
            USING v_group.ids, v_group.results, v_group.workers, v_group.ords;
    END LOOP;
END
$$;

-- Runs one action on a single job in the queue that holds it, one round trip by job id: nack (worker, error,
-- requeue), release (worker), cancel, retry_dead_letter or delete_dead_letter. No row when the job does not exist;
-- otherwise the job as it is afterwards, and ok when the action applied.
CREATE FUNCTION s3p.job_action(p_action text, p_id uuid, p_worker text DEFAULT NULL, p_error jsonb DEFAULT NULL,
                               p_requeue boolean DEFAULT false)
RETURNS TABLE (job jsonb, ok boolean)
LANGUAGE plpgsql AS $$
DECLARE
    v_schema text := s3p.job_schema(p_id);
    v_call   text := CASE p_action
                         WHEN 'nack' THEN 'nack($1, $2, $3, $4)'
                         WHEN 'release' THEN 'release($1, $2)'
                         WHEN 'cancel' THEN 'cancel($1)'
                         WHEN 'retry_dead_letter' THEN 'retry_dead_letter($1)'
                         WHEN 'delete_dead_letter' THEN 'delete_dead_letter($1)'
                     END;
BEGIN
    IF v_call IS NULL THEN
        RAISE EXCEPTION 'unknown job action: %', p_action USING ERRCODE = '22023';
    END IF;
    IF v_schema IS NOT NULL THEN
        RETURN QUERY EXECUTE format('SELECT a.job, a.ok FROM %I.', v_schema) || v_call || ' a'
            USING p_id, p_worker, p_error, p_requeue;
    END IF;
END
$$;

-- Extends the leases of the worker's active jobs; returns each extended job with its worker directive, if any.
CREATE FUNCTION s3p.heartbeat_jobs(p_ids uuid[], p_worker text, p_vt_ms bigint, p_default_vt_ms bigint)
RETURNS TABLE (id uuid, directive text)
LANGUAGE plpgsql AS $$
DECLARE
    v_group record;
BEGIN
    FOR v_group IN
        SELECT q.schema_name, array_agg(l.id) AS ids
        FROM s3p.job_locator l JOIN s3p.queues q ON q.name = l.queue
        WHERE l.id = ANY (p_ids)
        GROUP BY q.schema_name
        ORDER BY q.schema_name
    LOOP
        RETURN QUERY EXECUTE format('SELECT h.id, h.directive FROM %I.extend($1, $2, $3, $4) h', v_group.schema_name)
            USING v_group.ids, p_worker, p_vt_ms, p_default_vt_ms;
    END LOOP;
END
$$;

-- Dead-letter entries of every queue (or of one), oldest first.
CREATE FUNCTION s3p.dead_letter_jobs(p_queue text, p_limit integer, p_offset integer)
RETURNS SETOF jsonb
LANGUAGE plpgsql STABLE AS $$
DECLARE
    v_sql text;
BEGIN
    SELECT string_agg(format('SELECT %1$I.envelope(j) AS job, j.finished_at, j.id FROM %1$I.jobs j WHERE j.dead_letter',
                             schema_name), ' UNION ALL ' ORDER BY name)
    INTO v_sql
    FROM s3p.queues WHERE p_queue IS NULL OR name = p_queue;
    IF v_sql IS NULL THEN
        RETURN;
    END IF;
    RETURN QUERY EXECUTE 'SELECT d.job FROM (' || v_sql || ') d ORDER BY d.finished_at, d.id LIMIT $1 OFFSET $2'
        USING p_limit, p_offset;
END
$$;

-- Locator rows whose queue no longer exists (dropped on another instance), removed in bounded batches.
CREATE FUNCTION s3p.prune_job_locator(p_limit integer) RETURNS bigint
LANGUAGE sql AS $$
    WITH gone AS (
        SELECT l.id FROM s3p.job_locator l
        WHERE NOT EXISTS (SELECT 1 FROM s3p.queues q WHERE q.name = l.queue)
        LIMIT p_limit
    ), deleted AS (
        DELETE FROM s3p.job_locator l USING gone WHERE l.id = gone.id RETURNING 1
    )
    SELECT count(*) FROM deleted
$$;
