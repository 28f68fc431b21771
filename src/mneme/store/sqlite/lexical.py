"""BM25 over a large bank's FTS5 postings, scored in numpy (ADR 0021).

FTS5 ranks an OR query by calling ``bm25()`` once per matching row, about 0.8 us each. Past
some 50k units a query's common words match a large share of the bank (at 1M synthetic units a
four-word question matched 100-265k rows: 75 ms at p50, 210 ms at worst, for the lexical
channel alone). So a large bank's lexical channel keeps the same postings in memory, read from
the FTS5 table itself (its ``fts5vocab`` instances: the very tokens FTS5 indexed), and scores a
query with vector arithmetic over them: the same BM25 as FTS5's ``bm25()`` (k1 = 1.2, b = 0.75,
FTS5's idf, its row count and token totals from the table's averages record), term by term in
the same order, so the scores and the ranking (score, then rowid) are FTS5's own.

The FTS5 table stays the truth and the tokenizer: the index is derived, rebuilt when it cannot
be brought up to date. New rows are tokenized by a private in-memory FTS5 table with the same
tokenizer (no second tokenizer to drift from it), and a query whose term FTS5 would read as a
phrase of several tokens is left to FTS5.
"""

from __future__ import annotations

import math
import sqlite3
import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

#: Banks with fewer FTS rows are ranked by FTS5's own bm25().
LEXICAL_MIN_ROWS = 50_000
#: FTS5's bm25() constants.
K1 = 1.2
B = 0.75


def varint(blob: bytes, at: int) -> tuple[int, int]:
    """SQLite's varint (big-endian 7-bit groups; a 9th byte carries 8 bits): value, next."""
    value = 0
    for i in range(9):
        if at >= len(blob):
            break  # a truncated record reads as what it holds
        byte = blob[at]
        at += 1
        if i == 8:
            return (value << 8) | byte, at
        value = (value << 7) | (byte & 0x7F)
        if not byte & 0x80:
            break
    return value, at


def fts_totals(rows: Sequence[Any]) -> tuple[int, int]:
    """(rows, tokens) of an FTS5 table from its averages record (the rows ``averages_sql``
    read; none, or an empty block, while the table is empty): what bm25() divides by."""
    block = rows[0][0] if rows else None
    if not block:
        return 0, 0
    blob = bytes(block)
    n, at = varint(blob, 0)
    tokens, _ = varint(blob, at) if at < len(blob) else (0, at)
    return n, tokens


def averages_sql(table: str) -> str:
    return f"SELECT block FROM {table}_data WHERE id = 1"


class Tokenizer:
    """FTS5's tokenizer, asked directly: a private in-memory FTS5 table with the same options
    tokenizes texts and reports the terms it indexed (lowercased, diacritics gone, stemmed)."""

    def __init__(self, tokenize: str) -> None:
        self._lock = threading.Lock()
        self._db = sqlite3.connect(":memory:", check_same_thread=False)
        self._db.execute(f"CREATE VIRTUAL TABLE t USING fts5(text, {tokenize})")
        self._db.execute("CREATE VIRTUAL TABLE v USING fts5vocab(t, instance)")

    def terms(self, texts: Sequence[str]) -> list[list[str]]:
        """The terms of each text, in text order."""
        out: list[list[tuple[int, str]]] = [[] for _ in texts]
        with self._lock:
            self._db.executemany(
                "INSERT INTO t (rowid, text) VALUES (?, ?)",
                [(i + 1, text) for i, text in enumerate(texts)],
            )
            for doc, term, offset in self._db.execute("SELECT doc, term, offset FROM v"):
                out[int(doc) - 1].append((int(offset), str(term)))
            self._db.execute("DELETE FROM t")
        return [[term for _, term in sorted(doc)] for doc in out]


class _Posting:
    """One term's rows (dense positions, ascending) and counts, in buffers that grow."""

    __slots__ = ("n", "pos", "tf")

    def __init__(self, pos: np.ndarray, tf: np.ndarray) -> None:
        self.pos = pos.astype(np.int32)
        self.tf = tf.astype(np.float64)
        self.n = len(pos)

    def append(self, pos: int, tf: int) -> None:
        if self.n == len(self.pos):
            cap = max(8, 2 * self.n)
            self.pos = np.resize(self.pos, cap)
            self.tf = np.resize(self.tf, cap)
        self.pos[self.n] = pos
        self.tf[self.n] = tf
        self.n += 1


class LexicalIndex:
    """The postings of one bank's FTS5 table, with its rows' token counts, kept in step with it.

    Rows get dense positions in rowid order; ``rowid`` maps them back. ``sync`` brings the index
    up to the table (new rows appended; anything else, such as a purge, rebuilds it).
    """

    def __init__(self, bank_id: str, table: str) -> None:
        self.bank_id = bank_id
        self.table = table
        self.generation = -1
        self.lock = threading.RLock()
        self._postings: dict[str, _Posting] = {}
        self._rowid = np.zeros(0, dtype=np.int64)
        self._len = np.zeros(0, dtype=np.float64)
        self._rows = 0
        self._tokens = 0

    def __len__(self) -> int:
        return self._rows

    @property
    def last_rowid(self) -> int:
        return int(self._rowid[self._rows - 1]) if self._rows else 0

    def build(self, conn: sqlite3.Connection) -> None:
        """Read every posting of the FTS5 table (through an fts5vocab instance table), inside
        the caller's read transaction on ``conn``."""
        vocab = f"temp.{self.table}_instances"
        conn.execute(
            f"CREATE VIRTUAL TABLE IF NOT EXISTS {vocab} USING fts5vocab(main, {self.table}, "
            "instance)"
        )
        rowids = np.fromiter(
            (r[0] for r in conn.execute(f"SELECT id FROM {self.table}_docsize ORDER BY id")),
            dtype=np.int64,
        )
        lengths = np.zeros(len(rowids), dtype=np.int64)
        postings: dict[str, _Posting] = {}
        term: str | None = None
        docs: list[int] = []

        def flush() -> None:
            if term is None or not docs:
                return
            positions = np.searchsorted(rowids, np.asarray(docs, dtype=np.int64))
            uniq, counts = np.unique(positions, return_counts=True)
            lengths[uniq] += counts
            postings[term] = _Posting(uniq, counts)

        for t, doc in conn.execute(f"SELECT term, doc FROM {vocab}"):
            if t != term:
                flush()
                term, docs = t, []
            docs.append(doc)
        flush()
        self._postings = postings
        self._rowid = rowids
        self._rows = len(rowids)
        self._len = lengths.astype(np.float64)
        self._tokens = int(lengths.sum())

    def append(self, rowid: int, terms: Sequence[str]) -> None:
        """A row newer than every row held, with its terms (as FTS5 tokenized them)."""
        pos = self._rows
        if pos == len(self._rowid):
            cap = max(64, 2 * pos)
            self._rowid = np.resize(self._rowid, cap)
            self._len = np.resize(self._len, cap)
        self._rowid[pos] = rowid
        self._len[pos] = len(terms)
        self._rows += 1
        self._tokens += len(terms)
        counts: dict[str, int] = {}
        for t in terms:
            counts[t] = counts.get(t, 0) + 1
        for t, tf in counts.items():
            posting = self._postings.get(t)
            if posting is None:
                self._postings[t] = _Posting(np.asarray([pos]), np.asarray([tf]))
            else:
                posting.append(pos, tf)

    def matches(self, totals: tuple[int, int]) -> bool:
        """Whether the index holds what the table's averages record counts."""
        return totals == (self._rows, self._tokens)

    def rank(self, phrases: Sequence[str], limit: int) -> list[tuple[int, float]]:
        """The ``limit`` best rows for an OR of one-token ``phrases``, as FTS5 ranks them:
        (rowid, bm25) with bm25 lower-is-better, ordered by it, then rowid."""
        n, total = self._rows, self._tokens
        if n == 0 or limit <= 0:
            return []
        avgdl = total / n
        found_pos: list[np.ndarray] = []
        found_w: list[np.ndarray] = []
        for term in phrases:
            posting = self._postings.get(term)
            if posting is None:
                continue  # matches no row: adds nothing to any score
            hits = posting.n
            idf = math.log((n - hits + 0.5) / (hits + 0.5))
            if idf <= 0.0:
                idf = 1e-6
            pos, tf = posting.pos[:hits], posting.tf[:hits]
            size = self._len[pos]
            # bm25() of fts5_aux.c, operation for operation, so the doubles agree.
            found_w.append(idf * ((tf * (K1 + 1.0)) / (tf + K1 * (1 - B + B * size / avgdl))))
            found_pos.append(pos)
        if not found_pos:
            return []
        everything = np.concatenate(found_pos)
        # Each row's score is summed in phrase order, from 0.0, as FTS5 sums it.
        scores = np.bincount(everything, weights=np.concatenate(found_w), minlength=n)
        hit = np.zeros(n, dtype=bool)
        hit[everything] = True
        rows = np.flatnonzero(hit)
        best = scores[rows]
        if len(rows) > limit:
            cut = -np.partition(-best, limit - 1)[limit - 1]
            keep = best >= cut  # ties at the cut all stay, for the rowid order below
            rows, best = rows[keep], best[keep]
        order = np.lexsort((self._rowid[rows], -best))[:limit]
        return [(int(self._rowid[rows[i]]), -float(best[i])) for i in order]
