-- API tokens kept in the catalog (created and revoked through /ojs/v1/admin/tokens). Only the SHA-256 of a token is
-- stored: the plaintext is shown once, when the token is created. Revoking a token deletes its row.
CREATE TABLE s3p.api_tokens (
    name       text PRIMARY KEY CHECK (length(name) BETWEEN 1 AND 255),
    token_hash text NOT NULL UNIQUE CHECK (token_hash ~ '^[0-9a-f]{64}$'),
    scopes     text[] NOT NULL CHECK (cardinality(scopes) > 0),
    queues     text[] NOT NULL DEFAULT '{}',
    created_at timestamptz NOT NULL DEFAULT now()
);
