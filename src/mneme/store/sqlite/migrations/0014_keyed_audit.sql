-- mneme schema 14: a tamper-evident audit (ADR 0035). New records are chain format 2: keyed
-- (HMAC-SHA256 under a key kept outside the database; audit_keys names the keys that sealed
-- this database and proves each by a check value), their reason chained by its digest like
-- before and after (so a purge can erase it), and the last record of every transaction
-- carries the state digests of the data rows the transaction wrote (row_seals). The head of
-- each bank's chain is keyed too (mac). Records of format 1 (version NULL) keep verifying.
ALTER TABLE audit_log ADD COLUMN version INTEGER;
ALTER TABLE audit_log ADD COLUMN key_id TEXT;
ALTER TABLE audit_log ADD COLUMN reason_sha TEXT;
ALTER TABLE audit_log ADD COLUMN row_seals TEXT;
ALTER TABLE audit_head ADD COLUMN mac TEXT;
CREATE TABLE audit_keys (
    key_id     TEXT PRIMARY KEY,
    check_mac  TEXT NOT NULL,
    added_at   TEXT NOT NULL
);
