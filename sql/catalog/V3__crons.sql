-- Cron registrations: one row per name. The maintenance pass fires due rows under FOR UPDATE SKIP LOCKED and moves
-- next_run_at past now in the same transaction, so each occurrence fires once however many instances run, and a
-- server that was down fires a missed occurrence once.
CREATE TABLE s3p.crons (
    name           text PRIMARY KEY CHECK (length(name) BETWEEN 1 AND 255),
    expression     text NOT NULL,
    timezone       text NOT NULL,
    overlap_policy text NOT NULL CHECK (overlap_policy IN ('skip', 'allow')),
    job_template   jsonb NOT NULL,
    queue          text NOT NULL,
    enabled        boolean NOT NULL DEFAULT true,
    next_run_at    timestamptz NOT NULL,
    last_run_at    timestamptz,
    last_job_id    uuid,
    created_at     timestamptz NOT NULL DEFAULT now(),
    updated_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX crons_due ON s3p.crons (next_run_at) WHERE enabled;
