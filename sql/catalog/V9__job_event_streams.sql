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

-- Dropping a queue that receives job events drops its trigger on s3p.job_events with its schema. The lock on
-- s3p.job_events is taken first: a job transition holds it from its event insert until it commits and meanwhile
-- appends to the stream, so taking the stream's locks first could deadlock with it. Otherwise as in V1.
CREATE OR REPLACE FUNCTION s3p.drop_queue(p_name text) RETURNS boolean
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_advisory_xact_lock(hashtextextended('s3p.queue:' || p_name, 0));
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
