-- The streams view of every queue namespace: a PgQue-shaped, append-only event log in three TRUNCATE-rotated
-- segments, snapshot ticks, fan-out consumer cursors with cooperative members, batch ack, per-message nack with
-- retry and a dead-letter queue. Every stream operation is one function below; Java validates and maps errors.
--
-- Error codes raised by these functions (mapped to OJS errors by io.pgvs3.core.stream.StreamErrors):
--   S3400 invalid request, S3404 not found, S3409 conflict.
--
-- Storage. Append, receive, ack and nack never UPDATE or DELETE a row, so a transaction that holds the xmin horizon
-- open cannot make them leave dead tuples behind:
--   * events go to the current of three segments (stream_events_0..2), emptied by TRUNCATE on rotation;
--   * ticks, cursor moves (stream_cursors, the latest row of a subscription wins), batches and their acks and nacks
--     are inserted into the current of two metadata parts (stream_ticks_0/1, stream_cursors_0/1, ...). Compaction
--     switches parts, copies what is still live (the latest cursor of every subscription, the batches no cursor has
--     passed with their acks and nacks, the ticks something needs) into the new part and TRUNCATEs the old one.
--     Reads go through the partitioned parents and their indexes, so they find the latest row whichever part holds
--     it. The current part is the epoch sequence modulo 2: a sequence, because it is read on every write and must
--     not leave row versions behind when it changes.
--   Only maintenance updates or deletes (stream_config and stream_segments on rotation, stream_meta on compaction,
--   retry rows when they move back into the log, dead letters on replay or purge) and so does unsubscribe.
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
-- How long an appended dedupe key makes a repeat of it a duplicate; never longer than retention when used.
ALTER TABLE @schema@.stream_config
    ADD COLUMN IF NOT EXISTS dedupe_window interval NOT NULL DEFAULT interval '5 minutes' CHECK (dedupe_window > interval '0');
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
CREATE SEQUENCE IF NOT EXISTS @schema@.stream_cursor_seq;
CREATE SEQUENCE IF NOT EXISTS @schema@.stream_subscription_seq;
-- Set (never read) by stream_batch_read: a setval is WAL-logged and gives the transaction an id, so that its commit
-- waits for the WAL flush, which makes the allocation committed before it durable too.
CREATE SEQUENCE IF NOT EXISTS @schema@.stream_flush_seq;
-- The metadata epoch: the current metadata part is its value modulo 2. Only compaction moves it (setval).
CREATE SEQUENCE IF NOT EXISTS @schema@.stream_meta_epoch MINVALUE 0 START 0;

-- When the metadata was compacted last, and the metadata sequences' sum then (stream_meta_writes()); read and
-- written by compaction only.
CREATE TABLE IF NOT EXISTS @schema@.stream_meta (
    singleton    boolean PRIMARY KEY DEFAULT true CHECK (singleton),
    compacted_at timestamptz NOT NULL DEFAULT now(),
    writes_mark  bigint NOT NULL DEFAULT 0
);
INSERT INTO @schema@.stream_meta (singleton) VALUES (true) ON CONFLICT DO NOTHING;

-- The log. Rows are only ever inserted; a segment is emptied by TRUNCATE, never by DELETE, so it holds no dead
-- tuples. The only index is on txid: every read is a snapshot difference, i.e. a txid range.
CREATE TABLE IF NOT EXISTS @schema@.stream_events (
    segment     smallint NOT NULL,
    seq         bigint NOT NULL,
    txid        xid8 NOT NULL DEFAULT pg_current_xact_id(),
    event_id    text NOT NULL,
    type        text NOT NULL,
    payload     json NOT NULL,
    headers     jsonb NOT NULL DEFAULT '{}'::jsonb,
    retry_count integer NOT NULL DEFAULT 0,
    created_at  timestamptz NOT NULL DEFAULT now()
) PARTITION BY LIST (segment);
CREATE TABLE IF NOT EXISTS @schema@.stream_events_0 PARTITION OF @schema@.stream_events FOR VALUES IN (0);
CREATE TABLE IF NOT EXISTS @schema@.stream_events_1 PARTITION OF @schema@.stream_events FOR VALUES IN (1);
CREATE TABLE IF NOT EXISTS @schema@.stream_events_2 PARTITION OF @schema@.stream_events FOR VALUES IN (2);
CREATE INDEX IF NOT EXISTS stream_events_txid ON @schema@.stream_events (txid);
-- Idempotent appends (stream_append_keyed): the producer's dedupe key, and its generation within the segment: 0 for
-- the key's first event there, one above its newest when the key is used again after its dedupe window, so that the
-- new event is a new index entry. Null in every event appended without a key, so the partial unique index holds
-- keyed events only and costs keyless appends nothing; it lives in each segment and is emptied with it by TRUNCATE.
-- Keys are compared byte for byte (collation "C"), which is what an exact match needs and several times cheaper to
-- sort and index than a linguistic collation.
ALTER TABLE @schema@.stream_events ADD COLUMN IF NOT EXISTS dedupe_key text COLLATE "C";
ALTER TABLE @schema@.stream_events ADD COLUMN IF NOT EXISTS dedupe_gen integer;
CREATE UNIQUE INDEX IF NOT EXISTS stream_events_dedupe ON @schema@.stream_events (dedupe_key, dedupe_gen, segment)
    WHERE dedupe_key IS NOT NULL;

-- Namespaces made by the first streams template kept ticks and batches in plain tables, updated and deleted in
-- place. They are renamed here and copied into the parted tables below, then dropped.
DO $migrate$
BEGIN
    IF (SELECT c.relkind FROM pg_class c WHERE c.oid = to_regclass('@schema@.stream_ticks')) = 'r' THEN
        ALTER TABLE @schema@.stream_ticks RENAME TO stream_ticks_v1;
    END IF;
    IF (SELECT c.relkind FROM pg_class c WHERE c.oid = to_regclass('@schema@.stream_batches')) = 'r' THEN
        ALTER TABLE @schema@.stream_batches RENAME TO stream_batches_v1;
    END IF;
END
$migrate$;

-- Saved snapshots; batch boundaries. A tick lives in one metadata part at a time.
CREATE TABLE IF NOT EXISTS @schema@.stream_ticks (
    part       smallint NOT NULL,
    tick_id    bigint NOT NULL,
    snapshot   pg_snapshot NOT NULL,
    max_seq    bigint NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
) PARTITION BY LIST (part);
CREATE TABLE IF NOT EXISTS @schema@.stream_ticks_0 PARTITION OF @schema@.stream_ticks FOR VALUES IN (0);
CREATE TABLE IF NOT EXISTS @schema@.stream_ticks_1 PARTITION OF @schema@.stream_ticks FOR VALUES IN (1);
CREATE INDEX IF NOT EXISTS stream_ticks_tick ON @schema@.stream_ticks (tick_id);
-- Ticks by how many sequence numbers they saw: a receive picks the newest tick whose span fits its max from here.
CREATE INDEX IF NOT EXISTS stream_ticks_seq ON @schema@.stream_ticks (max_seq, tick_id);

-- One row per consumer (a fan-out cursor, or the group cursor of cooperative members). Its metadata rows refer
-- to sub_id, so a consumer that unsubscribes and subscribes again starts clean; compaction drops the old rows.
CREATE TABLE IF NOT EXISTS @schema@.stream_subscriptions (
    consumer   text PRIMARY KEY,
    sub_id     bigint NOT NULL DEFAULT nextval('@schema@.stream_subscription_seq'),
    created_at timestamptz NOT NULL DEFAULT now()
);
ALTER TABLE @schema@.stream_subscriptions
    ADD COLUMN IF NOT EXISTS sub_id bigint NOT NULL DEFAULT nextval('@schema@.stream_subscription_seq');
CREATE UNIQUE INDEX IF NOT EXISTS stream_subscriptions_sub ON @schema@.stream_subscriptions (sub_id);

-- Cursor moves: the latest row of a subscription (highest id) is its position. It moves on ack, or on an empty
-- receive that reaches a newer tick; the allocation cursor of cooperative members (next_tick) is the end of the
-- group's newest batch, so a receive that hands out a batch does not move it.
-- A position is (tick, seq): the events between two ticks are fixed once both snapshots exist, so a range larger
-- than a receive's max is delivered in parts, by sequence number. seq 0 is the start of the range after tick; a
-- position inside a range has the sequence number of the last event passed in it and the range's end tick
-- (range_end), which the continuation uses so that the range stays the same.
CREATE TABLE IF NOT EXISTS @schema@.stream_cursors (
    part       smallint NOT NULL,
    id         bigint NOT NULL,
    sub_id     bigint NOT NULL,
    tick       bigint NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    seq        bigint NOT NULL DEFAULT 0,
    range_end  bigint
) PARTITION BY LIST (part);
CREATE TABLE IF NOT EXISTS @schema@.stream_cursors_0 PARTITION OF @schema@.stream_cursors FOR VALUES IN (0);
CREATE TABLE IF NOT EXISTS @schema@.stream_cursors_1 PARTITION OF @schema@.stream_cursors FOR VALUES IN (1);
-- Cursors of earlier templates were ticks only: they stand at the start of a range (seq 0).
ALTER TABLE @schema@.stream_cursors ADD COLUMN IF NOT EXISTS seq bigint NOT NULL DEFAULT 0;
ALTER TABLE @schema@.stream_cursors ADD COLUMN IF NOT EXISTS range_end bigint;
CREATE INDEX IF NOT EXISTS stream_cursors_sub ON @schema@.stream_cursors (sub_id, id DESC);

-- The sequence numbers of a batch as ranges: a batch's events are mostly consecutive, so one or a few ranges hold
-- what an array would spell out number by number (and store, and toast, on every receive).
CREATE OR REPLACE FUNCTION @schema@.stream_seq_ranges(p_seqs bigint[]) RETURNS int8multirange
LANGUAGE sql IMMUTABLE AS $fn$
    SELECT coalesce(range_agg(int8range(s.seq, s.seq, '[]')), '{}'::int8multirange) FROM unnest(p_seqs) AS s(seq)
$fn$;

-- Batches, with the exact events of each as their sequence numbers, compacted into ranges. A batch starts at the
-- position (start_tick, after_seq) and holds events of the range start_tick..end_tick with sequence numbers above
-- after_seq: all the rest of them (complete), or, when they were more than the receive's max, the first max of them;
-- it then ends at the position (start_tick, its last sequence number) and the next batch continues the same range.
-- A batch is outstanding while its end position is past the subscription's cursor; the batches of one
-- subscription cover consecutive positions, so (sub_id, start_tick, after_seq) finds both the newest one and the
-- one that starts where another ends, and (sub_id, member, start_tick, after_seq) a member's newest one. Each
-- lookup is one index probe, whatever the parameters.
CREATE TABLE IF NOT EXISTS @schema@.stream_batches (
    part       smallint NOT NULL,
    batch_id   bigint NOT NULL,
    sub_id     bigint NOT NULL,
    member     text NOT NULL DEFAULT '',
    start_tick bigint NOT NULL,
    end_tick   bigint NOT NULL,
    seqs       int8multirange NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    after_seq  bigint NOT NULL DEFAULT 0,
    complete   boolean NOT NULL DEFAULT true
) PARTITION BY LIST (part);
CREATE TABLE IF NOT EXISTS @schema@.stream_batches_0 PARTITION OF @schema@.stream_batches FOR VALUES IN (0);
CREATE TABLE IF NOT EXISTS @schema@.stream_batches_1 PARTITION OF @schema@.stream_batches FOR VALUES IN (1);
-- Batches of earlier templates always held a whole range.
ALTER TABLE @schema@.stream_batches ADD COLUMN IF NOT EXISTS after_seq bigint NOT NULL DEFAULT 0;
ALTER TABLE @schema@.stream_batches ADD COLUMN IF NOT EXISTS complete boolean NOT NULL DEFAULT true;
-- Batches of earlier templates held their sequence numbers as a bigint[].
DO $migrate$
BEGIN
    IF (SELECT a.atttypid FROM pg_attribute a
        WHERE a.attrelid = '@schema@.stream_batches'::regclass AND a.attname = 'seqs') = 'bigint[]'::regtype THEN
        ALTER TABLE @schema@.stream_batches ALTER COLUMN seqs TYPE int8multirange USING @schema@.stream_seq_ranges(seqs);
    END IF;
END
$migrate$;
CREATE INDEX IF NOT EXISTS stream_batches_batch ON @schema@.stream_batches (batch_id);
DROP INDEX IF EXISTS @schema@.stream_batches_sub;
DROP INDEX IF EXISTS @schema@.stream_batches_member;
CREATE INDEX IF NOT EXISTS stream_batches_sub_pos ON @schema@.stream_batches (sub_id, start_tick, after_seq);
CREATE INDEX IF NOT EXISTS stream_batches_member_pos ON @schema@.stream_batches (sub_id, member, start_tick, after_seq);

-- Acks of batches the cursor could not pass yet (a cooperative member acked before the batches ahead of it). An
-- ack that moves the cursor is just the cursor row: a batch behind the cursor is acked.
CREATE TABLE IF NOT EXISTS @schema@.stream_acks (
    part     smallint NOT NULL,
    batch_id bigint NOT NULL,
    acked_at timestamptz NOT NULL DEFAULT now()
) PARTITION BY LIST (part);
CREATE TABLE IF NOT EXISTS @schema@.stream_acks_0 PARTITION OF @schema@.stream_acks FOR VALUES IN (0);
CREATE TABLE IF NOT EXISTS @schema@.stream_acks_1 PARTITION OF @schema@.stream_acks FOR VALUES IN (1);
CREATE INDEX IF NOT EXISTS stream_acks_batch ON @schema@.stream_acks (batch_id);

-- The messages nacked out of outstanding batches.
CREATE TABLE IF NOT EXISTS @schema@.stream_nacks (
    part       smallint NOT NULL,
    batch_id   bigint NOT NULL,
    seq        bigint NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
) PARTITION BY LIST (part);
CREATE TABLE IF NOT EXISTS @schema@.stream_nacks_0 PARTITION OF @schema@.stream_nacks FOR VALUES IN (0);
CREATE TABLE IF NOT EXISTS @schema@.stream_nacks_1 PARTITION OF @schema@.stream_nacks FOR VALUES IN (1);
CREATE INDEX IF NOT EXISTS stream_nacks_batch ON @schema@.stream_nacks (batch_id, seq);

-- Moves the state of a namespace made by the first streams template into the tables above.
DO $migrate$
DECLARE
    v_part smallint := (SELECT (e.last_value % 2)::smallint FROM @schema@.stream_meta_epoch e);
BEGIN
    IF to_regclass('@schema@.stream_ticks_v1') IS NOT NULL THEN
        INSERT INTO @schema@.stream_ticks (part, tick_id, snapshot, max_seq, created_at)
        SELECT v_part, t.tick_id, t.snapshot, t.max_seq, t.created_at FROM @schema@.stream_ticks_v1 t;
        DROP TABLE @schema@.stream_ticks_v1;
    END IF;
    IF EXISTS (SELECT 1 FROM pg_attribute a
               WHERE a.attrelid = '@schema@.stream_subscriptions'::regclass AND a.attname = 'last_tick'
                 AND NOT a.attisdropped) THEN
        INSERT INTO @schema@.stream_cursors (part, id, sub_id, tick)
        SELECT v_part, nextval('@schema@.stream_cursor_seq'), s.sub_id, s.last_tick
        FROM @schema@.stream_subscriptions s ORDER BY s.sub_id;
        ALTER TABLE @schema@.stream_subscriptions DROP COLUMN last_tick;
    END IF;
    IF to_regclass('@schema@.stream_batches_v1') IS NOT NULL THEN
        INSERT INTO @schema@.stream_batches (part, batch_id, sub_id, member, start_tick, end_tick, seqs, created_at)
        SELECT v_part, b.batch_id, s.sub_id, b.member, b.start_tick, b.end_tick, @schema@.stream_seq_ranges(be.seqs),
               b.created_at
        FROM @schema@.stream_batches_v1 b
        JOIN @schema@.stream_subscriptions s ON s.consumer = b.consumer
        JOIN @schema@.stream_batch_events be ON be.batch_id = b.batch_id;
        INSERT INTO @schema@.stream_acks (part, batch_id, acked_at)
        SELECT v_part, b.batch_id, b.acked_at FROM @schema@.stream_batches_v1 b WHERE b.acked_at IS NOT NULL;
        INSERT INTO @schema@.stream_nacks (part, batch_id, seq)
        SELECT v_part, b.batch_id, n.seq FROM @schema@.stream_batches_v1 b CROSS JOIN unnest(b.nacked) AS n(seq);
        DROP TABLE @schema@.stream_batches_v1;
    END IF;
    DROP TABLE IF EXISTS @schema@.stream_batch_events;
END
$migrate$;

-- The floor tick every namespace starts with, so a first subscriber sees every event appended after creation.
INSERT INTO @schema@.stream_ticks (part, tick_id, snapshot, max_seq)
SELECT (SELECT (e.last_value % 2)::smallint FROM @schema@.stream_meta_epoch e), nextval('@schema@.stream_tick_seq'),
       pg_current_snapshot(), 0
WHERE NOT EXISTS (SELECT 1 FROM @schema@.stream_ticks);

CREATE TABLE IF NOT EXISTS @schema@.stream_retry_events (
    retry_id    bigserial PRIMARY KEY,
    event_id    text NOT NULL,
    type        text NOT NULL,
    payload     json NOT NULL,
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
    payload        json NOT NULL,
    headers        jsonb NOT NULL,
    retry_count    integer NOT NULL,
    reason         text,
    consumer       text,
    dead_at        timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS stream_dead_letters_dead_at ON @schema@.stream_dead_letters (dead_at);

-- Payloads are kept as the JSON text the producer sent (type json: validated, stored and returned verbatim). Earlier
-- templates stored jsonb, whose output function re-serialises every document on every receive; their columns are
-- converted here, once (this rewrites the log's segments).
DO $migrate$
DECLARE
    v_table text;
BEGIN
    FOREACH v_table IN ARRAY ARRAY['stream_events', 'stream_retry_events', 'stream_dead_letters'] LOOP
        IF (SELECT a.atttypid FROM pg_attribute a
            WHERE a.attrelid = format('@schema@.%I', v_table)::regclass AND a.attname = 'payload') = 'jsonb'::regtype THEN
            EXECUTE format('ALTER TABLE @schema@.%I ALTER COLUMN payload TYPE json USING payload::json', v_table);
        END IF;
    END LOOP;
END
$migrate$;

-- The functions of earlier streams templates that are gone or changed their result.
DROP FUNCTION IF EXISTS @schema@.stream_cleanup_ticks();
DO $migrate$
BEGIN
    IF pg_get_function_result(to_regprocedure('@schema@.stream_receive(text, text, integer)')) LIKE '%payload jsonb%' THEN
        DROP FUNCTION @schema@.stream_receive(text, text, integer);
    END IF;
    IF pg_get_function_result(to_regprocedure('@schema@.stream_batch_messages(bigint)')) LIKE '%payload jsonb%' THEN
        DROP FUNCTION @schema@.stream_batch_messages(bigint);
    END IF;
    IF pg_get_function_result(to_regprocedure('@schema@.stream_dead_letter_list(integer, integer)')) = 'jsonb' THEN
        DROP FUNCTION @schema@.stream_dead_letter_list(integer, integer);
    END IF;
END
$migrate$;

-- The advisory lock keys of this queue.
CREATE OR REPLACE FUNCTION @schema@.stream_rotation_key() RETURNS bigint
LANGUAGE sql IMMUTABLE AS $fn$ SELECT hashtextextended('pgvs3.stream.rotation:' || @queue@, 0) $fn$;

CREATE OR REPLACE FUNCTION @schema@.stream_tick_key() RETURNS bigint
LANGUAGE sql IMMUTABLE AS $fn$ SELECT hashtextextended('pgvs3.stream.tick:' || @queue@, 0) $fn$;

CREATE OR REPLACE FUNCTION @schema@.stream_consumer_key(p_sub_id bigint) RETURNS bigint
LANGUAGE sql IMMUTABLE AS $fn$ SELECT hashtextextended('pgvs3.stream.consumer:' || @queue@ || ':' || p_sub_id::text, 0) $fn$;

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

-- Appends messages atomically: parallel arrays, one element per message, payloads and headers as JSON text (cast
-- once by the INSERT, far cheaper than binding jsonb[]); p_headers null when no message has headers. Every event
-- carries its transaction id, which is what ticks compare. Returns one row: the sequence numbers in the order of
-- the arguments, and the insert time. With p_notify, listeners on the channel named like the schema are woken when
-- this commits; a caller that wakes them itself once its transaction committed passes false (a notifying transaction
-- holds a global lock until its commit record is flushed, so notifying inside every append serialises concurrent
-- producers; see StreamStore).
DROP FUNCTION IF EXISTS @schema@.stream_append(text[], text[], jsonb[], jsonb[]);
DROP FUNCTION IF EXISTS @schema@.stream_append(text[], text[], text[], text[]);
CREATE OR REPLACE FUNCTION @schema@.stream_append(
    p_ids text[], p_types text[], p_payloads text[], p_headers text[], p_notify boolean DEFAULT true)
RETURNS TABLE (seqs bigint[], created_at timestamptz)
LANGUAGE plpgsql AS $fn$
DECLARE
    v_count   integer := coalesce(cardinality(p_ids), 0);
    v_segment smallint;
    v_seqs    bigint[];
BEGIN
    IF v_count = 0 OR v_count > 1000 OR v_count <> coalesce(cardinality(p_types), 0)
       OR v_count <> coalesce(cardinality(p_payloads), 0)
       OR (p_headers IS NOT NULL AND v_count <> cardinality(p_headers)) THEN
        RAISE EXCEPTION 'an append holds between 1 and 1000 messages' USING ERRCODE = 'S3400';
    END IF;
    PERFORM pg_advisory_xact_lock_shared(@schema@.stream_rotation_key());
    SELECT c.current_segment INTO v_segment FROM @schema@.stream_config c;
    -- nextval is evaluated after the sort, so sequence numbers follow the argument order
    WITH inserted AS (
        INSERT INTO @schema@.stream_events AS e (segment, seq, event_id, type, payload, headers)
        SELECT v_segment, nextval('@schema@.stream_seq'), m.id, m.type, m.payload::json,
               coalesce(m.headers::jsonb, '{}'::jsonb)
        FROM unnest(p_ids, p_types, p_payloads, p_headers) WITH ORDINALITY AS m(id, type, payload, headers, ord)
        ORDER BY m.ord
        RETURNING e.seq)
    SELECT array_agg(i.seq ORDER BY i.seq) INTO v_seqs FROM inserted i;
    IF p_notify THEN
        PERFORM pg_notify(@schema@.stream_channel(), 'stream');
    END IF;
    RETURN QUERY SELECT v_seqs, now();
END
$fn$;

-- Appends messages that may carry a dedupe key (p_keys, null for a message without one): the append of an idempotent
-- producer, called instead of stream_append only when some message has a key, so keyless appends pay for nothing.
-- A message whose key has an event appended within the dedupe window (or earlier in this call) stores nothing and is
-- answered with that event; the others are stored like stream_append stores them.
--
-- The unique index (dedupe_key, dedupe_gen, segment) does the finding. Every message is inserted into the current
-- segment with ON CONFLICT DO NOTHING, a keyed one at generation 0; one that conflicts is looked up: a newest event of
-- its key within the window answers it (the pre-check of ON CONFLICT waited for that event's transaction if it was
-- still running, and this next statement sees its commit), an older one makes it try again one generation higher.
-- So the common case, new keys, is one INSERT whose only extra work is the index, and two appends of one key that
-- race store it once. Older segments are read only while one of them was sealed within the window (a few minutes
-- after a rotation, with the default window), by one index probe per key. Rows are inserted in key order, so two
-- appends that share several keys cannot deadlock. Under REPEATABLE READ a conflict with a transaction that committed
-- after the snapshot is a serialization failure, to retry.
-- Returns one row: the sequence number of every message in argument order (its own, or for a duplicate the stored
-- event's), the insert time, and for the duplicates only their positions (1-based) with the stored event's id, type
-- and time. A duplicate draws a sequence number that stays unused, as a rolled-back append's do.
CREATE OR REPLACE FUNCTION @schema@.stream_append_keyed(
    p_ids text[], p_types text[], p_payloads text[], p_headers text[], p_keys text[], p_notify boolean DEFAULT true)
RETURNS TABLE (seqs bigint[], created_at timestamptz, duplicates integer[], duplicate_ids text[],
               duplicate_types text[], duplicate_created_at timestamptz[])
LANGUAGE plpgsql
-- planned once per session: the plans do not depend on the arguments, and planning these statements with the actual
-- arrays on every call cost more than a single append's whole work
SET plan_cache_mode = force_generic_plan
AS $fn$
DECLARE
    v_count      integer := coalesce(cardinality(p_ids), 0);
    v_segment    smallint;
    v_since      timestamptz;
    v_recent     boolean;
    v_seqs       bigint[];
    v_try_ords   integer[];
    v_try_gens   integer[];
    v_stored     bigint[];
    v_any_stored boolean := false;
    v_dup_ords   integer[] := '{}';
    v_dup_seqs   bigint[] := '{}';
    v_dup_ids    text[] := '{}';
    v_dup_types  text[] := '{}';
    v_dup_at     timestamptz[] := '{}';
    v_round      integer := 0;
BEGIN
    IF v_count = 0 OR v_count > 1000 OR v_count <> coalesce(cardinality(p_types), 0)
       OR v_count <> coalesce(cardinality(p_payloads), 0) OR v_count <> coalesce(cardinality(p_keys), 0)
       OR (p_headers IS NOT NULL AND v_count <> cardinality(p_headers)) THEN
        RAISE EXCEPTION 'an append holds between 1 and 1000 messages' USING ERRCODE = 'S3400';
    END IF;
    -- an expression, not a query: StreamStore refuses keys longer than 255 characters before calling
    IF array_position(p_keys, '') IS NOT NULL THEN
        RAISE EXCEPTION 'a dedupe key holds 1 to 255 characters' USING ERRCODE = 'S3400';
    END IF;
    PERFORM pg_advisory_xact_lock_shared(@schema@.stream_rotation_key());
    SELECT c.current_segment, now() - least(c.dedupe_window, c.retention),
           EXISTS (SELECT 1 FROM @schema@.stream_segments sg
                   WHERE sg.segment <> c.current_segment AND sg.sealed_at >= now() - least(c.dedupe_window, c.retention))
    INTO v_segment, v_since, v_recent
    FROM @schema@.stream_config c;

    -- keys whose newest event lies in a segment sealed within the window
    IF v_recent THEN
        SELECT coalesce(array_agg(m.ord::integer), '{}'), coalesce(array_agg(n.seq), '{}'),
               coalesce(array_agg(n.event_id), '{}'), coalesce(array_agg(n.type), '{}'),
               coalesce(array_agg(n.created_at), '{}')
        INTO v_dup_ords, v_dup_seqs, v_dup_ids, v_dup_types, v_dup_at
        FROM unnest(p_keys) WITH ORDINALITY AS m(key, ord)
        CROSS JOIN LATERAL (SELECT e.seq, e.event_id, e.type, e.created_at FROM @schema@.stream_events e
                            WHERE e.dedupe_key = m.key COLLATE "C" AND e.segment <> v_segment
                              AND e.created_at >= v_since
                            ORDER BY e.seq DESC
                            LIMIT 1) n;
    END IF;

    IF cardinality(v_dup_ords) = 0 THEN
        -- the common case, in one statement: sequence numbers in argument order, every message inserted, keyed
        -- ones at generation 0
        v_try_ords := ARRAY(SELECT generate_series(1, v_count));
        WITH m AS MATERIALIZED (
            SELECT m.ord::integer AS ord, nextval('@schema@.stream_seq') AS seq, m.id, m.type, m.payload, m.headers,
                   m.key
            FROM unnest(p_ids, p_types, p_payloads, p_headers, p_keys)
                 WITH ORDINALITY AS m(id, type, payload, headers, key, ord)
            ORDER BY m.ord),
        inserted AS (
            INSERT INTO @schema@.stream_events AS e (segment, seq, event_id, type, payload, headers, dedupe_key,
                                                     dedupe_gen)
            SELECT v_segment, m.seq, m.id, m.type, m.payload::json, coalesce(m.headers::jsonb, '{}'::jsonb), m.key,
                   CASE WHEN m.key IS NOT NULL THEN 0 END
            FROM m
            -- in key order, so that appends with several common keys wait for each other in one order, never in a cycle
            ORDER BY m.key COLLATE "C", m.ord
            ON CONFLICT (dedupe_key, dedupe_gen, segment) WHERE dedupe_key IS NOT NULL DO NOTHING
            RETURNING e.seq)
        SELECT array_agg(m.seq ORDER BY m.ord), (SELECT array_agg(i.seq) FROM inserted i) INTO v_seqs, v_stored
        FROM m;
    ELSE
        -- the others are classified below as if their first insert had conflicted
        v_seqs := ARRAY(SELECT nextval('@schema@.stream_seq') FROM generate_series(1, v_count));
        v_try_ords := ARRAY(SELECT g FROM generate_series(1, v_count) AS g WHERE g <> ALL (v_dup_ords));
        v_stored := NULL;
    END IF;

    LOOP
        v_any_stored := v_any_stored OR v_stored IS NOT NULL;
        EXIT WHEN coalesce(cardinality(v_stored), 0) = cardinality(v_try_ords);
        v_round := v_round + 1;
        IF v_round > 10 THEN
            RAISE EXCEPTION 'dedupe keys keep conflicting with concurrent appends; try again' USING ERRCODE = 'S3409';
        END IF;
        -- the messages not stored: answered by their key's newest event in this segment if it is within the window
        -- (a transaction that stored it concurrently has committed: the insert waited for it), else tried again one
        -- generation above it
        WITH skipped AS (
            SELECT t.ord, n.seq, n.event_id, n.type, n.created_at, n.dedupe_gen, n.created_at >= v_since AS duplicate
            FROM unnest(v_try_ords) AS t(ord)
            JOIN unnest(p_keys, v_seqs) WITH ORDINALITY AS m(key, seq, ord) ON m.ord = t.ord
            LEFT JOIN unnest(v_stored) AS st(seq) ON st.seq = m.seq
            LEFT JOIN LATERAL (SELECT e.seq, e.event_id, e.type, e.created_at, e.dedupe_gen
                               FROM @schema@.stream_events e
                               WHERE e.dedupe_key = m.key COLLATE "C" AND e.segment = v_segment
                               ORDER BY e.dedupe_gen DESC
                               LIMIT 1) n ON true
            WHERE st.seq IS NULL)
        SELECT v_dup_ords || coalesce(array_agg(s.ord) FILTER (WHERE s.duplicate), '{}'),
               v_dup_seqs || coalesce(array_agg(s.seq) FILTER (WHERE s.duplicate), '{}'),
               v_dup_ids || coalesce(array_agg(s.event_id) FILTER (WHERE s.duplicate), '{}'),
               v_dup_types || coalesce(array_agg(s.type) FILTER (WHERE s.duplicate), '{}'),
               v_dup_at || coalesce(array_agg(s.created_at) FILTER (WHERE s.duplicate), '{}'),
               coalesce(array_agg(s.ord) FILTER (WHERE s.duplicate IS NOT TRUE), '{}'),
               coalesce(array_agg(coalesce(s.dedupe_gen + 1, 0)) FILTER (WHERE s.duplicate IS NOT TRUE), '{}')
        INTO v_dup_ords, v_dup_seqs, v_dup_ids, v_dup_types, v_dup_at, v_try_ords, v_try_gens
        FROM skipped s;
        EXIT WHEN cardinality(v_try_ords) = 0;
        WITH inserted AS (
            INSERT INTO @schema@.stream_events AS e (segment, seq, event_id, type, payload, headers, dedupe_key,
                                                     dedupe_gen)
            SELECT v_segment, m.seq, m.id, m.type, m.payload::json, coalesce(m.headers::jsonb, '{}'::jsonb), m.key,
                   CASE WHEN m.key IS NOT NULL THEN t.gen END
            FROM unnest(v_try_ords, v_try_gens) AS t(ord, gen)
            JOIN unnest(p_ids, p_types, p_payloads, p_headers, p_keys, v_seqs)
                 WITH ORDINALITY AS m(id, type, payload, headers, key, seq, ord) ON m.ord = t.ord
            ORDER BY m.key COLLATE "C", m.ord
            ON CONFLICT (dedupe_key, dedupe_gen, segment) WHERE dedupe_key IS NOT NULL DO NOTHING
            RETURNING e.seq)
        SELECT array_agg(i.seq) INTO v_stored FROM inserted i;
    END LOOP;

    IF p_notify AND v_any_stored THEN
        PERFORM pg_notify(@schema@.stream_channel(), 'stream');
    END IF;
    IF cardinality(v_dup_ords) > 0 THEN
        v_seqs := ARRAY(SELECT coalesce(d.seq, m.seq)
                        FROM unnest(v_seqs) WITH ORDINALITY AS m(seq, ord)
                        LEFT JOIN unnest(v_dup_ords, v_dup_seqs) AS d(ord, seq) ON d.ord = m.ord
                        ORDER BY m.ord);
    END IF;
    RETURN QUERY SELECT v_seqs, now(), v_dup_ords, v_dup_ids, v_dup_types, v_dup_at;
END
$fn$;

-- The sequence numbers of the events visible in p_to but not in p_from (PgQue's two-snapshot difference), in
-- storage order, at most p_limit of them. An event p_from does not see was written by a transaction that started
-- after it (txid at or above its xmax) or was running when it was taken (txid in its xip list); both are index
-- ranges on txid, however far behind p_from's xmin a long transaction holds it.
-- The diff functions are PL/pgSQL, not SQL: PL/pgSQL keeps the plans of its statements for the session, a SQL
-- function called from PL/pgSQL is planned again on every call (a third of a millisecond here, on every receive).
CREATE OR REPLACE FUNCTION @schema@.stream_diff_seqs(p_from pg_snapshot, p_to pg_snapshot, p_limit integer)
RETURNS bigint[]
LANGUAGE plpgsql STABLE AS $fn$
DECLARE
    v_xip xid8[] := ARRAY(SELECT pg_snapshot_xip(p_from));
BEGIN
    RETURN (SELECT coalesce(array_agg(d.seq ORDER BY d.seq), '{}')
            FROM (SELECT e.seq
                  FROM @schema@.stream_events e
                  WHERE (e.txid >= pg_snapshot_xmax(p_from) AND e.txid < pg_snapshot_xmax(p_to) OR e.txid = ANY (v_xip))
                    AND pg_visible_in_snapshot(e.txid, p_to) AND NOT pg_visible_in_snapshot(e.txid, p_from)
                  ORDER BY e.seq
                  LIMIT p_limit) d);
END
$fn$;

-- The events visible in p_to but not in p_from with a sequence number above p_after_seq, in storage order, at most
-- p_limit of them, their sequence numbers as ranges, and whether more such events follow: a batch read in one scan,
-- whole rows, so that the receive needs no second lookup by sequence number.
DROP FUNCTION IF EXISTS @schema@.stream_diff_events(pg_snapshot, pg_snapshot, integer);
CREATE OR REPLACE FUNCTION @schema@.stream_diff_events(p_from pg_snapshot, p_to pg_snapshot, p_after_seq bigint,
                                                       p_limit integer, OUT events @schema@.stream_events[],
                                                       OUT seqs int8multirange, OUT more boolean)
LANGUAGE plpgsql STABLE AS $fn$
DECLARE
    v_xip xid8[] := ARRAY(SELECT pg_snapshot_xip(p_from));
BEGIN
    SELECT coalesce(array_agg(d.e ORDER BY d.n) FILTER (WHERE d.n <= p_limit), '{}'),
           coalesce(range_agg(int8range((d.e).seq, (d.e).seq, '[]')) FILTER (WHERE d.n <= p_limit), '{}'),
           count(*) > p_limit
    INTO events, seqs, more
    FROM (SELECT e, row_number() OVER (ORDER BY e.seq) AS n
          FROM @schema@.stream_events e
          WHERE (e.txid >= pg_snapshot_xmax(p_from) AND e.txid < pg_snapshot_xmax(p_to) OR e.txid = ANY (v_xip))
            AND pg_visible_in_snapshot(e.txid, p_to) AND NOT pg_visible_in_snapshot(e.txid, p_from)
            AND e.seq > p_after_seq
          ORDER BY e.seq
          LIMIT p_limit + 1) d;
END
$fn$;

-- What stream_diff_events returns without the rows: the sequence numbers of the batch and whether more follow. An
-- allocation (stream_allocate) needs no more; the member reads the rows afterwards, without the consumer lock.
CREATE OR REPLACE FUNCTION @schema@.stream_diff_ranges(p_from pg_snapshot, p_to pg_snapshot, p_after_seq bigint,
                                                       p_limit integer, OUT seqs int8multirange, OUT more boolean)
LANGUAGE plpgsql STABLE AS $fn$
DECLARE
    v_xip xid8[] := ARRAY(SELECT pg_snapshot_xip(p_from));
BEGIN
    SELECT coalesce(range_agg(int8range(d.seq, d.seq, '[]')) FILTER (WHERE d.n <= p_limit), '{}'),
           count(*) > p_limit
    INTO seqs, more
    FROM (SELECT e.seq, row_number() OVER (ORDER BY e.seq) AS n
          FROM @schema@.stream_events e
          WHERE (e.txid >= pg_snapshot_xmax(p_from) AND e.txid < pg_snapshot_xmax(p_to) OR e.txid = ANY (v_xip))
            AND pg_visible_in_snapshot(e.txid, p_to) AND NOT pg_visible_in_snapshot(e.txid, p_from)
            AND e.seq > p_after_seq
          ORDER BY e.seq
          LIMIT p_limit + 1) d;
END
$fn$;

-- Earlier templates sized a batch larger than the receive's max to refuse it; a receive now takes max of its events.
DROP FUNCTION IF EXISTS @schema@.stream_diff_count(pg_snapshot, pg_snapshot);

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

-- Whether events committed after p_from are visible to the calling statement.
CREATE OR REPLACE FUNCTION @schema@.stream_has_new_events(p_from pg_snapshot)
RETURNS boolean
LANGUAGE plpgsql STABLE AS $fn$
DECLARE
    v_xip xid8[] := ARRAY(SELECT pg_snapshot_xip(p_from));
    v_now pg_snapshot := pg_current_snapshot();
BEGIN
    RETURN EXISTS (SELECT 1 FROM @schema@.stream_events e
                   WHERE (e.txid >= pg_snapshot_xmax(p_from) AND e.txid < pg_snapshot_xmax(v_now) OR e.txid = ANY (v_xip))
                     AND NOT pg_visible_in_snapshot(e.txid, p_from) AND pg_visible_in_snapshot(e.txid, v_now));
END
$fn$;

-- The messages of one batch, read back by its fixed sequence numbers within its tick range.
CREATE OR REPLACE FUNCTION @schema@.stream_batch_messages(p_batch_id bigint)
RETURNS TABLE (batch_id bigint, start_tick bigint, end_tick bigint, seq bigint, event_id text, type text,
               payload json, headers jsonb, retry_count integer, created_at timestamptz)
LANGUAGE plpgsql STABLE AS $fn$
DECLARE
    v_batch @schema@.stream_batches;
    v_from  pg_snapshot;
    v_to    pg_snapshot;
BEGIN
    SELECT * INTO v_batch FROM @schema@.stream_batches b WHERE b.batch_id = p_batch_id LIMIT 1;
    SELECT t.snapshot INTO v_from FROM @schema@.stream_ticks t WHERE t.tick_id = v_batch.start_tick LIMIT 1;
    SELECT t.snapshot INTO v_to FROM @schema@.stream_ticks t WHERE t.tick_id = v_batch.end_tick LIMIT 1;
    RETURN QUERY
    SELECT v_batch.batch_id, v_batch.start_tick, v_batch.end_tick, e.seq, e.event_id, e.type, e.payload,
           e.headers, e.retry_count, e.created_at
    FROM @schema@.stream_events e
    WHERE (e.txid >= pg_snapshot_xmax(v_from) AND e.txid < pg_snapshot_xmax(v_to)
           OR e.txid = ANY (ARRAY(SELECT pg_snapshot_xip(v_from))))
      AND e.seq <@ v_batch.seqs
    ORDER BY e.seq;
END
$fn$;

-- The outstanding, unacked batch of one member of a subscription whose cursor is at (p_tick, p_seq), or null. A
-- member gets a new batch only once its previous one is acked, so only its newest batch can be unacked.
DROP FUNCTION IF EXISTS @schema@.stream_active_batch(bigint, text, bigint);
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
DROP FUNCTION IF EXISTS @schema@.stream_next_tick(bigint, bigint);
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

-- Subscribes a consumer: at the latest tick (p_from_tick null), the oldest retained tick (0) or a given tick. With
-- p_now and no tick given, a tick is made first when events committed after the latest one, so that the consumer
-- receives only what commits from now on (as receive makes ticks: not in a transaction that has written).
DROP FUNCTION IF EXISTS @schema@.stream_subscribe(text, bigint);
CREATE OR REPLACE FUNCTION @schema@.stream_subscribe(p_consumer text, p_from_tick bigint, p_now boolean DEFAULT false)
RETURNS TABLE (consumer text, last_tick bigint, created boolean)
LANGUAGE plpgsql AS $fn$
DECLARE
    v_sub  bigint;
    v_tick bigint;
    v_from pg_snapshot;
    v_to   pg_snapshot;
BEGIN
    PERFORM pg_advisory_xact_lock_shared(@schema@.stream_rotation_key());
    SELECT s.sub_id INTO v_sub FROM @schema@.stream_subscriptions s WHERE s.consumer = p_consumer;
    IF FOUND THEN
        RETURN QUERY SELECT p_consumer, @schema@.stream_cursor_tick(v_sub), false;
        RETURN;
    END IF;
    IF p_from_tick IS NULL THEN
        SELECT max(t.tick_id) INTO v_tick FROM @schema@.stream_ticks t;
        IF p_now AND pg_current_xact_id_if_assigned() IS NULL
           AND current_setting('transaction_isolation') = 'read committed' THEN
            SELECT t.snapshot INTO v_from FROM @schema@.stream_ticks t WHERE t.tick_id = v_tick LIMIT 1;
            IF @schema@.stream_has_new_events(v_from) THEN
                PERFORM pg_advisory_xact_lock(@schema@.stream_tick_key());
                SELECT max(t.tick_id) INTO v_tick FROM @schema@.stream_ticks t;
                SELECT t.snapshot INTO v_from FROM @schema@.stream_ticks t WHERE t.tick_id = v_tick LIMIT 1;
                -- captured by a statement that starts after the tick lock is held
                v_to := pg_current_snapshot();
                IF cardinality(@schema@.stream_diff_seqs(v_from, v_to, 1)) > 0 THEN
                    v_tick := nextval('@schema@.stream_tick_seq');
                    INSERT INTO @schema@.stream_ticks (part, tick_id, snapshot, max_seq)
                    VALUES (@schema@.stream_meta_part(), v_tick, v_to, (SELECT sq.last_value FROM @schema@.stream_seq sq));
                END IF;
            END IF;
        END IF;
    ELSIF p_from_tick = 0 THEN
        SELECT min(t.tick_id) INTO v_tick FROM @schema@.stream_ticks t;
    ELSE
        SELECT t.tick_id INTO v_tick FROM @schema@.stream_ticks t WHERE t.tick_id = p_from_tick LIMIT 1;
        IF NOT FOUND THEN
            RAISE EXCEPTION 'tick % is not retained', p_from_tick USING ERRCODE = 'S3404';
        END IF;
    END IF;
    INSERT INTO @schema@.stream_subscriptions AS s (consumer) VALUES (p_consumer)
    ON CONFLICT DO NOTHING
    RETURNING s.sub_id INTO v_sub;
    IF FOUND THEN
        INSERT INTO @schema@.stream_cursors (part, id, sub_id, tick)
        VALUES (@schema@.stream_meta_part(), nextval('@schema@.stream_cursor_seq'), v_sub, v_tick);
        RETURN QUERY SELECT p_consumer, v_tick, true;
    ELSE
        -- subscribed concurrently: that transaction has committed its cursor together with the subscription
        RETURN QUERY SELECT s.consumer, @schema@.stream_cursor_tick(s.sub_id), false
                     FROM @schema@.stream_subscriptions s WHERE s.consumer = p_consumer;
    END IF;
END
$fn$;

-- Removes a consumer. Its cursor rows and batches are left to compaction, which keeps only those of subscriptions.
CREATE OR REPLACE FUNCTION @schema@.stream_unsubscribe(p_consumer text)
RETURNS boolean
LANGUAGE plpgsql AS $fn$
DECLARE
    v_sub bigint;
BEGIN
    SELECT s.sub_id INTO v_sub FROM @schema@.stream_subscriptions s WHERE s.consumer = p_consumer;
    IF NOT FOUND THEN
        RETURN false;
    END IF;
    PERFORM pg_advisory_xact_lock(@schema@.stream_consumer_key(v_sub));
    PERFORM pg_advisory_xact_lock(@schema@.stream_ack_key(v_sub));
    DELETE FROM @schema@.stream_subscriptions s WHERE s.sub_id = v_sub;
    RETURN FOUND;
END
$fn$;

-- Receives the next batch of a consumer (member '' when not cooperative): at most p_max events. An outstanding
-- batch of the member is returned again. Otherwise the batch starts at the group's allocation position (the end of
-- its newest outstanding batch, else the cursor). Inside a range (a batch before it stopped at p_max) it takes the
-- next events of that same range; at the start of a range, the range runs to the newest tick whose span fits p_max,
-- else to the nearest newer tick, and a tick is made only when there is none newer and new events are visible, and
-- never inside a transaction that has written (its snapshot would count its own rows) or that does not take a fresh
-- snapshot per statement. A range holding more than p_max events is handed out in batches of p_max, in sequence
-- order. An empty result has a null batch_id and no message columns.
-- p_acked is a batch of the consumer that the caller acks later in the same transaction (stream_ack_receive): it
-- counts as acked already, so the member gets the batch after it instead of the same one again; null otherwise.
-- With p_rows false only the batch is allocated (stream_allocate): one row, its id and ticks, no message columns.
DROP FUNCTION IF EXISTS @schema@.stream_receive(text, text, integer, bigint);
CREATE OR REPLACE FUNCTION @schema@.stream_receive(p_consumer text, p_member text, p_max integer, p_acked bigint,
                                                   p_rows boolean DEFAULT true)
RETURNS TABLE (batch_id bigint, start_tick bigint, end_tick bigint, seq bigint, event_id text, type text,
               payload json, headers jsonb, retry_count integer, created_at timestamptz)
LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $fn$
DECLARE
    v_member   text := coalesce(p_member, '');
    v_can_tick boolean := pg_current_xact_id_if_assigned() IS NULL
                          AND current_setting('transaction_isolation') = 'read committed';
    v_sub      bigint;
    v_cursor   record;
    v_pos      record;
    v_start    bigint;
    v_end      bigint;
    v_near     bigint;
    v_batch    bigint;
    v_from     pg_snapshot;
    v_from_seq bigint;
    v_to       pg_snapshot;
    v_events   @schema@.stream_events[];
    v_seqs     int8multirange;
    v_more     boolean;
BEGIN
    IF p_max IS NULL OR p_max < 1 OR p_max > 100000 THEN
        RAISE EXCEPTION 'max must be between 1 and 100000' USING ERRCODE = 'S3400';
    END IF;
    PERFORM pg_advisory_xact_lock_shared(@schema@.stream_rotation_key());

    -- Read-only fast path: idle polls take no lock beyond the shared one and write nothing.
    SELECT s.sub_id INTO v_sub FROM @schema@.stream_subscriptions s WHERE s.consumer = p_consumer;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'consumer % is not subscribed', p_consumer USING ERRCODE = 'S3404';
    END IF;
    SELECT * INTO v_cursor FROM @schema@.stream_cursor(v_sub);
    v_batch := @schema@.stream_active_batch(v_sub, v_member, v_cursor.tick, v_cursor.seq);
    IF v_batch IS NOT NULL AND v_batch IS DISTINCT FROM p_acked THEN
        IF p_rows THEN
            RETURN QUERY SELECT * FROM @schema@.stream_batch_messages(v_batch);
        ELSE
            RETURN QUERY SELECT b.batch_id, b.start_tick, b.end_tick, NULL::bigint, NULL::text, NULL::text, NULL::json,
                                NULL::jsonb, NULL::integer, NULL::timestamptz
                         FROM @schema@.stream_batches b WHERE b.batch_id = v_batch LIMIT 1;
        END IF;
        RETURN;
    END IF;
    SELECT * INTO v_pos FROM @schema@.stream_next_position(v_sub, v_cursor.tick, v_cursor.seq, v_cursor.range_end);
    v_start := v_pos.tick;
    IF v_pos.range_end IS NULL THEN
        SELECT max(t.tick_id) INTO v_end FROM @schema@.stream_ticks t;
        IF v_end <= v_start THEN
            SELECT t.snapshot INTO v_from FROM @schema@.stream_ticks t WHERE t.tick_id = v_start LIMIT 1;
            IF NOT v_can_tick OR NOT @schema@.stream_has_new_events(v_from) THEN
                RETURN QUERY SELECT NULL::bigint, v_start, v_start, NULL::bigint, NULL::text, NULL::text, NULL::json,
                                    NULL::jsonb, NULL::integer, NULL::timestamptz;
                RETURN;
            END IF;
        END IF;
    END IF;

    -- Allocation: serialised per subscription, as in PgQue, on a lock that leaves no row version behind.
    PERFORM pg_advisory_xact_lock(@schema@.stream_consumer_key(v_sub));
    IF NOT EXISTS (SELECT 1 FROM @schema@.stream_subscriptions s WHERE s.sub_id = v_sub) THEN
        RAISE EXCEPTION 'consumer % is not subscribed', p_consumer USING ERRCODE = 'S3404';
    END IF;
    SELECT * INTO v_cursor FROM @schema@.stream_cursor(v_sub);
    v_batch := @schema@.stream_active_batch(v_sub, v_member, v_cursor.tick, v_cursor.seq);
    IF v_batch IS NOT NULL AND v_batch IS DISTINCT FROM p_acked THEN
        IF p_rows THEN
            RETURN QUERY SELECT * FROM @schema@.stream_batch_messages(v_batch);
        ELSE
            RETURN QUERY SELECT b.batch_id, b.start_tick, b.end_tick, NULL::bigint, NULL::text, NULL::text, NULL::json,
                                NULL::jsonb, NULL::integer, NULL::timestamptz
                         FROM @schema@.stream_batches b WHERE b.batch_id = v_batch LIMIT 1;
        END IF;
        RETURN;
    END IF;
    SELECT * INTO v_pos FROM @schema@.stream_next_position(v_sub, v_cursor.tick, v_cursor.seq, v_cursor.range_end);
    v_start := v_pos.tick;
    SELECT t.snapshot, t.max_seq INTO v_from, v_from_seq FROM @schema@.stream_ticks t WHERE t.tick_id = v_start LIMIT 1;

    IF v_pos.range_end IS NOT NULL THEN
        -- the rest of a range a batch before stopped in: the same two snapshots, the events after its last one
        v_end := v_pos.range_end;
        SELECT t.snapshot INTO v_to FROM @schema@.stream_ticks t WHERE t.tick_id = v_end LIMIT 1;
        IF p_rows THEN
            SELECT d.events, d.seqs, d.more INTO v_events, v_seqs, v_more
            FROM @schema@.stream_diff_events(v_from, v_to, v_pos.seq, p_max) d;
        ELSE
            SELECT d.seqs, d.more INTO v_seqs, v_more FROM @schema@.stream_diff_ranges(v_from, v_to, v_pos.seq, p_max) d;
        END IF;
    ELSE
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
                    v_end := nextval('@schema@.stream_tick_seq');
                    INSERT INTO @schema@.stream_ticks (part, tick_id, snapshot, max_seq)
                    VALUES (@schema@.stream_meta_part(), v_end, v_to, (SELECT sq.last_value FROM @schema@.stream_seq sq));
                END IF;
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
        SELECT t.snapshot INTO v_to FROM @schema@.stream_ticks t WHERE t.tick_id = v_end LIMIT 1;
        IF p_rows THEN
            SELECT d.events, d.seqs, d.more INTO v_events, v_seqs, v_more
            FROM @schema@.stream_diff_events(v_from, v_to, 0, p_max) d;
        ELSE
            SELECT d.seqs, d.more INTO v_seqs, v_more FROM @schema@.stream_diff_ranges(v_from, v_to, 0, p_max) d;
        END IF;
        IF v_more THEN
            -- the nearest newer tick may hold a range that fits when the estimated one does not; when it does not
            -- either, its first p_max events are the batch and the next receives continue in that range
            SELECT min(t.tick_id) INTO v_near FROM @schema@.stream_ticks t WHERE t.tick_id > v_start;
            IF v_near < v_end THEN
                v_end := v_near;
                SELECT t.snapshot INTO v_to FROM @schema@.stream_ticks t WHERE t.tick_id = v_end LIMIT 1;
                IF p_rows THEN
                    SELECT d.events, d.seqs, d.more INTO v_events, v_seqs, v_more
                    FROM @schema@.stream_diff_events(v_from, v_to, 0, p_max) d;
                ELSE
                    SELECT d.seqs, d.more INTO v_seqs, v_more
                    FROM @schema@.stream_diff_ranges(v_from, v_to, 0, p_max) d;
                END IF;
            END IF;
        END IF;
    END IF;

    IF isempty(v_seqs) THEN
        -- nothing for this consumer up to the range's end: the cursor moves there unless batches are outstanding
        IF (v_pos.tick, v_pos.seq) = (v_cursor.tick, v_cursor.seq) THEN
            INSERT INTO @schema@.stream_cursors (part, id, sub_id, tick)
            VALUES (@schema@.stream_meta_part(), nextval('@schema@.stream_cursor_seq'), v_sub, v_end);
        END IF;
        RETURN QUERY SELECT NULL::bigint, v_start, v_end, NULL::bigint, NULL::text, NULL::text, NULL::json,
                            NULL::jsonb, NULL::integer, NULL::timestamptz;
        RETURN;
    END IF;

    v_batch := nextval('@schema@.stream_batch_seq');
    INSERT INTO @schema@.stream_batches (part, batch_id, sub_id, member, start_tick, end_tick, seqs, after_seq, complete)
    VALUES (@schema@.stream_meta_part(), v_batch, v_sub, v_member, v_start, v_end, v_seqs, v_pos.seq, NOT v_more);
    IF NOT p_rows THEN
        RETURN QUERY SELECT v_batch, v_start, v_end, NULL::bigint, NULL::text, NULL::text, NULL::json, NULL::jsonb,
                            NULL::integer, NULL::timestamptz;
        RETURN;
    END IF;
    -- the events were read in sequence order, and unnest keeps it
    RETURN QUERY
    SELECT v_batch, v_start, v_end, e.seq, e.event_id, e.type, e.payload, e.headers, e.retry_count, e.created_at
    FROM unnest(v_events) e;
END
$fn$;

-- The receive of earlier templates' signature (no batch acked in the same transaction).
CREATE OR REPLACE FUNCTION @schema@.stream_receive(p_consumer text, p_member text, p_max integer)
RETURNS TABLE (batch_id bigint, start_tick bigint, end_tick bigint, seq bigint, event_id text, type text,
               payload json, headers jsonb, retry_count integer, created_at timestamptz)
LANGUAGE sql AS $fn$
    SELECT * FROM @schema@.stream_receive(p_consumer, p_member, p_max, NULL)
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
LANGUAGE plpgsql AS $fn$
BEGIN
    PERFORM setval('@schema@.stream_flush_seq', 1, false);
    IF p_batch_id IS NULL THEN
        RETURN;
    END IF;
    -- rotation and compaction cannot drop the batch or its events while this reads them
    PERFORM pg_advisory_xact_lock_shared(@schema@.stream_rotation_key());
    RETURN QUERY SELECT * FROM @schema@.stream_batch_messages(p_batch_id) m WHERE m.batch_id IS NOT NULL;
END
$fn$;

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
CREATE OR REPLACE FUNCTION @schema@.stream_ack(p_batch_id bigint)
RETURNS boolean
LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $fn$
DECLARE
    v_batch  @schema@.stream_batches;
    v_next   @schema@.stream_batches;
    v_cursor record;
    v_pos    record;
BEGIN
    PERFORM pg_advisory_xact_lock_shared(@schema@.stream_rotation_key());
    v_batch := @schema@.stream_lock_batch(p_batch_id);
    IF v_batch.batch_id IS NULL OR EXISTS (SELECT 1 FROM @schema@.stream_acks a WHERE a.batch_id = p_batch_id) THEN
        IF @schema@.stream_batch_issued(p_batch_id) THEN
            RETURN false;
        END IF;
        RAISE EXCEPTION 'batch % does not exist', p_batch_id USING ERRCODE = 'S3404';
    END IF;
    SELECT * INTO v_cursor FROM @schema@.stream_cursor(v_batch.sub_id);
    IF (v_batch.start_tick, v_batch.after_seq) <> (v_cursor.tick, v_cursor.seq) THEN
        INSERT INTO @schema@.stream_acks (part, batch_id) VALUES (@schema@.stream_meta_part(), p_batch_id);
        RETURN true;
    END IF;
    SELECT * INTO v_pos FROM @schema@.stream_batch_end(v_batch);
    LOOP
        SELECT * INTO v_next FROM @schema@.stream_batches b
        WHERE b.sub_id = v_batch.sub_id AND b.start_tick = v_pos.tick AND b.after_seq = v_pos.seq
          AND EXISTS (SELECT 1 FROM @schema@.stream_acks a WHERE a.batch_id = b.batch_id)
        LIMIT 1;
        EXIT WHEN NOT FOUND;
        SELECT * INTO v_pos FROM @schema@.stream_batch_end(v_next);
    END LOOP;
    INSERT INTO @schema@.stream_cursors (part, id, sub_id, tick, seq, range_end)
    VALUES (@schema@.stream_meta_part(), nextval('@schema@.stream_cursor_seq'), v_batch.sub_id, v_pos.tick, v_pos.seq,
            v_pos.range_end);
    RETURN true;
END
$fn$;

-- Nacks one message of an outstanding batch: it is scheduled for redelivery with its retry count raised, or
-- dead-lettered once max_retries is used up. The batch stays outstanding, to be acked for the rest.
-- p_dead_letter sends the message to the dead letters at once, whatever its retry count (a listener's error handler
-- classified the failure as not retryable).
DROP FUNCTION IF EXISTS @schema@.stream_nack(bigint, text, interval, text);
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

-- Compacts the metadata when due (or now, when forced): the other part becomes current, everything still live in
-- the old part is copied into it, and the old part is truncated. Live are the latest cursor row of every
-- subscription, the batches no cursor has passed with their acks and nacks, and the ticks something needs:
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
                                       'stream_nacks_'] LOOP
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
                                   'stream_nacks_'] LOOP
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
        EXECUTE format('TRUNCATE @schema@.%I', v_table);
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

-- Updates the settings that are not null. A dedupe window given here must not exceed the retention (the events that
-- hold the keys are kept that long); a shorter retention is always accepted and caps the window in effect, which is
-- what the result shows (least of the two).
DROP FUNCTION IF EXISTS @schema@.stream_set_config(integer, interval);
CREATE OR REPLACE FUNCTION @schema@.stream_set_config(p_max_retries integer, p_retention interval,
                                                      p_dedupe_window interval DEFAULT NULL)
RETURNS TABLE (max_retries integer, retention interval, dedupe_window interval)
LANGUAGE plpgsql AS $fn$
DECLARE
    v_config @schema@.stream_config;
BEGIN
    IF p_max_retries < 0 OR p_max_retries > 1000 THEN
        RAISE EXCEPTION 'max_retries must be between 0 and 1000' USING ERRCODE = 'S3400';
    END IF;
    IF p_retention <= interval '0' THEN
        RAISE EXCEPTION 'retention must be positive' USING ERRCODE = 'S3400';
    END IF;
    IF p_dedupe_window <= interval '0' THEN
        RAISE EXCEPTION 'dedupe_window must be positive' USING ERRCODE = 'S3400';
    END IF;
    SELECT * INTO v_config FROM @schema@.stream_config c FOR UPDATE;
    IF p_dedupe_window > coalesce(p_retention, v_config.retention) THEN
        RAISE EXCEPTION 'dedupe_window (%) must not exceed retention (%)', p_dedupe_window,
            coalesce(p_retention, v_config.retention) USING ERRCODE = 'S3400';
    END IF;
    RETURN QUERY
    UPDATE @schema@.stream_config c
    SET max_retries = coalesce(p_max_retries, c.max_retries), retention = coalesce(p_retention, c.retention),
        dedupe_window = coalesce(p_dedupe_window, c.dedupe_window)
    RETURNING c.max_retries, c.retention, least(c.dedupe_window, c.retention);
END
$fn$;

-- The outstanding batches of a subscription whose cursor is at p_cursor, as JSON (acked_at set when a cooperative
-- member acked it before the batches ahead of it were acked).
CREATE OR REPLACE FUNCTION @schema@.stream_batch_json(p_batch @schema@.stream_batches, p_consumer text)
RETURNS jsonb
LANGUAGE sql STABLE AS $fn$
    SELECT jsonb_build_object('id', p_batch.batch_id, 'consumer', p_consumer, 'member', nullif(p_batch.member, ''),
                              'start_tick', p_batch.start_tick, 'end_tick', p_batch.end_tick,
                              'after_seq', p_batch.after_seq, 'complete', p_batch.complete,
                              'count', (SELECT coalesce(sum(upper(r.r) - lower(r.r)), 0)
                                        FROM unnest(p_batch.seqs) AS r(r)),
                              'nacked', (SELECT count(*) FROM @schema@.stream_nacks n WHERE n.batch_id = p_batch.batch_id),
                              'created_at', p_batch.created_at,
                              'acked_at', (SELECT min(a.acked_at) FROM @schema@.stream_acks a
                                           WHERE a.batch_id = p_batch.batch_id))
$fn$;

-- The lag of a cursor at the tick (p_snapshot, p_max_seq): the events committed after that tick and visible now, and
-- when the oldest of them was appended. Sequence numbers drawn since the tick bound it (a rolled-back append draws
-- numbers but leaves no event, so they are not the lag itself): with none drawn it is 0 without reading an event;
-- else up to 10,000 events are counted, and beyond that the drawn numbers estimate it. A cursor inside a range
-- (p_range_end the snapshot of its end tick, p_seq the last sequence number it passed) has passed the events of
-- that range up to p_seq; they do not count.
DROP FUNCTION IF EXISTS @schema@.stream_lag(pg_snapshot, bigint);
CREATE OR REPLACE FUNCTION @schema@.stream_lag(p_snapshot pg_snapshot, p_max_seq bigint, p_range_end pg_snapshot,
                                               p_seq bigint, OUT events bigint, OUT oldest timestamptz)
LANGUAGE plpgsql STABLE AS $fn$
DECLARE
    v_drawn bigint;
    v_now   pg_snapshot := pg_current_snapshot();
BEGIN
    events := 0;
    IF p_snapshot IS NULL THEN
        RETURN;
    END IF;
    SELECT greatest(0, CASE WHEN sq.is_called THEN sq.last_value ELSE 0 END - p_max_seq) INTO v_drawn
    FROM @schema@.stream_seq sq;
    IF v_drawn = 0 THEN
        RETURN;
    END IF;
    SELECT count(*), min(d.created_at) INTO events, oldest
    FROM (SELECT e.created_at
          FROM @schema@.stream_events e
          WHERE e.txid >= pg_snapshot_xmin(p_snapshot) AND e.txid < pg_snapshot_xmax(v_now)
            AND pg_visible_in_snapshot(e.txid, v_now) AND NOT pg_visible_in_snapshot(e.txid, p_snapshot)
            AND NOT (p_range_end IS NOT NULL AND e.seq <= p_seq AND pg_visible_in_snapshot(e.txid, p_range_end))
          ORDER BY e.seq
          LIMIT 10001) d;
    IF events > 10000 THEN
        events := greatest(events, v_drawn);
    END IF;
END
$fn$;

-- Consumers with their cursors, lag and outstanding batches, as JSON.
CREATE OR REPLACE FUNCTION @schema@.stream_consumers()
RETURNS jsonb
LANGUAGE sql STABLE AS $fn$
    SELECT coalesce(jsonb_agg(jsonb_build_object(
               'name', s.consumer,
               'last_tick', s.last_tick,
               'last_seq', s.last_seq,
               'next_tick', (SELECT n.tick FROM @schema@.stream_next_position(s.sub_id, s.last_tick, s.last_seq,
                                                                              s.range_end) n),
               'lag', l.events,
               'lag_seconds', CASE WHEN l.events = 0 THEN 0
                                   ELSE greatest(0, extract(epoch FROM now() - l.oldest))::bigint END,
               'created_at', s.created_at,
               'batches', (SELECT coalesce(jsonb_agg(@schema@.stream_batch_json(b, s.consumer) - 'consumer'
                                                     ORDER BY b.start_tick, b.batch_id), '[]')
                           FROM @schema@.stream_batches b
                           WHERE b.sub_id = s.sub_id AND (b.start_tick, b.after_seq) >= (s.last_tick, s.last_seq)))
           ORDER BY s.consumer), '[]')
    FROM (SELECT s.*, c.tick AS last_tick, c.seq AS last_seq, c.range_end
          FROM @schema@.stream_subscriptions s CROSS JOIN LATERAL @schema@.stream_cursor(s.sub_id) c) s
    LEFT JOIN LATERAL (SELECT * FROM @schema@.stream_ticks t WHERE t.tick_id = s.last_tick LIMIT 1) t ON true
    LEFT JOIN LATERAL (SELECT * FROM @schema@.stream_ticks t WHERE t.tick_id = s.range_end LIMIT 1) r ON true
    LEFT JOIN LATERAL @schema@.stream_lag(t.snapshot, t.max_seq, r.snapshot, s.last_seq) l ON true
$fn$;

CREATE OR REPLACE FUNCTION @schema@.stream_batch(p_batch_id bigint)
RETURNS jsonb
LANGUAGE sql STABLE AS $fn$
    SELECT @schema@.stream_batch_json(b, s.consumer)
    FROM @schema@.stream_batches b
    JOIN @schema@.stream_subscriptions s ON s.sub_id = b.sub_id
    CROSS JOIN LATERAL @schema@.stream_cursor(s.sub_id) c
    CROSS JOIN LATERAL @schema@.stream_batch_end(b) e
    WHERE b.batch_id = p_batch_id AND (e.tick, e.seq) > (c.tick, c.seq)
    LIMIT 1
$fn$;

CREATE OR REPLACE FUNCTION @schema@.stream_info()
RETURNS jsonb
LANGUAGE sql STABLE AS $fn$
    WITH cursors AS (SELECT s.sub_id, c.tick AS last_tick, c.seq AS last_seq
                     FROM @schema@.stream_subscriptions s CROSS JOIN LATERAL @schema@.stream_cursor(s.sub_id) c)
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
        'outstanding_batches', (SELECT count(*) FROM cursors s
                                JOIN @schema@.stream_batches b
                                  ON b.sub_id = s.sub_id AND (b.start_tick, b.after_seq) >= (s.last_tick, s.last_seq)
                                WHERE NOT EXISTS (SELECT 1 FROM @schema@.stream_acks a WHERE a.batch_id = b.batch_id)),
        'oldest_cursor_tick', (SELECT min(s.last_tick) FROM cursors s),
        'metadata_compacted_at', (SELECT m.compacted_at FROM @schema@.stream_meta m),
        'pending_retries', (SELECT count(*) FROM @schema@.stream_retry_events),
        'dead_letters', (SELECT count(*) FROM @schema@.stream_dead_letters))
    FROM @schema@.stream_config c
$fn$;

-- Built with the json functions, so that payloads are written as they are stored rather than parsed again.
CREATE OR REPLACE FUNCTION @schema@.stream_dead_letter_list(p_limit integer, p_offset integer)
RETURNS json
LANGUAGE sql STABLE AS $fn$
    SELECT json_build_object(
        'dead_letters', coalesce((SELECT json_agg(json_build_object(
                             'id', d.dead_letter_id, 'message_id', d.event_id, 'type', d.type, 'payload', d.payload,
                             'headers', d.headers, 'retry_count', d.retry_count, 'reason', d.reason,
                             'consumer', d.consumer, 'dead_at', d.dead_at) ORDER BY d.dead_letter_id)
                           FROM (SELECT * FROM @schema@.stream_dead_letters ORDER BY dead_letter_id
                                 LIMIT p_limit OFFSET p_offset) d), '[]'::json),
        'total', (SELECT count(*) FROM @schema@.stream_dead_letters))
$fn$;

$template$)
ON CONFLICT (part) DO UPDATE SET position = excluded.position, body = excluded.body;
