-- The streams view: subscribing and unsubscribing consumers.
INSERT INTO s3p.queue_templates (part, position, body) VALUES ('streams.consumers', 24, $template$

-- Subscribes a consumer: at the latest tick (p_from_tick null), the oldest retained tick (0) or a given tick. With
-- p_now and no tick given, a tick is made first when events committed after the latest one, so that the consumer
-- receives only what commits from now on (as receive makes ticks: not in a transaction that has written).
CREATE OR REPLACE FUNCTION @schema@.stream_subscribe(p_consumer text, p_from_tick bigint, p_now boolean DEFAULT false)
RETURNS TABLE (consumer text, last_tick bigint, created boolean)
LANGUAGE plpgsql AS $fn$
DECLARE
    v_sub  bigint;
    v_tick bigint;
    v_from pg_snapshot;
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
                v_tick := coalesce(@schema@.stream_make_tick(v_from), v_tick);
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

$template$)
ON CONFLICT (part) DO UPDATE SET position = excluded.position, body = excluded.body;
