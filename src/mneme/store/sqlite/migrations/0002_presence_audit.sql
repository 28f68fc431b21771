-- mneme schema 2: agent presence (the swarm roster) and the hash-chained mutation audit log.

CREATE TABLE agents (
    bank_id     TEXT NOT NULL,
    id          TEXT NOT NULL,
    host        TEXT,
    status      TEXT NOT NULL DEFAULT 'active',
    first_seen  TEXT NOT NULL,
    last_seen   TEXT NOT NULL,
    PRIMARY KEY (bank_id, id)
);
CREATE INDEX agents_last_seen ON agents (bank_id, last_seen);

-- Agents anchor who wrote what: a record is never deleted.
CREATE TRIGGER agents_never_deleted BEFORE DELETE ON agents
BEGIN
    SELECT RAISE(ABORT, 'agent records are never deleted');
END;

CREATE TABLE audit_log (
    seq        INTEGER PRIMARY KEY AUTOINCREMENT,
    bank_id    TEXT NOT NULL,
    at         TEXT NOT NULL,
    actor      TEXT NOT NULL,
    op         TEXT NOT NULL,
    target     TEXT NOT NULL,
    before     TEXT,
    after      TEXT,
    reason     TEXT NOT NULL DEFAULT '',
    prev_hash  TEXT NOT NULL,
    hash       TEXT NOT NULL
);
CREATE INDEX audit_log_bank ON audit_log (bank_id, seq);

-- The head of each bank's chain: deleting the newest records leaves a head that no longer
-- matches the last record, so truncation is detected too.
CREATE TABLE audit_head (
    bank_id  TEXT PRIMARY KEY,
    seq      INTEGER NOT NULL,
    hash     TEXT NOT NULL,
    count    INTEGER NOT NULL
);
