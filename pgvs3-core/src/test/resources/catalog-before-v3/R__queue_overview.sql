-- One page of the catalog with what each queue's views say about it, at a cost that does not grow with the queue:
-- whether job delivery is paused, and the live row counts PostgreSQL's statistics keep for the job table and for the
-- stream log's segments (estimates that may lag by seconds; nothing is scanned). A queue dropped while the page is
-- read is left out.
CREATE OR REPLACE FUNCTION s3p.queue_overview(p_limit integer, p_offset integer)
RETURNS TABLE (name text, schema_name text, created_at timestamptz, paused boolean, estimated_jobs bigint,
               estimated_stream_events bigint)
LANGUAGE plpgsql STABLE AS $$
DECLARE
    v_queue s3p.queues;
BEGIN
    FOR v_queue IN SELECT * FROM s3p.queues q ORDER BY q.name LIMIT p_limit OFFSET p_offset LOOP
        name := v_queue.name;
        schema_name := v_queue.schema_name;
        created_at := v_queue.created_at;
        BEGIN
            EXECUTE format('SELECT s.paused FROM %I.job_settings s', v_queue.schema_name) INTO paused;
        EXCEPTION WHEN undefined_table OR invalid_schema_name THEN
            CONTINUE;
        END;
        estimated_jobs := pg_stat_get_live_tuples(to_regclass(format('%I.jobs', v_queue.schema_name)));
        SELECT sum(pg_stat_get_live_tuples(i.inhrelid))::bigint INTO estimated_stream_events
        FROM pg_inherits i
        WHERE i.inhparent = to_regclass(format('%I.stream_events', v_queue.schema_name));
        RETURN NEXT;
    END LOOP;
END
$$;
