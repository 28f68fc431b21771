-- No-op: schema 10 is SQLite's change log for its in-memory vector index (ADR 0025); pgvector
-- indexes live in the server. Versions stay equal for `mneme db copy`.
SELECT 1;
