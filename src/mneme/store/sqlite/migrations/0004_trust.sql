-- mneme schema 4: trust. Claims (the subject-attribute-value layer) with two status axes,
-- append-only review events, value-level tombstones, conflicts with their resolutions, and the
-- guard that lets a rejected unit or claim become live again only through a review decision.

CREATE TABLE claims (
    bank_id             TEXT NOT NULL,
    id                  TEXT NOT NULL,
    claim_key           TEXT NOT NULL,
    slot_key            TEXT NOT NULL,
    subject             TEXT NOT NULL,
    attribute           TEXT NOT NULL,
    value               TEXT NOT NULL,
    negated             INTEGER NOT NULL DEFAULT 0,
    status              TEXT NOT NULL DEFAULT 'active'
                        CHECK (status IN ('active', 'superseded', 'rejected')),
    review_status       TEXT NOT NULL DEFAULT 'pending_review'
                        CHECK (review_status IN ('pending_review', 'approved', 'rejected',
                                                 'superseded')),
    evidence_count      INTEGER NOT NULL DEFAULT 1,
    evidence_refs       TEXT NOT NULL DEFAULT '[]',
    contradiction_refs  TEXT NOT NULL DEFAULT '[]',
    supersedes          TEXT,
    superseded_by       TEXT,
    first_evidence_at   TEXT NOT NULL,
    last_evidence_at    TEXT NOT NULL,
    created_at          TEXT NOT NULL,
    updated_at          TEXT NOT NULL,
    reviewed_at         TEXT,
    reviewed_by         TEXT,
    review_note         TEXT,
    PRIMARY KEY (bank_id, id)
);
CREATE UNIQUE INDEX claims_key ON claims (bank_id, claim_key);
CREATE INDEX claims_slot ON claims (bank_id, slot_key);
CREATE INDEX claims_review_queue ON claims (bank_id, review_status, updated_at DESC);
CREATE INDEX claims_id ON claims (id);

CREATE TABLE claim_units (
    bank_id   TEXT NOT NULL,
    claim_id  TEXT NOT NULL,
    unit_id   TEXT NOT NULL,
    PRIMARY KEY (bank_id, claim_id, unit_id)
);
CREATE INDEX claim_units_unit ON claim_units (bank_id, unit_id);

CREATE TABLE review_events (
    seq                  INTEGER PRIMARY KEY AUTOINCREMENT,
    bank_id              TEXT NOT NULL,
    id                   TEXT NOT NULL,
    target_kind          TEXT NOT NULL CHECK (target_kind IN ('claim', 'unit', 'conflict')),
    target_id            TEXT NOT NULL,
    decision             TEXT NOT NULL,
    actor                TEXT NOT NULL,
    note                 TEXT NOT NULL DEFAULT '',
    at                   TEXT NOT NULL,
    prior_status         TEXT,
    prior_review_status  TEXT,
    new_status           TEXT,
    new_review_status    TEXT,
    metadata             TEXT NOT NULL DEFAULT '{}'
);
CREATE UNIQUE INDEX review_events_id ON review_events (bank_id, id);
CREATE INDEX review_events_target ON review_events (bank_id, target_id, seq);

CREATE TRIGGER review_events_append_only_update BEFORE UPDATE ON review_events
BEGIN
    SELECT RAISE(ABORT, 'review events are append-only');
END;
CREATE TRIGGER review_events_append_only_delete BEFORE DELETE ON review_events
BEGIN
    SELECT RAISE(ABORT, 'review events are append-only');
END;

CREATE TABLE tombstones (
    bank_id      TEXT NOT NULL,
    id           TEXT NOT NULL,
    content_key  TEXT,
    claim_key    TEXT,
    unit_id      TEXT,
    text         TEXT NOT NULL,
    reason       TEXT NOT NULL,
    actor        TEXT NOT NULL,
    at           TEXT NOT NULL,
    lifted_at    TEXT,
    lifted_by    TEXT,
    evidence     TEXT NOT NULL DEFAULT '[]',
    PRIMARY KEY (bank_id, id)
);
CREATE INDEX tombstones_content ON tombstones (bank_id, content_key);
CREATE INDEX tombstones_claim ON tombstones (bank_id, claim_key);

CREATE TABLE conflicts (
    bank_id      TEXT NOT NULL,
    id           TEXT NOT NULL,
    kind         TEXT NOT NULL,
    pair_key     TEXT NOT NULL,
    a_unit       TEXT NOT NULL,
    b_unit       TEXT NOT NULL,
    a_claim      TEXT,
    b_claim      TEXT,
    status       TEXT NOT NULL CHECK (status IN ('open', 'resolved')),
    resolution   TEXT CHECK (resolution IN ('supersede', 'reject', 'not_conflict',
                                            'scoped_exception')),
    winner       TEXT,
    scope_a      TEXT,
    scope_b      TEXT,
    question     TEXT NOT NULL DEFAULT '',
    created_at   TEXT NOT NULL,
    resolved_at  TEXT,
    resolved_by  TEXT,
    note         TEXT,
    PRIMARY KEY (bank_id, id)
);
CREATE INDEX conflicts_status ON conflicts (bank_id, status, created_at);
CREATE INDEX conflicts_pair ON conflicts (bank_id, pair_key);
CREATE INDEX conflicts_id ON conflicts (id);

-- Guarded transitions: a rejected unit or claim becomes live again only when the newest review
-- event for it is the decision that says so (restore or approve, to that very status).
CREATE TRIGGER units_rejected_guard BEFORE UPDATE OF status ON units
WHEN old.status = 'rejected' AND new.status != 'rejected' AND NOT EXISTS (
    SELECT 1 FROM review_events e
    WHERE e.bank_id = new.bank_id AND e.target_id = new.id
      AND e.decision IN ('restore', 'approve') AND e.new_status = new.status
      AND e.seq = (SELECT max(seq) FROM review_events
                   WHERE bank_id = new.bank_id AND target_id = new.id))
BEGIN
    SELECT RAISE(ABORT, 'a rejected unit becomes live only through a review decision');
END;

CREATE TRIGGER claims_rejected_guard BEFORE UPDATE OF status ON claims
WHEN old.status = 'rejected' AND new.status != 'rejected' AND NOT EXISTS (
    SELECT 1 FROM review_events e
    WHERE e.bank_id = new.bank_id AND e.target_id = new.id
      AND e.decision IN ('restore', 'approve') AND e.new_status = new.status
      AND e.seq = (SELECT max(seq) FROM review_events
                   WHERE bank_id = new.bank_id AND target_id = new.id))
BEGIN
    SELECT RAISE(ABORT, 'a rejected claim becomes live only through a review decision');
END;

-- Ids are unique store-wide (ULIDs, or the caller's own source ids): look them up without a bank.
CREATE INDEX sources_id ON sources (id);
CREATE INDEX audit_log_target ON audit_log (bank_id, target, seq);
