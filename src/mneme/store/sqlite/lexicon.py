"""The lexical index of the SQLite store: one FTS5 table per bank (ADR 0017).

FTS5's ``bm25()`` takes its document frequencies and average length from the whole table. One
table for every bank made one bank's scores depend on what other banks hold (on five LoCoMo
conversations in one file: R@10 0.630, against 0.678 for the same data on PostgreSQL, whose
BM25 counts within the bank; one conversation alone scored the same on both). Each
bank's table is ``units_fts_<n>``, ``n`` from the ``units_fts_banks`` registry; it indexes the
``units`` rows of that bank (external content, so the text is stored once) and is written by the
store, not by triggers: a trigger per bank would run for every insert into any bank.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from mneme.store.sqlite.base import SQLiteBase
from mneme.store.sqlite.database import translate
from mneme.store.sqlite.indexfiles import IndexFiles
from mneme.store.sqlite.lexical import (
    LEXICAL_MIN_ROWS,
    LexicalIndex,
    Tokenizer,
    averages_sql,
    fts_totals,
)

#: The tokenizer of every bank's table (part of the schema; the lexical index asks it too).
FTS_TOKENIZE = "tokenize = 'porter unicode61 remove_diacritics 2'"
#: The FTS5 options every bank's table is created with.
FTS_OPTIONS = "text, content = 'units', content_rowid = 'rowid', " + FTS_TOKENIZE


class LexiconMixin(SQLiteBase):
    #: Made on first use (the store's constructor need not know): large banks' postings, and
    #: the tokenizer that tokenizes their new rows and the queries.
    _lexicals: dict[str, LexicalIndex] | None = None
    _lexical_small: dict[str, int] | None = None  # bank -> generation it was found small at
    _fts_tokenizer: Tokenizer | None = None
    index_files: IndexFiles

    def _save_indexes(self) -> None:
        """Save the large indexes that changed since they were saved or read (ADR 0052).

        This process's writers are held off meanwhile, so an index holds committed rows only
        (a write applies itself to the index before it commits); from inside a write
        transaction nothing is saved (the next call, or ``close``, does it)."""
        if not self.index_files.writable or self.db.in_transaction:
            return
        with self.db.writers_held():
            if self.db.in_transaction:
                return
            for idx in list(self._indexes.values()):
                self.index_files.save_vectors(idx)
            for lexical in list((self._lexicals or {}).values()):
                self.index_files.save_lexical(lexical)

    def _fts(self, bank_id: str) -> str | None:
        """The bank's FTS5 table name, or None when the bank has none yet."""
        cached = self._fts_names.get(bank_id)
        if cached is not None:
            return cached
        rows = self.db.query("SELECT n FROM units_fts_banks WHERE bank_id = ?", (bank_id,))
        if not rows:
            return None
        name = f"units_fts_{int(rows[0][0])}"
        self._fts_names[bank_id] = name
        return name

    def _fts_create(self, bank_id: str) -> str:
        """The bank's table, created (and filled from its units) if missing. In a write."""
        name = self._fts(bank_id)
        if name is not None:
            return name
        n = int(self.db.query("SELECT coalesce(max(n), 0) + 1 FROM units_fts_banks")[0][0])
        name = f"units_fts_{n}"
        self._w("INSERT INTO units_fts_banks (bank_id, n) VALUES (?, ?)", (bank_id, n))
        self._w(f"CREATE VIRTUAL TABLE {name} USING fts5({FTS_OPTIONS})")
        self._w(
            f"INSERT INTO {name} (rowid, text) SELECT rowid, text FROM units WHERE bank_id = ?",
            (bank_id,),
        )

        def forget() -> None:  # a rolled-back transaction takes the table with it
            self._fts_names.pop(bank_id, None)

        self.db.after(lambda: None, forget)
        self._fts_names[bank_id] = name
        return name

    def _fts_add(self, bank_id: str, rowid: int, text: str) -> None:
        self._w(
            f"INSERT INTO {self._fts_create(bank_id)} (rowid, text) VALUES (?, ?)", (rowid, text)
        )

    def _fts_remove(self, bank_id: str, unit_ids: Sequence[str]) -> None:
        """Take units out of the bank's index (before their rows are deleted), then merge the
        index so no segment keeps their tokens."""
        name = self._fts(bank_id)
        if name is None or not unit_ids:
            return
        self._fts_units(name, bank_id, unit_ids, delete=True)
        self._w(f"INSERT INTO {name} ({name}) VALUES ('optimize')")

    def _fts_units(
        self, name: str, bank_id: str, unit_ids: Sequence[str], *, delete: bool = False
    ) -> None:
        """Index (or, with ``delete``, unindex) units of the bank by id, from their rows."""
        columns, values = (
            (f"{name}, rowid, text", "'delete', rowid, text")
            if delete
            else (
                "rowid, text",
                "rowid, text",
            )
        )
        for i in range(0, len(unit_ids), 500):
            chunk = unit_ids[i : i + 500]
            self._w(
                f"INSERT INTO {name} ({columns}) SELECT {values} FROM units "
                f"WHERE bank_id = ? AND id IN ({','.join('?' * len(chunk))})",
                (bank_id, *chunk),
            )

    def _fts_backfill(self) -> None:
        """Every bank without its table gets one (after migration 8, or after an import)."""
        missing = self.db.query(
            "SELECT id FROM banks WHERE id NOT IN (SELECT bank_id FROM units_fts_banks) ORDER BY id"
        )
        if not missing or self.db.read_only:
            return
        with self.db.transaction():
            # Again under the write lock: another process opening the file may have made them.
            self._fts_names.clear()
            for (bank_id,) in self.db.query(
                "SELECT id FROM banks WHERE id NOT IN (SELECT bank_id FROM units_fts_banks) "
                "ORDER BY id"
            ):
                self._fts_create(str(bank_id))

    # -- the in-memory BM25 of large banks (ADR 0021) ------------------------------------

    def _lexical_ranked(
        self, bank_id: str, table: str, terms: Sequence[str], fetch: int
    ) -> list[tuple[int, float]] | None:
        """The bank's ``fetch`` best rows for the OR of ``terms`` as FTS5 would rank them
        ((rowid, bm25), bm25 lower-is-better), from the bank's in-memory postings; None when
        FTS5 itself should answer: a bank below LEXICAL_MIN_ROWS rows, a term FTS5 reads as a
        phrase of several tokens, a read inside this thread's write transaction (the index
        follows committed rows only), or an in-memory database."""
        if self.db.owns_transaction:
            return None
        idx = self._lexical_index(bank_id, table)
        if idx is None:
            return None
        phrases: list[str] = []
        for toks in self._tokenizer().terms(list(terms)):
            if len(toks) != 1:
                return None
            phrases += toks
        with idx.lock:
            return idx.rank(phrases, fetch)

    def _tokenizer(self) -> Tokenizer:
        if self._fts_tokenizer is None:
            self._fts_tokenizer = Tokenizer(FTS_TOKENIZE)
        return self._fts_tokenizer

    def _lexical_index(self, bank_id: str, table: str) -> LexicalIndex | None:
        """The bank's postings, brought up to its committed FTS5 table (new rows appended,
        anything else rebuilt); None below the size where FTS5 ranks fast enough."""
        gen_rows = self.db.query("SELECT generation FROM index_state WHERE bank_id = ?", (bank_id,))
        gen = int(gen_rows[0][0]) if gen_rows else 0
        if self._lexicals is None or self._lexical_small is None:
            self._lexicals, self._lexical_small = {}, {}
        idx = self._lexicals.get(bank_id)
        loaded = False
        if idx is None and self.index_files.first_use(("lexical", bank_id)):
            # A restart: the postings saved beside the database, if sound and ours (ADR 0052).
            idx = self.index_files.load_lexical(bank_id, table)
            loaded = idx is not None
            if idx is not None and idx.generation == gen:
                self.index_files.stats.loaded += 1
                self._lexicals[bank_id] = idx
                return idx
        if idx is not None and idx.generation == gen and idx.table == table:
            return idx
        if self._lexical_small.get(bank_id) == gen:
            return None
        if fts_totals(self.db.query(averages_sql(table)))[0] < LEXICAL_MIN_ROWS:
            self._lexicals.pop(bank_id, None)
            self._lexical_small[bank_id] = gen
            return None
        conn = self.db.snapshot()
        if conn is None:
            return None
        try:
            conn.execute("BEGIN")  # one snapshot: the totals, the new rows and the postings
            totals = fts_totals(conn.execute(averages_sql(table)).fetchall())
            if idx is None or idx.table != table:
                idx = LexicalIndex(bank_id, table)
            with idx.lock:
                if len(idx) and not idx.matches(totals):
                    new = conn.execute(
                        "SELECT rowid, text FROM units WHERE bank_id = ? AND rowid > ? "
                        "ORDER BY rowid",
                        (bank_id, idx.last_rowid),
                    ).fetchall()
                    for (rowid, _), toks in zip(
                        new, self._tokenizer().terms([r[1] for r in new]), strict=True
                    ):
                        idx.append(int(rowid), toks)
                built = not idx.matches(totals)
                if built:
                    idx.build(conn)  # new, or rows went away (a purge): read it all again
                idx.generation = gen
            conn.execute("COMMIT")
        except sqlite3.Error as exc:
            raise translate(exc, self.db.path) from exc
        finally:
            conn.close()
        self._lexicals[bank_id] = idx
        self._lexical_ready(bank_id, built=built, loaded=loaded)
        return idx

    def _lexical_ready(self, bank_id: str, *, built: bool, loaded: bool) -> None:
        """Count what became of the bank's postings, and save them if they were built."""
        stats = self.index_files.stats
        if built:
            if loaded:
                self.index_files.reject(bank_id, "its rows differ from the FTS table's")
            stats.built += 1
            self._save_indexes()
        elif loaded:
            stats.loaded += 1
            stats.caught_up += 1
