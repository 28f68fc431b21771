-- BM25 statistics kept at write time (ADR 0019). The lexical channel counted each query
-- lexeme's documents and unnested the tsvector of every matching unit on every query (about
-- 60 ms at 100k units). The store now keeps, per bank, each lexeme's document frequency and
-- its postings (one row per lexeme of a unit: occurrences and the unit's token count, covered
-- by the key so a term's postings are one index-only scan), in the same transaction as the
-- units (put_unit, purge, import) and under the bank's index_state row lock. Both are derived
-- from units: not copied by `mneme db copy`, rebuilt by the importing store.
CREATE TABLE lexeme_postings (
    bank_id  text COLLATE "C" NOT NULL,
    lexeme   text COLLATE "C" NOT NULL,
    unit_id  text COLLATE "C" NOT NULL,
    tf       integer NOT NULL,
    doc_len  integer NOT NULL
);
INSERT INTO lexeme_postings (bank_id, lexeme, unit_id, tf, doc_len)
SELECT u.bank_id, x.lexeme, u.id, cardinality(x.positions), u.doc_len
FROM units u CROSS JOIN LATERAL unnest(u.tsv) AS x;
ALTER TABLE lexeme_postings ADD PRIMARY KEY (bank_id, lexeme, unit_id) INCLUDE (tf, doc_len);

CREATE TABLE lexeme_df (
    bank_id  text COLLATE "C" NOT NULL,
    lexeme   text COLLATE "C" NOT NULL,
    n        bigint NOT NULL CHECK (n > 0),
    PRIMARY KEY (bank_id, lexeme)
);
INSERT INTO lexeme_df (bank_id, lexeme, n)
SELECT bank_id, lexeme, count(*) FROM lexeme_postings GROUP BY bank_id, lexeme;

ANALYZE lexeme_postings, lexeme_df;
