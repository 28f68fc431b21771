-- The lexical index becomes one FTS5 table per bank (ADR 0017): BM25's document frequencies
-- and average length are then the bank's own, as on PostgreSQL, instead of pooled over every
-- bank in the file. The per-bank tables (units_fts_<n>) are created and filled by the store
-- (mneme.store.sqlite.lexicon) for existing banks right after this migration, and for a new
-- bank on its first write; this registry maps a bank to its table number.
DROP TRIGGER IF EXISTS units_fts_insert;
DROP TRIGGER IF EXISTS units_fts_delete;
DROP TRIGGER IF EXISTS units_fts_update;
DROP TABLE IF EXISTS units_fts;
CREATE TABLE units_fts_banks (
    bank_id TEXT PRIMARY KEY,
    n       INTEGER NOT NULL UNIQUE
);
