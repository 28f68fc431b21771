"""Conflicts: two memories that disagree, a question for a person, and how it was settled."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mneme.core.model import ConflictRecord, Resolution
from mneme.errors import NotFound
from mneme.store.codec import conflict_summary
from mneme.store.protocol import ConflictChanges
from mneme.store.sql.part import Part
from mneme.store.sql.records import EPOCH, Columns

CONFLICT = Columns("conflicts")
_CHANGES = Columns(
    "conflicts",
    ("status", "resolution", "winner", "scope_a", "scope_b", "resolved_at", "resolved_by", "note"),
)


def _conflict(row: Mapping[str, Any]) -> ConflictRecord:
    return ConflictRecord(
        **{
            **row,
            "resolution": Resolution(row["resolution"]) if row["resolution"] else None,
            "created_at": row["created_at"] or EPOCH,
        }
    )


class Conflicts(Part):
    def _conflicts(self, sql: str, params: tuple[Any, ...]) -> list[ConflictRecord]:
        rows = self.sql.rows(sql, params)
        return [_conflict(CONFLICT.decode(self.sql.dialect, r)) for r in rows]

    def put_conflict(self, conflict: ConflictRecord) -> None:
        c = conflict
        self.sql.write(
            CONFLICT.insert,
            CONFLICT.row(self.sql.dialect, c),
        )
        self.engine.audit(
            c.bank_id,
            "system",
            "conflict.open",
            c.id,
            None,
            # The question quotes both memories: content, so in the erasable part (ADR 0008).
            {**conflict_summary(c), "question": c.question},
            c.kind,
        )

    def get_conflict(self, bank_id: str, conflict_id: str) -> ConflictRecord | None:
        return self._get_conflict(bank_id, conflict_id)

    def _get_conflict(
        self, bank_id: str, conflict_id: str, *, lock: bool = False
    ) -> ConflictRecord | None:
        sql = f"SELECT {CONFLICT.select} FROM conflicts WHERE bank_id = ? AND id = ?"
        found = self._conflicts(self._locked(sql) if lock else sql, (bank_id, conflict_id))
        return found[0] if found else None

    def list_conflicts(
        self,
        bank_id: str,
        *,
        status: str | None,
        unit_id: str | None = None,
        pair_key: str | None = None,
        limit: int = 100,
    ) -> list[ConflictRecord]:
        where = "bank_id = ?"
        params: list[Any] = [bank_id]
        if status is not None:
            where += " AND status = ?"
            params.append(status)
        if pair_key is not None:
            where += " AND pair_key = ?"
            params.append(pair_key)
        if unit_id is None:
            sql = f"SELECT {CONFLICT.select} FROM conflicts WHERE {where}"
        else:
            # One indexed lookup per side: with "a_unit = ? OR b_unit = ?" SQLite's planner
            # walked the (bank, status, created_at) index through every open conflict.
            by = self.sql.dialect.indexed_by
            sql = (
                f"SELECT {CONFLICT.select} FROM conflicts{by('conflicts_a_unit')} "
                f"WHERE {where} AND a_unit = ? UNION "
                f"SELECT {CONFLICT.select} FROM conflicts{by('conflicts_b_unit')} "
                f"WHERE {where} AND b_unit = ?"
            )
            params = [*params, unit_id, *params, unit_id]
        return self._conflicts(sql + " ORDER BY created_at, id LIMIT ?", (*params, limit))

    def update_conflict(
        self, bank_id: str, conflict_id: str, changes: ConflictChanges, *, actor: str, reason: str
    ) -> ConflictRecord:
        before = self._get_conflict(bank_id, conflict_id, lock=True)
        if before is None:
            raise NotFound(f"no conflict {conflict_id} in bank {bank_id}")
        sets, params = _CHANGES.assignments(self.sql.dialect, changes)
        if sets:
            self.sql.write(
                f"UPDATE conflicts SET {', '.join(sets)} WHERE bank_id = ? AND id = ?",
                (*params, bank_id, conflict_id),
            )
        after = self._get_conflict(bank_id, conflict_id)
        assert after is not None
        self.engine.audit(
            bank_id,
            actor,
            "conflict.update",
            conflict_id,
            conflict_summary(before),
            conflict_summary(after),
            reason,
        )
        return after
