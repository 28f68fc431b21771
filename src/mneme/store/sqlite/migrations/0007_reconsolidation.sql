-- mneme schema 7: reconsolidation. A belief change records pending work (has_pending is one
-- indexed lookup); a sweep's verdicts below the confidence bar wait here for a person.

CREATE TABLE reconsolidation (
    bank_id     TEXT NOT NULL,
    id          TEXT NOT NULL,
    belief_id   TEXT NOT NULL,
    reason      TEXT NOT NULL,
    status      TEXT NOT NULL CHECK (status IN ('pending', 'done')),
    created_at  TEXT NOT NULL,
    done_at     TEXT,
    report      TEXT,
    PRIMARY KEY (bank_id, id)
);
CREATE INDEX reconsolidation_pending ON reconsolidation (status, bank_id, created_at);

CREATE TABLE sweep_proposals (
    bank_id     TEXT NOT NULL,
    id          TEXT NOT NULL,
    unit_id     TEXT NOT NULL,
    belief_id   TEXT NOT NULL,
    verdict     TEXT NOT NULL,
    reason      TEXT NOT NULL,
    evidence    TEXT NOT NULL DEFAULT '[]',
    confidence  REAL NOT NULL,
    status      TEXT NOT NULL CHECK (status IN ('open', 'accepted', 'dismissed')),
    created_at  TEXT NOT NULL,
    decided_at  TEXT,
    decided_by  TEXT,
    PRIMARY KEY (bank_id, id)
);
CREATE INDEX sweep_proposals_open ON sweep_proposals (bank_id, status, created_at);
CREATE INDEX sweep_proposals_id ON sweep_proposals (id);
