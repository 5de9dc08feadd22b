-- Job ids that carry their queue. A job id the server generates for queue q is a UUIDv7 whose bytes 9 to 12 (bits 55
-- to 24 of its low half) hold q's id tag, the first 32 bits of md5(name): no row in s3p.job_locator is written for
-- it, since a lookup by id finds the queue from the id itself (first the locator, then the queue whose tag the id
-- carries). Ids chosen by clients still get their locator row; see docs/jobs.md, "Storage".

ALTER TABLE s3p.queues ADD COLUMN id_tag integer;

-- The tag of a queue name: the first 32 bits of its md5, as a signed integer (JobIds computes the same in Java).
CREATE FUNCTION s3p.queue_id_tag(p_name text) RETURNS integer
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT ('x' || left(md5(p_name), 8))::bit(32)::integer $$;

-- Every queue gets its tag, except one whose tag another queue already holds (by name order): that queue's generated
-- ids then go through the locator like a client's, which stays correct, only slower.
UPDATE s3p.queues q SET id_tag = s3p.queue_id_tag(q.name)
WHERE NOT EXISTS (SELECT 1 FROM s3p.queues o WHERE o.name < q.name AND s3p.queue_id_tag(o.name) = s3p.queue_id_tag(q.name));
CREATE UNIQUE INDEX queues_id_tag ON s3p.queues (id_tag);

-- The tag an id carries: bytes 9 to 12 of its binary form, as a signed integer.
CREATE FUNCTION s3p.job_id_tag(p_id uuid) RETURNS integer
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT (get_byte(uuid_send(p_id), 9) << 24) | (get_byte(uuid_send(p_id), 10) << 16)
         | (get_byte(uuid_send(p_id), 11) << 8) | get_byte(uuid_send(p_id), 12)
$$;

-- Refuses a job id that exists already, with the error the locator's primary key raises for one (so clients see the
-- same 409 duplicate). Declared to return the id so that it can stand in an expression that yields it.
CREATE FUNCTION s3p.job_id_taken(p_id uuid) RETURNS uuid
LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'duplicate key value violates unique constraint "job_locator_pkey"'
        USING ERRCODE = 'unique_violation', CONSTRAINT = 'job_locator_pkey', SCHEMA = 's3p', TABLE = 'job_locator',
              DETAIL = format('Key (id)=(%s) already exists.', p_id);
END
$$;

-- For an id about to get a locator row in queue p_queue: when it carries the tag of another queue, that queue may
-- hold a job with this id and no locator row (a generated id, or a client id with that tag enqueued there), so its
-- job table is asked; an id found there is refused by job_id_taken. Otherwise true.
CREATE FUNCTION s3p.job_id_free_elsewhere(p_id uuid, p_queue text) RETURNS boolean
LANGUAGE plpgsql AS $$
DECLARE
    v_schema text;
    v_taken  boolean;
BEGIN
    SELECT q.schema_name INTO v_schema FROM s3p.queues q WHERE q.id_tag = s3p.job_id_tag(p_id) AND q.name <> p_queue;
    IF FOUND THEN
        EXECUTE format('SELECT EXISTS (SELECT 1 FROM %I.jobs j WHERE j.id = $1)', v_schema) INTO v_taken USING p_id;
        IF v_taken THEN
            PERFORM s3p.job_id_taken(p_id);
        END IF;
    END IF;
    RETURN true;
END
$$;

-- The schema of the queue that may hold a job: the locator's, else the queue whose tag the id carries (the job may
-- not exist there: callers look it up in that schema); null when neither names a queue.
CREATE OR REPLACE FUNCTION s3p.job_schema(p_id uuid) RETURNS text
LANGUAGE sql STABLE AS $$
    SELECT coalesce((SELECT q.schema_name FROM s3p.job_locator l JOIN s3p.queues q ON q.name = l.queue
                     WHERE l.id = p_id),
                    (SELECT q.schema_name FROM s3p.queues q WHERE q.id_tag = s3p.job_id_tag(p_id)))
$$;

-- Whether a job with this id exists in any queue.
CREATE FUNCTION s3p.job_exists(p_id uuid) RETURNS boolean
LANGUAGE plpgsql STABLE AS $$
DECLARE
    v_schema text;
    v_exists boolean;
BEGIN
    IF EXISTS (SELECT 1 FROM s3p.job_locator l WHERE l.id = p_id) THEN
        RETURN true;
    END IF;
    SELECT q.schema_name INTO v_schema FROM s3p.queues q WHERE q.id_tag = s3p.job_id_tag(p_id);
    IF NOT FOUND THEN
        RETURN false;
    END IF;
    EXECUTE format('SELECT EXISTS (SELECT 1 FROM %I.jobs j WHERE j.id = $1)', v_schema) INTO v_exists USING p_id;
    RETURN v_exists;
END
$$;

CREATE OR REPLACE FUNCTION s3p.ack_jobs(p_ids uuid[], p_results jsonb[], p_workers text[], p_envelopes boolean DEFAULT true)
RETURNS TABLE (ord integer, job jsonb, ok boolean)
LANGUAGE plpgsql AS $$
DECLARE
    v_group record;
BEGIN
    FOR v_group IN
        SELECT s.schema_name, array_agg(t.id ORDER BY t.n) AS ids, array_agg(t.result ORDER BY t.n) AS results,
               array_agg(t.worker ORDER BY t.n) AS workers, array_agg(t.n::integer ORDER BY t.n) AS ords
        FROM unnest(p_ids, p_results, p_workers) WITH ORDINALITY AS t(id, result, worker, n)
        CROSS JOIN LATERAL (SELECT s3p.job_schema(t.id) AS schema_name) s
        WHERE s.schema_name IS NOT NULL
        GROUP BY s.schema_name
        ORDER BY s.schema_name
    LOOP
        RETURN QUERY EXECUTE format('SELECT ($4)[a.ord], a.job, a.ok FROM %I.ack($1, $2, $3, $5) a', v_group.schema_name)
            USING v_group.ids, v_group.results, v_group.workers, v_group.ords, p_envelopes;
    END LOOP;
END
$$;

CREATE OR REPLACE FUNCTION s3p.heartbeat_jobs(p_ids uuid[], p_worker text, p_vt_ms bigint, p_default_vt_ms bigint)
RETURNS TABLE (id uuid, directive text)
LANGUAGE plpgsql AS $$
DECLARE
    v_group record;
BEGIN
    FOR v_group IN
        SELECT s.schema_name, array_agg(t.id) AS ids
        FROM (SELECT DISTINCT u.id FROM unnest(p_ids) AS u(id)) t
        CROSS JOIN LATERAL (SELECT s3p.job_schema(t.id) AS schema_name) s
        WHERE s.schema_name IS NOT NULL
        GROUP BY s.schema_name
        ORDER BY s.schema_name
    LOOP
        RETURN QUERY EXECUTE format('SELECT h.id, h.directive FROM %I.extend($1, $2, $3, $4) h', v_group.schema_name)
            USING v_group.ids, p_worker, p_vt_ms, p_default_vt_ms;
    END LOOP;
END
$$;

-- ensure_queue_schema as in V1, and: a new queue takes its id tag unless another queue holds it, and the templates
-- see the tag as @id_tag@ (an integer literal, or NULL::integer for a queue without one).
CREATE OR REPLACE FUNCTION s3p.ensure_queue_schema(p_name text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
    v_schema  text := 's3q_' || p_name;
    v_version text;
    v_current text;
    v_tag     integer;
    v_part    record;
BEGIN
    IF NOT s3p.valid_queue_name(p_name) THEN
        RAISE EXCEPTION 'invalid queue name: %', p_name
            USING ERRCODE = '22023', HINT = 'queue names match ^[a-z0-9][a-z0-9.-]*$ and are at most 59 bytes';
    END IF;
    PERFORM pg_advisory_xact_lock(s3p.queue_lock_key(p_name));
    v_version := s3p.template_version();
    SELECT template_version, id_tag INTO v_current, v_tag FROM s3p.queues WHERE name = p_name;
    IF v_current IS NOT DISTINCT FROM v_version
       AND EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = v_schema) THEN
        RETURN v_schema;
    END IF;
    IF v_current IS NULL THEN
        v_tag := s3p.queue_id_tag(p_name);
        IF EXISTS (SELECT 1 FROM s3p.queues WHERE id_tag = v_tag) THEN
            v_tag := NULL;
        END IF;
    END IF;
    EXECUTE format('CREATE SCHEMA IF NOT EXISTS %I', v_schema);
    FOR v_part IN SELECT body FROM s3p.queue_templates ORDER BY position, part LOOP
        EXECUTE replace(replace(replace(v_part.body, '@schema@', quote_ident(v_schema)), '@queue@', quote_literal(p_name)),
                        '@id_tag@', coalesce(v_tag::text, 'NULL::integer'));
    END LOOP;
    INSERT INTO s3p.queues (name, schema_name, template_version, id_tag)
    VALUES (p_name, v_schema, v_version, v_tag)
    ON CONFLICT (name) DO UPDATE SET template_version = excluded.template_version;
    RETURN v_schema;
END
$$;

-- Every job id with its queue, for diagnostics and tests: the locator's rows, and each queue's jobs whose ids carry
-- its tag and have no locator row. Reads every job table: not for a hot path.
CREATE FUNCTION s3p.job_locations() RETURNS TABLE (id uuid, queue text)
LANGUAGE plpgsql STABLE AS $$
DECLARE
    v_queue record;
BEGIN
    RETURN QUERY SELECT l.id, l.queue FROM s3p.job_locator l;
    FOR v_queue IN SELECT q.name, q.schema_name, q.id_tag FROM s3p.queues q WHERE q.id_tag IS NOT NULL ORDER BY q.name LOOP
        RETURN QUERY EXECUTE format('SELECT j.id, $1 FROM %I.jobs j WHERE s3p.job_id_tag(j.id) = $2'
                                    ' AND NOT EXISTS (SELECT 1 FROM s3p.job_locator l WHERE l.id = j.id)',
                                    v_queue.schema_name)
            USING v_queue.name, v_queue.id_tag;
    END LOOP;
END
$$;
