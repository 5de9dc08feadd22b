-- The streams view: snapshot differences (which events a batch holds), tick choice, and batch lookups.
INSERT INTO s3p.queue_templates (part, position, body) VALUES ('streams.snapshots', 23, $template$

-- stream_diff_seqs, which listed a whole difference's sequence numbers, is gone: a range larger than a batch is
-- located once (stream_locator_build) and its later batches read from the locator.
DROP FUNCTION IF EXISTS @schema@.stream_diff_seqs(pg_snapshot, pg_snapshot, integer);

-- The events visible in p_to but not in p_from with a sequence number above p_after_seq, unordered; p_xip is
-- p_from's xip list, which the caller computes once. SQL, so that the planner inlines it into the caller's query:
-- the plan PL/pgSQL keeps for that query is the same as with this condition written in it.
CREATE OR REPLACE FUNCTION @schema@.stream_diff_rows(p_from pg_snapshot, p_to pg_snapshot, p_xip xid8[],
                                                     p_after_seq bigint)
RETURNS SETOF @schema@.stream_events
LANGUAGE sql STABLE AS $fn$
    SELECT e.*
    FROM @schema@.stream_events e
    WHERE (e.txid >= pg_snapshot_xmax(p_from) AND e.txid < pg_snapshot_xmax(p_to) OR e.txid = ANY (p_xip))
      AND pg_visible_in_snapshot(e.txid, p_to) AND NOT pg_visible_in_snapshot(e.txid, p_from)
      AND e.seq > p_after_seq
$fn$;

-- stream_diff_events, which gathered a batch's whole rows into an array, is gone: stream_receive takes the batch's
-- sequence numbers from stream_diff_ranges and returns its rows from stream_batch_rows.
DROP FUNCTION IF EXISTS @schema@.stream_diff_events(pg_snapshot, pg_snapshot, bigint, integer);

-- The first p_n numbers of the sorted p_seqs as ranges: one range when they are consecutive (events appended
-- together), which costs less than half of a window over the rows and range_agg of a range per event. A batch's
-- numbers in this form are what stream_diff_ranges and stream_locator_next answer.
CREATE OR REPLACE FUNCTION @schema@.stream_seq_ranges(p_seqs bigint[], p_n integer)
RETURNS int8multirange
LANGUAGE plpgsql IMMUTABLE AS $fn$
BEGIN
    IF p_n = 0 THEN
        RETURN '{}';
    ELSIF p_seqs[p_n] - p_seqs[1] + 1 = p_n THEN
        RETURN int8multirange(int8range(p_seqs[1], p_seqs[p_n], '[]'));
    END IF;
    RETURN (SELECT range_agg(int8range(n.seq, n.seq, '[]')) FROM unnest(p_seqs[1:p_n]) AS n(seq));
END
$fn$;

-- stream_diff_ranges is PL/pgSQL, not SQL: PL/pgSQL keeps the plans of its statements for the session, a SQL
-- function called from PL/pgSQL is planned again on every call (a third of a millisecond here, on every receive).
-- The events visible in p_to but not in p_from with a sequence number above p_after_seq, in storage order, at most
-- p_limit of them, as ranges of sequence numbers, and whether more such events follow. A receive reads the rows
-- by them in the same transaction (stream_receive), an allocation (stream_allocate) in the member's next one,
-- without the consumer lock.
CREATE OR REPLACE FUNCTION @schema@.stream_diff_ranges(p_from pg_snapshot, p_to pg_snapshot, p_after_seq bigint,
                                                       p_limit integer, OUT seqs int8multirange, OUT more boolean)
LANGUAGE plpgsql STABLE AS $fn$
DECLARE
    v_xip  xid8[] := ARRAY(SELECT pg_snapshot_xip(p_from));
    v_seqs bigint[];
    v_n    integer;
BEGIN
    v_seqs := ARRAY(SELECT e.seq FROM @schema@.stream_diff_rows(p_from, p_to, v_xip, p_after_seq) e
                    ORDER BY e.seq LIMIT p_limit + 1);
    v_n := cardinality(v_seqs);
    more := v_n > p_limit;
    IF more THEN
        v_n := p_limit;
    END IF;
    seqs := @schema@.stream_seq_ranges(v_seqs, v_n);
END
$fn$;

-- The end tick of the next batch from p_start: the newest tick whose sequence numbers fit p_max (max_seq grows
-- with tick ids, so this is one short index range), else the nearest newer tick. Sequence numbers only estimate a
-- span's size (an event may commit after a tick that saw a higher number, a rolled-back append uses numbers), so
-- the caller checks the span it gets.
CREATE OR REPLACE FUNCTION @schema@.stream_end_tick(p_start bigint, p_start_seq bigint, p_max integer)
RETURNS bigint
LANGUAGE plpgsql STABLE AS $fn$
DECLARE
    v_end bigint;
BEGIN
    SELECT t.tick_id INTO v_end FROM @schema@.stream_ticks t
    WHERE t.max_seq >= p_start_seq AND t.max_seq <= p_start_seq + p_max AND t.tick_id > p_start
    ORDER BY t.max_seq DESC, t.tick_id DESC
    LIMIT 1;
    IF v_end IS NULL THEN
        SELECT min(t.tick_id) INTO v_end FROM @schema@.stream_ticks t WHERE t.tick_id > p_start;
    END IF;
    RETURN v_end;
END
$fn$;

-- Makes a tick of the current snapshot when it holds events that p_from does not see (a receive or a subscription
-- that needs a tick and found none newer); the new tick's id, else null. The caller holds the tick lock.
CREATE OR REPLACE FUNCTION @schema@.stream_make_tick(p_from pg_snapshot)
RETURNS bigint
LANGUAGE plpgsql AS $fn$
DECLARE
    -- captured by a statement that starts after the caller holds the tick lock
    v_to   pg_snapshot := pg_current_snapshot();
    v_xip  xid8[] := ARRAY(SELECT pg_snapshot_xip(p_from));
    v_tick bigint;
BEGIN
    -- as stream_has_new_events, against v_to: the first row of each txid range, not the lowest sequence number of
    -- the whole difference (which read every event of a backlog appended without a tick)
    IF (SELECT e.txid FROM @schema@.stream_events e
        WHERE e.txid >= pg_snapshot_xmax(p_from) AND e.txid < pg_snapshot_xmax(v_to)
          AND pg_visible_in_snapshot(e.txid, v_to)
        ORDER BY e.txid LIMIT 1) IS NULL
       AND (cardinality(v_xip) = 0
            OR (SELECT e.txid FROM @schema@.stream_events e
                WHERE e.txid >= pg_snapshot_xmin(p_from) AND e.txid < pg_snapshot_xmax(p_from)
                  AND e.txid = ANY (v_xip) AND pg_visible_in_snapshot(e.txid, v_to)
                ORDER BY e.txid LIMIT 1) IS NULL) THEN
        RETURN NULL;
    END IF;
    v_tick := nextval('@schema@.stream_tick_seq');
    INSERT INTO @schema@.stream_ticks (part, tick_id, snapshot, max_seq)
    VALUES (@schema@.stream_meta_part(), v_tick, v_to, (SELECT sq.last_value FROM @schema@.stream_seq sq));
    RETURN v_tick;
END
$fn$;

-- Whether events committed after p_from are visible to the calling statement: an event of a transaction that started
-- after p_from, or of one running when it was taken (p_from's xip list, within [xmin, xmax) of it). Each is the
-- first match of an ordered scan of one txid index range, not an EXISTS: the generic plan PL/pgSQL keeps after five
-- calls costs an EXISTS as if the matches it expects were spread evenly, and on a large segment that made a
-- sequential scan look cheaper than the index (with the two ranges joined by OR, only a bitmap scan could use the
-- index at all). A poll that finds nothing then read every event retained in the segments. In txid order, no plan
-- reaches its first row without the index but by reading and sorting the whole range.
CREATE OR REPLACE FUNCTION @schema@.stream_has_new_events(p_from pg_snapshot)
RETURNS boolean
LANGUAGE plpgsql STABLE AS $fn$
DECLARE
    v_xip xid8[] := ARRAY(SELECT pg_snapshot_xip(p_from));
    v_now pg_snapshot := pg_current_snapshot();
BEGIN
    RETURN (SELECT e.txid FROM @schema@.stream_events e
            WHERE e.txid >= pg_snapshot_xmax(p_from) AND e.txid < pg_snapshot_xmax(v_now)
              AND pg_visible_in_snapshot(e.txid, v_now)
            ORDER BY e.txid LIMIT 1) IS NOT NULL
        OR (cardinality(v_xip) > 0
            AND (SELECT e.txid FROM @schema@.stream_events e
                 WHERE e.txid >= pg_snapshot_xmin(p_from) AND e.txid < pg_snapshot_xmax(p_from)
                   AND e.txid = ANY (v_xip) AND pg_visible_in_snapshot(e.txid, v_now)
                 ORDER BY e.txid LIMIT 1) IS NOT NULL);
END
$fn$;

-- The events of a batch: its fixed sequence numbers within its tick range, p_from to p_to. SQL, so that it is
-- inlined into the caller's RETURN QUERY and the rows go straight into the caller's result, copied once.
CREATE OR REPLACE FUNCTION @schema@.stream_batch_rows(p_from pg_snapshot, p_to pg_snapshot, p_seqs int8multirange)
RETURNS SETOF @schema@.stream_events
LANGUAGE sql STABLE AS $fn$
    SELECT e.*
    FROM @schema@.stream_events e
    WHERE (e.txid >= pg_snapshot_xmax(p_from) AND e.txid < pg_snapshot_xmax(p_to)
           OR e.txid = ANY (ARRAY(SELECT pg_snapshot_xip(p_from))))
      AND e.seq <@ p_seqs
$fn$;

-- Makes the locator of the range p_start..p_end (snapshots p_from..p_to) unless it exists: one scan of the range,
-- as the first batch's own, its events' numbers and addresses sorted by number once (in memory up to a few hundred
-- thousand events, hence work_mem) and stored 1,000 to a row (see stream_locators). Called under the consumer lock
-- by the receive of a range larger than its max.
CREATE OR REPLACE FUNCTION @schema@.stream_locator_build(p_start bigint, p_end bigint, p_from pg_snapshot,
                                                         p_to pg_snapshot)
RETURNS void
LANGUAGE plpgsql SET work_mem = '64MB' AS $fn$
DECLARE
    v_xip xid8[] := ARRAY(SELECT pg_snapshot_xip(p_from));
BEGIN
    PERFORM pg_advisory_xact_lock(@schema@.stream_locator_key(p_start, p_end));
    IF EXISTS (SELECT 1 FROM @schema@.stream_locators l WHERE l.start_tick = p_start AND l.end_tick = p_end) THEN
        RETURN;
    END IF;
    -- One statement: the three arrays aggregated in the order of the sorted subquery (one sort for all three), and
    -- sliced into chunks while they are plain values of this query (as PL/pgSQL variables, every slice copied a
    -- whole array).
    INSERT INTO @schema@.stream_locators (part, start_tick, end_tick, last_seq, seqs, segments, tids)
    SELECT @schema@.stream_meta_part(), p_start, p_end, a.seqs[least(c * 1000 + 1000, cardinality(a.seqs))],
           a.seqs[c * 1000 + 1:c * 1000 + 1000], a.segments[c * 1000 + 1:c * 1000 + 1000],
           a.tids[c * 1000 + 1:c * 1000 + 1000]
    FROM (SELECT array_agg(r.seq) AS seqs, array_agg(r.segment) AS segments, array_agg(r.ctid) AS tids
          FROM (SELECT e.seq, e.segment, e.ctid
                FROM @schema@.stream_events e
                WHERE (e.txid >= pg_snapshot_xmax(p_from) AND e.txid < pg_snapshot_xmax(p_to) OR e.txid = ANY (v_xip))
                  AND pg_visible_in_snapshot(e.txid, p_to) AND NOT pg_visible_in_snapshot(e.txid, p_from)
                ORDER BY e.seq) r) a
    CROSS JOIN LATERAL generate_series(0, (cardinality(a.seqs) - 1) / 1000) AS c;
END
$fn$;

-- Whether the range p_start..p_end has a locator: one index probe.
CREATE OR REPLACE FUNCTION @schema@.stream_located(p_start bigint, p_end bigint)
RETURNS boolean
LANGUAGE plpgsql STABLE AS $fn$
BEGIN
    RETURN EXISTS (SELECT 1 FROM @schema@.stream_locators l WHERE l.start_tick = p_start AND l.end_tick = p_end);
END
$fn$;

-- stream_diff_ranges from a range's locator: its first p_limit events with a sequence number above p_after_seq, as
-- ranges of sequence numbers, whether more follow, and their row addresses, one array per segment. Reads the few
-- chunks that can hold them (the first whose last number is above p_after_seq and the next ones, in order), not the
-- rest of the range; their entries are in sequence order already, so the batch is a slice of them.
CREATE OR REPLACE FUNCTION @schema@.stream_locator_next(p_start bigint, p_end bigint, p_after_seq bigint,
                                                        p_limit integer, OUT seqs int8multirange, OUT more boolean,
                                                        OUT tids_0 tid[], OUT tids_1 tid[], OUT tids_2 tid[])
LANGUAGE plpgsql STABLE AS $fn$
DECLARE
    v_chunk    record;
    v_seqs     bigint[] := '{}';
    v_segments smallint[] := '{}';
    v_tids     tid[] := '{}';
    v_first    integer;
    v_n        integer;
BEGIN
    FOR v_chunk IN SELECT l.seqs, l.segments, l.tids FROM @schema@.stream_locators l
                   WHERE l.start_tick = p_start AND l.end_tick = p_end AND l.last_seq > p_after_seq
                   ORDER BY l.last_seq LIMIT p_limit / 1000 + 2 LOOP
        IF cardinality(v_seqs) = 0 THEN
            -- the first chunk holds the batch's first event: the one after those at or below p_after_seq
            v_first := (SELECT count(*) FROM unnest(v_chunk.seqs) AS n(seq) WHERE n.seq <= p_after_seq) + 1;
            v_seqs := v_chunk.seqs[v_first:];
            v_segments := v_chunk.segments[v_first:];
            v_tids := v_chunk.tids[v_first:];
        ELSE
            v_seqs := v_seqs || v_chunk.seqs;
            v_segments := v_segments || v_chunk.segments;
            v_tids := v_tids || v_chunk.tids;
        END IF;
        EXIT WHEN cardinality(v_seqs) > p_limit;
    END LOOP;
    v_n := cardinality(v_seqs);
    more := v_n > p_limit;
    IF more THEN
        v_n := p_limit;
    END IF;
    seqs := @schema@.stream_seq_ranges(v_seqs, v_n);
    IF v_n = 0 THEN
        RETURN;
    END IF;
    IF v_segments[1] = v_segments[v_n] AND v_segments[1] = ALL (v_segments[1:v_n]) THEN
        CASE v_segments[1]
            WHEN 0 THEN tids_0 := v_tids[1:v_n];
            WHEN 1 THEN tids_1 := v_tids[1:v_n];
            ELSE tids_2 := v_tids[1:v_n];
        END CASE;
    ELSE
        SELECT array_agg(x.tid) FILTER (WHERE x.segment = 0), array_agg(x.tid) FILTER (WHERE x.segment = 1),
               array_agg(x.tid) FILTER (WHERE x.segment = 2)
        INTO tids_0, tids_1, tids_2
        FROM unnest(v_segments[1:v_n], v_tids[1:v_n]) AS x(segment, tid);
    END IF;
END
$fn$;
DROP FUNCTION IF EXISTS @schema@.stream_locator_ranges(bigint, bigint, bigint, integer);

-- The row addresses of a batch's events (p_seqs) in the range p_start..p_end, one array per segment; all three null
-- when the range has no locator. Reads the chunks that hold them: the batch's events are consecutive in the range.
CREATE OR REPLACE FUNCTION @schema@.stream_locator_tids(p_start bigint, p_end bigint, p_seqs int8multirange,
                                                        OUT tids_0 tid[], OUT tids_1 tid[], OUT tids_2 tid[])
LANGUAGE plpgsql STABLE AS $fn$
DECLARE
    -- how many events the batch holds: its ranges are runs of consecutive sequence numbers
    v_n bigint := (SELECT sum(upper(r) - lower(r)) FROM unnest(p_seqs) AS r);
BEGIN
    SELECT array_agg(u.tid) FILTER (WHERE u.segment = 0), array_agg(u.tid) FILTER (WHERE u.segment = 1),
           array_agg(u.tid) FILTER (WHERE u.segment = 2)
    INTO tids_0, tids_1, tids_2
    FROM (SELECT l.seqs, l.segments, l.tids FROM @schema@.stream_locators l
          WHERE l.start_tick = p_start AND l.end_tick = p_end AND l.last_seq >= lower(p_seqs)
          ORDER BY l.last_seq LIMIT v_n / 1000 + 2) l
    CROSS JOIN LATERAL unnest(l.seqs, l.segments, l.tids) AS u(seq, segment, tid)
    WHERE u.seq >= lower(p_seqs) AND u.seq < upper(p_seqs) AND u.seq <@ p_seqs;
END
$fn$;

-- The events of a batch by their row addresses (stream_locator_tids): a TID scan of each segment. The sequence
-- numbers are checked too, so a row is never taken for another. SQL, inlined into the caller's RETURN QUERY as
-- stream_batch_rows is.
CREATE OR REPLACE FUNCTION @schema@.stream_located_rows(p_tids_0 tid[], p_tids_1 tid[], p_tids_2 tid[],
                                                        p_seqs int8multirange)
RETURNS SETOF @schema@.stream_events
LANGUAGE sql STABLE AS $fn$
    SELECT e.* FROM @schema@.stream_events e WHERE e.segment = 0 AND e.ctid = ANY (p_tids_0) AND e.seq <@ p_seqs
    UNION ALL
    SELECT e.* FROM @schema@.stream_events e WHERE e.segment = 1 AND e.ctid = ANY (p_tids_1) AND e.seq <@ p_seqs
    UNION ALL
    SELECT e.* FROM @schema@.stream_events e WHERE e.segment = 2 AND e.ctid = ANY (p_tids_2) AND e.seq <@ p_seqs
$fn$;

-- The messages of one batch, read back by its fixed sequence numbers within its tick range, unsorted (as
-- stream_receive returns them); none when it does not
-- exist.
CREATE OR REPLACE FUNCTION @schema@.stream_batch_messages(p_batch_id bigint)
RETURNS TABLE (batch_id bigint, start_tick bigint, end_tick bigint, seq bigint, event_id text, type text,
               payload json, headers jsonb, retry_count integer, created_at timestamptz)
LANGUAGE plpgsql STABLE AS $fn$
DECLARE
    v_batch @schema@.stream_batches;
    v_from  pg_snapshot;
    v_to    pg_snapshot;
    v_tids  record;
BEGIN
    SELECT * INTO v_batch FROM @schema@.stream_batches b WHERE b.batch_id = p_batch_id LIMIT 1;
    IF NOT FOUND THEN
        RETURN;
    END IF;
    IF NOT v_batch.complete OR v_batch.after_seq > 0 THEN
        -- a part of a large range: by its locator, when the range has one
        SELECT * INTO v_tids FROM @schema@.stream_locator_tids(v_batch.start_tick, v_batch.end_tick, v_batch.seqs);
        IF coalesce(v_tids.tids_0, v_tids.tids_1, v_tids.tids_2) IS NOT NULL THEN
            RETURN QUERY
            SELECT v_batch.batch_id, v_batch.start_tick, v_batch.end_tick, e.seq, e.event_id, e.type, e.payload,
                   e.headers, e.retry_count, e.created_at
            FROM @schema@.stream_located_rows(v_tids.tids_0, v_tids.tids_1, v_tids.tids_2, v_batch.seqs) e;
            RETURN;
        END IF;
    END IF;
    SELECT t.snapshot INTO v_from FROM @schema@.stream_ticks t WHERE t.tick_id = v_batch.start_tick LIMIT 1;
    SELECT t.snapshot INTO v_to FROM @schema@.stream_ticks t WHERE t.tick_id = v_batch.end_tick LIMIT 1;
    RETURN QUERY
    SELECT v_batch.batch_id, v_batch.start_tick, v_batch.end_tick, e.seq, e.event_id, e.type, e.payload,
           e.headers, e.retry_count, e.created_at
    FROM @schema@.stream_batch_rows(v_from, v_to, v_batch.seqs) e;
END
$fn$;

-- The outstanding, unacked batch of one member of a subscription whose cursor is at (p_tick, p_seq), or null. A
-- member gets a new batch only once its previous one is acked, so only its newest batch can be unacked.
CREATE OR REPLACE FUNCTION @schema@.stream_active_batch(p_sub_id bigint, p_member text, p_tick bigint, p_seq bigint)
RETURNS bigint
LANGUAGE plpgsql STABLE AS $fn$
DECLARE
    v_batch bigint;
BEGIN
    SELECT b.batch_id INTO v_batch FROM @schema@.stream_batches b
    WHERE b.sub_id = p_sub_id AND b.member = p_member AND (b.start_tick, b.after_seq) >= (p_tick, p_seq)
    ORDER BY b.start_tick DESC, b.after_seq DESC
    LIMIT 1;
    IF v_batch IS NULL OR EXISTS (SELECT 1 FROM @schema@.stream_acks a WHERE a.batch_id = v_batch) THEN
        RETURN NULL;
    END IF;
    RETURN v_batch;
END
$fn$;

-- Where the next batch of a subscription starts: the end of its newest batch, or its cursor (p_tick, p_seq,
-- p_range_end) when that is further.
CREATE OR REPLACE FUNCTION @schema@.stream_next_position(p_sub_id bigint, p_tick bigint, p_seq bigint,
                                                         p_range_end bigint, OUT tick bigint, OUT seq bigint,
                                                         OUT range_end bigint)
LANGUAGE plpgsql STABLE AS $fn$
DECLARE
    v_batch @schema@.stream_batches;
BEGIN
    tick := p_tick;
    seq := p_seq;
    range_end := p_range_end;
    SELECT * INTO v_batch FROM @schema@.stream_batches b WHERE b.sub_id = p_sub_id
    ORDER BY b.start_tick DESC, b.after_seq DESC LIMIT 1;
    IF FOUND AND ((@schema@.stream_batch_end(v_batch)).tick, (@schema@.stream_batch_end(v_batch)).seq) > (p_tick, p_seq)
    THEN
        SELECT e.tick, e.seq, e.range_end INTO tick, seq, range_end FROM @schema@.stream_batch_end(v_batch) e;
    END IF;
END
$fn$;

$template$)
ON CONFLICT (part) DO UPDATE SET position = excluded.position, body = excluded.body;
