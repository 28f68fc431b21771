-- mneme schema 1: banks, sources, memory units (with knowers and evidence), entities, mentions,
-- typed edges, embeddings with their model identity, the FTS5 lexical index, and the index
-- generation counter that tells an in-memory vector index it is stale.
-- Every table carries bank_id and has it first in its primary key (ADR 0002).

CREATE TABLE banks (
    id          TEXT PRIMARY KEY,
    name        TEXT NOT NULL,
    created_at  TEXT NOT NULL,
    config      TEXT NOT NULL DEFAULT '{}'
);

CREATE TABLE sources (
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
    PRIMARY KEY (bank_id, id)
);

-- Sources are immutable: the charter says so and the store enforces it.
CREATE TRIGGER sources_immutable BEFORE UPDATE ON sources
BEGIN
    SELECT RAISE(ABORT, 'sources are immutable');
END;

CREATE TABLE units (
    bank_id          TEXT NOT NULL REFERENCES banks(id),
    id               TEXT NOT NULL,
    text             TEXT NOT NULL,
    content_key      TEXT NOT NULL,
    network          TEXT NOT NULL,
    type             TEXT NOT NULL,
    status           TEXT NOT NULL,
    confidence       REAL NOT NULL CHECK (confidence >= 0 AND confidence <= 1),
    agent_id         TEXT NOT NULL,
    visibility       TEXT NOT NULL CHECK (visibility IN ('shared', 'private')),
    -- '' for shared units, the author for private ones: one shared unit per content key, and
    -- one private unit per author and content key, enforced by the unique index below.
    owner            TEXT NOT NULL,
    occurred_start   TEXT,
    occurred_end     TEXT,
    valid_from       TEXT,
    valid_until      TEXT,
    recorded_at      TEXT NOT NULL,
    retired_at       TEXT,
    mentioned_at     TEXT,
    embedding_model  TEXT,
    embedding_dim    INTEGER,
    superseded_by    TEXT,
    supersedes       TEXT NOT NULL DEFAULT '[]',
    contradictions   TEXT NOT NULL DEFAULT '[]',
    categories       TEXT NOT NULL DEFAULT '[]',
    metadata         TEXT NOT NULL DEFAULT '{}',
    PRIMARY KEY (bank_id, id)
);
CREATE UNIQUE INDEX units_content_key ON units (bank_id, content_key, owner);
CREATE INDEX units_status ON units (bank_id, status);
CREATE INDEX units_occurred ON units (bank_id, occurred_start);
CREATE INDEX units_id ON units (id);

CREATE TABLE unit_knowers (
    bank_id          TEXT NOT NULL,
    unit_id          TEXT NOT NULL,
    agent_id         TEXT NOT NULL,
    first_source_id  TEXT,
    first_at         TEXT NOT NULL,
    PRIMARY KEY (bank_id, unit_id, agent_id)
);
CREATE INDEX unit_knowers_agent ON unit_knowers (bank_id, agent_id);

CREATE TABLE unit_evidence (
    bank_id    TEXT NOT NULL,
    unit_id    TEXT NOT NULL,
    source_id  TEXT NOT NULL,
    agent_id   TEXT NOT NULL,
    at         TEXT NOT NULL,
    PRIMARY KEY (bank_id, unit_id, source_id)
);
CREATE INDEX unit_evidence_source ON unit_evidence (bank_id, source_id);

CREATE TABLE entities (
    bank_id  TEXT NOT NULL,
    id       TEXT NOT NULL,
    name     TEXT NOT NULL,
    key      TEXT NOT NULL,
    kind     TEXT NOT NULL,
    aliases  TEXT NOT NULL DEFAULT '[]',
    PRIMARY KEY (bank_id, id)
);
CREATE UNIQUE INDEX entities_key ON entities (bank_id, key);

CREATE TABLE mentions (
    bank_id    TEXT NOT NULL,
    unit_id    TEXT NOT NULL,
    entity_id  TEXT NOT NULL,
    PRIMARY KEY (bank_id, unit_id, entity_id)
);
CREATE INDEX mentions_entity ON mentions (bank_id, entity_id);

CREATE TABLE edges (
    bank_id     TEXT NOT NULL,
    id          TEXT NOT NULL,
    src         TEXT NOT NULL,
    dst         TEXT NOT NULL,
    type        TEXT NOT NULL,
    weight      REAL NOT NULL DEFAULT 1.0,
    confidence  REAL NOT NULL DEFAULT 1.0,
    made_by     TEXT NOT NULL,
    created_at  TEXT NOT NULL,
    metadata    TEXT NOT NULL DEFAULT '{}',
    PRIMARY KEY (bank_id, id)
);
CREATE INDEX edges_src ON edges (bank_id, src, type);
CREATE INDEX edges_dst ON edges (bank_id, dst, type);

CREATE TABLE embeddings (
    bank_id  TEXT NOT NULL,
    unit_id  TEXT NOT NULL,
    model    TEXT NOT NULL,
    dim      INTEGER NOT NULL,
    vector   BLOB NOT NULL,
    PRIMARY KEY (bank_id, unit_id, model)
);
CREATE INDEX embeddings_model ON embeddings (bank_id, model);

CREATE VIRTUAL TABLE units_fts USING fts5(
    text,
    content = 'units',
    content_rowid = 'rowid',
    tokenize = 'porter unicode61 remove_diacritics 2'
);
CREATE TRIGGER units_fts_insert AFTER INSERT ON units BEGIN
    INSERT INTO units_fts (rowid, text) VALUES (new.rowid, new.text);
END;
CREATE TRIGGER units_fts_delete AFTER DELETE ON units BEGIN
    INSERT INTO units_fts (units_fts, rowid, text) VALUES ('delete', old.rowid, old.text);
END;
CREATE TRIGGER units_fts_update AFTER UPDATE OF text ON units BEGIN
    INSERT INTO units_fts (units_fts, rowid, text) VALUES ('delete', old.rowid, old.text);
    INSERT INTO units_fts (rowid, text) VALUES (new.rowid, new.text);
END;

-- Bumped once by every write transaction that touches a bank: a process that holds an
-- in-memory vector index compares it with the generation its index was built at.
CREATE TABLE index_state (
    bank_id     TEXT PRIMARY KEY,
    generation  INTEGER NOT NULL DEFAULT 0
);
