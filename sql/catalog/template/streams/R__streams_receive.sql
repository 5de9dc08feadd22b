-- The streams view: receive (with on-demand ticks), ack-and-receive in one transaction, and the two-transaction
-- receive of cooperative members (allocate, then read).
INSERT INTO s3p.queue_templates (part, position, body) VALUES ('streams.receive', 25, $template$

-- Receives the next batch of a consumer (member '' when not cooperative): at most p_max events. An outstanding
-- batch of the member is returned again. Otherwise the batch starts at the group's allocation position (the end of
-- its newest outstanding batch, else the cursor). Inside a range (a batch before it stopped at p_max) it takes the
-- next events of that same range; at the start of a range, the range runs to the newest tick whose span fits p_max,
-- else to the nearest newer tick, and a tick is made only when there is none newer and new events are visible, and
-- never inside a transaction that has written (its snapshot would count its own rows) or that does not take a fresh
-- snapshot per statement. A range holding more than p_max events is handed out in batches of p_max, in sequence
-- order. An empty result has a null batch_id and no message columns. A batch's rows come in storage order, not
-- sorted: StreamDelivery puts them in sequence order (a sort of 1,000 whole rows here cost about as much as reading
-- them; the client finds them in order already whenever one append wrote them, and sorts the rest).
-- p_acked is a batch of the consumer that the caller acks later in the same transaction (stream_ack_receive): it
-- counts as acked already, so the member gets the batch after it instead of the same one again; null otherwise.
-- With p_rows false only the batch is allocated (stream_allocate): one row, its id and ticks, no message columns.
-- JIT is off for it and what it calls: on a segment of millions of events the generic plan of a difference is
-- estimated above jit_above_cost, and compiling it took 10-15 ms on every receive of about 1 ms.
CREATE OR REPLACE FUNCTION @schema@.stream_receive(p_consumer text, p_member text, p_max integer, p_acked bigint,
                                                   p_rows boolean DEFAULT true)
RETURNS TABLE (batch_id bigint, start_tick bigint, end_tick bigint, seq bigint, event_id text, type text,
               payload json, headers jsonb, retry_count integer, created_at timestamptz)
LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan SET jit = off AS $fn$
DECLARE
    v_member   text := coalesce(p_member, '');
    v_can_tick boolean := pg_current_xact_id_if_assigned() IS NULL
                          AND current_setting('transaction_isolation') = 'read committed';
    v_sub      bigint;
    v_cursor   record;
    v_pos_tick  bigint;
    v_pos_seq   bigint;
    v_pos_range bigint;
    v_last     record;
    v_start    bigint;
    v_end      bigint;
    v_near     bigint;
    v_batch    bigint;
    v_from     pg_snapshot;
    v_from_seq bigint;
    v_to       pg_snapshot;
    v_to_seq   bigint;
    v_after    bigint;
    v_seqs     int8multirange;
    v_more     boolean;
    v_located  boolean := false;
    v_loc      record;
    v_loc_read boolean := false;
    v_locked   boolean := false;
BEGIN
    IF p_max IS NULL OR p_max < 1 OR p_max > 100000 THEN
        RAISE EXCEPTION 'max must be between 1 and 100000' USING ERRCODE = 'S3400';
    END IF;
    PERFORM pg_advisory_xact_lock_shared(@schema@.stream_rotation_key());

    SELECT s.sub_id INTO v_sub FROM @schema@.stream_subscriptions s WHERE s.consumer = p_consumer;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'consumer % is not subscribed', p_consumer USING ERRCODE = 'S3404';
    END IF;
    -- Two passes at most. The first is a read-only fast path: idle polls take no lock beyond the shared one and write
    -- nothing. The second reads the same again under the consumer lock, before allocating.
    -- Each pass reads the cursor, the member's outstanding batch and the consumer's newest batch in one statement
    -- (what stream_cursor, stream_active_batch and stream_next_position answer, written out): called as functions,
    -- each was a statement of its own around its query, and those wrappers cost several times their queries.
    LOOP
        SELECT c.tick, c.seq, c.range_end,
               (SELECT m.batch_id
                FROM (SELECT b.batch_id FROM @schema@.stream_batches b
                      WHERE b.sub_id = v_sub AND b.member = v_member AND (b.start_tick, b.after_seq) >= (c.tick, c.seq)
                      ORDER BY b.start_tick DESC, b.after_seq DESC
                      LIMIT 1) m
                WHERE NOT EXISTS (SELECT 1 FROM @schema@.stream_acks a WHERE a.batch_id = m.batch_id)) AS active
        INTO v_cursor
        FROM (SELECT c.tick, c.seq, c.range_end FROM @schema@.stream_cursors c WHERE c.sub_id = v_sub
              ORDER BY c.id DESC LIMIT 1) c;
        v_batch := v_cursor.active;
        IF v_batch IS NOT NULL AND v_batch IS DISTINCT FROM p_acked THEN
            IF p_rows THEN
                RETURN QUERY SELECT * FROM @schema@.stream_batch_messages(v_batch);
            ELSE
                RETURN QUERY SELECT b.batch_id, b.start_tick, b.end_tick, NULL::bigint, NULL::text, NULL::text,
                                    NULL::json, NULL::jsonb, NULL::integer, NULL::timestamptz
                             FROM @schema@.stream_batches b WHERE b.batch_id = v_batch LIMIT 1;
            END IF;
            RETURN;
        END IF;
        -- where the next batch starts: the end of the newest batch (stream_batch_end), or the cursor when further
        SELECT b.start_tick, b.end_tick, b.seqs, b.complete INTO v_last FROM @schema@.stream_batches b
        WHERE b.sub_id = v_sub ORDER BY b.start_tick DESC, b.after_seq DESC LIMIT 1;
        v_pos_tick := v_cursor.tick;
        v_pos_seq := v_cursor.seq;
        v_pos_range := v_cursor.range_end;
        IF FOUND THEN
            IF v_last.complete AND (v_last.end_tick, 0) > (v_cursor.tick, v_cursor.seq) THEN
                v_pos_tick := v_last.end_tick;
                v_pos_seq := 0;
                v_pos_range := NULL;
            ELSIF NOT v_last.complete AND (v_last.start_tick, upper(v_last.seqs) - 1) > (v_cursor.tick, v_cursor.seq) THEN
                v_pos_tick := v_last.start_tick;
                v_pos_seq := upper(v_last.seqs) - 1;
                v_pos_range := v_last.end_tick;
            END IF;
        END IF;
        v_start := v_pos_tick;
        EXIT WHEN v_locked;

        IF v_pos_range IS NULL THEN
            SELECT max(t.tick_id) INTO v_end FROM @schema@.stream_ticks t;
            IF v_end <= v_start THEN
                SELECT t.snapshot INTO v_from FROM @schema@.stream_ticks t WHERE t.tick_id = v_start LIMIT 1;
                IF NOT v_can_tick OR NOT @schema@.stream_has_new_events(v_from) THEN
                    RETURN QUERY SELECT NULL::bigint, v_start, v_start, NULL::bigint, NULL::text, NULL::text,
                                        NULL::json, NULL::jsonb, NULL::integer, NULL::timestamptz;
                    RETURN;
                END IF;
            END IF;
        END IF;
        -- Allocation: serialised per subscription, as in PgQue, on a lock that leaves no row version behind.
        PERFORM pg_advisory_xact_lock(@schema@.stream_consumer_key(v_sub));
        IF NOT EXISTS (SELECT 1 FROM @schema@.stream_subscriptions s WHERE s.sub_id = v_sub) THEN
            RAISE EXCEPTION 'consumer % is not subscribed', p_consumer USING ERRCODE = 'S3404';
        END IF;
        v_locked := true;
    END LOOP;
    SELECT t.snapshot, t.max_seq INTO v_from, v_from_seq FROM @schema@.stream_ticks t WHERE t.tick_id = v_start LIMIT 1;

    IF v_pos_range IS NOT NULL THEN
        -- the rest of a range a batch before stopped in: the same two snapshots, the events after its last one
        v_end := v_pos_range;
        v_after := v_pos_seq;
    ELSE
        SELECT max(t.tick_id) INTO v_end FROM @schema@.stream_ticks t;
        IF v_end <= v_start AND v_can_tick THEN
            PERFORM pg_advisory_xact_lock(@schema@.stream_tick_key());
            -- a tick made by whoever held the lock before is committed and visible to this statement
            SELECT max(t.tick_id) INTO v_end FROM @schema@.stream_ticks t;
            IF v_end <= v_start THEN
                v_end := coalesce(@schema@.stream_make_tick(v_from), v_start);
            END IF;
        END IF;
        IF v_end <= v_start THEN
            RETURN QUERY SELECT NULL::bigint, v_start, v_start, NULL::bigint, NULL::text, NULL::text, NULL::json,
                                NULL::jsonb, NULL::integer, NULL::timestamptz;
            RETURN;
        END IF;
        -- The end tick is chosen by sequence numbers before any snapshot difference is computed, so a receive reads
        -- about p_max events however long the backlog behind the latest tick is.
        v_end := @schema@.stream_end_tick(v_start, v_from_seq, p_max);
        v_after := 0;
    END IF;
    SELECT t.snapshot, t.max_seq INTO v_to, v_to_seq FROM @schema@.stream_ticks t WHERE t.tick_id = v_end LIMIT 1;
    IF v_pos_range IS NOT NULL THEN
        v_located := @schema@.stream_located(v_start, v_end);
    ELSIF v_to_seq - v_from_seq > p_max THEN
        -- A range whose sequence numbers are more than p_max (stream_end_tick found no tick that fits, so this is
        -- the nearest newer one): located once, by its first batch of whichever consumer or member comes first, so
        -- that its batches (of every consumer and member) take their numbers from the locator's chunks and read
        -- their rows by TID, not the rest of the range twice. Ranges that fit p_max, the common case once ticks are
        -- made, are never located.
        PERFORM @schema@.stream_locator_build(v_start, v_end, v_from, v_to);
        v_located := true;
    END IF;
    IF v_located THEN
        SELECT * INTO v_loc FROM @schema@.stream_locator_next(v_start, v_end, v_after, p_max);
        v_seqs := v_loc.seqs;
        v_more := v_loc.more;
        v_loc_read := true;
    ELSE
        SELECT d.seqs, d.more INTO v_seqs, v_more FROM @schema@.stream_diff_ranges(v_from, v_to, v_after, p_max) d;
    END IF;
    IF v_more AND v_pos_range IS NULL AND NOT v_located THEN
        -- the nearest newer tick may hold a range that fits when the estimated one does not; when it does not
        -- either, its first p_max events are the batch and the next receives continue in that range
        SELECT min(t.tick_id) INTO v_near FROM @schema@.stream_ticks t WHERE t.tick_id > v_start;
        IF v_near < v_end THEN
            v_end := v_near;
            SELECT t.snapshot INTO v_to FROM @schema@.stream_ticks t WHERE t.tick_id = v_end LIMIT 1;
            SELECT d.seqs, d.more INTO v_seqs, v_more FROM @schema@.stream_diff_ranges(v_from, v_to, 0, p_max) d;
        END IF;
    END IF;
    IF v_more AND NOT v_located THEN
        -- more than p_max events that the sequence numbers did not show (late commits), or a range whose locator a
        -- rotation dropped: located now, for the batches after this one
        PERFORM @schema@.stream_locator_build(v_start, v_end, v_from, v_to);
        v_located := true;
    END IF;

    IF isempty(v_seqs) THEN
        -- nothing for this consumer up to the range's end: the cursor moves there unless batches are outstanding
        IF (v_pos_tick, v_pos_seq) = (v_cursor.tick, v_cursor.seq) THEN
            INSERT INTO @schema@.stream_cursors (part, id, sub_id, tick)
            VALUES (@schema@.stream_meta_part(), nextval('@schema@.stream_cursor_seq'), v_sub, v_end);
        END IF;
        RETURN QUERY SELECT NULL::bigint, v_start, v_end, NULL::bigint, NULL::text, NULL::text, NULL::json,
                            NULL::jsonb, NULL::integer, NULL::timestamptz;
        RETURN;
    END IF;

    v_batch := nextval('@schema@.stream_batch_seq');
    INSERT INTO @schema@.stream_batches (part, batch_id, sub_id, member, start_tick, end_tick, seqs, after_seq, complete)
    VALUES ((SELECT (e.last_value % 2)::smallint FROM @schema@.stream_meta_epoch e), v_batch, v_sub, v_member, v_start,
            v_end, v_seqs, v_pos_seq, NOT v_more);
    IF NOT p_rows THEN
        RETURN QUERY SELECT v_batch, v_start, v_end, NULL::bigint, NULL::text, NULL::text, NULL::json, NULL::jsonb,
                            NULL::integer, NULL::timestamptz;
        RETURN;
    END IF;
    -- The rows: the same two txid ranges scanned again (bounded by the range, not by what the segment holds), the
    -- batch's own numbers kept, straight into the result, unsorted, as a member's read takes them. Carrying whole rows through
    -- the first scan cost more: an array of composite values built and unnested again, or a CTE joined to the batch's
    -- insert.
    IF v_located THEN
        IF NOT v_loc_read THEN
            -- located after this batch's numbers were taken (late commits made the range larger than it looked)
            SELECT * INTO v_loc FROM @schema@.stream_locator_tids(v_start, v_end, v_seqs);
        END IF;
        RETURN QUERY
        SELECT v_batch, v_start, v_end, e.seq, e.event_id, e.type, e.payload, e.headers, e.retry_count, e.created_at
        FROM @schema@.stream_located_rows(v_loc.tids_0, v_loc.tids_1, v_loc.tids_2, v_seqs) e;
        RETURN;
    END IF;
    RETURN QUERY
    SELECT v_batch, v_start, v_end, e.seq, e.event_id, e.type, e.payload, e.headers, e.retry_count, e.created_at
    FROM @schema@.stream_batch_rows(v_from, v_to, v_seqs) e;
END
$fn$;

-- Acks a batch of the consumer and receives its next one, in one transaction: a listener's cycle then costs one
-- round trip and one commit instead of two. The receive runs first, before this transaction has written anything,
-- so it may make a tick as stream_receive does (a tick captured after the ack's write would show this transaction's
-- own id as committed, and events the caller appends later in it would never be delivered); p_batch_id counts as
-- acked for it. A batch of another consumer is refused: its ack lock would be taken after this one's consumer and
-- tick locks.
CREATE OR REPLACE FUNCTION @schema@.stream_ack_receive(p_batch_id bigint, p_consumer text, p_member text,
                                                       p_max integer)
RETURNS TABLE (batch_id bigint, start_tick bigint, end_tick bigint, seq bigint, event_id text, type text,
               payload json, headers jsonb, retry_count integer, created_at timestamptz)
LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $fn$
BEGIN
    IF EXISTS (SELECT 1 FROM @schema@.stream_batches b
               WHERE b.batch_id = p_batch_id
                 AND b.sub_id IS DISTINCT FROM (SELECT s.sub_id FROM @schema@.stream_subscriptions s
                                                WHERE s.consumer = p_consumer)) THEN
        RAISE EXCEPTION 'batch % is not a batch of consumer %', p_batch_id, p_consumer USING ERRCODE = 'S3400';
    END IF;
    RETURN QUERY SELECT * FROM @schema@.stream_receive(p_consumer, p_member, p_max, p_batch_id);
    PERFORM @schema@.stream_ack(p_batch_id);
END
$fn$;

-- The first of a receive in two transactions (StreamStore, for cooperative members outside a caller's transaction):
-- allocates the member's next batch (or finds its outstanding one) and, with p_ack, acks that batch of the consumer
-- as stream_ack_receive does, but reads no rows. One row: the batch id (null when there is nothing) and its ticks.
-- Its commit does not wait for the WAL flush (synchronous_commit off for this transaction), so the consumer lock is
-- held only while the allocation runs. The caller must not act on the result before stream_batch_read has committed
-- in a transaction of its own: that commit waits for the flush, which covers this commit (written to the WAL before
-- it). A crash in between loses the allocation and the ack together, before the client saw either: the batch is
-- handed out again (at-least-once), and no batch id that a client holds can be issued a second time.
CREATE OR REPLACE FUNCTION @schema@.stream_allocate(p_consumer text, p_member text, p_max integer, p_ack bigint)
RETURNS TABLE (batch_id bigint, start_tick bigint, end_tick bigint)
LANGUAGE plpgsql AS $fn$
BEGIN
    PERFORM set_config('synchronous_commit', 'off', true);
    IF p_ack IS NOT NULL AND EXISTS (
            SELECT 1 FROM @schema@.stream_batches b
            WHERE b.batch_id = p_ack
              AND b.sub_id IS DISTINCT FROM (SELECT s.sub_id FROM @schema@.stream_subscriptions s
                                             WHERE s.consumer = p_consumer)) THEN
        RAISE EXCEPTION 'batch % is not a batch of consumer %', p_ack, p_consumer USING ERRCODE = 'S3400';
    END IF;
    RETURN QUERY SELECT r.batch_id, r.start_tick, r.end_tick
                 FROM @schema@.stream_receive(p_consumer, p_member, p_max, p_ack, false) r;
    IF p_ack IS NOT NULL THEN
        PERFORM @schema@.stream_ack(p_ack);
    END IF;
END
$fn$;

-- The second of a receive in two transactions: the rows of a batch that stream_allocate returned, read without the
-- consumer lock, in a transaction whose commit waits for the WAL flush (see stream_flush_seq), so that the allocation
-- and ack before it are durable once this has committed. p_batch_id null only flushes. No rows when the batch no
-- longer exists (its consumer unsubscribed meanwhile).
CREATE OR REPLACE FUNCTION @schema@.stream_batch_read(p_batch_id bigint)
RETURNS TABLE (batch_id bigint, start_tick bigint, end_tick bigint, seq bigint, event_id text, type text,
               payload json, headers jsonb, retry_count integer, created_at timestamptz)
LANGUAGE plpgsql SET jit = off AS $fn$
DECLARE
    v_batch @schema@.stream_batches;
    v_from  pg_snapshot;
    v_to    pg_snapshot;
    v_tids  record;
BEGIN
    PERFORM setval('@schema@.stream_flush_seq', 1, false);
    IF p_batch_id IS NULL THEN
        RETURN;
    END IF;
    -- rotation and compaction cannot drop the batch or its events while this reads them
    PERFORM pg_advisory_xact_lock_shared(@schema@.stream_rotation_key());
    -- as stream_batch_messages, written out: a RETURN QUERY over that function would copy every row once more
    SELECT * INTO v_batch FROM @schema@.stream_batches b WHERE b.batch_id = p_batch_id LIMIT 1;
    IF NOT FOUND THEN
        RETURN;
    END IF;
    IF NOT v_batch.complete OR v_batch.after_seq > 0 THEN
        SELECT * INTO v_tids FROM @schema@.stream_locator_tids(v_batch.start_tick, v_batch.end_tick, v_batch.seqs);
        IF coalesce(v_tids.tids_0, v_tids.tids_1, v_tids.tids_2) IS NOT NULL THEN
            RETURN QUERY
            SELECT v_batch.batch_id, v_batch.start_tick, v_batch.end_tick, e.seq, e.event_id, e.type, e.payload,
                   e.headers, e.retry_count, e.created_at
            FROM @schema@.stream_located_rows(v_tids.tids_0, v_tids.tids_1, v_tids.tids_2, v_batch.seqs) e;
            RETURN;
        END IF;
    END IF;
    SELECT (SELECT t.snapshot FROM @schema@.stream_ticks t WHERE t.tick_id = v_batch.start_tick LIMIT 1),
           (SELECT t.snapshot FROM @schema@.stream_ticks t WHERE t.tick_id = v_batch.end_tick LIMIT 1)
    INTO v_from, v_to;
    RETURN QUERY
    SELECT v_batch.batch_id, v_batch.start_tick, v_batch.end_tick, e.seq, e.event_id, e.type, e.payload,
           e.headers, e.retry_count, e.created_at
    FROM @schema@.stream_batch_rows(v_from, v_to, v_batch.seqs) e;
END
$fn$;

-- Compiles and plans on this connection what a receive of the consumer runs, and leaves nothing behind: the
-- receive itself (it writes only when there is something to hand out, and all of it is rolled back here), then the
-- functions of the path that hands events out, called on arguments under which they find nothing. A receive's
-- first call on a connection plans every statement of that queue's functions there (tens of milliseconds under
-- load), and a long-poll woken by an append should not pay that then (see StreamLongPoll); the receive's own
-- statements after its tick are planned only by a receive that hands something out. The consumer's lock is taken
-- and released as by a receive. Unknown consumers raise as in stream_receive.
CREATE OR REPLACE FUNCTION @schema@.stream_receive_warm(p_consumer text, p_member text, p_max integer)
RETURNS void
LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan SET jit = off AS $fn$
DECLARE
    v_tick     bigint;
    v_snapshot pg_snapshot;
    v_max_seq  bigint;
BEGIN
    BEGIN
        PERFORM 1 FROM @schema@.stream_receive(p_consumer, p_member, p_max, NULL);
        SELECT t.tick_id, t.snapshot, t.max_seq INTO v_tick, v_snapshot, v_max_seq
        FROM @schema@.stream_ticks t ORDER BY t.tick_id DESC LIMIT 1;
        IF FOUND THEN
            PERFORM @schema@.stream_end_tick(v_tick, v_max_seq, p_max);
            PERFORM @schema@.stream_diff_ranges(v_snapshot, v_snapshot, 0, p_max);
            PERFORM pg_advisory_xact_lock(@schema@.stream_tick_key());
            PERFORM @schema@.stream_make_tick(v_snapshot);
        END IF;
        PERFORM @schema@.stream_meta_part();
        RAISE EXCEPTION USING ERRCODE = 'S3WRM';
    EXCEPTION WHEN SQLSTATE 'S3WRM' THEN
        NULL;
    END;
END
$fn$;

$template$)
ON CONFLICT (part) DO UPDATE SET position = excluded.position, body = excluded.body;
