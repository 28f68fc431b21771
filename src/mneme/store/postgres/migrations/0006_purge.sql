-- mneme schema 6 (PostgreSQL form of the SQLite 0006): legal erasure. The audit chain covers
-- digests of each record's content, kept beside it, so a purge can erase the content of past
-- records and the chain still verifies.

ALTER TABLE audit_log ADD COLUMN before_sha text;
ALTER TABLE audit_log ADD COLUMN after_sha text;
ALTER TABLE audit_log ADD COLUMN purged_at timestamptz;
