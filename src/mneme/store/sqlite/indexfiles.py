"""The SQLite store's index files: its large in-memory indexes, kept beside the database so a
restart reads them instead of rebuilding them from the rows (ADR 0052).

A bank's vector index (per embedding model) and its BM25 postings are saved to
``<database>.index/`` once they hold ``min_rows`` rows: after they were built from the rows,
and when the store closes if they changed since. A file is derived data and is never trusted
on its word. It is used only when

- it reads back whole (``indexfile``: magic, format, kind, size, header and payload CRCs);
- its stamp names this bank (its creation time and first audit record in this database),
  this model and dimension (this FTS table);
- the database is at or past the generation it was saved at, and still holds the units it
  names as its newest (the unit at its last rowid) and, for a vector index, the same vectors
  for a sample of its rows, and as many embeddings when no write came since;
- and then it is brought up to date as any index held in memory is when another process wrote:
  new units read after its last rowid, changed units from the change log (ADR 0025), and a
  rebuild from the rows when units went away or the counts disagree.

Anything else (no file, a truncated, tampered, foreign or stale-beyond-repair one) is logged
with its reason and the index is built from the rows, as before, then saved again. A read-only
store reads valid files and writes none.
"""

from __future__ import annotations

import hashlib
import logging
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from mneme.store.codec import vector_from
from mneme.store.sqlite.database import Database
from mneme.store.sqlite.indexfile import IndexFileInvalid, read, write
from mneme.store.sqlite.lexical import LexicalIndex, averages_sql, fts_totals
from mneme.store.sqlite.snapshots import (
    lexical_arrays,
    lexical_index,
    vector_arrays,
    vector_index,
)
from mneme.store.sqlite.vectors import VectorIndex

log = logging.getLogger("mneme.store.index")

#: Indexes with fewer rows are rebuilt from the rows on a restart (in well under a second).
MIN_ROWS = 50_000
#: Rows of a vector file whose vectors are compared with the embeddings table when it is read.
SAMPLE_ROWS = 16


@dataclass
class IndexFileStats:
    """What the store did with its index files since it opened (for tests, benches, health)."""

    loaded: int = 0  # files read and used (their rows not read again)
    caught_up: int = 0  # ...of which were behind the database and brought up to it
    rejected: int = 0  # files found unusable: the index was built from the rows
    built: int = 0  # indexes built from the rows (no file, a rejected one, or a purge)
    saved: int = 0
    reasons: list[str] = field(default_factory=list)  # why each rejected file was


class IndexFiles:
    """The index files of one database."""

    def __init__(self, db: Database, *, min_rows: int = MIN_ROWS) -> None:
        self.db = db
        self.min_rows = min_rows
        self.stats = IndexFileStats()
        self.directory = None if db.path == ":memory:" else Path(db.path + ".index")
        self._saved: dict[tuple[str, str], Any] = {}  # (kind, key) -> state saved or read
        self._lock = threading.Lock()
        self._tried: set[tuple[str, ...]] = set()

    @property
    def writable(self) -> bool:
        return self.directory is not None and not self.db.read_only

    def _path(self, kind: str, *parts: str) -> Path:
        assert self.directory is not None
        key = hashlib.sha256("\0".join(parts).encode("utf-8")).hexdigest()[:24]
        return self.directory / f"{kind}-{key}.mnx"

    def first_use(self, key: tuple[str, ...]) -> bool:
        """True the first time ``key`` is asked for: a file is read once, at a restart."""
        with self._lock:
            if key in self._tried:
                return False
            self._tried.add(key)
            return True

    def reject(self, bank_id: str, reason: str) -> None:
        """A file that read back sound proved unusable once brought up to date."""
        self.stats.rejected += 1
        self.stats.reasons.append(reason)
        log.warning(
            "index file of bank %s not used (%s): rebuilding from the rows", bank_id, reason
        )

    def _reject(self, path: Path, reason: str) -> None:
        self.stats.rejected += 1
        self.stats.reasons.append(reason)
        log.warning("index file %s not used (%s): rebuilding it from the rows", path, reason)

    # -- the checks both kinds share ----------------------------------------------------

    def _bank_identity(self, bank_id: str) -> str | None:
        """The bank's creation time and the keyed hash of its first audit record: unique to
        this bank in this database (another database's bank of the same id, even created at
        the same instant, has another audit key and chain)."""
        rows = self.db.query("SELECT created_at FROM banks WHERE id = ?", (bank_id,))
        if not rows:
            return None
        first = self.db.query(
            "SELECT hash FROM audit_log WHERE bank_id = ? ORDER BY seq LIMIT 1", (bank_id,)
        )
        return f"{rows[0][0]} {first[0][0] if first else '-'}"

    def _generation(self, bank_id: str) -> int:
        rows = self.db.query("SELECT generation FROM index_state WHERE bank_id = ?", (bank_id,))
        return int(rows[0][0]) if rows else 0

    def _unit_at(self, bank_id: str, rowid: int) -> str | None:
        rows = self.db.query(
            "SELECT id FROM units WHERE rowid = ? AND bank_id = ?", (rowid, bank_id)
        )
        return str(rows[0][0]) if rows else None

    def _history(self, stamp: dict[str, Any], bank_id: str) -> str | None:
        """Why ``stamp`` is not from this database's history of the bank (None: it is)."""
        identity = self._bank_identity(bank_id)
        if identity is None or stamp.get("bank_identity") != identity:
            return "another bank's or another database's file"
        gen = self._generation(bank_id)
        if int(stamp["generation"]) > gen:
            return f"saved at generation {stamp['generation']}, the database is at {gen}"
        last = int(stamp["last_rowid"])
        if last and self._unit_at(bank_id, last) != stamp.get("last_unit"):
            return "its newest unit is not in the database"
        return None

    def _stamp(self, bank_id: str, last_rowid: int) -> dict[str, Any] | None:
        """What ties a file to this database: None when it cannot be tied (its newest unit
        went away: a rebuild is due anyway)."""
        last = self._unit_at(bank_id, last_rowid) if last_rowid else None
        if last_rowid and last is None:
            return None
        return {"bank_identity": self._bank_identity(bank_id), "last_unit": last}

    def _due(self, kind: str, key: str, rows: int, state: Any) -> bool:
        return self.writable and rows >= self.min_rows and self._saved.get((kind, key)) != state

    # -- vector indexes -----------------------------------------------------------------

    def load_vectors(self, bank_id: str, model: str, dim: int) -> VectorIndex | None:
        """The bank's saved vector index for ``model`` if its file is sound and of this
        database (possibly behind it: the caller catches it up), else None."""
        if self.directory is None:
            return None
        path = self._path("vectors", bank_id, model)
        try:
            stamp, arrays = read(path, "vectors")
            if (stamp.get("bank"), stamp.get("model"), stamp.get("dim")) != (bank_id, model, dim):
                raise IndexFileInvalid("the index of another bank or model")
            why = self._history(stamp, bank_id)
            if why is not None:
                raise IndexFileInvalid(why)
            idx = vector_index(stamp, arrays)
            why = self._vectors_differ(idx)
            if why is not None:
                raise IndexFileInvalid(why)
        except FileNotFoundError:
            return None
        except (IndexFileInvalid, ValueError, KeyError, TypeError) as exc:
            self._reject(path, str(exc) or type(exc).__name__)
            return None
        self._saved[("vectors", f"{bank_id}\0{model}")] = idx.layout
        return idx

    def _vectors_differ(self, idx: VectorIndex) -> str | None:
        """Why the index's rows are not the embeddings it claims (None: a sample agrees)."""
        n = len(idx)
        for i in np.linspace(0, n - 1, min(n, SAMPLE_ROWS)).astype(np.int64).tolist():
            uid = idx._ids[i]
            rows = self.db.query(
                "SELECT vector FROM embeddings WHERE bank_id = ? AND unit_id = ? AND model = ?",
                (idx.bank_id, uid, idx.model),
            )
            if not rows:
                return f"unit {uid} has no {idx.model} embedding in the database"
            if not np.array_equal(vector_from(rows[0][0]), idx._mat[i]):
                return f"the vector of unit {uid} differs from the database's"
        return None

    def count_differs(self, idx: VectorIndex) -> str | None:
        """Why an index read from its file and brought up to date is not whole (None: it
        holds as many rows as the bank has embeddings of its model). Catching up reads the
        units written after its newest; this finds the older units that got a vector of the
        model since (a re-embedding that went on after the file was saved)."""
        count = int(
            self.db.query(
                "SELECT count(*) FROM embeddings WHERE bank_id = ? AND model = ?",
                (idx.bank_id, idx.model),
            )[0][0]
        )
        if count != len(idx):
            return f"{len(idx)} rows once up to date, the database holds {count} embeddings"
        return None

    def save_vectors(self, idx: VectorIndex) -> None:
        """Save ``idx`` if it is large enough and changed since it was saved or read. The
        caller holds off this process's writers (the index then holds committed rows only)."""
        key = f"{idx.bank_id}\0{idx.model}"
        if not self._due("vectors", key, len(idx), idx.layout):
            return
        with idx._lock:
            ties = self._stamp(idx.bank_id, idx.last_rowid)
            if ties is None:
                return
            stamp, arrays = vector_arrays(idx)
            self._write(
                self._path("vectors", idx.bank_id, idx.model), "vectors", ties | stamp, arrays
            )
            self._saved[("vectors", key)] = idx.layout

    # -- lexical indexes ----------------------------------------------------------------

    def load_lexical(self, bank_id: str, table: str) -> LexicalIndex | None:
        """The bank's saved BM25 postings if the file is sound and of this database (the
        caller brings them up to the table, or rebuilds them when the counts disagree)."""
        if self.directory is None:
            return None
        path = self._path("lexical", bank_id)
        try:
            stamp, arrays = read(path, "lexical")
            if (stamp.get("bank"), stamp.get("table")) != (bank_id, table):
                raise IndexFileInvalid("the postings of another bank or table")
            why = self._history(stamp, bank_id)
            if why is not None:
                raise IndexFileInvalid(why)
            idx = lexical_index(stamp, arrays)
            if idx.last_rowid != int(stamp["last_rowid"]):
                raise IndexFileInvalid("its newest row is not the one its stamp names")
            totals = fts_totals(self.db.query(averages_sql(table)))
            if idx.generation == self._generation(bank_id) and not idx.matches(totals):
                raise IndexFileInvalid(f"holds {len(idx)} rows, the table {totals[0]}")
        except FileNotFoundError:
            return None
        except (IndexFileInvalid, ValueError, KeyError, TypeError) as exc:
            self._reject(path, str(exc) or type(exc).__name__)
            return None
        self._saved[("lexical", bank_id)] = idx.generation
        return idx

    def save_lexical(self, idx: LexicalIndex) -> None:
        if not self._due("lexical", idx.bank_id, len(idx), idx.generation):
            return
        with idx.lock:
            ties = self._stamp(idx.bank_id, idx.last_rowid)
            if ties is None:
                return
            stamp, arrays = lexical_arrays(idx)
            self._write(self._path("lexical", idx.bank_id), "lexical", ties | stamp, arrays)
            self._saved[("lexical", idx.bank_id)] = idx.generation

    def _write(self, path: Path, kind: str, stamp: dict[str, Any], arrays: Any) -> None:
        try:
            with self._lock:
                size = write(path, kind, stamp, arrays)
        except OSError as exc:  # a full disk, a read-only directory: the index still works
            log.warning("could not save index file %s: %s", path, exc)
            return
        self.stats.saved += 1
        log.info("saved index file %s (%d bytes)", path, size)
