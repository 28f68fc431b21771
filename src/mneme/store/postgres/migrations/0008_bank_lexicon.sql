-- Schema version 8 on SQLite gives each bank its own FTS5 table, so BM25's statistics are the
-- bank's own (ADR 0017). PostgreSQL's lexical index needs no change: its BM25
-- (store/postgres/channels.py) already counts documents, lengths and document frequencies
-- within the bank.

-- A memory's conflicts, found from either side (a supersession settles the conflicts of the
-- memory it retires): without these, every retirement scanned the bank's open conflicts.
CREATE INDEX conflicts_a_unit ON conflicts (bank_id, a_unit);
CREATE INDEX conflicts_b_unit ON conflicts (bank_id, b_unit);
