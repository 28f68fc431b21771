-- mneme schema 12: SQLite pads short years in its stored times (see the SQLite migration).
-- PostgreSQL keeps times as timestamptz and was never affected; the version stays in step.
SELECT 1;
