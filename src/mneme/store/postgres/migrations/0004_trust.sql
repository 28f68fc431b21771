-- mneme schema 4 (PostgreSQL form of the SQLite 0004): trust. Claims (the subject-attribute-value
-- layer) with two status axes, append-only review events, value-level tombstones, conflicts with
-- their resolutions, and the guard that lets a rejected unit or claim become live again only
-- through a review decision. Also: the keys that let every table be distributed by bank_id
-- (ADR 0007: bank_id first in every primary key and in every unique index).

CREATE TABLE claims (
    bank_id             text COLLATE "C" NOT NULL,
    id                  text COLLATE "C" NOT NULL,
    claim_key           text COLLATE "C" NOT NULL,
    slot_key            text COLLATE "C" NOT NULL,
    subject             text NOT NULL,
    attribute           text NOT NULL,
    value               text NOT NULL,
    negated             boolean NOT NULL DEFAULT false,
    status              text COLLATE "C" NOT NULL DEFAULT 'active'
                        CHECK (status IN ('active', 'superseded', 'rejected')),
    review_status       text COLLATE "C" NOT NULL DEFAULT 'pending_review'
                        CHECK (review_status IN ('pending_review', 'approved', 'rejected',
                                                 'superseded')),
    evidence_count      integer NOT NULL DEFAULT 1,
    evidence_refs       jsonb NOT NULL DEFAULT '[]',
    contradiction_refs  jsonb NOT NULL DEFAULT '[]',
    supersedes          text COLLATE "C",
    superseded_by       text COLLATE "C",
    first_evidence_at   timestamptz NOT NULL,
    last_evidence_at    timestamptz NOT NULL,
    created_at          timestamptz NOT NULL,
    updated_at          timestamptz NOT NULL,
    reviewed_at         timestamptz,
    reviewed_by         text,
    review_note         text,
    PRIMARY KEY (bank_id, id)
);
CREATE UNIQUE INDEX claims_key ON claims (bank_id, claim_key);
CREATE INDEX claims_slot ON claims (bank_id, slot_key);
CREATE INDEX claims_review_queue ON claims (bank_id, review_status, updated_at DESC);
CREATE INDEX claims_id ON claims (id);

CREATE TABLE claim_units (
    bank_id   text COLLATE "C" NOT NULL,
    claim_id  text COLLATE "C" NOT NULL,
    unit_id   text COLLATE "C" NOT NULL,
    PRIMARY KEY (bank_id, claim_id, unit_id)
);
CREATE INDEX claim_units_unit ON claim_units (bank_id, unit_id);

-- seq orders a target's events (the guard reads the newest); bank_id leads the key so the
-- table distributes by bank like every other.
CREATE TABLE review_events (
    seq                  bigint GENERATED ALWAYS AS IDENTITY,
    bank_id              text COLLATE "C" NOT NULL,
    id                   text COLLATE "C" NOT NULL,
    target_kind          text COLLATE "C" NOT NULL
                         CHECK (target_kind IN ('claim', 'unit', 'conflict')),
    target_id            text COLLATE "C" NOT NULL,
    decision             text COLLATE "C" NOT NULL,
    actor                text NOT NULL,
    note                 text NOT NULL DEFAULT '',
    at                   timestamptz NOT NULL,
    prior_status         text COLLATE "C",
    prior_review_status  text COLLATE "C",
    new_status           text COLLATE "C",
    new_review_status    text COLLATE "C",
    metadata             jsonb NOT NULL DEFAULT '{}',
    PRIMARY KEY (bank_id, seq)
);
CREATE UNIQUE INDEX review_events_id ON review_events (bank_id, id);
CREATE INDEX review_events_target ON review_events (bank_id, target_id, seq);
CREATE INDEX review_events_cause ON review_events (bank_id, (metadata ->> 'cause'));

CREATE FUNCTION mneme_review_events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'review events are append-only'
        USING ERRCODE = 'integrity_constraint_violation';
END;
$$;
CREATE TRIGGER review_events_append_only BEFORE UPDATE OR DELETE ON review_events
    FOR EACH ROW EXECUTE FUNCTION mneme_review_events_append_only();
CREATE TRIGGER review_events_no_truncate BEFORE TRUNCATE ON review_events
    FOR EACH STATEMENT EXECUTE FUNCTION mneme_review_events_append_only();

CREATE TABLE tombstones (
    bank_id      text COLLATE "C" NOT NULL,
    id           text COLLATE "C" NOT NULL,
    content_key  text COLLATE "C",
    claim_key    text COLLATE "C",
    unit_id      text COLLATE "C",
    text         text NOT NULL,
    reason       text NOT NULL,
    actor        text NOT NULL,
    at           timestamptz NOT NULL,
    lifted_at    timestamptz,
    lifted_by    text,
    evidence     jsonb NOT NULL DEFAULT '[]',
    PRIMARY KEY (bank_id, id)
);
CREATE INDEX tombstones_content ON tombstones (bank_id, content_key);
CREATE INDEX tombstones_claim ON tombstones (bank_id, claim_key);

CREATE TABLE conflicts (
    bank_id      text COLLATE "C" NOT NULL,
    id           text COLLATE "C" NOT NULL,
    kind         text COLLATE "C" NOT NULL,
    pair_key     text COLLATE "C" NOT NULL,
    a_unit       text COLLATE "C" NOT NULL,
    b_unit       text COLLATE "C" NOT NULL,
    a_claim      text COLLATE "C",
    b_claim      text COLLATE "C",
    status       text COLLATE "C" NOT NULL CHECK (status IN ('open', 'resolved')),
    resolution   text COLLATE "C" CHECK (resolution IN ('supersede', 'reject', 'not_conflict',
                                                        'scoped_exception')),
    winner       text COLLATE "C",
    scope_a      text,
    scope_b      text,
    question     text NOT NULL DEFAULT '',
    created_at   timestamptz NOT NULL,
    resolved_at  timestamptz,
    resolved_by  text,
    note         text,
    PRIMARY KEY (bank_id, id)
);
CREATE INDEX conflicts_status ON conflicts (bank_id, status, created_at);
CREATE INDEX conflicts_pair ON conflicts (bank_id, pair_key);
CREATE INDEX conflicts_id ON conflicts (id);

-- Guarded transitions: a rejected unit or claim becomes live again only when the newest review
-- event for it is the decision that says so (restore or approve, to that very status). A
-- trigger, not application code, so no path around the review workflow exists: update_unit,
-- update_claim and a raw UPDATE all meet it.
CREATE FUNCTION mneme_rejected_guard() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    last_decision text;
    last_status   text;
BEGIN
    SELECT e.decision, e.new_status INTO last_decision, last_status
    FROM review_events e
    WHERE e.bank_id = NEW.bank_id AND e.target_id = NEW.id
    ORDER BY e.seq DESC LIMIT 1;
    IF last_decision IS NULL OR last_decision NOT IN ('restore', 'approve')
       OR last_status IS DISTINCT FROM NEW.status THEN
        RAISE EXCEPTION 'a rejected % becomes live only through a review decision', TG_ARGV[0]
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN NEW;
END;
$$;
CREATE TRIGGER units_rejected_guard BEFORE UPDATE OF status ON units
    FOR EACH ROW WHEN (OLD.status = 'rejected' AND NEW.status IS DISTINCT FROM 'rejected')
    EXECUTE FUNCTION mneme_rejected_guard('unit');
CREATE TRIGGER claims_rejected_guard BEFORE UPDATE OF status ON claims
    FOR EACH ROW WHEN (OLD.status = 'rejected' AND NEW.status IS DISTINCT FROM 'rejected')
    EXECUTE FUNCTION mneme_rejected_guard('claim');

-- Agents anchor who wrote what: TRUNCATE must not get around the row trigger of schema 2.
CREATE TRIGGER agents_no_truncate BEFORE TRUNCATE ON agents
    FOR EACH STATEMENT EXECUTE FUNCTION mneme_agents_never_deleted();

-- SQLite's 0004 adds sources_id (PostgreSQL's 0001 has it) and the audit target index.
CREATE INDEX audit_log_target ON audit_log (bank_id, target, seq);

-- Distribution by bank (ADR 0007): a distributed PostgreSQL (Citus) requires the distribution
-- column in every primary key and unique index. The audit log's key becomes (bank_id, seq);
-- seq stays a global identity, so chain order and the head's seq are unchanged. The queue's
-- id-only unique index becomes a plain one: ids are ULIDs, and (bank_id, id) is the key.
ALTER TABLE audit_log DROP CONSTRAINT audit_log_pkey;
ALTER TABLE audit_log ADD PRIMARY KEY (bank_id, seq);
DROP INDEX audit_log_bank;
DROP INDEX ingest_queue_id;
CREATE INDEX ingest_queue_id ON ingest_queue (id);
