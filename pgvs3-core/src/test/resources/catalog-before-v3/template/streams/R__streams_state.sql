-- The streams view: the advisory lock keys of a queue, its notification channel, and where its metadata and
-- cursors stand.
--
-- Locks (keys are per queue):
--   rotation key, shared:    every operation that writes events or metadata (append, retry move, DLQ replay,
--                            subscribe, receive, ack, nack); exclusive, try-only: rotation and compaction, which
--                            therefore never see a half-made write and never queue behind a long transaction.
--   consumer key, exclusive: per subscription; serialises batch allocation, nack and unsubscribe of one consumer
--                            (PgQue serialises on the subscription row; a lock takes no row version).
--   ack key, exclusive:      per subscription; serialises its acks (an ack that moves the cursor must see every ack
--                            of a later batch), nacks and unsubscribe. Not allocation: an ack only adds a cursor row
--                            over batches that exist, or an ack row, which no allocation reads. Taken after the
--                            consumer key by whoever takes both.
--   tick key, exclusive:     creating a tick; the snapshot is captured by a statement that runs after it is held, so
--                            tick snapshots grow with tick ids.
--   locator key, exclusive:  per range; making its locator. Taken after the consumer key, and nothing after it.
INSERT INTO s3p.queue_templates (part, position, body) VALUES ('streams.state', 21, $template$

-- The advisory lock keys of this queue.
CREATE OR REPLACE FUNCTION @schema@.stream_rotation_key() RETURNS bigint
LANGUAGE sql IMMUTABLE AS $fn$ SELECT hashtextextended('pgvs3.stream.rotation:' || @queue@, 0) $fn$;

CREATE OR REPLACE FUNCTION @schema@.stream_tick_key() RETURNS bigint
LANGUAGE sql IMMUTABLE AS $fn$ SELECT hashtextextended('pgvs3.stream.tick:' || @queue@, 0) $fn$;

CREATE OR REPLACE FUNCTION @schema@.stream_consumer_key(p_sub_id bigint) RETURNS bigint
LANGUAGE sql IMMUTABLE AS $fn$ SELECT hashtextextended('pgvs3.stream.consumer:' || @queue@ || ':' || p_sub_id::text, 0) $fn$;

-- Making the locator of one range (stream_locator_build), so that consumers reaching it together make it once.
CREATE OR REPLACE FUNCTION @schema@.stream_locator_key(p_start_tick bigint, p_end_tick bigint) RETURNS bigint
LANGUAGE sql IMMUTABLE AS $fn$
    SELECT hashtextextended('pgvs3.stream.locator:' || @queue@ || ':' || p_start_tick::text || ':' || p_end_tick::text, 0)
$fn$;

-- Acks of one consumer: separate from its consumer key, so that an ack (which waits for its commit's flush while it
-- holds the key) does not hold up the allocation of its members' next batches.
CREATE OR REPLACE FUNCTION @schema@.stream_ack_key(p_sub_id bigint) RETURNS bigint
LANGUAGE sql IMMUTABLE AS $fn$ SELECT hashtextextended('pgvs3.stream.ack:' || @queue@ || ':' || p_sub_id::text, 0) $fn$;

CREATE OR REPLACE FUNCTION @schema@.stream_channel() RETURNS text
LANGUAGE sql IMMUTABLE AS $fn$ SELECT 's3q_' || @queue@ $fn$;

-- The metadata part new rows go to. Read after the shared rotation lock is held, so it cannot change meanwhile.
CREATE OR REPLACE FUNCTION @schema@.stream_meta_part() RETURNS smallint
LANGUAGE plpgsql STABLE AS $fn$
BEGIN
    RETURN (SELECT (e.last_value % 2)::smallint FROM @schema@.stream_meta_epoch e);
END
$fn$;

-- How many ticks, cursor moves and batches were ever written, give or take the ids of rolled-back writes.
CREATE OR REPLACE FUNCTION @schema@.stream_meta_writes() RETURNS bigint
LANGUAGE sql STABLE AS $fn$
    SELECT (SELECT q.last_value FROM @schema@.stream_tick_seq q) + (SELECT q.last_value FROM @schema@.stream_cursor_seq q)
           + (SELECT q.last_value FROM @schema@.stream_batch_seq q)
$fn$;

-- A subscription's cursor: the tick of its latest cursor row.
CREATE OR REPLACE FUNCTION @schema@.stream_cursor_tick(p_sub_id bigint) RETURNS bigint
LANGUAGE plpgsql STABLE AS $fn$
BEGIN
    RETURN (SELECT c.tick FROM @schema@.stream_cursors c WHERE c.sub_id = p_sub_id ORDER BY c.id DESC LIMIT 1);
END
$fn$;

-- A subscription's cursor position: its latest cursor row's tick, sequence number within the range after that tick
-- (0 at its start) and, inside a range, the range's end tick.
CREATE OR REPLACE FUNCTION @schema@.stream_cursor(p_sub_id bigint, OUT tick bigint, OUT seq bigint,
                                                  OUT range_end bigint)
LANGUAGE plpgsql STABLE AS $fn$
BEGIN
    SELECT c.tick, c.seq, c.range_end INTO tick, seq, range_end
    FROM @schema@.stream_cursors c WHERE c.sub_id = p_sub_id ORDER BY c.id DESC LIMIT 1;
END
$fn$;

-- The position a batch ends at: past its range's end tick when it completes the range, else at its last sequence
-- number within the range (whose end tick the next batch keeps).
CREATE OR REPLACE FUNCTION @schema@.stream_batch_end(p_batch @schema@.stream_batches, OUT tick bigint,
                                                     OUT seq bigint, OUT range_end bigint)
LANGUAGE plpgsql IMMUTABLE AS $fn$
BEGIN
    IF p_batch.complete THEN
        tick := p_batch.end_tick;
        seq := 0;
    ELSE
        tick := p_batch.start_tick;
        seq := upper(p_batch.seqs) - 1;
        range_end := p_batch.end_tick;
    END IF;
END
$fn$;

$template$)
ON CONFLICT (part) DO UPDATE SET position = excluded.position, body = excluded.body;
