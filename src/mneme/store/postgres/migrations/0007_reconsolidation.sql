-- mneme schema 7 (PostgreSQL form of the SQLite 0007): reconsolidation. A belief change records
-- pending work (has_pending is one indexed lookup); a sweep's verdicts below the confidence bar
-- wait here for a person.

CREATE TABLE reconsolidation (
    bank_id     text COLLATE "C" NOT NULL,
    id          text COLLATE "C" NOT NULL,
    belief_id   text COLLATE "C" NOT NULL,
    reason      text NOT NULL,
    status      text COLLATE "C" NOT NULL CHECK (status IN ('pending', 'done')),
    created_at  timestamptz NOT NULL,
    done_at     timestamptz,
    report      jsonb,
    PRIMARY KEY (bank_id, id)
);
CREATE INDEX reconsolidation_pending ON reconsolidation (status, bank_id, created_at);

CREATE TABLE sweep_proposals (
    bank_id     text COLLATE "C" NOT NULL,
    id          text COLLATE "C" NOT NULL,
    unit_id     text COLLATE "C" NOT NULL,
    belief_id   text COLLATE "C" NOT NULL,
    verdict     text COLLATE "C" NOT NULL,
    reason      text NOT NULL,
    evidence    jsonb NOT NULL DEFAULT '[]',
    confidence  double precision NOT NULL,
    status      text COLLATE "C" NOT NULL CHECK (status IN ('open', 'accepted', 'dismissed')),
    created_at  timestamptz NOT NULL,
    decided_at  timestamptz,
    decided_by  text,
    PRIMARY KEY (bank_id, id)
);
CREATE INDEX sweep_proposals_open ON sweep_proposals (bank_id, status, created_at);
CREATE INDEX sweep_proposals_id ON sweep_proposals (id);
