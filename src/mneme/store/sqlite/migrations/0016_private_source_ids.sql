-- mneme schema 16: a private source's id is its writer's (ADR 0107). A source is known by its
-- bank, its id and its writer: at most one shared source has an id in a bank, and a writer's
-- own sources have distinct ids, but another agent's private source no longer takes the id
-- for everyone (a refusal on writing one was an oracle of its existence). Evidence rows name
-- the writer too, so a unit's evidence is the source its knower wrote. Rows are copied as
-- they are: their seals still hold.

CREATE TABLE sources_new (
    bank_id       TEXT NOT NULL REFERENCES banks(id),
    id            TEXT NOT NULL,
    text          TEXT NOT NULL,
    content_hash  TEXT NOT NULL,
    kind          TEXT NOT NULL,
    agent_id      TEXT NOT NULL,
    session_id    TEXT,
    task_id       TEXT,
    occurred_at   TEXT,
    mentioned_at  TEXT,
    recorded_at   TEXT NOT NULL,
    trust         REAL,
    visibility    TEXT NOT NULL CHECK (visibility IN ('shared', 'private')),
    metadata      TEXT NOT NULL DEFAULT '{}',
    PRIMARY KEY (bank_id, id, agent_id)
);
INSERT INTO sources_new (bank_id, id, text, content_hash, kind, agent_id, session_id, task_id,
    occurred_at, mentioned_at, recorded_at, trust, visibility, metadata)
SELECT bank_id, id, text, content_hash, kind, agent_id, session_id, task_id, occurred_at,
    mentioned_at, recorded_at, trust, visibility, metadata
FROM sources ORDER BY rowid;
DROP TABLE sources;
ALTER TABLE sources_new RENAME TO sources;
CREATE INDEX sources_id ON sources (id);
CREATE UNIQUE INDEX sources_shared_id ON sources (bank_id, id) WHERE visibility = 'shared';

CREATE TRIGGER sources_immutable BEFORE UPDATE ON sources
BEGIN
    SELECT RAISE(ABORT, 'sources are immutable');
END;

CREATE TABLE unit_evidence_new (
    bank_id    TEXT NOT NULL,
    unit_id    TEXT NOT NULL,
    source_id  TEXT NOT NULL,
    agent_id   TEXT NOT NULL,
    at         TEXT NOT NULL,
    PRIMARY KEY (bank_id, unit_id, source_id, agent_id)
);
INSERT INTO unit_evidence_new (bank_id, unit_id, source_id, agent_id, at)
SELECT bank_id, unit_id, source_id, agent_id, at FROM unit_evidence ORDER BY rowid;
DROP TABLE unit_evidence;
ALTER TABLE unit_evidence_new RENAME TO unit_evidence;
CREATE INDEX unit_evidence_source ON unit_evidence (bank_id, source_id);
