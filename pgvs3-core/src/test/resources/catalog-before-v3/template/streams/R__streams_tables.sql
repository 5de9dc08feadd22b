-- The streams view of every queue namespace: a PgQue-shaped, append-only event log in three TRUNCATE-rotated
-- segments, snapshot ticks, fan-out consumer cursors with cooperative members, batch ack, per-message nack with
-- retry and a dead-letter queue. Every stream operation is one function below; Java validates and maps errors.
--
-- Error codes raised by these functions (mapped to OJS errors by io.pgvs3.core.stream.StreamErrors):
--   S3400 invalid request, S3404 not found, S3409 conflict (see sql/README.md).
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
INSERT INTO s3p.queue_templates (part, position, body) VALUES ('streams.tables', 20, $template$

CREATE TABLE IF NOT EXISTS @schema@.stream_config (
    singleton          boolean PRIMARY KEY DEFAULT true CHECK (singleton),
    max_retries        integer NOT NULL DEFAULT 5 CHECK (max_retries >= 0),
    retention          interval NOT NULL DEFAULT interval '7 days' CHECK (retention > interval '0'),
    current_segment    smallint NOT NULL DEFAULT 0 CHECK (current_segment BETWEEN 0 AND 2),
    segment_started_at timestamptz NOT NULL DEFAULT now(),
    -- the seal of the segment truncated last: ticks that do not see it only serve as the replay floor
    truncated_seal     xid8,
    -- how long an appended dedupe key makes a repeat of it a duplicate; never longer than retention when used
    dedupe_window      interval NOT NULL DEFAULT interval '5 minutes' CHECK (dedupe_window > interval '0')
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
-- tuples. Every read is a snapshot difference, i.e. a txid range on the txid index.
-- Idempotent appends (stream_append_keyed) store the producer's dedupe key, and its generation within the segment: 0
-- for the key's first event there, one above its newest when the key is used again after its dedupe window, so that
-- the new event is a new index entry. Null in every event appended without a key, so the partial unique index holds
-- keyed events only and costs keyless appends nothing; it lives in each segment and is emptied with it by TRUNCATE.
-- Keys are compared byte for byte (collation "C"), which is what an exact match needs and several times cheaper to
-- sort and index than a linguistic collation.
CREATE TABLE IF NOT EXISTS @schema@.stream_events (
    segment     smallint NOT NULL,
    seq         bigint NOT NULL,
    txid        xid8 NOT NULL DEFAULT pg_current_xact_id(),
    event_id    text NOT NULL,
    type        text NOT NULL,
    payload     json NOT NULL,
    headers     jsonb NOT NULL DEFAULT '{}'::jsonb,
    retry_count integer NOT NULL DEFAULT 0,
    created_at  timestamptz NOT NULL DEFAULT now(),
    dedupe_key  text COLLATE "C",
    dedupe_gen  integer
) PARTITION BY LIST (segment);
CREATE TABLE IF NOT EXISTS @schema@.stream_events_0 PARTITION OF @schema@.stream_events FOR VALUES IN (0);
CREATE TABLE IF NOT EXISTS @schema@.stream_events_1 PARTITION OF @schema@.stream_events FOR VALUES IN (1);
CREATE TABLE IF NOT EXISTS @schema@.stream_events_2 PARTITION OF @schema@.stream_events FOR VALUES IN (2);
CREATE INDEX IF NOT EXISTS stream_events_txid ON @schema@.stream_events (txid);
CREATE UNIQUE INDEX IF NOT EXISTS stream_events_dedupe ON @schema@.stream_events (dedupe_key, dedupe_gen, segment)
    WHERE dedupe_key IS NOT NULL;

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
CREATE INDEX IF NOT EXISTS stream_cursors_sub ON @schema@.stream_cursors (sub_id, id DESC);

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
CREATE INDEX IF NOT EXISTS stream_batches_batch ON @schema@.stream_batches (batch_id);
CREATE INDEX IF NOT EXISTS stream_batches_sub_pos ON @schema@.stream_batches (sub_id, start_tick, after_seq);
CREATE INDEX IF NOT EXISTS stream_batches_member_pos ON @schema@.stream_batches (sub_id, member, start_tick, after_seq);

-- Locators of large ranges: for a range (start_tick..end_tick) holding more events than a receive's max, the
-- range's events in sequence order with their row addresses (segment and ctid; a row keeps its ctid in an
-- insert-only segment until the segment's TRUNCATE), in chunks of 1,000 by sequence number. Made once per range by
-- the first batch that finds more events after it (stream_locator_build), so that every later batch of the range,
-- of any consumer or member, reads its chunk or two by the index and its rows by TID instead of scanning the rest
-- of the range twice. Metadata like the batches: compaction keeps the locators of ranges a batch or cursor is in,
-- and rotation empties both parts when it truncates a segment, so no locator outlives the rows it points at.
CREATE TABLE IF NOT EXISTS @schema@.stream_locators (
    part       smallint NOT NULL,
    start_tick bigint NOT NULL,
    end_tick   bigint NOT NULL,
    last_seq   bigint NOT NULL,
    seqs       bigint[] NOT NULL,
    segments   smallint[] NOT NULL,
    tids       tid[] NOT NULL
) PARTITION BY LIST (part);
CREATE TABLE IF NOT EXISTS @schema@.stream_locators_0 PARTITION OF @schema@.stream_locators FOR VALUES IN (0);
CREATE TABLE IF NOT EXISTS @schema@.stream_locators_1 PARTITION OF @schema@.stream_locators FOR VALUES IN (1);
CREATE INDEX IF NOT EXISTS stream_locators_range ON @schema@.stream_locators (start_tick, end_tick, last_seq);
-- Stored uncompressed: compressing the chunks was more than half of making a locator, and reading one back is
-- cheaper without it.
ALTER TABLE @schema@.stream_locators ALTER COLUMN seqs SET STORAGE EXTERNAL,
    ALTER COLUMN segments SET STORAGE EXTERNAL, ALTER COLUMN tids SET STORAGE EXTERNAL;

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

$template$)
ON CONFLICT (part) DO UPDATE SET position = excluded.position, body = excluded.body;
