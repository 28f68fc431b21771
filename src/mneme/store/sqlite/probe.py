"""What the health watchdog reads and repairs in a SQLite store (ADR 0054): the integrity
check, the file and WAL sizes, a WAL checkpoint, and each loaded vector index beside the
embeddings it was built from (rebuilt from them when the two disagree)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from mneme.core.watchdog import IndexState
from mneme.errors import MnemeError
from mneme.store.protocol import FileSizes
from mneme.store.sqlite.database import translate
from mneme.store.sqlite.engine import SQLiteEngine


class SQLiteProbe:
    def __init__(self, engine: SQLiteEngine) -> None:
        self._engine = engine

    def integrity(self) -> str | None:
        """``PRAGMA quick_check``: the b-trees are well formed (not the slower full
        ``integrity_check``, which also matches every index against its table)."""
        try:
            rows = self._engine.db.query("PRAGMA quick_check")
        except MnemeError as exc:
            return str(exc)
        problems = [str(r[0]) for r in rows if str(r[0]) != "ok"]
        return "; ".join(problems[:5]) or None

    def files(self) -> FileSizes:
        path = self._engine.db.path
        if path == ":memory:":
            return FileSizes(None, None, None)
        main, wal = Path(path), Path(f"{path}-wal")
        return FileSizes(
            str(main.parent),
            main.stat().st_size if main.exists() else None,
            wal.stat().st_size if wal.exists() else 0,
        )

    def checkpoint(self) -> str:
        """Fold the WAL into the database and truncate it to nothing. On a connection of its
        own, outside any transaction; a reader holding an old snapshot makes it partial."""
        db = self._engine.db
        if db.path == ":memory:" or db.read_only:
            return "skipped: no file to checkpoint, or the store is read-only"
        conn = sqlite3.connect(db.path, timeout=30, isolation_level=None)
        try:
            busy, frames, moved = conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        except sqlite3.Error as exc:
            raise translate(exc, db.path) from exc
        finally:
            conn.close()
        if busy:
            return f"partial: {moved} of {frames} frames moved (a reader held the WAL)"
        return "checkpointed: the WAL was folded into the database and truncated"

    def indexes(self) -> list[IndexState]:
        """Every loaded vector index beside the count of embeddings it should hold. Checked
        only when the index thinks itself current (its generation is the bank's): one behind
        catches up at the next search on its own."""
        engine = self._engine
        found = []
        for (bank, model), idx in list(engine._indexes.items()):
            gen = engine.db.query("SELECT generation FROM index_state WHERE bank_id = ?", (bank,))
            if (int(gen[0][0]) if gen else 0) != idx.generation:
                continue
            stored = engine.db.query(
                "SELECT count(*) FROM embeddings e JOIN units u ON u.bank_id = e.bank_id "
                "AND u.id = e.unit_id WHERE e.bank_id = ? AND e.model = ? AND e.dim = ?",
                (bank, model, idx.dim),
            )[0][0]
            found.append(IndexState(bank, model, int(stored), len(idx)))
        return found

    def rebuild_index(self, bank_id: str, model: str) -> int:
        """Build the index again from the embeddings table and put it in place of the old
        one at once (a search in flight finishes on the old one)."""
        engine = self._engine
        old = engine._indexes.get((bank_id, model))
        if old is None:
            return 0
        gen = engine.db.query("SELECT generation FROM index_state WHERE bank_id = ?", (bank_id,))
        idx = engine._build_index(bank_id, model, old.dim, int(gen[0][0]) if gen else 0)
        engine._indexes[(bank_id, model)] = idx
        return len(idx)
