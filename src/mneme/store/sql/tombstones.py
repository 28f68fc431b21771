"""Tombstones: rejected values that stay rejected, and the evidence that asserted them again."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from typing import Any

from mneme.core.model import Tombstone
from mneme.errors import NotFound
from mneme.store.codec import ts
from mneme.store.sql.part import Part
from mneme.store.sql.records import EPOCH, Columns

TOMB = Columns("tombstones")


def _tombstone(row: Mapping[str, Any]) -> Tombstone:
    return Tombstone(**{**row, "at": row["at"] or EPOCH, "evidence": tuple(row["evidence"] or ())})


class Tombstones(Part):
    def _tombstones(self, sql: str, params: tuple[Any, ...]) -> list[Tombstone]:
        return [_tombstone(TOMB.decode(self.sql.dialect, r)) for r in self.sql.rows(sql, params)]

    def put_tombstone(self, tombstone: Tombstone) -> None:
        t = tombstone
        self.engine._forget(("tombstones", t.bank_id))
        self.sql.write(
            TOMB.insert,
            TOMB.row(self.sql.dialect, t),
        )
        self.engine.audit(
            t.bank_id,
            t.actor,
            "tombstone.put",
            t.id,
            None,
            {
                "unit_id": t.unit_id,
                "content_key": t.content_key,
                "claim_key": t.claim_key,
                "text": t.text,
            },
            t.reason,
        )

    def has_tombstones(self, bank_id: str) -> bool:
        # Most banks hold no tombstone at all: inside a write transaction that is read once.
        return bool(
            self.engine._memoized(
                ("tombstones", bank_id),
                lambda: bool(
                    self.sql.rows("SELECT 1 FROM tombstones WHERE bank_id = ? LIMIT 1", (bank_id,))
                ),
            )
        )

    def find_tombstones(
        self,
        bank_id: str,
        *,
        content_key: str | None = None,
        claim_key: str | None = None,
        unit_id: str | None = None,
        live_only: bool = True,
    ) -> list[Tombstone]:
        keys = [("content_key", content_key), ("claim_key", claim_key), ("unit_id", unit_id)]
        wanted = [(c, v) for c, v in keys if v is not None]
        if not wanted or not self.has_tombstones(bank_id):
            return []
        match = " OR ".join(f"{c} = ?" for c, _ in wanted)
        return self._tombstones(
            f"SELECT {TOMB.select} FROM tombstones WHERE bank_id = ? AND ({match})"
            + (" AND lifted_at IS NULL" if live_only else "")
            + " ORDER BY at, id",
            (bank_id, *[v for _, v in wanted]),
        )

    def update_tombstone(
        self,
        bank_id: str,
        tombstone_id: str,
        *,
        lifted_at: dt.datetime | None,
        lifted_by: str | None,
        add_evidence: tuple[str, ...] = (),
    ) -> None:
        found = self._tombstones(
            self._locked(f"SELECT {TOMB.select} FROM tombstones WHERE bank_id = ? AND id = ?"),
            (bank_id, tombstone_id),
        )
        if not found:
            raise NotFound(f"no tombstone {tombstone_id} in bank {bank_id}")
        before = found[0]
        evidence = list(dict.fromkeys([*before.evidence, *add_evidence]))
        d = self.sql.dialect
        self.sql.write(
            "UPDATE tombstones SET lifted_at = coalesce(?, lifted_at), "
            "lifted_by = coalesce(?, lifted_by), evidence = ? WHERE bank_id = ? AND id = ?",
            (
                d.encode("ts", lifted_at),
                lifted_by,
                d.encode("json", evidence),
                bank_id,
                tombstone_id,
            ),
        )
        self.engine.audit(
            bank_id,
            lifted_by or "system",
            "tombstone.lift" if lifted_at else "tombstone.evidence",
            tombstone_id,
            {"lifted_at": ts(before.lifted_at), "evidence": list(before.evidence)},
            {"lifted_at": ts(lifted_at) or ts(before.lifted_at), "evidence": evidence},
            "restore" if lifted_at else "the rejected value was asserted again",
        )
