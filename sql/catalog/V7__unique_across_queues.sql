-- A unique job whose policy leaves out the queue dimension is unique across every queue (ojs-unique-jobs.md,
-- section 3.2). Each queue's enqueue, holding the advisory lock of the key, asks this function for the newest job that
-- has the key in any queue, in one of p_states and, with p_period_ms, created within the period. Each probe is an
-- index scan of that queue's jobs_unique_key index.
CREATE FUNCTION s3p.unique_existing(p_key text, p_states text[], p_period_ms bigint)
RETURNS TABLE (schema_name text, id uuid, state text, scheduled_at timestamptz)
LANGUAGE plpgsql STABLE AS $$
DECLARE
    v_schema  text;
    v_id      uuid;
    v_state   text;
    v_at      timestamptz;
    v_created timestamptz;
    v_newest  timestamptz;
BEGIN
    FOR v_schema IN SELECT q.schema_name FROM s3p.queues q ORDER BY q.name LOOP
        EXECUTE format('SELECT j.id, j.state, j.scheduled_at, j.created_at FROM %I.jobs j'
                       ' WHERE j.unique_key = $1 AND j.state = ANY ($2)'
                       ' AND ($3 IS NULL OR j.created_at > now() - make_interval(secs => $3 / 1000.0))'
                       ' ORDER BY j.seq DESC LIMIT 1', v_schema)
            INTO v_id, v_state, v_at, v_created
            USING p_key, p_states, p_period_ms;
        IF v_id IS NOT NULL AND (v_newest IS NULL OR v_created > v_newest) THEN
            v_newest := v_created;
            schema_name := v_schema;
            id := v_id;
            state := v_state;
            scheduled_at := v_at;
        END IF;
    END LOOP;
    IF v_newest IS NOT NULL THEN
        RETURN NEXT;
    END IF;
END
$$;
