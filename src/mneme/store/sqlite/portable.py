"""Whole-store import for SQLite (``mneme db copy``; export is ``store.sql.portable``): rows
in the portable form of ``mneme.store.tables``, imported verbatim with no audit record."""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping, Sequence
from typing import Any

from mneme.store.sqlite.database import translate
from mneme.store.sqlite.dialect import DIALECT
from mneme.store.sqlite.lexicon import LexiconMixin
from mneme.store.tables import spec

_in = DIALECT.encode


class PortableMixin(LexiconMixin):
    def import_rows(self, table: str, rows: Sequence[Mapping[str, Any]]) -> None:
        t = spec(table)
        if not rows:
            return
        self.sql.guard()
        self._forget()
        # Imported rows keep the seals their records carry (copied verbatim): not sealed again.
        self._importing = True
        try:
            self.db.conn().executemany(
                f"INSERT INTO {t.name} ({', '.join(t.names)}) "
                f"VALUES ({','.join('?' * len(t.columns))})",
                [tuple(_in(k, row.get(c)) for c, k in t.columns) for row in rows],
            )
        except sqlite3.Error as exc:
            raise translate(exc, self.db.path) from exc
        finally:
            self._importing = False
        if t.name == "units":
            self._fts_imported(rows)
        # In-memory vector indexes of this store are stale now: rebuild on next use.
        self._indexes.clear()

    def _fts_imported(self, rows: Sequence[Mapping[str, Any]]) -> None:
        """Imported units join their bank's lexical index (a new bank's table is filled
        from every unit it has, these included)."""
        by_bank: dict[str, list[str]] = {}
        for row in rows:
            by_bank.setdefault(str(row["bank_id"]), []).append(str(row["id"]))
        for bank_id, ids in by_bank.items():
            existed = self._fts(bank_id) is not None
            name = self._fts_create(bank_id)
            if existed:
                self._fts_units(name, bank_id, ids)
