"""History of a unit, source, claim or conflict: review events and audited changes, in order."""

from __future__ import annotations

import datetime as dt
from collections.abc import Collection
from typing import Any, Protocol

from mneme.core.model import HistoryEvent
from mneme.store.protocol import Audit, Trust


class HistoryStore(Protocol):
    """The roles of the store this module uses (ADR 0044)."""

    trust: Trust
    audit: Audit


def history(
    store: HistoryStore,
    bank_id: str,
    object_id: str,
    writers: Collection[str] | None = None,
) -> list[HistoryEvent]:
    """Every recorded change of one object, oldest first.

    Review decisions come from the append-only review events (decision, actor, note and the
    prior and new state on both axes); everything else from the hash-chained audit log.
    ``writers``, when given, are those whose sources of this id the reader may see: a source
    record by anyone else (another agent's private source of the same id, ADR 0107) is left
    out.
    """
    events = [
        HistoryEvent(
            at=e.at,
            kind="review",
            actor=e.actor,
            detail={
                "decision": e.decision,
                "note": e.note,
                "event_id": e.id,
                "prior_status": e.prior_status,
                "prior_review_status": e.prior_review_status,
                "new_status": e.new_status,
                "new_review_status": e.new_review_status,
                **({"cause": e.metadata["cause"]} if "cause" in e.metadata else {}),
            },
        )
        for e in store.trust.review_events(bank_id, object_id)
    ]
    for rec in store.audit.records(bank_id, target=object_id):
        if rec.op.startswith("review."):
            continue  # the review event above says it with both axes
        if writers is not None and rec.op.startswith("source.") and rec.actor not in writers:
            continue
        events.append(
            HistoryEvent(
                at=rec.at,
                kind=rec.op,
                actor=rec.actor,
                detail={"before": rec.before, "after": rec.after, "reason": rec.reason},
            )
        )
    events.sort(key=lambda e: e.at)
    return events


def state_at(
    store: HistoryStore, bank_id: str, object_id: str, at: dt.datetime
) -> dict[str, Any] | None:
    """What mneme held about an object at a past instant of record time (transaction time).

    Rebuilt from the audit log alone: the state after the last change recorded at or before
    ``at``. A supersession made and later reverted shows as in force between the two.
    """
    state: dict[str, Any] | None = None
    for rec in store.audit.records(bank_id, target=object_id):
        if rec.at > at:
            break
        if rec.after is not None and rec.op in (
            "unit.put",
            "unit.update",
            "claim.put",
            "claim.update",
            "conflict.open",
            "conflict.update",
        ):
            state = {**(state or {}), **dict(rec.after)}
    return state
