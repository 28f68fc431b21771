"""BM25 on PostgreSQL from per-bank statistics kept at write time (ADR 0019).

Two derived tables, both keyed by ``bank_id`` first (ADR 0007) and rebuilt from ``units`` on
import, never copied:

- ``lexeme_df (bank_id, lexeme, n)``: the bank's document frequency of each lexeme;
- ``lexeme_postings (bank_id, lexeme, unit_id, tf, doc_len)``: one row per lexeme of a unit's
  ``tsv``, with the lexeme's occurrences in the unit and the unit's token count, covered by
  the primary key so a query term's postings are one index-only range scan.

They move with ``units`` in the same transaction (``put_unit``, ``purge``, import), after the
bank's ``index_state`` row is locked (``_touch``, or the imported row itself): every writer
takes that lock first, so the lexeme rows under it are never locked in opposite orders by two
transactions.

BM25 is computed in SQL because ``ts_rank_cd`` ranks by cover density with no idf at all (a
common word weighs as much as a rare one). The query ranks as before: FTS5's BM25 over the bank
(N and the average length from ``index_state``, document frequencies from ``lexeme_df``),
summed over the query lexemes a unit holds. It reads only the postings of the query's lexemes,
never a unit's whole ``tsv``; it ranks the bank's top ``fetch``, then applies scope and filters
to those units in the same statement, widening (as the SQLite backend does) until ``limit`` of
them are visible or the ranking has no more.
"""

from __future__ import annotations

from collections.abc import Sequence

from mneme.errors import MnemeError
from mneme.store.postgres.base import PostgresBase

#: BM25 parameters, FTS5's defaults, so both backends rank a corpus alike.
BM25_K1 = 1.2
BM25_B = 0.75

#: Scores are sums of multiples of 1/_FIXED (see BM25).
_FIXED = 2**36

#: PostgreSQL tables derived from ``units`` (not portable: rebuilt by an importing store).
# ``audit_touched`` (schema 14) is transient too: the rows a transaction wrote, sealed and
# cleared at its commit (ADR 0035).
DERIVED_TABLES = frozenset({"lexeme_df", "lexeme_postings", "audit_touched"})

#: The postings of some units of one bank (``%s`` bank, ``%s`` ids), from their ``tsv``.
_POSTINGS = (
    "SELECT u.bank_id, x.lexeme, u.id, cardinality(x.positions), u.doc_len "
    "FROM units u CROSS JOIN LATERAL unnest(u.tsv) AS x "
    "WHERE u.bank_id = %s AND u.id = ANY(%s::text[])"
)

_INDEX = f"""
WITH t AS MATERIALIZED ({_POSTINGS}),
p AS (INSERT INTO lexeme_postings (bank_id, lexeme, unit_id, tf, doc_len) SELECT * FROM t)
INSERT INTO lexeme_df AS d (bank_id, lexeme, n)
SELECT t.bank_id, t.lexeme, count(*) FROM t GROUP BY t.bank_id, t.lexeme ORDER BY t.lexeme
ON CONFLICT (bank_id, lexeme) DO UPDATE SET n = d.n + excluded.n
"""

# A lexeme no unit holds any more leaves lexeme_df (a purge must not keep the erased words).
_UNINDEX = """
WITH gone AS (
    DELETE FROM lexeme_postings p
    USING units u CROSS JOIN LATERAL unnest(u.tsv) AS x
    WHERE u.bank_id = %s AND u.id = ANY(%s::text[])
      AND p.bank_id = u.bank_id AND p.lexeme = x.lexeme AND p.unit_id = u.id
    RETURNING p.bank_id, p.lexeme
), c AS (
    SELECT bank_id, lexeme, count(*) AS n FROM gone GROUP BY bank_id, lexeme
), emptied AS (
    DELETE FROM lexeme_df d USING c
    WHERE d.bank_id = c.bank_id AND d.lexeme = c.lexeme AND d.n <= c.n
)
UPDATE lexeme_df d SET n = d.n - c.n FROM c
WHERE d.bank_id = c.bank_id AND d.lexeme = c.lexeme AND d.n > c.n
"""

_REBUILD = (
    "DELETE FROM lexeme_postings WHERE bank_id = ANY(%(banks)s::text[])",
    "DELETE FROM lexeme_df WHERE bank_id = ANY(%(banks)s::text[])",
    "INSERT INTO lexeme_postings (bank_id, lexeme, unit_id, tf, doc_len) "
    "SELECT u.bank_id, x.lexeme, u.id, cardinality(x.positions), u.doc_len "
    "FROM units u CROSS JOIN LATERAL unnest(u.tsv) AS x "
    "WHERE u.bank_id = ANY(%(banks)s::text[]) ORDER BY 1, 2, 3",
    "INSERT INTO lexeme_df (bank_id, lexeme, n) SELECT bank_id, lexeme, count(*) "
    "FROM lexeme_postings WHERE bank_id = ANY(%(banks)s::text[]) GROUP BY bank_id, lexeme",
)

# BM25 as FTS5 computes it: idf = ln((N - n + 0.5) / (n + 0.5)) floored at 1e-6, times the
# term frequency saturated by k1 and normalised by the document's length with b. Parameters:
# query text, bank x4, fetch, scope and filter params (for {clause}), limit.
# Each term is rounded to a multiple of 2^-36 before summing: those add exactly in float8 (up
# to 2^17), so a unit's score does not depend on the order its terms reach the aggregate (a
# sort is not stable: two units with the same words and length differed in the last bits, and
# the tie went to whichever sum came out larger instead of to the smaller id).
# `ranked` is the bank's top `fetch` by score then id, before scope; the outer row always
# exists (its count says whether the ranking was cut), with NULLs when nothing is visible.
# The CTEs are MATERIALIZED so each runs once (an inlined df ran once per matching row).
BM25 = f"""
WITH q AS MATERIALIZED (
    SELECT DISTINCT x.lexeme FROM unnest(to_tsvector('english', %s)) AS x
), st AS MATERIALIZED (
    SELECT greatest(s.docs, 1)::float8 AS n,
           greatest(s.total_len::float8 / greatest(s.docs, 1), 1.0) AS avgdl
    FROM (SELECT coalesce(max(docs), 0) AS docs, coalesce(max(total_len), 0) AS total_len
          FROM index_state WHERE bank_id = %s) s
), df AS MATERIALIZED (
    SELECT d.lexeme, greatest(ln((st.n - d.n + 0.5) / (d.n + 0.5)), 1e-6) AS idf
    FROM q JOIN lexeme_df d ON d.bank_id = %s AND d.lexeme = q.lexeme CROSS JOIN st
), ranked AS MATERIALIZED (
    SELECT p.unit_id, sum(round(
        {_FIXED}::float8 * df.idf * (p.tf * {BM25_K1 + 1}::float8)
        / (p.tf + {BM25_K1}::float8 * ({1 - BM25_B}::float8 + {BM25_B}::float8 * p.doc_len
                                      / st.avgdl))
    )) / {_FIXED}::float8 AS score
    FROM df JOIN lexeme_postings p ON p.bank_id = %s AND p.lexeme = df.lexeme CROSS JOIN st
    GROUP BY p.unit_id ORDER BY score DESC, p.unit_id LIMIT %s
)
SELECT v.id, v.score, c.n FROM (SELECT count(*) AS n FROM ranked) c
LEFT JOIN LATERAL (
    SELECT u.id, r.score FROM ranked r JOIN units u ON u.bank_id = %s AND u.id = r.unit_id
    WHERE {{clause}} ORDER BY r.score DESC, u.id LIMIT %s
) v ON true
ORDER BY v.score DESC, v.id
"""


#: A unit text's length in BM25 terms (its ``doc_len``), as an SQL expression of one ``?``.
DOC_LEN = (
    "(SELECT count(*) FROM ts_debug('english', ?) WHERE alias NOT IN "
    "('blank', 'hword_part', 'hword_asciipart', 'hword_numpart'))"
)


class LexicalIndexMixin(PostgresBase):
    """Keeps ``lexeme_df`` and ``lexeme_postings`` in step with ``units``.

    Callers hold the bank's ``index_state`` row lock first (see the module docstring).
    """

    def _index_lexemes(self, bank_id: str, unit_ids: Sequence[str]) -> None:
        """Add the postings of units just inserted, and count them in the bank's df."""
        self._w(_INDEX, (bank_id, list(unit_ids)))

    def _unindex_lexemes(self, bank_id: str, unit_ids: Sequence[str]) -> None:
        """Remove the postings of units about to be deleted (their ``tsv`` is read)."""
        self._w(_UNINDEX, (bank_id, list(unit_ids)))

    def _rebuild_lexemes(self, bank_ids: Sequence[str]) -> None:
        """Recompute both tables for whole banks from their units (import); vacuum them once
        the import commits."""
        banks = {"banks": list(bank_ids)}
        for sql in _REBUILD:
            self._w(sql, banks)
        self.db.after(self._vacuum_lexemes, lambda: None)

    def _vacuum_lexemes(self) -> None:
        """Mark the pages of bulk-written postings all-visible, and refresh their statistics.

        A term's postings are read by an index-only scan, which still visits the table for
        every row on a page VACUUM has not marked all-visible: right after a backfill or an
        import that is every row (measured at 100k units: lexical p50 12 ms, 5 ms once
        vacuumed). Autovacuum would get there, later; ongoing writes leave only the newest
        pages unmarked. VACUUM cannot run in a transaction: this runs after commit.
        """
        try:
            self.db.execute("VACUUM (ANALYZE) lexeme_postings, lexeme_df")
        except MnemeError:  # an optimisation: never fail what already committed
            pass
