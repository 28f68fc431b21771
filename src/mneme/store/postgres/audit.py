"""The keyed audit chain in PostgreSQL: its head, and where the shared key handling
(``store.sql.keys``) differs here: no key file means a key of this process only (a store
built directly, as tests do), and rows to seal are marked in ``audit_touched``, where an
unsealed transaction's marks are cleared before resealing (ADR 0008, ADR 0035)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from mneme.store.postgres.base import PostgresBase


class AuditMixin(PostgresBase):
    def audit_head(self, bank_id: str) -> tuple[int, str, int] | None:
        rows = self.db.query(
            "SELECT seq, hash, count FROM audit_head WHERE bank_id = %s", (bank_id,)
        )
        return (int(rows[0][0]), str(rows[0][1]), int(rows[0][2])) if rows else None

    def _location(self) -> str:
        return self.db.where

    def _key_file(self, key_file: str | None) -> tuple[str, bool] | None:
        if key_file is None:
            return None
        Path(key_file).expanduser().parent.mkdir(parents=True, exist_ok=True)
        return key_file, True

    def _has_table(self, name: str) -> bool:
        return bool(self.db.scalar("SELECT to_regclass(%s) IS NOT NULL", (name,)))

    def _before_reseal(self) -> None:
        # What transactions that ended unsealed left (a migration's writes, at open).
        self._w(
            "DELETE FROM audit_touched WHERE txid < txid_snapshot_xmin(txid_current_snapshot())"
        )

    def _mark_touched(self, bank_id: str, rows: Sequence[tuple[str, str]]) -> None:
        self._many(
            "INSERT INTO audit_touched VALUES (txid_current(), %s, %s, %s) ON CONFLICT DO NOTHING",
            [(table, bank_id, row_id) for table, row_id in rows],
        )
