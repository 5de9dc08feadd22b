-- The pgvs3 catalog: one row per queue namespace s3q_<name>, and the templates that build a namespace.

CREATE TABLE s3p.queues (
    name             text PRIMARY KEY
                     CHECK (name ~ '^[a-z0-9][a-z0-9.-]*$' AND octet_length(name) <= 59),
    schema_name      text NOT NULL UNIQUE,
    created_at       timestamptz NOT NULL DEFAULT now(),
    template_version text NOT NULL
);

-- Each part of a queue namespace (jobs, streams) is a template of idempotent DDL in which
-- @schema@ stands for the quoted schema identifier and @queue@ for the quoted queue name literal.
CREATE TABLE s3p.queue_templates (
    part     text PRIMARY KEY,
    position integer NOT NULL,
    body     text NOT NULL
);

CREATE FUNCTION s3p.valid_queue_name(p_name text) RETURNS boolean
LANGUAGE sql IMMUTABLE AS $$
    SELECT p_name IS NOT NULL AND p_name ~ '^[a-z0-9][a-z0-9.-]*$' AND octet_length(p_name) <= 59
$$;

CREATE FUNCTION s3p.template_version() RETURNS text
LANGUAGE sql STABLE AS $$
    SELECT coalesce(md5(string_agg(part || ':' || md5(body), ',' ORDER BY position, part)), 'empty')
    FROM s3p.queue_templates
$$;

-- Creates (or brings up to date) the namespace of one queue. Safe to call concurrently for one name:
-- callers serialise on an advisory lock keyed by the name, so both succeed and one schema results.
CREATE FUNCTION s3p.ensure_queue_schema(p_name text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
    v_schema  text := 's3q_' || p_name;
    v_version text;
    v_current text;
    v_part    record;
BEGIN
    IF NOT s3p.valid_queue_name(p_name) THEN
        RAISE EXCEPTION 'invalid queue name: %', p_name
            USING ERRCODE = '22023', HINT = 'queue names match ^[a-z0-9][a-z0-9.-]*$ and are at most 59 bytes';
    END IF;
    PERFORM pg_advisory_xact_lock(hashtextextended('s3p.queue:' || p_name, 0));
    v_version := s3p.template_version();
    SELECT template_version INTO v_current FROM s3p.queues WHERE name = p_name;
    IF v_current IS NOT DISTINCT FROM v_version
       AND EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = v_schema) THEN
        RETURN v_schema;
    END IF;
    EXECUTE format('CREATE SCHEMA IF NOT EXISTS %I', v_schema);
    FOR v_part IN SELECT body FROM s3p.queue_templates ORDER BY position, part LOOP
        EXECUTE replace(replace(v_part.body, '@schema@', quote_ident(v_schema)), '@queue@', quote_literal(p_name));
    END LOOP;
    INSERT INTO s3p.queues (name, schema_name, template_version)
    VALUES (p_name, v_schema, v_version)
    ON CONFLICT (name) DO UPDATE SET template_version = excluded.template_version;
    RETURN v_schema;
END
$$;

-- Re-runs the templates for every queue built from an older template version.
CREATE FUNCTION s3p.upgrade_queue_schemas() RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
    v_name     text;
    v_upgraded integer := 0;
BEGIN
    FOR v_name IN SELECT name FROM s3p.queues WHERE template_version <> s3p.template_version() ORDER BY name LOOP
        PERFORM s3p.ensure_queue_schema(v_name);
        v_upgraded := v_upgraded + 1;
    END LOOP;
    RETURN v_upgraded;
END
$$;

-- Drops a queue namespace and its catalog row in one transaction; false when there was none.
CREATE FUNCTION s3p.drop_queue(p_name text) RETURNS boolean
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_advisory_xact_lock(hashtextextended('s3p.queue:' || p_name, 0));
    IF NOT EXISTS (SELECT 1 FROM s3p.queues WHERE name = p_name) THEN
        RETURN false;
    END IF;
    EXECUTE format('DROP SCHEMA IF EXISTS %I CASCADE', 's3q_' || p_name);
    DELETE FROM s3p.queues WHERE name = p_name;
    RETURN true;
END
$$;
