-- Schema version 8 on SQLite gives each bank its own FTS5 table, so BM25's statistics are the
-- bank's own (ADR 0017). PostgreSQL needs no change: its BM25 (store/postgres/channels.py)
-- already counts documents, lengths and document frequencies within the bank. The version
-- stays in step with SQLite so `mneme db copy` can move a store either way.
SELECT 1;
