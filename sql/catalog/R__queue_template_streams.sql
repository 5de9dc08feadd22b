-- The streams view of every queue namespace: a PgQue-shaped, append-only event log in three TRUNCATE-rotated
-- segments, snapshot ticks, fan-out consumer cursors with cooperative members, batch ack, per-message nack with
-- retry and a dead-letter queue. Every stream operation is one function below; Java validates and maps errors.
--
-- Error codes raised by these functions (mapped to OJS errors by io.pgvs3.core.stream.StreamErrors):
--   S3400 invalid request, S3404 not found, S3409 conflict, S3413 batch too large.
--
-- Locks (keys are per queue):
--   rotation key, shared:    append, retry move, DLQ replay, subscribe, receive (they add events or take a cursor
--                            position); exclusive, try-only: rotation and tick cleanup, which therefore never see a
--                            half-made append or cursor allocation and never queue behind a long transaction
--                            (appenders wait only for the few statements they run while holding it).
--   tick key, exclusive:     creating a tick; the snapshot is captured by a statement that runs after it is held, so
--                            tick snapshots grow with tick ids.
INSERT INTO s3p.queue_templates (part, position, body) VALUES ('streams', 20, $template$

CREATE TABLE IF NOT EXISTS @schema@.stream_config (
    singleton          boolean PRIMARY KEY DEFAULT true CHECK (singleton),
    max_retries        integer NOT NULL DEFAULT 5 CHECK (max_retries >= 0),
    retention          interval NOT NULL DEFAULT interval '7 days' CHECK (retention > interval '0'),
    current_segment    smallint NOT NULL DEFAULT 0 CHECK (current_segment BETWEEN 0 AND 2),
    segment_started_at timestamptz NOT NULL DEFAULT now(),
    -- the seal of the segment truncated last: ticks that do not see it only serve as the replay floor
    truncated_seal     xid8
);
INSERT INTO @schema@.stream_config (singleton) VALUES (true) ON CONFLICT DO NOTHING;

CREATE TABLE IF NOT EXISTS @schema@.stream_segments (
    segment    smallint PRIMARY KEY CHECK (segment BETWEEN 0 AND 2),
    started_at timestamptz,
    sealed_xid xid8,
    sealed_at  timestamptz
);
INSERT INTO @schema@.stream_segments (segment, started_at)
VALUES (0, now()), (1, NULL), (2, NULL) ON CONFLICT DO NOTHING;

CREATE SEQUENCE IF NOT EXISTS @schema@.stream_seq;
CREATE SEQUENCE IF NOT EXISTS @schema@.stream_tick_seq;
CREATE SEQUENCE IF NOT EXISTS @schema@.stream_batch_seq;

-- The log. Rows are only ever inserted; a segment is emptied by TRUNCATE, never by DELETE, so it holds no dead
-- tuples. The only index is on txid: every read is a snapshot difference, i.e. a txid range.
CREATE TABLE IF NOT EXISTS @schema@.stream_events (
    segment     smallint NOT NULL,
    seq         bigint NOT NULL,
    txid        xid8 NOT NULL DEFAULT pg_current_xact_id(),
    event_id    text NOT NULL,
    type        text NOT NULL,
    payload     jsonb NOT NULL,
    headers     jsonb NOT NULL DEFAULT '{}'::jsonb,
    retry_count integer NOT NULL DEFAULT 0,
    created_at  timestamptz NOT NULL DEFAULT now()
) PARTITION BY LIST (segment);
CREATE TABLE IF NOT EXISTS @schema@.stream_events_0 PARTITION OF @schema@.stream_events FOR VALUES IN (0);
CREATE TABLE IF NOT EXISTS @schema@.stream_events_1 PARTITION OF @schema@.stream_events FOR VALUES IN (1);
CREATE TABLE IF NOT EXISTS @schema@.stream_events_2 PARTITION OF @schema@.stream_events FOR VALUES IN (2);
CREATE INDEX IF NOT EXISTS stream_events_txid ON @schema@.stream_events (txid);

CREATE TABLE IF NOT EXISTS @schema@.stream_ticks (
    tick_id    bigint PRIMARY KEY,
    snapshot   pg_snapshot NOT NULL,
    max_seq    bigint NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);
-- The floor tick every namespace starts with, so a first subscriber sees every event appended after creation.
INSERT INTO @schema@.stream_ticks (tick_id, snapshot, max_seq)
SELECT nextval('@schema@.stream_tick_seq'), pg_current_snapshot(), 0
WHERE NOT EXISTS (SELECT 1 FROM @schema@.stream_ticks);

-- One row per consumer (a fan-out cursor, or the group cursor of cooperative members). last_tick moves only on ack
-- (or on an empty receive that reaches a newer tick); the allocation cursor of cooperative members (next_tick) is
-- the end of the group's newest outstanding batch, so a receive never updates this row.
CREATE TABLE IF NOT EXISTS @schema@.stream_subscriptions (
    consumer   text PRIMARY KEY,
    last_tick  bigint NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);

-- Outstanding batches: one unacked batch per consumer member (member '' when not cooperative). An acked batch is
-- deleted as soon as the group cursor passes it; only cooperative members leave acked rows behind, until the
-- batches before them are acked too.
CREATE TABLE IF NOT EXISTS @schema@.stream_batches (
    batch_id   bigint PRIMARY KEY,
    consumer   text NOT NULL,
    member     text NOT NULL DEFAULT '',
    start_tick bigint NOT NULL,
    end_tick   bigint NOT NULL,
    nacked     bigint[] NOT NULL DEFAULT '{}',
    created_at timestamptz NOT NULL DEFAULT now(),
    acked_at   timestamptz
);
CREATE UNIQUE INDEX IF NOT EXISTS stream_batches_active
    ON @schema@.stream_batches (consumer, member) WHERE acked_at IS NULL;
CREATE INDEX IF NOT EXISTS stream_batches_consumer ON @schema@.stream_batches (consumer, start_tick);

-- The exact events of a batch, as one compact row: their sequence numbers.
CREATE TABLE IF NOT EXISTS @schema@.stream_batch_events (
    batch_id bigint PRIMARY KEY,
    seqs     bigint[] NOT NULL
);

CREATE TABLE IF NOT EXISTS @schema@.stream_retry_events (
    retry_id    bigserial PRIMARY KEY,
    event_id    text NOT NULL,
    type        text NOT NULL,
    payload     jsonb NOT NULL,
    headers     jsonb NOT NULL,
    retry_count integer NOT NULL,
    due_at      timestamptz NOT NULL,
    reason      text,
    created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS stream_retry_events_due ON @schema@.stream_retry_events (due_at);

CREATE TABLE IF NOT EXISTS @schema@.stream_dead_letters (
    dead_letter_id bigserial PRIMARY KEY,
    event_id       text NOT NULL,
    type           text NOT NULL,
    payload        jsonb NOT NULL,
    headers        jsonb NOT NULL,
    retry_count    integer NOT NULL,
    reason         text,
    consumer       text,
    dead_at        timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS stream_dead_letters_dead_at ON @schema@.stream_dead_letters (dead_at);

-- The advisory lock keys of this queue.
CREATE OR REPLACE FUNCTION @schema@.stream_rotation_key() RETURNS bigint
LANGUAGE sql IMMUTABLE AS $fn$ SELECT hashtextextended('pgvs3.stream.rotation:' || @queue@, 0) $fn$;

CREATE OR REPLACE FUNCTION @schema@.stream_tick_key() RETURNS bigint
LANGUAGE sql IMMUTABLE AS $fn$ SELECT hashtextextended('pgvs3.stream.tick:' || @queue@, 0) $fn$;

CREATE OR REPLACE FUNCTION @schema@.stream_channel() RETURNS text
LANGUAGE sql IMMUTABLE AS $fn$ SELECT 's3q_' || @queue@ $fn$;

-- Appends messages atomically: parallel arrays, one element per message. Every event carries its transaction id,
-- which is what ticks compare. Listeners on the channel named like the schema are woken when this commits.
CREATE OR REPLACE FUNCTION @schema@.stream_append(
    p_ids text[], p_types text[], p_payloads jsonb[], p_headers jsonb[])
RETURNS TABLE (event_id text, seq bigint, type text, created_at timestamptz)
LANGUAGE plpgsql AS $fn$
DECLARE
    v_count   integer := coalesce(cardinality(p_ids), 0);
    v_segment smallint;
BEGIN
    IF v_count = 0 OR v_count > 1000 OR v_count <> coalesce(cardinality(p_types), 0)
       OR v_count <> coalesce(cardinality(p_payloads), 0) OR v_count <> coalesce(cardinality(p_headers), 0) THEN
        RAISE EXCEPTION 'an append holds between 1 and 1000 messages' USING ERRCODE = 'S3400';
    END IF;
    PERFORM pg_advisory_xact_lock_shared(@schema@.stream_rotation_key());
    SELECT c.current_segment INTO v_segment FROM @schema@.stream_config c;
    RETURN QUERY
    INSERT INTO @schema@.stream_events AS e (segment, seq, event_id, type, payload, headers)
    SELECT v_segment, nextval('@schema@.stream_seq'), m.id, m.type, m.payload, coalesce(m.headers, '{}'::jsonb)
    FROM unnest(p_ids, p_types, p_payloads, p_headers) AS m(id, type, payload, headers)
    RETURNING e.event_id, e.seq, e.type, e.created_at;
    PERFORM pg_notify(@schema@.stream_channel(), 'stream');
END
$fn$;

-- The sequence numbers of the events visible in p_to but not in p_from (PgQue's two-snapshot difference), in
-- storage order, at most p_limit of them. Events below p_from's xmin were complete when p_from was taken.
CREATE OR REPLACE FUNCTION @schema@.stream_diff_seqs(p_from pg_snapshot, p_to pg_snapshot, p_limit integer)
RETURNS bigint[]
LANGUAGE sql STABLE AS $fn$
    SELECT coalesce(array_agg(d.seq ORDER BY d.seq), '{}')
    FROM (SELECT e.seq
          FROM @schema@.stream_events e
          WHERE e.txid >= pg_snapshot_xmin(p_from) AND e.txid < pg_snapshot_xmax(p_to)
            AND pg_visible_in_snapshot(e.txid, p_to) AND NOT pg_visible_in_snapshot(e.txid, p_from)
          ORDER BY e.seq
          LIMIT p_limit) d
$fn$;

-- Whether events committed after p_from are visible to the calling statement.
CREATE OR REPLACE FUNCTION @schema@.stream_has_new_events(p_from pg_snapshot)
RETURNS boolean
LANGUAGE sql STABLE AS $fn$
    SELECT EXISTS (SELECT 1 FROM @schema@.stream_events e
                   WHERE e.txid >= pg_snapshot_xmin(p_from) AND NOT pg_visible_in_snapshot(e.txid, p_from)
                     AND pg_visible_in_snapshot(e.txid, pg_current_snapshot()))
$fn$;

-- The messages of one outstanding batch, read back by its fixed sequence numbers within its tick range.
CREATE OR REPLACE FUNCTION @schema@.stream_batch_messages(p_batch_id bigint)
RETURNS TABLE (batch_id bigint, start_tick bigint, end_tick bigint, seq bigint, event_id text, type text,
               payload jsonb, headers jsonb, retry_count integer, created_at timestamptz)
LANGUAGE plpgsql STABLE AS $fn$
DECLARE
    v_batch @schema@.stream_batches;
    v_seqs  bigint[];
    v_from  pg_snapshot;
    v_to    pg_snapshot;
BEGIN
    SELECT * INTO v_batch FROM @schema@.stream_batches b WHERE b.batch_id = p_batch_id;
    SELECT be.seqs INTO v_seqs FROM @schema@.stream_batch_events be WHERE be.batch_id = p_batch_id;
    SELECT t.snapshot INTO v_from FROM @schema@.stream_ticks t WHERE t.tick_id = v_batch.start_tick;
    SELECT t.snapshot INTO v_to FROM @schema@.stream_ticks t WHERE t.tick_id = v_batch.end_tick;
    RETURN QUERY
    SELECT v_batch.batch_id, v_batch.start_tick, v_batch.end_tick, e.seq, e.event_id, e.type, e.payload,
           e.headers, e.retry_count, e.created_at
    FROM @schema@.stream_events e
    WHERE e.txid >= pg_snapshot_xmin(v_from) AND e.txid < pg_snapshot_xmax(v_to) AND e.seq = ANY (v_seqs)
    ORDER BY e.seq;
END
$fn$;

-- Subscribes a consumer: at the latest tick (p_from_tick null), the oldest retained tick (0) or a given tick.
CREATE OR REPLACE FUNCTION @schema@.stream_subscribe(p_consumer text, p_from_tick bigint)
RETURNS TABLE (consumer text, last_tick bigint, created boolean)
LANGUAGE plpgsql AS $fn$
DECLARE
    v_tick bigint;
BEGIN
    PERFORM pg_advisory_xact_lock_shared(@schema@.stream_rotation_key());
    SELECT s.last_tick INTO v_tick FROM @schema@.stream_subscriptions s WHERE s.consumer = p_consumer;
    IF FOUND THEN
        RETURN QUERY SELECT p_consumer, v_tick, false;
        RETURN;
    END IF;
    IF p_from_tick IS NULL THEN
        SELECT max(t.tick_id) INTO v_tick FROM @schema@.stream_ticks t;
    ELSIF p_from_tick = 0 THEN
        SELECT min(t.tick_id) INTO v_tick FROM @schema@.stream_ticks t;
    ELSE
        SELECT t.tick_id INTO v_tick FROM @schema@.stream_ticks t WHERE t.tick_id = p_from_tick;
        IF NOT FOUND THEN
            RAISE EXCEPTION 'tick % is not retained', p_from_tick USING ERRCODE = 'S3404';
        END IF;
    END IF;
    INSERT INTO @schema@.stream_subscriptions AS s (consumer, last_tick) VALUES (p_consumer, v_tick)
    ON CONFLICT DO NOTHING;
    IF FOUND THEN
        RETURN QUERY SELECT p_consumer, v_tick, true;
    ELSE
        RETURN QUERY SELECT s.consumer, s.last_tick, false FROM @schema@.stream_subscriptions s
                     WHERE s.consumer = p_consumer;
    END IF;
END
$fn$;

CREATE OR REPLACE FUNCTION @schema@.stream_unsubscribe(p_consumer text)
RETURNS boolean
LANGUAGE plpgsql AS $fn$
BEGIN
    DELETE FROM @schema@.stream_subscriptions s WHERE s.consumer = p_consumer;
    IF NOT FOUND THEN
        RETURN false;
    END IF;
    DELETE FROM @schema@.stream_batch_events be
    WHERE be.batch_id IN (SELECT b.batch_id FROM @schema@.stream_batches b WHERE b.consumer = p_consumer);
    DELETE FROM @schema@.stream_batches b WHERE b.consumer = p_consumer;
    RETURN true;
END
$fn$;

-- Receives the next batch of a consumer (member '' when not cooperative). An outstanding batch of the member is
-- returned again. Otherwise the batch runs from the group's allocation cursor (the end of its newest outstanding
-- batch, else last_tick) to the latest tick; a tick is made only when there is none newer and new events are
-- visible, and never inside a transaction that has written (its snapshot would count its own rows) or that
-- does not take a fresh snapshot per statement. An empty result has a null batch_id and no message columns.
CREATE OR REPLACE FUNCTION @schema@.stream_receive(p_consumer text, p_member text, p_max integer)
RETURNS TABLE (batch_id bigint, start_tick bigint, end_tick bigint, seq bigint, event_id text, type text,
               payload jsonb, headers jsonb, retry_count integer, created_at timestamptz)
LANGUAGE plpgsql AS $fn$
DECLARE
    v_member   text := coalesce(p_member, '');
    v_can_tick boolean := pg_current_xact_id_if_assigned() IS NULL
                          AND current_setting('transaction_isolation') = 'read committed';
    v_last     bigint;
    v_start    bigint;
    v_end      bigint;
    v_near     bigint;
    v_batch    bigint;
    v_from     pg_snapshot;
    v_to       pg_snapshot;
    v_seqs     bigint[];
BEGIN
    IF p_max IS NULL OR p_max < 1 THEN
        RAISE EXCEPTION 'max must be at least 1' USING ERRCODE = 'S3400';
    END IF;
    PERFORM pg_advisory_xact_lock_shared(@schema@.stream_rotation_key());

    -- Read-only fast path: idle polls take no row lock and write nothing.
    SELECT s.last_tick INTO v_last FROM @schema@.stream_subscriptions s WHERE s.consumer = p_consumer;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'consumer % is not subscribed', p_consumer USING ERRCODE = 'S3404';
    END IF;
    SELECT b.batch_id INTO v_batch FROM @schema@.stream_batches b
    WHERE b.consumer = p_consumer AND b.member = v_member AND b.acked_at IS NULL;
    IF FOUND THEN
        RETURN QUERY SELECT * FROM @schema@.stream_batch_messages(v_batch);
        RETURN;
    END IF;
    v_start := greatest(v_last, (SELECT max(b.end_tick) FROM @schema@.stream_batches b WHERE b.consumer = p_consumer));
    SELECT max(t.tick_id) INTO v_end FROM @schema@.stream_ticks t;
    IF v_end <= v_start THEN
        SELECT t.snapshot INTO v_from FROM @schema@.stream_ticks t WHERE t.tick_id = v_start;
        IF NOT v_can_tick OR NOT @schema@.stream_has_new_events(v_from) THEN
            RETURN QUERY SELECT NULL::bigint, v_start, v_start, NULL::bigint, NULL::text, NULL::text, NULL::jsonb,
                                NULL::jsonb, NULL::integer, NULL::timestamptz;
            RETURN;
        END IF;
    END IF;

    -- Allocation: serialised per consumer on its subscription row, as in PgQue.
    SELECT s.last_tick INTO v_last FROM @schema@.stream_subscriptions s WHERE s.consumer = p_consumer FOR UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'consumer % is not subscribed', p_consumer USING ERRCODE = 'S3404';
    END IF;
    SELECT b.batch_id INTO v_batch FROM @schema@.stream_batches b
    WHERE b.consumer = p_consumer AND b.member = v_member AND b.acked_at IS NULL;
    IF FOUND THEN
        RETURN QUERY SELECT * FROM @schema@.stream_batch_messages(v_batch);
        RETURN;
    END IF;
    v_start := greatest(v_last, (SELECT max(b.end_tick) FROM @schema@.stream_batches b WHERE b.consumer = p_consumer));
    SELECT t.snapshot INTO v_from FROM @schema@.stream_ticks t WHERE t.tick_id = v_start;
    SELECT max(t.tick_id) INTO v_end FROM @schema@.stream_ticks t;
    IF v_end <= v_start AND v_can_tick THEN
        PERFORM pg_advisory_xact_lock(@schema@.stream_tick_key());
        -- a tick made by whoever held the lock before is committed and visible to this statement
        SELECT max(t.tick_id) INTO v_end FROM @schema@.stream_ticks t;
        IF v_end <= v_start THEN
            -- captured by a statement that starts after the tick lock is held
            v_to := pg_current_snapshot();
            IF cardinality(@schema@.stream_diff_seqs(v_from, v_to, 1)) = 0 THEN
                v_end := v_start;
            ELSE
                INSERT INTO @schema@.stream_ticks (tick_id, snapshot, max_seq)
                VALUES (nextval('@schema@.stream_tick_seq'), v_to,
                        (SELECT sq.last_value FROM @schema@.stream_seq sq))
                RETURNING tick_id INTO v_end;
            END IF;
        END IF;
    END IF;
    IF v_end <= v_start THEN
        RETURN QUERY SELECT NULL::bigint, v_start, v_start, NULL::bigint, NULL::text, NULL::text, NULL::jsonb,
                            NULL::jsonb, NULL::integer, NULL::timestamptz;
        RETURN;
    END IF;

    SELECT t.snapshot INTO v_to FROM @schema@.stream_ticks t WHERE t.tick_id = v_end;
    v_seqs := @schema@.stream_diff_seqs(v_from, v_to, p_max + 1);
    IF cardinality(v_seqs) > p_max THEN
        -- the nearest newer tick may hold a batch that fits when the latest does not
        SELECT min(t.tick_id) INTO v_near FROM @schema@.stream_ticks t WHERE t.tick_id > v_start;
        IF v_near < v_end THEN
            v_end := v_near;
            SELECT t.snapshot INTO v_to FROM @schema@.stream_ticks t WHERE t.tick_id = v_end;
            v_seqs := @schema@.stream_diff_seqs(v_from, v_to, p_max + 1);
        END IF;
        IF cardinality(v_seqs) > p_max THEN
            RAISE EXCEPTION 'the next batch of consumer % holds more than % messages', p_consumer, p_max
                USING ERRCODE = 'S3413';
        END IF;
    END IF;

    IF cardinality(v_seqs) = 0 THEN
        -- nothing for this consumer up to a newer tick: the cursor moves there unless batches are outstanding
        IF v_start = v_last THEN
            UPDATE @schema@.stream_subscriptions s SET last_tick = v_end WHERE s.consumer = p_consumer;
        END IF;
        RETURN QUERY SELECT NULL::bigint, v_start, v_end, NULL::bigint, NULL::text, NULL::text, NULL::jsonb,
                            NULL::jsonb, NULL::integer, NULL::timestamptz;
        RETURN;
    END IF;

    v_batch := nextval('@schema@.stream_batch_seq');
    INSERT INTO @schema@.stream_batches (batch_id, consumer, member, start_tick, end_tick)
    VALUES (v_batch, p_consumer, v_member, v_start, v_end);
    INSERT INTO @schema@.stream_batch_events (batch_id, seqs) VALUES (v_batch, v_seqs);
    RETURN QUERY
    SELECT v_batch, v_start, v_end, e.seq, e.event_id, e.type, e.payload, e.headers, e.retry_count, e.created_at
    FROM @schema@.stream_events e
    WHERE e.txid >= pg_snapshot_xmin(v_from) AND e.txid < pg_snapshot_xmax(v_to) AND e.seq = ANY (v_seqs)
    ORDER BY e.seq;
END
$fn$;

-- Whether a batch id was handed out once (so a missing batch was acked, or released by unsubscribe).
CREATE OR REPLACE FUNCTION @schema@.stream_batch_issued(p_batch_id bigint)
RETURNS boolean
LANGUAGE sql STABLE AS $fn$
    SELECT p_batch_id >= 1 AND sq.is_called AND p_batch_id <= sq.last_value FROM @schema@.stream_batch_seq sq
$fn$;

-- Acknowledges a batch: true when acked now, false when it was acked before. The group cursor moves over every
-- contiguous acked batch from last_tick; a batch acked out of order is only marked until the ones before it are.
CREATE OR REPLACE FUNCTION @schema@.stream_ack(p_batch_id bigint)
RETURNS boolean
LANGUAGE plpgsql AS $fn$
DECLARE
    v_batch @schema@.stream_batches;
    v_last  bigint;
    v_tick  bigint;
    v_done  bigint[];
BEGIN
    SELECT * INTO v_batch FROM @schema@.stream_batches b WHERE b.batch_id = p_batch_id;
    IF NOT FOUND OR v_batch.acked_at IS NOT NULL THEN
        IF @schema@.stream_batch_issued(p_batch_id) THEN
            RETURN false;
        END IF;
        RAISE EXCEPTION 'batch % does not exist', p_batch_id USING ERRCODE = 'S3404';
    END IF;
    SELECT s.last_tick INTO v_last FROM @schema@.stream_subscriptions s
    WHERE s.consumer = v_batch.consumer FOR UPDATE;
    -- re-read under the subscription lock: a concurrent ack of the same batch may have won
    SELECT * INTO v_batch FROM @schema@.stream_batches b WHERE b.batch_id = p_batch_id;
    IF NOT FOUND OR v_batch.acked_at IS NOT NULL THEN
        RETURN false;
    END IF;
    IF v_batch.start_tick <> v_last THEN
        UPDATE @schema@.stream_batches b SET acked_at = now() WHERE b.batch_id = p_batch_id;
        RETURN true;
    END IF;
    v_tick := v_batch.end_tick;
    v_done := ARRAY[p_batch_id];
    LOOP
        SELECT b.batch_id, b.end_tick INTO v_batch.batch_id, v_batch.end_tick FROM @schema@.stream_batches b
        WHERE b.consumer = v_batch.consumer AND b.start_tick = v_tick AND b.acked_at IS NOT NULL;
        EXIT WHEN NOT FOUND;
        v_done := v_done || v_batch.batch_id;
        v_tick := v_batch.end_tick;
    END LOOP;
    DELETE FROM @schema@.stream_batch_events be WHERE be.batch_id = ANY (v_done);
    DELETE FROM @schema@.stream_batches b WHERE b.batch_id = ANY (v_done);
    UPDATE @schema@.stream_subscriptions s SET last_tick = v_tick WHERE s.consumer = v_batch.consumer;
    RETURN true;
END
$fn$;

-- Nacks one message of an outstanding batch: it is scheduled for redelivery with its retry count raised, or
-- dead-lettered once max_retries is used up. The batch stays outstanding, to be acked for the rest.
CREATE OR REPLACE FUNCTION @schema@.stream_nack(p_batch_id bigint, p_event_id text, p_retry_after interval,
                                                p_reason text)
RETURNS TABLE (event_id text, action text, retry_count integer)
LANGUAGE plpgsql AS $fn$
DECLARE
    v_batch       @schema@.stream_batches;
    v_event       @schema@.stream_events;
    v_seqs        bigint[];
    v_xmin        xid8;
    v_max_retries integer;
BEGIN
    SELECT * INTO v_batch FROM @schema@.stream_batches b WHERE b.batch_id = p_batch_id FOR UPDATE;
    IF NOT FOUND OR v_batch.acked_at IS NOT NULL THEN
        IF @schema@.stream_batch_issued(p_batch_id) THEN
            RAISE EXCEPTION 'batch % is already acked', p_batch_id USING ERRCODE = 'S3409';
        END IF;
        RAISE EXCEPTION 'batch % does not exist', p_batch_id USING ERRCODE = 'S3404';
    END IF;
    SELECT be.seqs INTO v_seqs FROM @schema@.stream_batch_events be WHERE be.batch_id = p_batch_id;
    SELECT pg_snapshot_xmin(t.snapshot) INTO v_xmin FROM @schema@.stream_ticks t WHERE t.tick_id = v_batch.start_tick;
    SELECT e.* INTO v_event
    FROM @schema@.stream_events e
    WHERE e.event_id = p_event_id AND e.txid >= v_xmin AND e.seq = ANY (v_seqs) AND e.seq <> ALL (v_batch.nacked)
    ORDER BY e.seq
    LIMIT 1;
    IF NOT FOUND THEN
        IF EXISTS (SELECT 1 FROM @schema@.stream_events e WHERE e.event_id = p_event_id AND e.seq = ANY (v_batch.nacked)) THEN
            RAISE EXCEPTION 'message % of batch % is already nacked', p_event_id, p_batch_id USING ERRCODE = 'S3409';
        END IF;
        RAISE EXCEPTION 'message % is not in batch %', p_event_id, p_batch_id USING ERRCODE = 'S3404';
    END IF;
    UPDATE @schema@.stream_batches b SET nacked = b.nacked || v_event.seq WHERE b.batch_id = p_batch_id;
    SELECT c.max_retries INTO v_max_retries FROM @schema@.stream_config c;
    IF v_event.retry_count >= v_max_retries THEN
        INSERT INTO @schema@.stream_dead_letters (event_id, type, payload, headers, retry_count, reason, consumer)
        VALUES (v_event.event_id, v_event.type, v_event.payload, v_event.headers, v_event.retry_count, p_reason,
                v_batch.consumer);
        RETURN QUERY SELECT v_event.event_id, 'dead_letter'::text, v_event.retry_count;
    ELSE
        INSERT INTO @schema@.stream_retry_events (event_id, type, payload, headers, retry_count, due_at, reason)
        VALUES (v_event.event_id, v_event.type, v_event.payload, v_event.headers, v_event.retry_count + 1,
                now() + greatest(coalesce(p_retry_after, interval '0'), interval '0'), p_reason);
        RETURN QUERY SELECT v_event.event_id, 'retry'::text, v_event.retry_count + 1;
    END IF;
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
    PERFORM pg_advisory_xact_lock_shared(@schema@.stream_rotation_key());
    SELECT c.current_segment INTO v_segment FROM @schema@.stream_config c;
    WITH due AS (
        DELETE FROM @schema@.stream_retry_events r
        WHERE r.retry_id IN (SELECT d.retry_id FROM @schema@.stream_retry_events d WHERE d.due_at <= now()
                             ORDER BY d.due_at, d.retry_id LIMIT p_limit FOR UPDATE SKIP LOCKED)
        RETURNING r.*)
    INSERT INTO @schema@.stream_events (segment, seq, event_id, type, payload, headers, retry_count)
    SELECT v_segment, nextval('@schema@.stream_seq'), d.event_id, d.type, d.payload, d.headers, d.retry_count
    FROM (SELECT * FROM due ORDER BY due.due_at, due.retry_id) d;
    GET DIAGNOSTICS v_moved = ROW_COUNT;
    IF v_moved > 0 THEN
        PERFORM pg_notify(@schema@.stream_channel(), 'stream');
    END IF;
    RETURN v_moved;
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
    PERFORM pg_advisory_xact_lock_shared(@schema@.stream_rotation_key());
    SELECT c.current_segment INTO v_segment FROM @schema@.stream_config c;
    WITH replayed AS (
        DELETE FROM @schema@.stream_dead_letters d
        WHERE p_dead_letter_id IS NULL OR d.dead_letter_id = p_dead_letter_id
        RETURNING d.*)
    INSERT INTO @schema@.stream_events (segment, seq, event_id, type, payload, headers, retry_count)
    SELECT v_segment, nextval('@schema@.stream_seq'), r.event_id, r.type, r.payload, r.headers, 0
    FROM (SELECT * FROM replayed ORDER BY replayed.dead_letter_id) r;
    GET DIAGNOSTICS v_replayed = ROW_COUNT;
    IF v_replayed > 0 THEN
        PERFORM pg_notify(@schema@.stream_channel(), 'stream');
    END IF;
    RETURN v_replayed;
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

-- Deletes ticks nothing needs: not the latest, not referenced by a cursor or batch, and either older than the
-- retention or from before the seal of the segment truncated last. The newest of them stays as the floor tick,
-- so from_tick 0 still replays what the remaining segments hold. Returns how many were deleted.
CREATE OR REPLACE FUNCTION @schema@.stream_cleanup_ticks()
RETURNS integer
LANGUAGE plpgsql AS $fn$
DECLARE
    v_config  @schema@.stream_config;
    v_floor   bigint;
    v_deleted integer;
BEGIN
    SELECT * INTO v_config FROM @schema@.stream_config;
    -- decided without a lock first, so an idle pass never makes appenders wait
    FOR i IN 1..2 LOOP
        SELECT max(t.tick_id) INTO v_floor
        FROM @schema@.stream_ticks t
        WHERE t.tick_id < (SELECT max(l.tick_id) FROM @schema@.stream_ticks l)
          AND (t.created_at < now() - v_config.retention
               OR (v_config.truncated_seal IS NOT NULL
                   AND NOT pg_visible_in_snapshot(v_config.truncated_seal, t.snapshot)))
          AND NOT EXISTS (SELECT 1 FROM @schema@.stream_subscriptions s WHERE s.last_tick = t.tick_id)
          AND NOT EXISTS (SELECT 1 FROM @schema@.stream_batches b
                          WHERE b.start_tick = t.tick_id OR b.end_tick = t.tick_id);
        IF v_floor IS NULL OR NOT EXISTS (SELECT 1 FROM @schema@.stream_ticks t WHERE t.tick_id < v_floor) THEN
            RETURN 0;
        END IF;
        EXIT WHEN i = 2;
        IF NOT pg_try_advisory_xact_lock(@schema@.stream_rotation_key()) THEN
            RETURN 0;
        END IF;
    END LOOP;
    DELETE FROM @schema@.stream_ticks t
    WHERE t.tick_id < v_floor
      AND (t.created_at < now() - v_config.retention
           OR (v_config.truncated_seal IS NOT NULL
               AND NOT pg_visible_in_snapshot(v_config.truncated_seal, t.snapshot)))
      AND NOT EXISTS (SELECT 1 FROM @schema@.stream_subscriptions s WHERE s.last_tick = t.tick_id)
      AND NOT EXISTS (SELECT 1 FROM @schema@.stream_batches b WHERE b.start_tick = t.tick_id OR b.end_tick = t.tick_id);
    GET DIAGNOSTICS v_deleted = ROW_COUNT;
    RETURN v_deleted;
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
            '  JOIN @schema@.stream_ticks t ON t.tick_id = s.last_tick'
            '  WHERE EXISTS (SELECT 1 FROM @schema@.%I e WHERE e.txid >= pg_snapshot_xmin(t.snapshot)'
            '                AND NOT pg_visible_in_snapshot(e.txid, t.snapshot)))', v_table)
            INTO v_pinned;
        IF v_pinned THEN
            RETURN 'pinned';
        END IF;
        EXECUTE format('TRUNCATE @schema@.%I', v_table);
        UPDATE @schema@.stream_config SET truncated_seal = v_seal;
    END IF;
    UPDATE @schema@.stream_segments sg SET sealed_xid = pg_current_xact_id(), sealed_at = now()
    WHERE sg.segment = v_config.current_segment;
    UPDATE @schema@.stream_segments sg SET started_at = now(), sealed_xid = NULL, sealed_at = NULL
    WHERE sg.segment = v_next;
    UPDATE @schema@.stream_config SET current_segment = v_next, segment_started_at = now();
    PERFORM @schema@.stream_cleanup_ticks();
    RETURN 'rotated';
END
$fn$;

CREATE OR REPLACE FUNCTION @schema@.stream_set_config(p_max_retries integer, p_retention interval)
RETURNS TABLE (max_retries integer, retention interval)
LANGUAGE plpgsql AS $fn$
BEGIN
    IF p_max_retries < 0 OR p_max_retries > 1000 THEN
        RAISE EXCEPTION 'max_retries must be between 0 and 1000' USING ERRCODE = 'S3400';
    END IF;
    IF p_retention <= interval '0' THEN
        RAISE EXCEPTION 'retention must be positive' USING ERRCODE = 'S3400';
    END IF;
    RETURN QUERY
    UPDATE @schema@.stream_config c
    SET max_retries = coalesce(p_max_retries, c.max_retries), retention = coalesce(p_retention, c.retention)
    RETURNING c.max_retries, c.retention;
END
$fn$;

-- Consumers with their cursors, lag and outstanding batches, as JSON.
CREATE OR REPLACE FUNCTION @schema@.stream_consumers()
RETURNS jsonb
LANGUAGE sql STABLE AS $fn$
    SELECT coalesce(jsonb_agg(jsonb_build_object(
               'name', s.consumer,
               'last_tick', s.last_tick,
               'next_tick', greatest(s.last_tick, (SELECT max(b.end_tick) FROM @schema@.stream_batches b
                                                   WHERE b.consumer = s.consumer)),
               'lag', greatest(0, (SELECT CASE WHEN sq.is_called THEN sq.last_value ELSE 0 END
                                   FROM @schema@.stream_seq sq) - t.max_seq),
               'lag_seconds', greatest(0, extract(epoch FROM now() - t.created_at))::bigint,
               'created_at', s.created_at,
               'batches', (SELECT coalesce(jsonb_agg(jsonb_build_object(
                                      'id', b.batch_id, 'member', nullif(b.member, ''),
                                      'start_tick', b.start_tick, 'end_tick', b.end_tick,
                                      'count', cardinality(be.seqs), 'nacked', cardinality(b.nacked),
                                      'created_at', b.created_at, 'acked_at', b.acked_at)
                                  ORDER BY b.start_tick, b.batch_id), '[]')
                           FROM @schema@.stream_batches b
                           JOIN @schema@.stream_batch_events be ON be.batch_id = b.batch_id
                           WHERE b.consumer = s.consumer))
           ORDER BY s.consumer), '[]')
    FROM @schema@.stream_subscriptions s
    LEFT JOIN @schema@.stream_ticks t ON t.tick_id = s.last_tick
$fn$;

CREATE OR REPLACE FUNCTION @schema@.stream_batch(p_batch_id bigint)
RETURNS jsonb
LANGUAGE sql STABLE AS $fn$
    SELECT jsonb_build_object('id', b.batch_id, 'consumer', b.consumer, 'member', nullif(b.member, ''),
                              'start_tick', b.start_tick, 'end_tick', b.end_tick, 'count', cardinality(be.seqs),
                              'nacked', cardinality(b.nacked), 'created_at', b.created_at,
                              'acked_at', b.acked_at)
    FROM @schema@.stream_batches b
    JOIN @schema@.stream_batch_events be ON be.batch_id = b.batch_id
    WHERE b.batch_id = p_batch_id
$fn$;

CREATE OR REPLACE FUNCTION @schema@.stream_info()
RETURNS jsonb
LANGUAGE sql STABLE AS $fn$
    SELECT jsonb_build_object(
        'events', (SELECT count(*) FROM @schema@.stream_events),
        'last_seq', (SELECT CASE WHEN sq.is_called THEN sq.last_value ELSE 0 END FROM @schema@.stream_seq sq),
        'current_segment', c.current_segment,
        'segment_started_at', c.segment_started_at,
        'retention_seconds', extract(epoch FROM c.retention)::bigint,
        'rotation_period_seconds', extract(epoch FROM c.retention / 2)::bigint,
        'next_rotation_at', c.segment_started_at + c.retention / 2,
        'max_retries', c.max_retries,
        'segments', (SELECT jsonb_agg(jsonb_build_object(
                         'segment', sg.segment, 'current', sg.segment = c.current_segment,
                         'events', (SELECT count(*) FROM @schema@.stream_events e WHERE e.segment = sg.segment),
                         'started_at', sg.started_at, 'sealed_at', sg.sealed_at) ORDER BY sg.segment)
                     FROM @schema@.stream_segments sg),
        'ticks', (SELECT jsonb_build_object('count', count(*), 'oldest', min(t.tick_id), 'latest', max(t.tick_id))
                  FROM @schema@.stream_ticks t),
        'consumers', (SELECT count(*) FROM @schema@.stream_subscriptions),
        'outstanding_batches', (SELECT count(*) FROM @schema@.stream_batches b WHERE b.acked_at IS NULL),
        'oldest_cursor_tick', (SELECT min(s.last_tick) FROM @schema@.stream_subscriptions s),
        'pending_retries', (SELECT count(*) FROM @schema@.stream_retry_events),
        'dead_letters', (SELECT count(*) FROM @schema@.stream_dead_letters))
    FROM @schema@.stream_config c
$fn$;

CREATE OR REPLACE FUNCTION @schema@.stream_dead_letter_list(p_limit integer, p_offset integer)
RETURNS jsonb
LANGUAGE sql STABLE AS $fn$
    SELECT jsonb_build_object(
        'dead_letters', coalesce((SELECT jsonb_agg(jsonb_build_object(
                             'id', d.dead_letter_id, 'message_id', d.event_id, 'type', d.type, 'payload', d.payload,
                             'headers', d.headers, 'retry_count', d.retry_count, 'reason', d.reason,
                             'consumer', d.consumer, 'dead_at', d.dead_at) ORDER BY d.dead_letter_id)
                           FROM (SELECT * FROM @schema@.stream_dead_letters ORDER BY dead_letter_id
                                 LIMIT p_limit OFFSET p_offset) d), '[]'),
        'total', (SELECT count(*) FROM @schema@.stream_dead_letters))
$fn$;

$template$)
ON CONFLICT (part) DO UPDATE SET position = excluded.position, body = excluded.body;
