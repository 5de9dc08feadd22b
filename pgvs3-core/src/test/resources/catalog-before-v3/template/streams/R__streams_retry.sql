-- The streams view: due retries back into the log, and the dead-letter queue (replay, purge).
INSERT INTO s3p.queue_templates (part, position, body) VALUES ('streams.retry', 27, $template$

-- Events go back into the log (due retries, replayed dead letters) as fresh events, between these two: the first
-- takes the shared rotation lock that every write to the log holds and returns the segment to write to; the second
-- wakes the consumers when p_count events went back, and returns p_count.
CREATE OR REPLACE FUNCTION @schema@.stream_write_back_segment()
RETURNS smallint
LANGUAGE plpgsql AS $fn$
BEGIN
    PERFORM pg_advisory_xact_lock_shared(@schema@.stream_rotation_key());
    RETURN (SELECT c.current_segment FROM @schema@.stream_config c);
END
$fn$;

CREATE OR REPLACE FUNCTION @schema@.stream_written_back(p_count integer)
RETURNS integer
LANGUAGE plpgsql AS $fn$
BEGIN
    IF p_count > 0 THEN
        PERFORM pg_notify(@schema@.stream_channel(), 'stream');
    END IF;
    RETURN p_count;
END
$fn$;

-- Moves due retries back into the log as fresh events (keeping their retry count); the next tick makes them
-- visible. Returns how many moved.
CREATE OR REPLACE FUNCTION @schema@.stream_move_retries(p_limit integer)
RETURNS integer
LANGUAGE plpgsql AS $fn$
DECLARE
    v_segment smallint;
    v_moved   integer;
BEGIN
    IF NOT EXISTS (SELECT 1 FROM @schema@.stream_retry_events r WHERE r.due_at <= now()) THEN
        RETURN 0;
    END IF;
    v_segment := @schema@.stream_write_back_segment();
    WITH due AS (
        DELETE FROM @schema@.stream_retry_events r
        WHERE r.retry_id IN (SELECT d.retry_id FROM @schema@.stream_retry_events d WHERE d.due_at <= now()
                             ORDER BY d.due_at, d.retry_id LIMIT p_limit FOR UPDATE SKIP LOCKED)
        RETURNING r.*)
    INSERT INTO @schema@.stream_events (segment, seq, event_id, type, payload, headers, retry_count)
    SELECT v_segment, nextval('@schema@.stream_seq'), d.event_id, d.type, d.payload, d.headers, d.retry_count
    FROM (SELECT * FROM due ORDER BY due.due_at, due.retry_id) d;
    GET DIAGNOSTICS v_moved = ROW_COUNT;
    RETURN @schema@.stream_written_back(v_moved);
END
$fn$;

-- Replays dead letters as fresh events with a reset retry count: one (p_dead_letter_id) or all (null).
CREATE OR REPLACE FUNCTION @schema@.stream_dlq_replay(p_dead_letter_id bigint)
RETURNS integer
LANGUAGE plpgsql AS $fn$
DECLARE
    v_segment  smallint;
    v_replayed integer;
BEGIN
    v_segment := @schema@.stream_write_back_segment();
    WITH replayed AS (
        DELETE FROM @schema@.stream_dead_letters d
        WHERE p_dead_letter_id IS NULL OR d.dead_letter_id = p_dead_letter_id
        RETURNING d.*)
    INSERT INTO @schema@.stream_events (segment, seq, event_id, type, payload, headers, retry_count)
    SELECT v_segment, nextval('@schema@.stream_seq'), r.event_id, r.type, r.payload, r.headers, 0
    FROM (SELECT * FROM replayed ORDER BY replayed.dead_letter_id) r;
    GET DIAGNOSTICS v_replayed = ROW_COUNT;
    RETURN @schema@.stream_written_back(v_replayed);
END
$fn$;

CREATE OR REPLACE FUNCTION @schema@.stream_dlq_purge(p_older_than interval)
RETURNS integer
LANGUAGE plpgsql AS $fn$
DECLARE
    v_purged integer;
BEGIN
    DELETE FROM @schema@.stream_dead_letters d WHERE d.dead_at < now() - p_older_than;
    GET DIAGNOSTICS v_purged = ROW_COUNT;
    RETURN v_purged;
END
$fn$;

$template$)
ON CONFLICT (part) DO UPDATE SET position = excluded.position, body = excluded.body;
