-- mneme schema 14 (PostgreSQL form of the SQLite 0014): a tamper-evident audit (ADR 0035).
-- Written to run again harmlessly (a test rewinds schema_version to re-run older migrations).
-- New records are chain format 2: keyed (HMAC-SHA256 under a key kept outside the database;
-- audit_keys names the keys that sealed this database), their reason chained by its digest
-- like before and after, and the last record of every transaction carries the state digests
-- of the data rows the transaction wrote (row_seals). The head of each chain is keyed (mac).
ALTER TABLE audit_log ADD COLUMN IF NOT EXISTS version integer;
ALTER TABLE audit_log ADD COLUMN IF NOT EXISTS key_id text COLLATE "C";
ALTER TABLE audit_log ADD COLUMN IF NOT EXISTS reason_sha text;
ALTER TABLE audit_log ADD COLUMN IF NOT EXISTS row_seals text;
ALTER TABLE audit_head ADD COLUMN IF NOT EXISTS mac text;
CREATE TABLE IF NOT EXISTS audit_keys (
    key_id     text COLLATE "C" PRIMARY KEY,
    check_mac  text NOT NULL,
    added_at   timestamptz NOT NULL
);

-- The rows each transaction of mneme's own sessions wrote (they SET mneme.sealing = 'on'),
-- sealed and cleared at its commit: a trigger catches every statement, so no write path can
-- forget to seal. Another session's writes are not recorded, so they are never sealed (and
-- audit verify finds them). Transient: unlogged, and not part of a copy.
CREATE UNLOGGED TABLE IF NOT EXISTS audit_touched (
    txid     bigint NOT NULL,
    tbl      text COLLATE "C" NOT NULL,
    bank_id  text COLLATE "C" NOT NULL,
    id       text COLLATE "C" NOT NULL,
    PRIMARY KEY (txid, tbl, bank_id, id)
);
CREATE OR REPLACE FUNCTION mneme_audit_touched() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF current_setting('mneme.sealing', true) IS DISTINCT FROM 'on' THEN
        RETURN NULL;
    END IF;
    IF TG_OP = 'DELETE' THEN
        INSERT INTO audit_touched VALUES (txid_current(), TG_TABLE_NAME, OLD.bank_id, OLD.id)
            ON CONFLICT DO NOTHING;
    ELSE
        INSERT INTO audit_touched VALUES (txid_current(), TG_TABLE_NAME, NEW.bank_id, NEW.id)
            ON CONFLICT DO NOTHING;
    END IF;
    RETURN NULL;
END $$;
DROP TRIGGER IF EXISTS sources_audit_touched ON sources;
CREATE TRIGGER sources_audit_touched AFTER INSERT OR UPDATE OR DELETE ON sources
    FOR EACH ROW EXECUTE FUNCTION mneme_audit_touched();
DROP TRIGGER IF EXISTS units_audit_touched ON units;
CREATE TRIGGER units_audit_touched AFTER INSERT OR UPDATE OR DELETE ON units
    FOR EACH ROW EXECUTE FUNCTION mneme_audit_touched();
DROP TRIGGER IF EXISTS claims_audit_touched ON claims;
CREATE TRIGGER claims_audit_touched AFTER INSERT OR UPDATE OR DELETE ON claims
    FOR EACH ROW EXECUTE FUNCTION mneme_audit_touched();
DROP TRIGGER IF EXISTS tombstones_audit_touched ON tombstones;
CREATE TRIGGER tombstones_audit_touched AFTER INSERT OR UPDATE OR DELETE ON tombstones
    FOR EACH ROW EXECUTE FUNCTION mneme_audit_touched();
DROP TRIGGER IF EXISTS conflicts_audit_touched ON conflicts;
CREATE TRIGGER conflicts_audit_touched AFTER INSERT OR UPDATE OR DELETE ON conflicts
    FOR EACH ROW EXECUTE FUNCTION mneme_audit_touched();
