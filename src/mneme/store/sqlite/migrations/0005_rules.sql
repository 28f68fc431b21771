-- mneme schema 5: rules a person adopted from repeated settlements of the same kind of
-- contradiction. They are listed beside the charter, never written into it.

CREATE TABLE adopted_rules (
    bank_id     TEXT NOT NULL,
    id          TEXT NOT NULL,
    kind        TEXT NOT NULL,
    attribute   TEXT NOT NULL,
    decision    TEXT NOT NULL,
    text        TEXT NOT NULL,
    precedents  INTEGER NOT NULL,
    adopted_by  TEXT NOT NULL,
    adopted_at  TEXT NOT NULL,
    retired_at  TEXT,
    PRIMARY KEY (bank_id, id)
);
CREATE UNIQUE INDEX adopted_rules_pattern ON adopted_rules (bank_id, kind, attribute)
    WHERE retired_at IS NULL;
