-- Job lifecycle events as a stream: a job queue may name a stream (any queue's streams view) that receives every
-- event of its jobs, appended in the transaction of the transition that recorded it.
--
-- Every transition already inserts its event into s3p.job_events. A statement-level trigger on that table, with the
-- statement's new rows as a transition table, appends the rows of opted-in queues to their streams: one append per
-- stream and statement, through the stream's own stream_append (its rotation lock and current segment), so the
-- transition functions stay as they are. The trigger exists only while some queue has opted in, so a catalog
-- without opt-ins runs exactly the statements it ran before.

-- Which stream each opted-in queue sends its job events to. Dropping either queue removes the row.
CREATE TABLE s3p.job_event_streams (
    queue      text PRIMARY KEY REFERENCES s3p.queues (name) ON DELETE CASCADE,
    stream     text NOT NULL REFERENCES s3p.queues (name) ON DELETE CASCADE,
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX job_event_streams_stream ON s3p.job_event_streams (stream);

-- Appends the statement's events of opted-in queues to their streams: per stream, in event id order (the order
-- the statement recorded them), in appends of at most 1,000 messages. Message id = the event id, type = the event
-- type, payload = the event data; created_at is the transaction's now(), the event's occurred_at. The appends do not
-- notify (a notifying transaction holds a global lock until its commit record is flushed, which would serialise
-- every job transition); JobStore wakes the streams' listeners after commit instead.
CREATE FUNCTION s3p.job_events_to_streams() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    v_append record;
BEGIN
    FOR v_append IN
        SELECT q.schema_name, array_agg(e.id::text ORDER BY e.id) AS ids, array_agg(e.type ORDER BY e.id) AS types,
               array_agg(e.data::text ORDER BY e.id) AS payloads
        FROM (SELECT n.id, n.type, n.data, s.stream,
                     (row_number() OVER (PARTITION BY s.stream ORDER BY n.id) - 1) / 1000 AS chunk
              FROM new_events n JOIN s3p.job_event_streams s ON s.queue = n.queue) e
        JOIN s3p.queues q ON q.name = e.stream
        GROUP BY q.schema_name, e.chunk
        ORDER BY q.schema_name, e.chunk
    LOOP
        EXECUTE format('SELECT 1 FROM %I.stream_append($1, $2, $3, NULL, false)', v_append.schema_name)
            USING v_append.ids, v_append.types, v_append.payloads;
    END LOOP;
    RETURN NULL;
END
$$;

-- Creates the trigger while some queue has opted in and drops it once none has. The caller holds the
-- SHARE ROW EXCLUSIVE lock on s3p.job_events that both DDL statements take anyway.
CREATE FUNCTION s3p.sync_job_event_trigger() RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
    v_wanted  boolean := EXISTS (SELECT 1 FROM s3p.job_event_streams);
    v_present boolean := EXISTS (SELECT 1 FROM pg_trigger
                                 WHERE tgrelid = 's3p.job_events'::regclass AND tgname = 'job_events_to_streams');
BEGIN
    IF v_wanted AND NOT v_present THEN
        CREATE TRIGGER job_events_to_streams AFTER INSERT ON s3p.job_events
            REFERENCING NEW TABLE AS new_events
            FOR EACH STATEMENT EXECUTE FUNCTION s3p.job_events_to_streams();
    ELSIF v_present AND NOT v_wanted THEN
        DROP TRIGGER job_events_to_streams ON s3p.job_events;
    END IF;
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
    PERFORM s3p.sync_job_event_trigger();
    RETURN v_before;
END
$$;
