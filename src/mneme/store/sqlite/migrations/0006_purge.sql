-- mneme schema 6: legal erasure. The audit chain covers digests of each record's content, kept
-- beside it, so a purge can erase the content of past records and the chain still verifies.

ALTER TABLE audit_log ADD COLUMN before_sha TEXT;
ALTER TABLE audit_log ADD COLUMN after_sha TEXT;
ALTER TABLE audit_log ADD COLUMN purged_at TEXT;
