-- mneme schema 5 (PostgreSQL form of the SQLite 0005): rules a person adopted from repeated
-- settlements of the same kind of contradiction. They are listed beside the charter, never
-- written into it.

CREATE TABLE adopted_rules (
    bank_id     text COLLATE "C" NOT NULL,
    id          text COLLATE "C" NOT NULL,
    kind        text COLLATE "C" NOT NULL,
    attribute   text COLLATE "C" NOT NULL,
    decision    text COLLATE "C" NOT NULL,
    text        text NOT NULL,
    precedents  integer NOT NULL,
    adopted_by  text NOT NULL,
    adopted_at  timestamptz NOT NULL,
    retired_at  timestamptz,
    PRIMARY KEY (bank_id, id)
);
CREATE UNIQUE INDEX adopted_rules_pattern ON adopted_rules (bank_id, kind, attribute)
    WHERE retired_at IS NULL;
