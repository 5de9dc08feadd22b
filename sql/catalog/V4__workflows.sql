-- Workflows: a chain (each step after the previous one, its result passed on), a group or batch (all at once,
-- batches with callbacks), or a dependency graph. Every form is stored as nodes with depends_on; a node's job is
-- enqueued once all its dependencies completed, in the same transaction as the ack that completed the last one.
CREATE TABLE s3p.workflows (
    id          uuid PRIMARY KEY,
    type        text NOT NULL CHECK (type IN ('chain', 'group', 'batch', 'graph')),
    name        text,
    state       text NOT NULL DEFAULT 'running' CHECK (state IN ('running', 'completed', 'failed', 'cancelled')),
    callbacks   jsonb NOT NULL DEFAULT '{}',
    total       integer NOT NULL,
    completed   integer NOT NULL DEFAULT 0,
    failed      integer NOT NULL DEFAULT 0,
    created_at  timestamptz NOT NULL DEFAULT now(),
    finished_at timestamptz
);
CREATE INDEX workflows_finished ON s3p.workflows (finished_at) WHERE finished_at IS NOT NULL;

CREATE TABLE s3p.workflow_jobs (
    workflow_id uuid NOT NULL REFERENCES s3p.workflows ON DELETE CASCADE,
    idx         integer NOT NULL,
    job_id      uuid NOT NULL,
    queue       text NOT NULL,
    spec        jsonb NOT NULL,
    depends_on  integer[] NOT NULL DEFAULT '{}',
    state       text NOT NULL DEFAULT 'waiting'
                CHECK (state IN ('waiting', 'enqueued', 'completed', 'failed', 'cancelled')),
    result      jsonb,
    PRIMARY KEY (workflow_id, idx)
);
CREATE INDEX workflow_jobs_job ON s3p.workflow_jobs (job_id);

-- Enqueues one normalised job spec (see JobStore) into a queue, creating the queue's namespace if needed.
CREATE FUNCTION s3p.enqueue_spec(p_queue text, p_spec jsonb) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM s3p.ensure_queue_schema(p_queue);
    EXECUTE format('SELECT count(*) FROM %I.enqueue($1)', 's3q_' || p_queue)
        USING jsonb_build_array(p_spec || jsonb_build_object('ord', 1));
END
$$;

CREATE FUNCTION s3p.workflow_enqueue(p_workflow uuid, p_idx integer, p_parent_results jsonb) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
    v_node s3p.workflow_jobs;
    v_spec jsonb;
BEGIN
    SELECT * INTO v_node FROM s3p.workflow_jobs WHERE workflow_id = p_workflow AND idx = p_idx;
    v_spec := v_node.spec || jsonb_build_object('workflow_id', p_workflow);
    IF p_parent_results IS NOT NULL THEN
        v_spec := v_spec || jsonb_build_object('extra', coalesce(v_spec -> 'extra', '{}'::jsonb)
                                                        || jsonb_build_object('parent_results', p_parent_results));
    END IF;
    PERFORM s3p.enqueue_spec(v_node.queue, v_spec);
    UPDATE s3p.workflow_jobs SET state = 'enqueued' WHERE workflow_id = p_workflow AND idx = p_idx;
END
$$;

CREATE FUNCTION s3p.workflow_view(p_id uuid) RETURNS jsonb
LANGUAGE sql STABLE AS $$
    SELECT jsonb_strip_nulls(jsonb_build_object(
               'id', w.id, 'type', w.type, 'name', w.name, 'state', w.state,
               'jobs_total', w.total, 'jobs_completed', w.completed, 'jobs_failed', w.failed,
               'steps_total', w.total, 'steps_completed', w.completed,
               'created_at', s3p.ts(w.created_at), 'finished_at', s3p.ts(w.finished_at)))
        || jsonb_build_object('jobs', (SELECT coalesce(jsonb_agg(jsonb_build_object(
               'index', n.idx, 'job_id', n.job_id, 'type', n.spec ->> 'type', 'queue', n.queue, 'state', n.state,
               'depends_on', to_jsonb(n.depends_on)) ORDER BY n.idx), '[]'::jsonb)
               FROM s3p.workflow_jobs n WHERE n.workflow_id = w.id))
    FROM s3p.workflows w WHERE w.id = p_id
$$;

-- p_nodes: [{"spec": {...}, "queue": "q", "depends_on": [0, ...]}, ...]; p_callbacks: {"on_success": {"spec", "queue"}, ...}.
CREATE FUNCTION s3p.create_workflow(p_id uuid, p_type text, p_name text, p_nodes jsonb, p_callbacks jsonb)
RETURNS jsonb
LANGUAGE plpgsql AS $$
DECLARE
    v_idx integer;
BEGIN
    INSERT INTO s3p.workflows (id, type, name, callbacks, total)
    VALUES (p_id, p_type, p_name, coalesce(p_callbacks, '{}'::jsonb), jsonb_array_length(p_nodes));
    INSERT INTO s3p.workflow_jobs (workflow_id, idx, job_id, queue, spec, depends_on)
    SELECT p_id, (n.ord - 1)::integer, (n.node -> 'spec' ->> 'id')::uuid, n.node ->> 'queue', n.node -> 'spec',
           ARRAY(SELECT d::integer FROM jsonb_array_elements_text(coalesce(n.node -> 'depends_on', '[]'::jsonb)) d)
    FROM jsonb_array_elements(p_nodes) WITH ORDINALITY AS n(node, ord);
    FOR v_idx IN SELECT idx FROM s3p.workflow_jobs WHERE workflow_id = p_id AND depends_on = '{}' ORDER BY idx LOOP
        PERFORM s3p.workflow_enqueue(p_id, v_idx, NULL);
    END LOOP;
    RETURN s3p.workflow_view(p_id);
END
$$;

-- Called by ack (outcome completed) and by a failure that ends a job (outcome failed), in their transaction.
CREATE FUNCTION s3p.workflow_advance(p_job uuid, p_outcome text, p_result jsonb) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
    v_node s3p.workflow_jobs;
    v_flow s3p.workflows;
    v_next record;
BEGIN
    SELECT * INTO v_node FROM s3p.workflow_jobs WHERE job_id = p_job;
    IF NOT FOUND THEN
        RETURN;
    END IF;
    SELECT * INTO v_flow FROM s3p.workflows WHERE id = v_node.workflow_id FOR UPDATE;
    IF v_flow.state <> 'running' OR v_node.state <> 'enqueued' THEN
        RETURN;
    END IF;
    UPDATE s3p.workflow_jobs SET state = p_outcome, result = p_result
    WHERE workflow_id = v_node.workflow_id AND idx = v_node.idx;
    IF p_outcome = 'completed' THEN
        UPDATE s3p.workflows SET completed = completed + 1 WHERE id = v_flow.id RETURNING * INTO v_flow;
        FOR v_next IN
            SELECT w.idx,
                   (SELECT jsonb_agg(coalesce(d.result, 'null'::jsonb) ORDER BY d.idx) FROM s3p.workflow_jobs d
                    WHERE d.workflow_id = w.workflow_id AND d.idx = ANY (w.depends_on)) AS parent_results
            FROM s3p.workflow_jobs w
            WHERE w.workflow_id = v_flow.id AND w.state = 'waiting' AND v_node.idx = ANY (w.depends_on)
              AND NOT EXISTS (SELECT 1 FROM s3p.workflow_jobs d WHERE d.workflow_id = w.workflow_id
                                AND d.idx = ANY (w.depends_on) AND d.state <> 'completed')
            ORDER BY w.idx
        LOOP
            PERFORM s3p.workflow_enqueue(v_flow.id, v_next.idx, v_next.parent_results);
        END LOOP;
    ELSE
        UPDATE s3p.workflows SET failed = failed + 1 WHERE id = v_flow.id RETURNING * INTO v_flow;
        IF v_flow.type IN ('chain', 'graph') THEN
            -- a failed step stops everything that depends on it, so the workflow cannot complete
            UPDATE s3p.workflow_jobs SET state = 'cancelled' WHERE workflow_id = v_flow.id AND state = 'waiting';
            UPDATE s3p.workflows SET state = 'failed', finished_at = now() WHERE id = v_flow.id;
            RETURN;
        END IF;
    END IF;
    IF v_flow.completed + v_flow.failed = v_flow.total THEN
        UPDATE s3p.workflows SET state = CASE WHEN v_flow.failed > 0 THEN 'failed' ELSE 'completed' END,
                                 finished_at = now()
        WHERE id = v_flow.id;
        IF v_flow.callbacks ? 'on_complete' THEN
            PERFORM s3p.enqueue_spec(v_flow.callbacks -> 'on_complete' ->> 'queue', v_flow.callbacks -> 'on_complete' -> 'spec');
        END IF;
        IF v_flow.failed = 0 AND v_flow.callbacks ? 'on_success' THEN
            PERFORM s3p.enqueue_spec(v_flow.callbacks -> 'on_success' ->> 'queue', v_flow.callbacks -> 'on_success' -> 'spec');
        END IF;
        IF v_flow.failed > 0 AND v_flow.callbacks ? 'on_failure' THEN
            PERFORM s3p.enqueue_spec(v_flow.callbacks -> 'on_failure' ->> 'queue', v_flow.callbacks -> 'on_failure' -> 'spec');
        END IF;
    END IF;
END
$$;

-- Cancels a running workflow and every job of it not yet finished; false when it was not running.
CREATE FUNCTION s3p.cancel_workflow(p_id uuid) RETURNS boolean
LANGUAGE plpgsql AS $$
DECLARE
    v_flow s3p.workflows;
    v_job  uuid;
BEGIN
    SELECT * INTO v_flow FROM s3p.workflows WHERE id = p_id FOR UPDATE;
    IF NOT FOUND OR v_flow.state <> 'running' THEN
        RETURN false;
    END IF;
    UPDATE s3p.workflows SET state = 'cancelled', finished_at = now() WHERE id = p_id;
    FOR v_job IN SELECT job_id FROM s3p.workflow_jobs WHERE workflow_id = p_id AND state = 'enqueued' ORDER BY idx LOOP
        PERFORM s3p.job_action('cancel', v_job);
    END LOOP;
    UPDATE s3p.workflow_jobs SET state = 'cancelled' WHERE workflow_id = p_id AND state IN ('waiting', 'enqueued');
    RETURN true;
END
$$;
