"""Review events: the append-only record of every decision a person or rule made.

Append-only is the schema's rule on both backends (triggers), as is the guard on rejected units
and claims: it holds for every path, raw SQL included.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mneme.core.model import ReviewEvent
from mneme.store.sql.part import Part
from mneme.store.sql.records import EPOCH, Columns

#: Every column but ``seq``, which the database assigns (insertion order).
EVENT = Columns(
    "review_events",
    (
        "bank_id",
        "id",
        "target_kind",
        "target_id",
        "decision",
        "actor",
        "note",
        "at",
        "prior_status",
        "prior_review_status",
        "new_status",
        "new_review_status",
        "metadata",
    ),
)


def _event(row: Mapping[str, Any]) -> ReviewEvent:
    return ReviewEvent(**{**row, "at": row["at"] or EPOCH, "metadata": row["metadata"] or {}})


class Reviews(Part):
    def put_review_event(self, event: ReviewEvent) -> None:
        e = event
        self.sql.write(
            EVENT.insert,
            EVENT.row(self.sql.dialect, e),
        )
        self.engine.audit(
            e.bank_id,
            e.actor,
            f"review.{e.decision}",
            e.target_id,
            {"status": e.prior_status, "review_status": e.prior_review_status},
            {"status": e.new_status, "review_status": e.new_review_status},
            e.note,
        )

    def _events(self, where: str, params: tuple[Any, ...]) -> list[ReviewEvent]:
        rows = self.sql.rows(
            f"SELECT {EVENT.select} FROM review_events WHERE {where} ORDER BY seq", params
        )
        return [_event(EVENT.decode(self.sql.dialect, r)) for r in rows]

    def review_events(self, bank_id: str, target_id: str) -> list[ReviewEvent]:
        return self._events("bank_id = ? AND target_id = ?", (bank_id, target_id))

    def review_events_caused_by(self, bank_id: str, event_id: str) -> list[ReviewEvent]:
        cause = self.sql.dialect.json_text("metadata", "cause")
        return self._events(f"bank_id = ? AND {cause} = ?", (bank_id, event_id))
