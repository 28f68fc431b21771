-- mneme schema 3: the ingest buffer (confirm-or-promise). An accepted write is persisted here
-- before it is acknowledged; the worker marks it done in the same transaction that stores its
-- memories, so a crash at any point leaves it either pending (and retried) or done, never both.

CREATE TABLE ingest_queue (
    bank_id      TEXT NOT NULL,
    id           TEXT NOT NULL,
    payload      TEXT NOT NULL,
    status       TEXT NOT NULL CHECK (status IN ('pending', 'processing', 'done', 'failed')),
    attempts     INTEGER NOT NULL DEFAULT 0,
    created_at   TEXT NOT NULL,
    updated_at   TEXT NOT NULL,
    result       TEXT,
    error        TEXT,
    PRIMARY KEY (bank_id, id)
);
CREATE UNIQUE INDEX ingest_queue_id ON ingest_queue (id);
CREATE INDEX ingest_queue_pending ON ingest_queue (status, created_at);
