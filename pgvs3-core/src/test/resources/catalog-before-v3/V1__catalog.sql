-- The pgvs3 catalog (schema s3p), the one baseline of the catalog: the queues and the templates of their namespaces,
-- the s3p-level part of the jobs view (where each job lives, the job event log, the entry points by job id), job
-- events as streams, crons, workflows and API tokens. See sql/README.md.

-- Queues -------------------------------------------------------------------------------------------------------

CREATE TABLE s3p.queues (
    name             text PRIMARY KEY
                     CHECK (name ~ '^[a-z0-9][a-z0-9.-]*$' AND octet_length(name) <= 59),
    schema_name      text NOT NULL UNIQUE,
    created_at       timestamptz NOT NULL DEFAULT now(),
    template_version text NOT NULL
);

-- Each part of a queue namespace (jobs, streams) is a template of idempotent DDL in which
-- @schema@ stands for the quoted schema identifier and @queue@ for the quoted queue name literal.
CREATE TABLE s3p.queue_templates (
    part     text PRIMARY KEY,
    position integer NOT NULL,
    body     text NOT NULL
);

-- The advisory lock keys that are not a single queue's own (those are functions in the queue's schema): every key
-- is hashtextextended('pgvs3.<area>:<queue>[:<detail>]', 0), or 'pgvs3.<area>' for one lock per database.
-- Creating, upgrading and dropping one queue's namespace.
CREATE FUNCTION s3p.queue_lock_key(p_name text) RETURNS bigint
LANGUAGE sql IMMUTABLE AS $$ SELECT hashtextextended('pgvs3.queue:' || p_name, 0) $$;

-- The one transaction at a time that notifies enqueued jobs from inside the enqueue (see <queue>.enqueue_notify).
CREATE FUNCTION s3p.enqueue_notify_lock_key() RETURNS bigint
LANGUAGE sql IMMUTABLE AS $$ SELECT hashtextextended('pgvs3.enqueue-notify', 0) $$;

-- The maintenance leader (MaintenancePass): one pass at a time per database.
CREATE FUNCTION s3p.maintenance_lock_key() RETURNS bigint
LANGUAGE sql IMMUTABLE AS $$ SELECT hashtextextended('pgvs3.maintenance', 0) $$;

CREATE FUNCTION s3p.valid_queue_name(p_name text) RETURNS boolean
LANGUAGE sql IMMUTABLE AS $$
    SELECT p_name IS NOT NULL AND p_name ~ '^[a-z0-9][a-z0-9.-]*$' AND octet_length(p_name) <= 59
$$;

CREATE FUNCTION s3p.template_version() RETURNS text
LANGUAGE sql STABLE AS $$
    SELECT coalesce(md5(string_agg(part || ':' || md5(body), ',' ORDER BY position, part)), 'empty')
    FROM s3p.queue_templates
$$;

-- Creates (or brings up to date) the namespace of one queue. Safe to call concurrently for one name:
-- callers serialise on the queue's advisory lock (queue_lock_key), so both succeed and one schema results.
CREATE FUNCTION s3p.ensure_queue_schema(p_name text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
    v_schema  text := 's3q_' || p_name;
    v_version text;
    v_current text;
    v_part    record;
BEGIN
    IF NOT s3p.valid_queue_name(p_name) THEN
        RAISE EXCEPTION 'invalid queue name: %', p_name
            USING ERRCODE = '22023', HINT = 'queue names match ^[a-z0-9][a-z0-9.-]*$ and are at most 59 bytes';
    END IF;
    PERFORM pg_advisory_xact_lock(s3p.queue_lock_key(p_name));
    v_version := s3p.template_version();
    SELECT template_version INTO v_current FROM s3p.queues WHERE name = p_name;
    IF v_current IS NOT DISTINCT FROM v_version
       AND EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = v_schema) THEN
        RETURN v_schema;
    END IF;
    EXECUTE format('CREATE SCHEMA IF NOT EXISTS %I', v_schema);
    FOR v_part IN SELECT body FROM s3p.queue_templates ORDER BY position, part LOOP
        EXECUTE replace(replace(v_part.body, '@schema@', quote_ident(v_schema)), '@queue@', quote_literal(p_name));
    END LOOP;
    INSERT INTO s3p.queues (name, schema_name, template_version)
    VALUES (p_name, v_schema, v_version)
    ON CONFLICT (name) DO UPDATE SET template_version = excluded.template_version;
    RETURN v_schema;
END
$$;

-- Re-runs the templates for every queue built from an older template version.
CREATE FUNCTION s3p.upgrade_queue_schemas() RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
    v_name     text;
    v_upgraded integer := 0;
BEGIN
    FOR v_name IN SELECT name FROM s3p.queues WHERE template_version <> s3p.template_version() ORDER BY name LOOP
        PERFORM s3p.ensure_queue_schema(v_name);
        v_upgraded := v_upgraded + 1;
    END LOOP;
    RETURN v_upgraded;
END
$$;

-- Drops a queue namespace and its catalog row in one transaction; false when there was none. A queue that receives
-- job events loses its trigger on s3p.job_events with its schema. The lock on s3p.job_events is taken first: a job
-- transition holds it from its event insert until it commits and meanwhile appends to the stream, so taking the
-- stream's locks first could deadlock with it.
CREATE FUNCTION s3p.drop_queue(p_name text) RETURNS boolean
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_advisory_xact_lock(s3p.queue_lock_key(p_name));
    IF NOT EXISTS (SELECT 1 FROM s3p.queues WHERE name = p_name) THEN
        RETURN false;
    END IF;
    IF EXISTS (SELECT 1 FROM pg_trigger t
               WHERE t.tgrelid = 's3p.job_events'::regclass AND t.tgname = 's3q_' || p_name) THEN
        LOCK TABLE s3p.job_events IN SHARE ROW EXCLUSIVE MODE;
    END IF;
    EXECUTE format('DROP SCHEMA IF EXISTS %I CASCADE', 's3q_' || p_name);
    DELETE FROM s3p.queues WHERE name = p_name;
    RETURN true;
END
$$;

-- Jobs ---------------------------------------------------------------------------------------------------------
-- The s3p-level part of the jobs view: where each job lives, the job event log, and the entry points that find a
-- job's queue by id so that get, ack, nack, cancel and heartbeat are one round trip each.

-- Insert-only map from job id to queue. Its primary key is what makes a client-chosen job id unique across all
-- queues; rows are deleted only when their job is pruned or their queue is dropped.
CREATE TABLE s3p.job_locator (
    id    uuid PRIMARY KEY,
    queue text NOT NULL
);
-- The locator's index of queue names compares them bytewise (COLLATE "C") instead of by the database's collation.
-- Every enqueue inserts one entry per job into it, and under a libc collation such as C.UTF-8 or en_US.UTF-8 each
-- comparison on the way down the tree was a strcoll() call: about a third of the cost of the locator row in a
-- 1000-job enqueue. Its readers (dropping a queue, pruning the rows of dropped queues)
-- compare queue names for equality or walk them in index order, which any fixed order serves.
CREATE INDEX job_locator_queue_c ON s3p.job_locator (queue COLLATE "C");

-- Lifecycle events (job.enqueued, job.started, job.completed, ...), pruned by the maintenance pass. The table is
-- UNLOGGED: three events per job would otherwise about double the WAL of the enqueue-fetch-ack path. The price is
-- that a crash restart empties it (and standbys do not have it); events are an observability log, not job state.
-- The id sequence stays logged, so ids keep growing across a crash and a reader's after-cursor stays valid.
-- No index on occurred_at: every transition inserts an event, and its entry in that B-tree cost about as much as a
-- fifth of the event row; the maintenance pass prunes the log from its head in id order instead.
CREATE SEQUENCE s3p.job_event_ids;
CREATE UNLOGGED TABLE s3p.job_events (
    id          bigint PRIMARY KEY DEFAULT nextval('s3p.job_event_ids'),
    occurred_at timestamptz NOT NULL DEFAULT now(),
    type        text NOT NULL,
    queue       text NOT NULL,
    job_id      uuid,
    data        jsonb NOT NULL
);
ALTER SEQUENCE s3p.job_event_ids OWNED BY s3p.job_events.id;

-- RFC 3339 text of a timestamp in UTC with millisecond precision, the form every envelope field uses.
-- Whole seconds are written without a fraction, so a timestamp a client sent as 2099-12-31T23:59:59Z reads back alike.
-- STABLE like to_char and date_trunc on timestamptz, which it calls: declared IMMUTABLE it could not be inlined, so
-- every envelope ran it as a separate SQL function call per timestamp field (eight to sixteen per job).
CREATE FUNCTION s3p.ts(p timestamptz) RETURNS text
LANGUAGE sql STABLE AS $$
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

-- Completes many jobs at once (one statement per queue involved). Returns one row per input position that names an
-- existing job: ok when it was active under the given worker's lease, else the job as it is. Positions missing
-- from the result name no job. Without p_envelopes a completed job is not read back (its row has job null), for
-- workers that only need to know the ack held.
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

-- Locator rows whose queue no longer exists, removed in bounded batches. The queues named in the locator are
-- walked one index probe each (a skip scan over job_locator_queue_c, in its bytewise order), so a pass over a large locator with no
-- orphans costs a few probes instead of a scan of every row.
CREATE FUNCTION s3p.prune_job_locator(p_limit integer) RETURNS bigint
LANGUAGE sql AS $$
    WITH RECURSIVE located(queue) AS (
        (SELECT l.queue COLLATE "C" FROM s3p.job_locator l ORDER BY l.queue COLLATE "C" LIMIT 1)
        UNION ALL
        SELECT (SELECT l.queue COLLATE "C" FROM s3p.job_locator l
                WHERE l.queue COLLATE "C" > located.queue ORDER BY l.queue COLLATE "C" LIMIT 1)
        FROM located
        WHERE located.queue IS NOT NULL
    ), gone AS (
        SELECT l.id
        FROM located g JOIN s3p.job_locator l ON l.queue COLLATE "C" = g.queue
        WHERE g.queue IS NOT NULL AND NOT EXISTS (SELECT 1 FROM s3p.queues q WHERE q.name = g.queue COLLATE "default")
        LIMIT p_limit
    ), deleted AS (
        DELETE FROM s3p.job_locator l USING gone WHERE l.id = gone.id RETURNING 1
    )
    SELECT count(*) FROM deleted
$$;

-- Deletes the locator rows of a dropped queue, by the index above.
CREATE FUNCTION s3p.forget_job_locations(p_queue text) RETURNS bigint
LANGUAGE sql AS $$
    WITH deleted AS (
        DELETE FROM s3p.job_locator l WHERE l.queue COLLATE "C" = p_queue RETURNING 1
    )
    SELECT count(*) FROM deleted
$$;

-- Fetch returns the claimed jobs' columns rather than their OJS envelopes: building the envelope in SQL (sixteen
-- formatted timestamps, a jsonb object of thirty keys, merged five times) cost more than the claim itself, so the
-- client builds it from the row (JobRows in pgvs3-core, kept equal to <queue>.envelope by a test).

-- Claims up to p_count jobs from the queues in the order given: the first queue is drained before the next. One row
-- per claimed job, in claim order, with the queue it came from.
CREATE FUNCTION s3p.fetch_job_rows(p_queues text[], p_count integer, p_worker text, p_vt_ms bigint,
                                   p_default_vt_ms bigint)
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

-- A unique job whose policy leaves out the queue dimension is unique across every queue (ojs-unique-jobs.md,
-- section 3.2). Each queue's enqueue, holding the advisory lock of the key, asks this function for the newest job that
-- has the key in any queue, in one of p_states and, with p_period_ms, created within the period. Each probe is an
-- index scan of that queue's jobs_unique_key index.
CREATE FUNCTION s3p.unique_existing(p_key text, p_states text[], p_period_ms bigint)
RETURNS TABLE (schema_name text, id uuid, state text, scheduled_at timestamptz)
LANGUAGE plpgsql STABLE AS $$
DECLARE
    v_schema  text;
    v_id      uuid;
    v_state   text;
    v_at      timestamptz;
    v_created timestamptz;
    v_newest  timestamptz;
BEGIN
    FOR v_schema IN SELECT q.schema_name FROM s3p.queues q ORDER BY q.name LOOP
        EXECUTE format('SELECT j.id, j.state, j.scheduled_at, j.created_at FROM %I.jobs j'
                       ' WHERE j.unique_key = $1 AND j.state = ANY ($2)'
                       ' AND ($3 IS NULL OR j.created_at > now() - make_interval(secs => $3 / 1000.0))'
                       ' ORDER BY j.seq DESC LIMIT 1', v_schema)
            INTO v_id, v_state, v_at, v_created
            USING p_key, p_states, p_period_ms;
        IF v_id IS NOT NULL AND (v_newest IS NULL OR v_created > v_newest) THEN
            v_newest := v_created;
            schema_name := v_schema;
            id := v_id;
            state := v_state;
            scheduled_at := v_at;
        END IF;
    END LOOP;
    IF v_newest IS NOT NULL THEN
        RETURN NEXT;
    END IF;
END
$$;

-- Job events as streams ----------------------------------------------------------------------------------------

-- Job lifecycle events as a stream: a job queue may name a stream (any queue's streams view) that receives every
-- event of its jobs, appended in the transaction of the transition that recorded it.
--
-- Every transition already inserts its event into s3p.job_events. Statement-level triggers on that table, with the
-- statement's new rows as a transition table, append the rows of opted-in queues to their streams: one append per
-- stream and statement, through the stream's own stream_append (its rotation lock and current segment), so the
-- transition functions stay as they are. A stream's trigger exists only while some queue sends to it, so a catalog
-- without opt-ins runs exactly the statements it ran before.

-- Which stream each opted-in queue sends its job events to. Dropping either queue removes the row.
CREATE TABLE s3p.job_event_streams (
    queue      text PRIMARY KEY REFERENCES s3p.queues (name) ON DELETE CASCADE,
    stream     text NOT NULL REFERENCES s3p.queues (name) ON DELETE CASCADE,
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX job_event_streams_stream ON s3p.job_event_streams (stream);

-- One trigger per stream that receives job events, named like the stream's schema, calling a function in that
-- schema: its SQL names the stream's stream_append statically, so the trigger's statements keep their cached plans
-- (a dynamic EXECUTE per statement cost as much as the append itself), and dropping the stream's schema drops the
-- function and with it the trigger. Triggers fire in name order, so statements that feed several streams take their
-- locks in one order.
--
-- The function appends the statement's events of the queues that send to its stream in event id order (the order
-- the statement recorded them), in appends of at most 1,000 messages. Message id = the event id, type = the event
-- type, payload = the event data; created_at is the transaction's now(), which is also the event's occurred_at. The
-- appends do not notify (a notifying transaction holds a global lock until its commit record is flushed, which would
-- serialise every job transition); JobStore wakes the stream's listeners after commit instead.
CREATE FUNCTION s3p.job_event_append_function(p_stream text) RETURNS text
LANGUAGE sql IMMUTABLE AS $fn$
    SELECT format($body$
CREATE OR REPLACE FUNCTION %1$I.job_events_append() RETURNS trigger
LANGUAGE plpgsql AS $append$
DECLARE
    v_ids      text[];
    v_types    text[];
    v_payloads text[];
    v_from     integer := 1;
BEGIN
    SELECT array_agg(n.id::text ORDER BY n.id), array_agg(n.type ORDER BY n.id), array_agg(n.data::text ORDER BY n.id)
    INTO v_ids, v_types, v_payloads
    FROM new_events n
    WHERE n.queue IN (SELECT s.queue FROM s3p.job_event_streams s WHERE s.stream = %2$L);
    WHILE v_from <= coalesce(cardinality(v_ids), 0) LOOP
        PERFORM 1 FROM %1$I.stream_append(v_ids[v_from:v_from + 999], v_types[v_from:v_from + 999],
                                          v_payloads[v_from:v_from + 999], NULL, false);
        v_from := v_from + 1000;
    END LOOP;
    RETURN NULL;
END
$append$
$body$, 's3q_' || p_stream, p_stream)
$fn$;

-- Whether the triggers on s3p.job_events differ from the streams named in s3p.job_event_streams.
CREATE FUNCTION s3p.job_event_triggers_stale() RETURNS boolean
LANGUAGE sql STABLE AS $$
    SELECT EXISTS (SELECT 1 FROM pg_trigger t
                   WHERE t.tgrelid = 's3p.job_events'::regclass AND NOT t.tgisinternal
                     AND NOT EXISTS (SELECT 1 FROM s3p.job_event_streams s WHERE 's3q_' || s.stream = t.tgname))
        OR EXISTS (SELECT 1 FROM s3p.job_event_streams s
                   WHERE NOT EXISTS (SELECT 1 FROM pg_trigger t
                                     WHERE t.tgrelid = 's3p.job_events'::regclass AND t.tgname = 's3q_' || s.stream))
$$;

-- Creates the trigger of every stream some queue sends its events to and drops the others. The caller holds the
-- SHARE ROW EXCLUSIVE lock on s3p.job_events that these DDL statements take anyway.
CREATE FUNCTION s3p.sync_job_event_triggers() RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
    v_name text;
BEGIN
    FOR v_name IN
        SELECT t.tgname FROM pg_trigger t
        WHERE t.tgrelid = 's3p.job_events'::regclass AND NOT t.tgisinternal
          AND NOT EXISTS (SELECT 1 FROM s3p.job_event_streams s WHERE 's3q_' || s.stream = t.tgname)
        ORDER BY t.tgname
    LOOP
        EXECUTE format('DROP TRIGGER %I ON s3p.job_events', v_name);
        EXECUTE format('DROP FUNCTION IF EXISTS %I.job_events_append()', v_name);
    END LOOP;
    FOR v_name IN
        SELECT DISTINCT s.stream FROM s3p.job_event_streams s
        WHERE NOT EXISTS (SELECT 1 FROM pg_trigger t
                          WHERE t.tgrelid = 's3p.job_events'::regclass AND t.tgname = 's3q_' || s.stream)
        ORDER BY s.stream
    LOOP
        EXECUTE s3p.job_event_append_function(v_name);
        EXECUTE format('CREATE TRIGGER %1$I AFTER INSERT ON s3p.job_events REFERENCING NEW TABLE AS new_events'
                       ' FOR EACH STATEMENT EXECUTE FUNCTION %1$I.job_events_append()', 's3q_' || v_name);
    END LOOP;
END
$$;

-- Sends the job events of p_queue to the stream p_stream, or stops sending them when p_stream is null. Both queues
-- must exist. The lock on s3p.job_events waits for every transaction that recorded events to end and holds new ones
-- off until this commits, so each transaction's events all go to the stream or none do. Returns the stream before.
CREATE FUNCTION s3p.set_job_event_stream(p_queue text, p_stream text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
    v_before text;
BEGIN
    LOCK TABLE s3p.job_events IN SHARE ROW EXCLUSIVE MODE;
    SELECT s.stream INTO v_before FROM s3p.job_event_streams s WHERE s.queue = p_queue;
    IF p_stream IS NULL THEN
        DELETE FROM s3p.job_event_streams WHERE queue = p_queue;
    ELSE
        INSERT INTO s3p.job_event_streams (queue, stream) VALUES (p_queue, p_stream)
        ON CONFLICT (queue) DO UPDATE SET stream = excluded.stream, created_at = now();
    END IF;
    PERFORM s3p.sync_job_event_triggers();
    RETURN v_before;
END
$$;

-- Crons --------------------------------------------------------------------------------------------------------

-- Cron registrations: one row per name. The maintenance pass fires due rows under FOR UPDATE SKIP LOCKED and moves
-- next_run_at past now in the same transaction, so each occurrence fires once however many instances run, and a
-- server that was down fires a missed occurrence once.
CREATE TABLE s3p.crons (
    name           text PRIMARY KEY CHECK (length(name) BETWEEN 1 AND 255),
    expression     text NOT NULL,
    timezone       text NOT NULL,
    overlap_policy text NOT NULL CHECK (overlap_policy IN ('skip', 'allow')),
    job_template   jsonb NOT NULL,
    queue          text NOT NULL,
    enabled        boolean NOT NULL DEFAULT true,
    next_run_at    timestamptz NOT NULL,
    last_run_at    timestamptz,
    last_job_id    uuid,
    created_at     timestamptz NOT NULL DEFAULT now(),
    updated_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX crons_due ON s3p.crons (next_run_at) WHERE enabled;

-- Workflows ----------------------------------------------------------------------------------------------------

-- Workflows: a chain (each step after the previous one, its result passed on), a group or batch (all at once,
-- batches with callbacks), or a dependency graph. Every form is stored as nodes with depends_on; a node's job is
-- enqueued once all its dependencies completed, in the same transaction as the ack that completed the last one.
CREATE TABLE s3p.workflows (
    id          uuid PRIMARY KEY,
    type        text NOT NULL CHECK (type IN ('chain', 'group', 'batch', 'graph')),
    name        text,
    state       text NOT NULL DEFAULT 'running' CHECK (state IN ('running', 'completed', 'failed', 'cancelled')),
    callbacks   jsonb NOT NULL DEFAULT '{}',
    total       integer NOT NULL,
    completed   integer NOT NULL DEFAULT 0,
    failed      integer NOT NULL DEFAULT 0,
    created_at  timestamptz NOT NULL DEFAULT now(),
    finished_at timestamptz
);
CREATE INDEX workflows_finished ON s3p.workflows (finished_at) WHERE finished_at IS NOT NULL;

CREATE TABLE s3p.workflow_jobs (
    workflow_id uuid NOT NULL REFERENCES s3p.workflows ON DELETE CASCADE,
    idx         integer NOT NULL,
    job_id      uuid NOT NULL,
    queue       text NOT NULL,
    spec        jsonb NOT NULL,
    depends_on  integer[] NOT NULL DEFAULT '{}',
    state       text NOT NULL DEFAULT 'waiting'
                CHECK (state IN ('waiting', 'enqueued', 'completed', 'failed', 'cancelled')),
    result      jsonb,
    PRIMARY KEY (workflow_id, idx)
);
CREATE INDEX workflow_jobs_job ON s3p.workflow_jobs (job_id);

-- Enqueues one normalised job spec (see JobStore) into a queue, creating the queue's namespace if needed.
CREATE FUNCTION s3p.enqueue_spec(p_queue text, p_spec jsonb) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM s3p.ensure_queue_schema(p_queue);
    EXECUTE format('SELECT count(*) FROM %I.enqueue($1)', 's3q_' || p_queue)
        USING jsonb_build_array(p_spec || jsonb_build_object('ord', 1));
END
$$;

CREATE FUNCTION s3p.workflow_enqueue(p_workflow uuid, p_idx integer, p_parent_results jsonb) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
    v_node s3p.workflow_jobs;
    v_spec jsonb;
BEGIN
    SELECT * INTO v_node FROM s3p.workflow_jobs WHERE workflow_id = p_workflow AND idx = p_idx;
    v_spec := v_node.spec || jsonb_build_object('workflow_id', p_workflow);
    IF p_parent_results IS NOT NULL THEN
        v_spec := v_spec || jsonb_build_object('extra', coalesce(v_spec -> 'extra', '{}'::jsonb)
                                                        || jsonb_build_object('parent_results', p_parent_results));
    END IF;
    PERFORM s3p.enqueue_spec(v_node.queue, v_spec);
    UPDATE s3p.workflow_jobs SET state = 'enqueued' WHERE workflow_id = p_workflow AND idx = p_idx;
END
$$;

CREATE FUNCTION s3p.workflow_view(p_id uuid) RETURNS jsonb
LANGUAGE sql STABLE AS $$
    SELECT jsonb_strip_nulls(jsonb_build_object(
               'id', w.id, 'type', w.type, 'name', w.name, 'state', w.state,
               'jobs_total', w.total, 'jobs_completed', w.completed, 'jobs_failed', w.failed,
               'steps_total', w.total, 'steps_completed', w.completed,
               'created_at', s3p.ts(w.created_at), 'finished_at', s3p.ts(w.finished_at)))
        || jsonb_build_object('jobs', (SELECT coalesce(jsonb_agg(jsonb_build_object(
               'index', n.idx, 'job_id', n.job_id, 'type', n.spec ->> 'type', 'queue', n.queue, 'state', n.state,
               'depends_on', to_jsonb(n.depends_on)) ORDER BY n.idx), '[]'::jsonb)
               FROM s3p.workflow_jobs n WHERE n.workflow_id = w.id))
    FROM s3p.workflows w WHERE w.id = p_id
$$;

-- p_nodes: [{"spec": {...}, "queue": "q", "depends_on": [0, ...]}, ...]; p_callbacks: {"on_success": {"spec", "queue"}, ...}.
CREATE FUNCTION s3p.create_workflow(p_id uuid, p_type text, p_name text, p_nodes jsonb, p_callbacks jsonb)
RETURNS jsonb
LANGUAGE plpgsql AS $$
DECLARE
    v_idx integer;
BEGIN
    INSERT INTO s3p.workflows (id, type, name, callbacks, total)
    VALUES (p_id, p_type, p_name, coalesce(p_callbacks, '{}'::jsonb), jsonb_array_length(p_nodes));
    INSERT INTO s3p.workflow_jobs (workflow_id, idx, job_id, queue, spec, depends_on)
    SELECT p_id, (n.ord - 1)::integer, (n.node -> 'spec' ->> 'id')::uuid, n.node ->> 'queue', n.node -> 'spec',
           ARRAY(SELECT d::integer FROM jsonb_array_elements_text(coalesce(n.node -> 'depends_on', '[]'::jsonb)) d)
    FROM jsonb_array_elements(p_nodes) WITH ORDINALITY AS n(node, ord);
    FOR v_idx IN SELECT idx FROM s3p.workflow_jobs WHERE workflow_id = p_id AND depends_on = '{}' ORDER BY idx LOOP
        PERFORM s3p.workflow_enqueue(p_id, v_idx, NULL);
    END LOOP;
    RETURN s3p.workflow_view(p_id);
END
$$;

-- Called by ack (outcome completed) and by a failure that ends a job (outcome failed), in their transaction.
CREATE FUNCTION s3p.workflow_advance(p_job uuid, p_outcome text, p_result jsonb) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
    v_node s3p.workflow_jobs;
    v_flow s3p.workflows;
    v_next record;
BEGIN
    SELECT * INTO v_node FROM s3p.workflow_jobs WHERE job_id = p_job;
    IF NOT FOUND THEN
        RETURN;
    END IF;
    SELECT * INTO v_flow FROM s3p.workflows WHERE id = v_node.workflow_id FOR UPDATE;
    IF v_flow.state <> 'running' OR v_node.state <> 'enqueued' THEN
        RETURN;
    END IF;
    UPDATE s3p.workflow_jobs SET state = p_outcome, result = p_result
    WHERE workflow_id = v_node.workflow_id AND idx = v_node.idx;
    IF p_outcome = 'completed' THEN
        UPDATE s3p.workflows SET completed = completed + 1 WHERE id = v_flow.id RETURNING * INTO v_flow;
        FOR v_next IN
            SELECT w.idx,
                   (SELECT jsonb_agg(coalesce(d.result, 'null'::jsonb) ORDER BY d.idx) FROM s3p.workflow_jobs d
                    WHERE d.workflow_id = w.workflow_id AND d.idx = ANY (w.depends_on)) AS parent_results
            FROM s3p.workflow_jobs w
            WHERE w.workflow_id = v_flow.id AND w.state = 'waiting' AND v_node.idx = ANY (w.depends_on)
              AND NOT EXISTS (SELECT 1 FROM s3p.workflow_jobs d WHERE d.workflow_id = w.workflow_id
                                AND d.idx = ANY (w.depends_on) AND d.state <> 'completed')
            ORDER BY w.idx
        LOOP
            PERFORM s3p.workflow_enqueue(v_flow.id, v_next.idx, v_next.parent_results);
        END LOOP;
    ELSE
        UPDATE s3p.workflows SET failed = failed + 1 WHERE id = v_flow.id RETURNING * INTO v_flow;
        IF v_flow.type IN ('chain', 'graph') THEN
            -- a failed step stops everything that depends on it, so the workflow cannot complete
            UPDATE s3p.workflow_jobs SET state = 'cancelled' WHERE workflow_id = v_flow.id AND state = 'waiting';
            UPDATE s3p.workflows SET state = 'failed', finished_at = now() WHERE id = v_flow.id;
            RETURN;
        END IF;
    END IF;
    IF v_flow.completed + v_flow.failed = v_flow.total THEN
        UPDATE s3p.workflows SET state = CASE WHEN v_flow.failed > 0 THEN 'failed' ELSE 'completed' END,
                                 finished_at = now()
        WHERE id = v_flow.id;
        IF v_flow.callbacks ? 'on_complete' THEN
            PERFORM s3p.enqueue_spec(v_flow.callbacks -> 'on_complete' ->> 'queue', v_flow.callbacks -> 'on_complete' -> 'spec');
        END IF;
        IF v_flow.failed = 0 AND v_flow.callbacks ? 'on_success' THEN
            PERFORM s3p.enqueue_spec(v_flow.callbacks -> 'on_success' ->> 'queue', v_flow.callbacks -> 'on_success' -> 'spec');
        END IF;
        IF v_flow.failed > 0 AND v_flow.callbacks ? 'on_failure' THEN
            PERFORM s3p.enqueue_spec(v_flow.callbacks -> 'on_failure' ->> 'queue', v_flow.callbacks -> 'on_failure' -> 'spec');
        END IF;
    END IF;
END
$$;

-- Cancels a running workflow and every job of it not yet finished; false when it was not running.
CREATE FUNCTION s3p.cancel_workflow(p_id uuid) RETURNS boolean
LANGUAGE plpgsql AS $$
DECLARE
    v_flow s3p.workflows;
    v_job  uuid;
BEGIN
    SELECT * INTO v_flow FROM s3p.workflows WHERE id = p_id FOR UPDATE;
    IF NOT FOUND OR v_flow.state <> 'running' THEN
        RETURN false;
    END IF;
    UPDATE s3p.workflows SET state = 'cancelled', finished_at = now() WHERE id = p_id;
    FOR v_job IN SELECT job_id FROM s3p.workflow_jobs WHERE workflow_id = p_id AND state = 'enqueued' ORDER BY idx LOOP
        PERFORM s3p.job_action('cancel', v_job);
    END LOOP;
    UPDATE s3p.workflow_jobs SET state = 'cancelled' WHERE workflow_id = p_id AND state IN ('waiting', 'enqueued');
    RETURN true;
END
$$;

-- API tokens ---------------------------------------------------------------------------------------------------

-- API tokens kept in the catalog (created and revoked through /ojs/v1/admin/tokens). Only the SHA-256 of a token is
-- stored: the plaintext is shown once, when the token is created. Revoking a token deletes its row.
CREATE TABLE s3p.api_tokens (
    name       text PRIMARY KEY CHECK (length(name) BETWEEN 1 AND 255),
    token_hash text NOT NULL UNIQUE CHECK (token_hash ~ '^[0-9a-f]{64}$'),
    scopes     text[] NOT NULL CHECK (cardinality(scopes) > 0),
    queues     text[] NOT NULL DEFAULT '{}',
    created_at timestamptz NOT NULL DEFAULT now()
);
