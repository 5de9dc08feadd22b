-- The streams view: appends, plain and idempotent (dedupe keys).
INSERT INTO s3p.queue_templates (part, position, body) VALUES ('streams.append', 22, $template$

-- Appends messages atomically: parallel arrays, one element per message, payloads and headers as JSON text (cast
-- once by the INSERT, far cheaper than binding jsonb[]); p_headers null when no message has headers, p_types a single
-- element when every message has that type (receiving a parameter array of 1,000 elements costs the backend 0.2 to
-- 0.4 ms, 5 to 10% of the append). Every event carries its transaction id, which is what ticks compare. Returns one
-- row: the sequence numbers in the order of the arguments, and the insert time. With p_notify, listeners on the
-- channel named like the schema are woken when this commits; a caller that wakes them itself once its transaction
-- committed passes false (a notifying transaction holds a global lock until its commit record is flushed, so
-- notifying inside every append serialises concurrent producers; see StreamStore).
CREATE OR REPLACE FUNCTION @schema@.stream_append(
    p_ids text[], p_types text[], p_payloads text[], p_headers text[], p_notify boolean DEFAULT true)
RETURNS TABLE (seqs bigint[], created_at timestamptz)
LANGUAGE plpgsql AS $fn$
DECLARE
    v_count   integer := coalesce(cardinality(p_ids), 0);
    v_type    text := CASE WHEN cardinality(p_types) = 1 THEN p_types[1] END;
    v_segment smallint;
    v_seqs    bigint[];
BEGIN
    IF v_count = 0 OR v_count > 1000 OR (v_count <> coalesce(cardinality(p_types), 0) AND v_type IS NULL)
       OR v_count <> coalesce(cardinality(p_payloads), 0)
       OR (p_headers IS NOT NULL AND v_count <> cardinality(p_headers)) THEN
        RAISE EXCEPTION 'an append holds between 1 and 1000 messages' USING ERRCODE = 'S3400';
    END IF;
    PERFORM pg_advisory_xact_lock_shared(@schema@.stream_rotation_key());
    SELECT c.current_segment INTO v_segment FROM @schema@.stream_config c;
    -- nextval is evaluated after the sort, so sequence numbers follow the argument order
    WITH inserted AS (
        INSERT INTO @schema@.stream_events AS e (segment, seq, event_id, type, payload, headers)
        SELECT v_segment, nextval('@schema@.stream_seq'), m.id, coalesce(v_type, m.type), m.payload::json,
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

$template$)
ON CONFLICT (part) DO UPDATE SET position = excluded.position, body = excluded.body;
