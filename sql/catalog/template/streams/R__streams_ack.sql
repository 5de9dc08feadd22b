-- The streams view: batch ack and per-message nack.
INSERT INTO s3p.queue_templates (part, position, body) VALUES ('streams.ack', 26, $template$

-- Whether a batch id was handed out once (so a missing batch was acked, or released by unsubscribe).
CREATE OR REPLACE FUNCTION @schema@.stream_batch_issued(p_batch_id bigint)
RETURNS boolean
LANGUAGE sql STABLE AS $fn$
    SELECT p_batch_id >= 1 AND sq.is_called AND p_batch_id <= sq.last_value FROM @schema@.stream_batch_seq sq
$fn$;

-- An outstanding batch (not yet passed by its subscription's cursor) under the ack lock of its subscription,
-- or null when it was acked and passed, released by unsubscribe, or never issued.
CREATE OR REPLACE FUNCTION @schema@.stream_lock_batch(p_batch_id bigint)
RETURNS @schema@.stream_batches
LANGUAGE plpgsql AS $fn$
DECLARE
    v_batch @schema@.stream_batches;
BEGIN
    SELECT * INTO v_batch FROM @schema@.stream_batches b WHERE b.batch_id = p_batch_id LIMIT 1;
    IF NOT FOUND THEN
        RETURN NULL;
    END IF;
    PERFORM pg_advisory_xact_lock(@schema@.stream_ack_key(v_batch.sub_id));
    IF NOT EXISTS (SELECT 1 FROM @schema@.stream_subscriptions s WHERE s.sub_id = v_batch.sub_id)
       OR (SELECT (e.tick, e.seq) <= (c.tick, c.seq)
           FROM @schema@.stream_batch_end(v_batch) e, @schema@.stream_cursor(v_batch.sub_id) c) THEN
        RETURN NULL;
    END IF;
    RETURN v_batch;
END
$fn$;

-- Acknowledges a batch: true when acked now, false when it was acked before. The group cursor moves over every
-- contiguous acked batch from its position; a batch acked out of order is only marked until the ones before it are.
-- A batch that stopped inside its range moves the cursor to its last event in that range.
-- What stream_lock_batch, stream_cursor and stream_batch_end answer is written out here: the cursor, whether the
-- consumer is subscribed and whether the batch is acked are one statement under the ack lock, and a batch's end is
-- computed in place. As function calls they were a statement each around their queries, several times the queries'
-- cost, on every ack.
CREATE OR REPLACE FUNCTION @schema@.stream_ack(p_batch_id bigint)
RETURNS boolean
LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $fn$
DECLARE
    v_batch    @schema@.stream_batches;
    v_next     @schema@.stream_batches;
    v_cur_tick bigint;
    v_cur_seq  bigint;
    v_sub      boolean;
    v_acked    boolean;
    v_tick     bigint;
    v_seq      bigint;
    v_range    bigint;
BEGIN
    PERFORM pg_advisory_xact_lock_shared(@schema@.stream_rotation_key());
    SELECT * INTO v_batch FROM @schema@.stream_batches b WHERE b.batch_id = p_batch_id LIMIT 1;
    IF FOUND THEN
        PERFORM pg_advisory_xact_lock(@schema@.stream_ack_key(v_batch.sub_id));
        -- read after the lock is held: every ack of this consumer before it has committed
        SELECT c.tick, c.seq,
               EXISTS (SELECT 1 FROM @schema@.stream_subscriptions s WHERE s.sub_id = v_batch.sub_id) AS subscribed,
               EXISTS (SELECT 1 FROM @schema@.stream_acks a WHERE a.batch_id = p_batch_id) AS acked
        INTO v_cur_tick, v_cur_seq, v_sub, v_acked
        FROM (SELECT 1) one
        LEFT JOIN LATERAL (SELECT c.tick, c.seq FROM @schema@.stream_cursors c WHERE c.sub_id = v_batch.sub_id
                           ORDER BY c.id DESC LIMIT 1) c ON true;
        IF v_batch.complete THEN
            v_tick := v_batch.end_tick;
            v_seq := 0;
        ELSE
            v_tick := v_batch.start_tick;
            v_seq := upper(v_batch.seqs) - 1;
            v_range := v_batch.end_tick;
        END IF;
    END IF;
    -- missing, released by unsubscribe, passed by the cursor, or marked acked: acked before, or never issued
    IF v_batch.batch_id IS NULL OR NOT v_sub OR (v_tick, v_seq) <= (v_cur_tick, v_cur_seq) OR v_acked THEN
        IF @schema@.stream_batch_issued(p_batch_id) THEN
            RETURN false;
        END IF;
        RAISE EXCEPTION 'batch % does not exist', p_batch_id USING ERRCODE = 'S3404';
    END IF;
    IF (v_batch.start_tick, v_batch.after_seq) <> (v_cur_tick, v_cur_seq) THEN
        INSERT INTO @schema@.stream_acks (part, batch_id)
        VALUES ((SELECT (e.last_value % 2)::smallint FROM @schema@.stream_meta_epoch e), p_batch_id);
        RETURN true;
    END IF;
    LOOP
        SELECT * INTO v_next FROM @schema@.stream_batches b
        WHERE b.sub_id = v_batch.sub_id AND b.start_tick = v_tick AND b.after_seq = v_seq
          AND EXISTS (SELECT 1 FROM @schema@.stream_acks a WHERE a.batch_id = b.batch_id)
        LIMIT 1;
        EXIT WHEN NOT FOUND;
        IF v_next.complete THEN
            v_tick := v_next.end_tick;
            v_seq := 0;
            v_range := NULL;
        ELSE
            v_tick := v_next.start_tick;
            v_seq := upper(v_next.seqs) - 1;
            v_range := v_next.end_tick;
        END IF;
    END LOOP;
    INSERT INTO @schema@.stream_cursors (part, id, sub_id, tick, seq, range_end)
    VALUES ((SELECT (e.last_value % 2)::smallint FROM @schema@.stream_meta_epoch e),
            nextval('@schema@.stream_cursor_seq'), v_batch.sub_id, v_tick, v_seq, v_range);
    RETURN true;
END
$fn$;

-- Nacks one message of an outstanding batch: it is scheduled for redelivery with its retry count raised, or
-- dead-lettered once max_retries is used up. The batch stays outstanding, to be acked for the rest.
-- p_dead_letter sends the message to the dead letters at once, whatever its retry count (a listener's error handler
-- classified the failure as not retryable).
CREATE OR REPLACE FUNCTION @schema@.stream_nack(p_batch_id bigint, p_event_id text, p_retry_after interval,
                                                p_reason text, p_dead_letter boolean DEFAULT false)
RETURNS TABLE (event_id text, action text, retry_count integer)
LANGUAGE plpgsql AS $fn$
DECLARE
    v_batch       @schema@.stream_batches;
    v_event       @schema@.stream_events;
    v_nacked      bigint[];
    v_xmin        xid8;
    v_max_retries integer;
    v_consumer    text;
BEGIN
    PERFORM pg_advisory_xact_lock_shared(@schema@.stream_rotation_key());
    -- a nack takes the consumer lock as well (before the ack lock, in the order every caller takes them)
    PERFORM pg_advisory_xact_lock(@schema@.stream_consumer_key(b.sub_id))
    FROM @schema@.stream_batches b WHERE b.batch_id = p_batch_id LIMIT 1;
    v_batch := @schema@.stream_lock_batch(p_batch_id);
    IF v_batch.batch_id IS NULL OR EXISTS (SELECT 1 FROM @schema@.stream_acks a WHERE a.batch_id = p_batch_id) THEN
        IF @schema@.stream_batch_issued(p_batch_id) THEN
            RAISE EXCEPTION 'batch % is already acked', p_batch_id USING ERRCODE = 'S3409';
        END IF;
        RAISE EXCEPTION 'batch % does not exist', p_batch_id USING ERRCODE = 'S3404';
    END IF;
    v_nacked := ARRAY(SELECT n.seq FROM @schema@.stream_nacks n WHERE n.batch_id = p_batch_id);
    SELECT pg_snapshot_xmin(t.snapshot) INTO v_xmin FROM @schema@.stream_ticks t
    WHERE t.tick_id = v_batch.start_tick LIMIT 1;
    SELECT e.* INTO v_event
    FROM @schema@.stream_events e
    WHERE e.event_id = p_event_id AND e.txid >= v_xmin AND e.seq <@ v_batch.seqs AND e.seq <> ALL (v_nacked)
    ORDER BY e.seq
    LIMIT 1;
    IF NOT FOUND THEN
        IF EXISTS (SELECT 1 FROM @schema@.stream_events e WHERE e.event_id = p_event_id AND e.seq = ANY (v_nacked)) THEN
            RAISE EXCEPTION 'message % of batch % is already nacked', p_event_id, p_batch_id USING ERRCODE = 'S3409';
        END IF;
        RAISE EXCEPTION 'message % is not in batch %', p_event_id, p_batch_id USING ERRCODE = 'S3404';
    END IF;
    INSERT INTO @schema@.stream_nacks (part, batch_id, seq) VALUES (@schema@.stream_meta_part(), p_batch_id, v_event.seq);
    SELECT c.max_retries INTO v_max_retries FROM @schema@.stream_config c;
    IF p_dead_letter OR v_event.retry_count >= v_max_retries THEN
        SELECT s.consumer INTO v_consumer FROM @schema@.stream_subscriptions s WHERE s.sub_id = v_batch.sub_id;
        INSERT INTO @schema@.stream_dead_letters (event_id, type, payload, headers, retry_count, reason, consumer)
        VALUES (v_event.event_id, v_event.type, v_event.payload, v_event.headers, v_event.retry_count, p_reason,
                v_consumer);
        RETURN QUERY SELECT v_event.event_id, 'dead_letter'::text, v_event.retry_count;
    ELSE
        INSERT INTO @schema@.stream_retry_events (event_id, type, payload, headers, retry_count, due_at, reason)
        VALUES (v_event.event_id, v_event.type, v_event.payload, v_event.headers, v_event.retry_count + 1,
                now() + greatest(coalesce(p_retry_after, interval '0'), interval '0'), p_reason);
        RETURN QUERY SELECT v_event.event_id, 'retry'::text, v_event.retry_count + 1;
    END IF;
END
$fn$;

$template$)
ON CONFLICT (part) DO UPDATE SET position = excluded.position, body = excluded.body;
