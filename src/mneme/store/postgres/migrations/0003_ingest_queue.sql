-- mneme schema 3: the ingest buffer (confirm-or-promise). An accepted write is persisted here
-- before it is acknowledged; the worker marks it done in the same transaction that stores its
-- memories, so a crash at any point leaves it either pending (and retried) or done, never both.

CREATE TABLE ingest_queue (
    bank_id      text COLLATE "C" NOT NULL,
    id           text COLLATE "C" NOT NULL,
    payload      jsonb NOT NULL,
    status       text COLLATE "C" NOT NULL
                 CHECK (status IN ('pending', 'processing', 'done', 'failed')),
    attempts     integer NOT NULL DEFAULT 0,
    created_at   timestamptz NOT NULL,
    updated_at   timestamptz NOT NULL,
    result       jsonb,
    error        text,
    PRIMARY KEY (bank_id, id)
);
CREATE UNIQUE INDEX ingest_queue_id ON ingest_queue (id);
CREATE INDEX ingest_queue_pending ON ingest_queue (status, created_at);
