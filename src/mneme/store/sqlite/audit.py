"""The keyed audit chain in SQLite: its head, and where the shared key handling
(``store.sql.keys``) differs here: the key file beside the database, a read-only open that
creates nothing, and rows to seal marked in memory until commit (ADR 0008, ADR 0035)."""

from __future__ import annotations

from collections.abc import Sequence

from mneme.store import audit_key
from mneme.store.sqlite.base import SQLiteBase


class AuditMixin(SQLiteBase):
    def audit_head(self, bank_id: str) -> tuple[int, str, int] | None:
        if self.db.owns_transaction and bank_id in self._audit_dirty:
            return self._audit_tip(bank_id)  # the head row is written at commit
        rows = self.db.query(
            "SELECT seq, hash, count FROM audit_head WHERE bank_id = ?", (bank_id,)
        )
        return (int(rows[0][0]), str(rows[0][1]), int(rows[0][2])) if rows else None

    def _location(self) -> str:
        return self.db.path

    def _key_file(self, key_file: str | None) -> tuple[str, bool] | None:
        if key_file is None and self.db.path == ":memory:":
            return None
        return key_file or audit_key.default_path(self.db.path), not self.db.read_only

    def _has_table(self, name: str) -> bool:
        return bool(
            self.db.query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (name,))
        )

    def _before_reseal(self) -> None:
        """Nothing is left over: rows to seal are marked in this process (``_touched_rows``)."""

    def _mark_touched(self, bank_id: str, rows: Sequence[tuple[str, str]]) -> None:
        self._touched_rows.update((table, bank_id, row_id) for table, row_id in rows)
