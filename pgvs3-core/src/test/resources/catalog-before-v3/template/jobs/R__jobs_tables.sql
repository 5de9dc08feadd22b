-- The jobs view of every queue namespace, part 1: one mutable row per job with partial indexes per state, and the
-- queue's job settings. The functions of the job lifecycle follow in the parts after it; every one works on this
-- queue's table only, and the s3p.* entry points (V1__catalog.sql) find the queue that holds a job.
INSERT INTO s3p.queue_templates (part, position, body) VALUES ('jobs.tables', 10, $template$

CREATE TABLE IF NOT EXISTS @schema@.jobs (
    id                    uuid PRIMARY KEY,
    seq                   bigserial NOT NULL,
    type                  text NOT NULL,
    state                 text NOT NULL CHECK (state IN ('scheduled', 'available', 'pending', 'active', 'completed',
                                                         'retryable', 'cancelled', 'discarded')),
    args                  jsonb NOT NULL,
    meta                  jsonb,
    options               jsonb,
    extra                 jsonb,
    priority              integer NOT NULL DEFAULT 0,
    attempt               integer NOT NULL DEFAULT 0,
    max_attempts          integer NOT NULL,
    retry                 jsonb NOT NULL,
    timeout_ms            bigint,
    visibility_timeout_ms bigint,
    scheduled_at          timestamptz,
    expires_at            timestamptz,
    worker_id             text,
    lease_until           timestamptz,
    deadline_at           timestamptz,
    created_at            timestamptz NOT NULL DEFAULT now(),
    enqueued_at           timestamptz NOT NULL DEFAULT now(),
    started_at            timestamptz,
    completed_at          timestamptz,
    cancelled_at          timestamptz,
    discarded_at          timestamptz,
    finished_at           timestamptz,
    result                jsonb,
    error                 jsonb,
    errors                jsonb NOT NULL DEFAULT '[]',
    retry_delay_ms        bigint,
    dead_letter           boolean NOT NULL DEFAULT false,
    unique_key            text,
    workflow_id           uuid
);

-- The claim order (priority, then FIFO), due scheduled and retryable jobs, active jobs by the first of their lease
-- end and execution deadline, and terminal jobs for retention: each index holds only the rows in its state.
-- Every INSERT and UPDATE statement on jobs prepares the predicate of each partial index once, so each index costs
-- every one-job enqueue about a microsecond of server time even when the new row does not enter it: active jobs
-- have one index, not one for leases and one for deadlines (see maintain, which reads both through it).
CREATE INDEX IF NOT EXISTS jobs_available ON @schema@.jobs (priority DESC, seq) WHERE state = 'available';
CREATE INDEX IF NOT EXISTS jobs_due ON @schema@.jobs (scheduled_at) WHERE state IN ('scheduled', 'retryable');
DROP INDEX IF EXISTS @schema@.jobs_lease;
DROP INDEX IF EXISTS @schema@.jobs_deadline;
CREATE INDEX IF NOT EXISTS jobs_active ON @schema@.jobs (least(lease_until, deadline_at)) WHERE state = 'active';
CREATE INDEX IF NOT EXISTS jobs_finished ON @schema@.jobs (finished_at)
    WHERE state IN ('completed', 'cancelled', 'discarded') AND NOT dead_letter;
CREATE INDEX IF NOT EXISTS jobs_dead_letter ON @schema@.jobs (finished_at) WHERE dead_letter;

CREATE INDEX IF NOT EXISTS jobs_unique_key ON @schema@.jobs (unique_key, seq) WHERE unique_key IS NOT NULL;

-- Per-queue job settings: paused (fetch hands out nothing, enqueue still works) and a rate limit on claims, kept
-- as a token bucket of rate_limit_per_second tokens.
CREATE TABLE IF NOT EXISTS @schema@.job_settings (
    singleton             boolean PRIMARY KEY DEFAULT true CHECK (singleton),
    paused                boolean NOT NULL DEFAULT false,
    rate_limit_per_second double precision CHECK (rate_limit_per_second > 0),
    tokens                double precision NOT NULL DEFAULT 0,
    refilled_at           timestamptz NOT NULL DEFAULT now()
);
INSERT INTO @schema@.job_settings (singleton) VALUES (true) ON CONFLICT DO NOTHING;

-- Counts the moves that make a job available at a place in the claim order that claims may already have passed
-- (promotion of due jobs, expired leases, requeues, releases, dead-letter retries). Claims compare it with the value
-- they last saw to know that their resume point (see claim_rows) may hide a job. A sequence: bumping it writes no
-- row version, so it costs nothing under a held snapshot.
CREATE SEQUENCE IF NOT EXISTS @schema@.jobs_rewinds;

$template$)
ON CONFLICT (part) DO UPDATE SET position = excluded.position, body = excluded.body;
