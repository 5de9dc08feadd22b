-- The streams view: settings, and the views of consumers, batches, the log and the dead letters.
INSERT INTO s3p.queue_templates (part, position, body) VALUES ('streams.admin', 29, $template$

-- Updates the settings that are not null. A dedupe window given here must not exceed the retention (the events that
-- hold the keys are kept that long); a shorter retention is always accepted and caps the window in effect, which is
-- what the result shows (least of the two).
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
