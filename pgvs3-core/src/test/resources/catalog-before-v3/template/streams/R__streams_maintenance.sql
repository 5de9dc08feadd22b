-- The streams view: maintenance ticks, metadata compaction and log rotation.
INSERT INTO s3p.queue_templates (part, position, body) VALUES ('streams.maintenance', 28, $template$

-- Makes a tick when the queue has subscribers and at least p_min_seqs sequence numbers were drawn since the latest
-- tick, of which some are visible events; called by maintenance so that a consumer that lags while producers
-- append finds a batch boundary about every p_min_seqs events (or every pass, when appends are faster) instead of
-- one span holding everything since its cursor. Fewer new events are left to the next receive, which makes a
-- fresh tick itself, so up-to-date consumers keep getting everything in one batch. An optimisation only: receives
-- make the ticks delivery needs. Skips (returns 0) in a transaction that has written or does not take a fresh
-- snapshot per statement, and when a receive is making a tick. Returns 1 when it made one.
CREATE OR REPLACE FUNCTION @schema@.stream_tick(p_min_seqs integer)
RETURNS integer
LANGUAGE plpgsql AS $fn$
DECLARE
    v_latest pg_snapshot;
    v_to     pg_snapshot;
BEGIN
    IF pg_current_xact_id_if_assigned() IS NOT NULL OR current_setting('transaction_isolation') <> 'read committed'
       OR NOT EXISTS (SELECT 1 FROM @schema@.stream_subscriptions)
       OR (SELECT sq.last_value FROM @schema@.stream_seq sq)
          < (SELECT t.max_seq FROM @schema@.stream_ticks t ORDER BY t.tick_id DESC LIMIT 1) + greatest(p_min_seqs, 1) THEN
        RETURN 0;
    END IF;
    PERFORM pg_advisory_xact_lock_shared(@schema@.stream_rotation_key());
    IF NOT pg_try_advisory_xact_lock(@schema@.stream_tick_key()) THEN
        RETURN 0;
    END IF;
    SELECT t.snapshot INTO v_latest FROM @schema@.stream_ticks t ORDER BY t.tick_id DESC LIMIT 1;
    -- captured by a statement that starts after the tick lock is held
    v_to := pg_current_snapshot();
    IF NOT EXISTS (SELECT 1 FROM @schema@.stream_events e
                   WHERE e.txid >= pg_snapshot_xmin(v_latest) AND e.txid < pg_snapshot_xmax(v_to)
                     AND pg_visible_in_snapshot(e.txid, v_to) AND NOT pg_visible_in_snapshot(e.txid, v_latest)) THEN
        RETURN 0;
    END IF;
    INSERT INTO @schema@.stream_ticks (part, tick_id, snapshot, max_seq)
    VALUES (@schema@.stream_meta_part(), nextval('@schema@.stream_tick_seq'), v_to,
            (SELECT sq.last_value FROM @schema@.stream_seq sq));
    RETURN 1;
END
$fn$;

-- Compacts the metadata when due (or now, when forced): the other part becomes current, everything still live in
-- the old part is copied into it, and the old part is truncated. Live are the latest cursor row of every
-- subscription, the batches no cursor has passed with their acks and nacks, the locators of the large ranges a
-- cursor or such a batch is in (a range left without one is located again by its next batch), and the ticks
-- something needs:
-- cursor and batch ticks, the latest tick, the floor tick (the newest one past the retention or before the seal
-- of the segment truncated last; from_tick 0 replays from it) and, of the ticks still within retention, the first
-- and the last of every 100 sequence numbers (max_seq / 100), which bounds the ticks by the retained events while
-- a replay or a lagging consumer still finds a boundary every ~100 events.
-- Due when the current part is 30 s old and 10,000 ticks, cursor moves and batches were written since the last
-- compaction, or when it is 10 minutes old and any were. TRUNCATE replaces files and catalog rows, so it runs no
-- more often than that. Returns how many ticks it dropped; 0 when not due or busy.
CREATE OR REPLACE FUNCTION @schema@.stream_compact(p_force boolean)
RETURNS integer
LANGUAGE plpgsql AS $fn$
DECLARE
    v_meta    @schema@.stream_meta;
    v_config  @schema@.stream_config;
    v_old     smallint;
    v_new     smallint;
    v_writes  bigint;
    v_live    bigint[];
    v_keep    bigint[];
    v_latest  bigint;
    v_floor   bigint;
    v_ticks   bigint;
    v_kept    bigint;
    v_table   text;
BEGIN
    SELECT * INTO v_meta FROM @schema@.stream_meta;
    v_writes := @schema@.stream_meta_writes();
    IF NOT coalesce(p_force, false)
       AND (now() < v_meta.compacted_at + interval '30 seconds' OR v_writes = v_meta.writes_mark
            OR (v_writes < v_meta.writes_mark + 10000 AND now() < v_meta.compacted_at + interval '10 minutes')) THEN
        RETURN 0;
    END IF;
    IF NOT pg_try_advisory_xact_lock(@schema@.stream_rotation_key()) THEN
        RETURN 0;
    END IF;
    v_old := @schema@.stream_meta_part();
    v_new := 1 - v_old;
    BEGIN
        FOREACH v_table IN ARRAY ARRAY['stream_ticks_', 'stream_cursors_', 'stream_batches_', 'stream_acks_',
                                       'stream_nacks_', 'stream_locators_'] LOOP
            EXECUTE format('LOCK TABLE @schema@.%I IN ACCESS EXCLUSIVE MODE NOWAIT', v_table || v_old);
        END LOOP;
    EXCEPTION WHEN lock_not_available THEN
        RETURN 0;
    END;
    PERFORM setval('@schema@.stream_meta_epoch', (SELECT e.last_value FROM @schema@.stream_meta_epoch e) + 1);

    INSERT INTO @schema@.stream_cursors (part, id, sub_id, tick, created_at, seq, range_end)
    SELECT v_new, c.id, c.sub_id, c.tick, c.created_at, c.seq, c.range_end
    FROM @schema@.stream_subscriptions s
    CROSS JOIN LATERAL (SELECT * FROM @schema@.stream_cursors l WHERE l.sub_id = s.sub_id
                        ORDER BY l.id DESC LIMIT 1) c
    WHERE c.part = v_old;

    v_live := ARRAY(SELECT b.batch_id
                    FROM @schema@.stream_subscriptions s
                    CROSS JOIN LATERAL @schema@.stream_cursor(s.sub_id) c
                    JOIN @schema@.stream_batches b
                      ON b.sub_id = s.sub_id AND (b.start_tick, b.after_seq) >= (c.tick, c.seq));
    INSERT INTO @schema@.stream_batches (part, batch_id, sub_id, member, start_tick, end_tick, seqs, created_at,
                                         after_seq, complete)
    SELECT v_new, b.batch_id, b.sub_id, b.member, b.start_tick, b.end_tick, b.seqs, b.created_at, b.after_seq,
           b.complete
    FROM @schema@.stream_batches b WHERE b.part = v_old AND b.batch_id = ANY (v_live);
    INSERT INTO @schema@.stream_acks (part, batch_id, acked_at)
    SELECT v_new, a.batch_id, a.acked_at FROM @schema@.stream_acks a WHERE a.part = v_old AND a.batch_id = ANY (v_live);
    INSERT INTO @schema@.stream_nacks (part, batch_id, seq, created_at)
    SELECT v_new, n.batch_id, n.seq, n.created_at
    FROM @schema@.stream_nacks n WHERE n.part = v_old AND n.batch_id = ANY (v_live);
    -- the locators of the ranges a cursor or a live batch is in
    INSERT INTO @schema@.stream_locators (part, start_tick, end_tick, last_seq, seqs, segments, tids)
    SELECT v_new, l.start_tick, l.end_tick, l.last_seq, l.seqs, l.segments, l.tids
    FROM @schema@.stream_locators l
    WHERE l.part = v_old
      AND (l.start_tick, l.end_tick) IN (SELECT c.tick, c.range_end FROM @schema@.stream_subscriptions s
                                         CROSS JOIN LATERAL @schema@.stream_cursor(s.sub_id) c
                                         WHERE c.range_end IS NOT NULL
                                         UNION
                                         SELECT b.start_tick, b.end_tick FROM @schema@.stream_batches b
                                         WHERE b.batch_id = ANY (v_live) AND (NOT b.complete OR b.after_seq > 0));

    SELECT * INTO v_config FROM @schema@.stream_config;
    SELECT max(t.tick_id) INTO v_latest FROM @schema@.stream_ticks t;
    SELECT max(t.tick_id) INTO v_floor FROM @schema@.stream_ticks t
    WHERE t.tick_id < v_latest
      AND (t.created_at < now() - v_config.retention
           OR (v_config.truncated_seal IS NOT NULL AND NOT pg_visible_in_snapshot(v_config.truncated_seal, t.snapshot)));
    v_keep := ARRAY(SELECT c.tick FROM @schema@.stream_subscriptions s CROSS JOIN LATERAL @schema@.stream_cursor(s.sub_id) c
                    UNION ALL
                    SELECT c.range_end FROM @schema@.stream_subscriptions s
                    CROSS JOIN LATERAL @schema@.stream_cursor(s.sub_id) c WHERE c.range_end IS NOT NULL
                    UNION ALL
                    SELECT b.start_tick FROM @schema@.stream_batches b WHERE b.batch_id = ANY (v_live)
                    UNION ALL
                    SELECT b.end_tick FROM @schema@.stream_batches b WHERE b.batch_id = ANY (v_live))
              || v_latest || v_floor;
    SELECT count(*) INTO v_ticks FROM @schema@.stream_ticks t WHERE t.part = v_old;
    INSERT INTO @schema@.stream_ticks (part, tick_id, snapshot, max_seq, created_at)
    SELECT v_new, t.tick_id, t.snapshot, t.max_seq, t.created_at
    FROM @schema@.stream_ticks t
    WHERE t.part = v_old
      AND (t.tick_id = ANY (v_keep)
           OR t.tick_id IN (SELECT r.tick_id
                            FROM (SELECT r.tick_id,
                                         row_number() OVER (PARTITION BY r.max_seq / 100 ORDER BY r.tick_id) AS first,
                                         row_number() OVER (PARTITION BY r.max_seq / 100 ORDER BY r.tick_id DESC) AS last
                                  FROM @schema@.stream_ticks r
                                  WHERE r.tick_id > coalesce(v_floor, 0)) r
                            WHERE r.first = 1 OR r.last = 1));
    GET DIAGNOSTICS v_kept = ROW_COUNT;

    FOREACH v_table IN ARRAY ARRAY['stream_ticks_', 'stream_cursors_', 'stream_batches_', 'stream_acks_',
                                   'stream_nacks_', 'stream_locators_'] LOOP
        EXECUTE format('TRUNCATE @schema@.%I', v_table || v_old);
    END LOOP;
    UPDATE @schema@.stream_meta SET compacted_at = now(), writes_mark = v_writes;
    RETURN v_ticks - v_kept;
END
$fn$;

-- Rotates the log to the next segment once the current one is retention/2 old (or when forced): 'rotated',
-- 'not_due', 'busy' (an appender, receive or reader holds a lock; try again next pass) or 'pinned' (the next
-- segment still holds events a consumer has not passed; the current segment keeps growing instead).
CREATE OR REPLACE FUNCTION @schema@.stream_rotate(p_force boolean)
RETURNS text
LANGUAGE plpgsql AS $fn$
DECLARE
    v_config @schema@.stream_config;
    v_next   smallint;
    v_table  text;
    v_seal   xid8;
    v_pinned boolean;
BEGIN
    SELECT * INTO v_config FROM @schema@.stream_config;
    IF NOT coalesce(p_force, false) AND now() < v_config.segment_started_at + v_config.retention / 2 THEN
        RETURN 'not_due';
    END IF;
    IF NOT pg_try_advisory_xact_lock(@schema@.stream_rotation_key()) THEN
        RETURN 'busy';
    END IF;
    SELECT * INTO v_config FROM @schema@.stream_config FOR UPDATE;
    v_next := (v_config.current_segment + 1) % 3;
    v_table := 'stream_events_' || v_next;
    BEGIN
        EXECUTE format('LOCK TABLE @schema@.%I IN ACCESS EXCLUSIVE MODE NOWAIT', v_table);
    EXCEPTION WHEN lock_not_available THEN
        RETURN 'busy';
    END;
    EXECUTE format('SELECT EXISTS (SELECT 1 FROM @schema@.%I)', v_table) INTO v_pinned;
    IF v_pinned THEN
        SELECT sg.sealed_xid INTO v_seal FROM @schema@.stream_segments sg WHERE sg.segment = v_next;
        -- A cursor is past the segment when its tick sees every event in it (all committed before the seal).
        -- Batches start at or after their group's cursor and ticks only grow, so checking cursors covers them.
        EXECUTE format(
            'SELECT EXISTS (SELECT 1 FROM @schema@.stream_subscriptions s'
            '  CROSS JOIN LATERAL (SELECT c.snapshot FROM @schema@.stream_ticks c'
            '                      WHERE c.tick_id = @schema@.stream_cursor_tick(s.sub_id) LIMIT 1) t'
            '  WHERE EXISTS (SELECT 1 FROM @schema@.%I e WHERE e.txid >= pg_snapshot_xmin(t.snapshot)'
            '                AND NOT pg_visible_in_snapshot(e.txid, t.snapshot)))', v_table)
            INTO v_pinned;
        IF v_pinned THEN
            RETURN 'pinned';
        END IF;
        -- locators die with the rows they point at: the ctids of a truncated segment are used again
        BEGIN
            LOCK TABLE @schema@.stream_locators_0, @schema@.stream_locators_1 IN ACCESS EXCLUSIVE MODE NOWAIT;
        EXCEPTION WHEN lock_not_available THEN
            RETURN 'busy';
        END;
        EXECUTE format('TRUNCATE @schema@.%I', v_table);
        TRUNCATE @schema@.stream_locators_0, @schema@.stream_locators_1;
        UPDATE @schema@.stream_config SET truncated_seal = v_seal;
    END IF;
    UPDATE @schema@.stream_segments sg SET sealed_xid = pg_current_xact_id(), sealed_at = now()
    WHERE sg.segment = v_config.current_segment;
    UPDATE @schema@.stream_segments sg SET started_at = now(), sealed_xid = NULL, sealed_at = NULL
    WHERE sg.segment = v_next;
    UPDATE @schema@.stream_config SET current_segment = v_next, segment_started_at = now();
    -- drops the ticks of the truncated segment now, if no reader is in the way
    PERFORM @schema@.stream_compact(true);
    RETURN 'rotated';
END
$fn$;

$template$)
ON CONFLICT (part) DO UPDATE SET position = excluded.position, body = excluded.body;
