-- mneme schema 2: agent presence (the swarm roster) and the hash-chained mutation audit log.

CREATE TABLE agents (
    bank_id     text COLLATE "C" NOT NULL,
    id          text COLLATE "C" NOT NULL,
    host        text,
    status      text COLLATE "C" NOT NULL DEFAULT 'active',
    first_seen  timestamptz NOT NULL,
    last_seen   timestamptz NOT NULL,
    PRIMARY KEY (bank_id, id)
);
CREATE INDEX agents_last_seen ON agents (bank_id, last_seen);

-- Agents anchor who wrote what: a record is never deleted.
CREATE FUNCTION mneme_agents_never_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'agent records are never deleted'
        USING ERRCODE = 'integrity_constraint_violation';
END;
$$;
CREATE TRIGGER agents_never_deleted BEFORE DELETE ON agents
    FOR EACH ROW EXECUTE FUNCTION mneme_agents_never_deleted();

-- before/after are text, not jsonb: the hash covers the exact serialized bytes, and jsonb
-- normalises what it stores (key order, whitespace, 1e300 read back as a 301-digit integer),
-- which would make an untouched record look edited.
CREATE TABLE audit_log (
    seq        bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    bank_id    text COLLATE "C" NOT NULL,
    at         timestamptz NOT NULL,
    actor      text NOT NULL,
    op         text COLLATE "C" NOT NULL,
    target     text COLLATE "C" NOT NULL,
    before     text,
    after      text,
    reason     text NOT NULL DEFAULT '',
    prev_hash  text COLLATE "C" NOT NULL,
    hash       text COLLATE "C" NOT NULL
);
CREATE INDEX audit_log_bank ON audit_log (bank_id, seq);

-- The head of each bank's chain: deleting the newest records leaves a head that no longer
-- matches the last record, so truncation is detected too.
CREATE TABLE audit_head (
    bank_id  text COLLATE "C" PRIMARY KEY,
    seq      bigint NOT NULL,
    hash     text COLLATE "C" NOT NULL,
    count    bigint NOT NULL
);
