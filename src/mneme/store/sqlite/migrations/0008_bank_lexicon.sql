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

-- A memory's conflicts, found from either side (a supersession settles the conflicts of the
-- memory it retires): without these, every retirement scanned the bank's open conflicts.
CREATE INDEX conflicts_a_unit ON conflicts (bank_id, a_unit);
CREATE INDEX conflicts_b_unit ON conflicts (bank_id, b_unit);
