-- mneme schema 1 (PostgreSQL form of the SQLite 0001): banks, sources, memory units (with
-- knowers and evidence), entities, mentions, typed edges, embeddings with their model identity,
-- the tsvector lexical index, and the per-bank index state.
-- Every table carries bank_id and has it first in its primary key (ADR 0002).
-- Identifiers and keys use the "C" collation so ORDER BY id breaks ties byte-wise, exactly as
-- SQLite's BINARY collation does, whatever the database's default locale is.
-- The vector extension is created by the migration runner (it needs a clear error when missing).

CREATE TABLE banks (
    id          text COLLATE "C" PRIMARY KEY,
    name        text NOT NULL,
    created_at  timestamptz NOT NULL,
    config      jsonb NOT NULL DEFAULT '{}'
);

CREATE TABLE sources (
    bank_id       text COLLATE "C" NOT NULL REFERENCES banks(id),
    id            text COLLATE "C" NOT NULL,
    text          text NOT NULL,
    content_hash  text COLLATE "C" NOT NULL,
    kind          text COLLATE "C" NOT NULL,
    agent_id      text COLLATE "C" NOT NULL,
    session_id    text COLLATE "C",
    task_id       text COLLATE "C",
    occurred_at   timestamptz,
    mentioned_at  timestamptz,
    recorded_at   timestamptz NOT NULL,
    trust         double precision,
    visibility    text COLLATE "C" NOT NULL CHECK (visibility IN ('shared', 'private')),
    metadata      jsonb NOT NULL DEFAULT '{}',
    PRIMARY KEY (bank_id, id)
);
CREATE INDEX sources_id ON sources (id);

-- Sources are immutable: the charter says so and the store enforces it.
CREATE FUNCTION mneme_sources_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'sources are immutable' USING ERRCODE = 'integrity_constraint_violation';
END;
$$;
CREATE TRIGGER sources_immutable BEFORE UPDATE ON sources
    FOR EACH ROW EXECUTE FUNCTION mneme_sources_immutable();

CREATE TABLE units (
    bank_id          text COLLATE "C" NOT NULL REFERENCES banks(id),
    id               text COLLATE "C" NOT NULL,
    -- insertion order (SQLite's rowid): the tie-break of units_of_source
    seq              bigint GENERATED ALWAYS AS IDENTITY,
    text             text NOT NULL,
    content_key      text COLLATE "C" NOT NULL,
    network          text COLLATE "C" NOT NULL,
    type             text COLLATE "C" NOT NULL,
    status           text COLLATE "C" NOT NULL,
    confidence       double precision NOT NULL CHECK (confidence >= 0 AND confidence <= 1),
    agent_id         text COLLATE "C" NOT NULL,
    visibility       text COLLATE "C" NOT NULL CHECK (visibility IN ('shared', 'private')),
    -- '' for shared units, the author for private ones: one shared unit per content key, and
    -- one private unit per author and content key, enforced by the unique index below.
    owner            text COLLATE "C" NOT NULL,
    occurred_start   timestamptz,
    occurred_end     timestamptz,
    valid_from       timestamptz,
    valid_until      timestamptz,
    recorded_at      timestamptz NOT NULL,
    retired_at       timestamptz,
    mentioned_at     timestamptz,
    embedding_model  text COLLATE "C",
    embedding_dim    integer,
    superseded_by    text COLLATE "C",
    supersedes       jsonb NOT NULL DEFAULT '[]',
    contradictions   jsonb NOT NULL DEFAULT '[]',
    categories       jsonb NOT NULL DEFAULT '[]',
    metadata         jsonb NOT NULL DEFAULT '{}',
    -- The lexical channel: English stemming and stop words (SQLite uses FTS5 porter), and the
    -- token count BM25 normalises by (set by the store at insert; unit text never changes).
    tsv              tsvector GENERATED ALWAYS AS (to_tsvector('english', text)) STORED,
    doc_len          integer NOT NULL DEFAULT 0,
    PRIMARY KEY (bank_id, id)
);
CREATE UNIQUE INDEX units_content_key ON units (bank_id, content_key, owner);
CREATE INDEX units_status ON units (bank_id, status);
CREATE INDEX units_occurred ON units (bank_id, occurred_start);
CREATE INDEX units_id ON units (id);
CREATE INDEX units_tsv ON units USING gin (tsv);

CREATE TABLE unit_knowers (
    bank_id          text COLLATE "C" NOT NULL,
    unit_id          text COLLATE "C" NOT NULL,
    agent_id         text COLLATE "C" NOT NULL,
    first_source_id  text COLLATE "C",
    first_at         timestamptz NOT NULL,
    PRIMARY KEY (bank_id, unit_id, agent_id)
);
CREATE INDEX unit_knowers_agent ON unit_knowers (bank_id, agent_id);

CREATE TABLE unit_evidence (
    bank_id    text COLLATE "C" NOT NULL,
    unit_id    text COLLATE "C" NOT NULL,
    source_id  text COLLATE "C" NOT NULL,
    agent_id   text COLLATE "C" NOT NULL,
    at         timestamptz NOT NULL,
    PRIMARY KEY (bank_id, unit_id, source_id)
);
CREATE INDEX unit_evidence_source ON unit_evidence (bank_id, source_id);

CREATE TABLE entities (
    bank_id  text COLLATE "C" NOT NULL,
    id       text COLLATE "C" NOT NULL,
    name     text COLLATE "C" NOT NULL,
    key      text COLLATE "C" NOT NULL,
    kind     text COLLATE "C" NOT NULL,
    aliases  jsonb NOT NULL DEFAULT '[]',
    PRIMARY KEY (bank_id, id)
);
CREATE UNIQUE INDEX entities_key ON entities (bank_id, key);

CREATE TABLE mentions (
    bank_id    text COLLATE "C" NOT NULL,
    unit_id    text COLLATE "C" NOT NULL,
    entity_id  text COLLATE "C" NOT NULL,
    PRIMARY KEY (bank_id, unit_id, entity_id)
);
CREATE INDEX mentions_entity ON mentions (bank_id, entity_id);

CREATE TABLE edges (
    bank_id     text COLLATE "C" NOT NULL,
    id          text COLLATE "C" NOT NULL,
    src         text COLLATE "C" NOT NULL,
    dst         text COLLATE "C" NOT NULL,
    type        text COLLATE "C" NOT NULL,
    weight      double precision NOT NULL DEFAULT 1.0,
    confidence  double precision NOT NULL DEFAULT 1.0,
    made_by     text COLLATE "C" NOT NULL,
    created_at  timestamptz NOT NULL,
    metadata    jsonb NOT NULL DEFAULT '{}',
    PRIMARY KEY (bank_id, id)
);
CREATE INDEX edges_src ON edges (bank_id, src, type);
CREATE INDEX edges_dst ON edges (bank_id, dst, type);

-- The vector column has no fixed dimension, so one table holds every model's vectors. The
-- store creates one partial HNSW expression index per (model, dim) on first use:
--   USING hnsw ((vector::vector(DIM)) vector_cosine_ops) WHERE model = 'M' AND dim = DIM
-- and the semantic query casts and filters the same way so the planner can use it (vectors.py).
CREATE TABLE embeddings (
    bank_id  text COLLATE "C" NOT NULL,
    unit_id  text COLLATE "C" NOT NULL,
    model    text COLLATE "C" NOT NULL,
    dim      integer NOT NULL,
    vector   vector NOT NULL,
    PRIMARY KEY (bank_id, unit_id, model)
);
CREATE INDEX embeddings_model ON embeddings (bank_id, model);

-- Bumped once by every write transaction that touches a bank (parity with SQLite), plus the
-- corpus statistics BM25 needs (unit count and total token count per bank), kept exact by
-- put_unit in the same transaction.
CREATE TABLE index_state (
    bank_id     text COLLATE "C" PRIMARY KEY,
    generation  bigint NOT NULL DEFAULT 0,
    docs        bigint NOT NULL DEFAULT 0,
    total_len   bigint NOT NULL DEFAULT 0
);
