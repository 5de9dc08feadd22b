-- The base part of every queue namespace: per-queue settings shared by the jobs and streams views.
INSERT INTO s3p.queue_templates (part, position, body) VALUES ('base', 0, $template$

CREATE TABLE IF NOT EXISTS @schema@.queue_settings (
    singleton  boolean PRIMARY KEY DEFAULT true CHECK (singleton),
    created_at timestamptz NOT NULL DEFAULT now()
);
INSERT INTO @schema@.queue_settings (singleton) VALUES (true) ON CONFLICT DO NOTHING;

$template$)
ON CONFLICT (part) DO UPDATE SET position = excluded.position, body = excluded.body;
