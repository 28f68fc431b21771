"""Review: the queue of claims waiting for a person, decisions, rejections, restores, rules."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Depends, Path, Query
from fastapi.responses import JSONResponse

from mneme.errors import NotFound
from mneme.memory import Memory
from mneme.surfaces.http.auth import BANK_PATTERN, Access, allowed, sees_everything
from mneme.surfaces.http.context import Mem, answer
from mneme.surfaces.http.problems import ERROR_RESPONSES
from mneme.surfaces.http.schemas import AdoptRuleIn, DecideIn, RejectIn, RestoreIn

router = APIRouter(prefix="/v1/banks/{bank}", tags=["review"], responses=ERROR_RESPONSES)

TargetId = Annotated[
    str,
    Path(description="A claim or memory (unit) id.", max_length=128, pattern=BANK_PATTERN),
]


def _in_bank(mem: Memory, target_id: str, bank: str) -> None:
    """404 unless the claim or unit lives in this bank (ids are global across banks)."""
    if mem.review.target(target_id).bank_id != bank:
        raise NotFound(f"no claim or memory {target_id!r} in bank {bank!r}")


@router.get(
    "/review",
    summary="The review queue",
    description="Claims by review status, newest first (pending_review by default). Each item "
    "is the statement that first said the claim, as said (`text`, `statement`, `unit_id`), "
    "its first evidence source (`source_id`), its author and when it was said (`said_at`), "
    "and the claim itself (`claim`: subject, attribute, value, both statuses, evidence).",
)
def queue(
    mem: Mem,
    acc: Annotated[Access, Depends(allowed("review_queue"))],
    status: Annotated[
        Literal["pending_review", "approved", "rejected", "superseded"],
        Query(description="Which review status to list."),
    ] = "pending_review",
    limit: Annotated[int, Query(ge=1, le=1000, description="At most this many.")] = 50,
) -> JSONResponse:
    # Reviewers and admins read the bank as its owner; anyone else only what they may see.
    agent = None if sees_everything(acc.who) else acc.agent
    items = mem.review.queue(bank=acc.bank, status=status, limit=limit, agent=agent)
    return answer({"bank": acc.bank, "status": status, "items": items})


@router.post(
    "/review/{target_id}/decide",
    summary="Decide on a claim or memory",
    description="approve, reject (tombstones the value), supersede, or restore (undoes the "
    "latest decision); `because` names the belief the decision rests on. 409 when the "
    "decision does not apply to its current state, 404 when `because` names no memory of the "
    "bank; nothing is written then.",
)
def decide(
    target_id: TargetId,
    body: DecideIn,
    mem: Mem,
    acc: Annotated[Access, Depends(allowed("review_decide"))],
) -> JSONResponse:
    _in_bank(mem, target_id, acc.bank)
    event = mem.review.decide(
        target_id, body.decision, acc.agent, note=body.note, because=body.because
    )
    return answer(event)


@router.post(
    "/memories/{target_id}/reject",
    summary="Reject a memory or claim",
    description="Its value is tombstoned: retained again later, it does not come back live. "
    "`because` names the belief the rejection rests on (the memory is then CONTESTED_BECAUSE "
    "it, and reconsolidation re-examines the rejection when it changes); 404 when it names no "
    "memory of the bank, and nothing is rejected. Answers the tombstone.",
)
def reject(
    target_id: TargetId,
    body: RejectIn,
    mem: Mem,
    acc: Annotated[Access, Depends(allowed("reject"))],
) -> JSONResponse:
    _in_bank(mem, target_id, acc.bank)
    return answer(mem.review.reject(target_id, body.reason, acc.agent, because=body.because))


@router.post(
    "/memories/{target_id}/restore",
    summary="Restore a memory or claim",
    description="Undo the latest decision (a rejection lifts its tombstone). 409 when there is "
    "nothing to restore.",
)
def restore(
    target_id: TargetId,
    body: RestoreIn,
    mem: Mem,
    acc: Annotated[Access, Depends(allowed("restore"))],
) -> JSONResponse:
    _in_bank(mem, target_id, acc.bank)
    return answer(mem.review.restore(target_id, acc.agent, body.note))


@router.get(
    "/rules",
    summary="The memory charter and adopted rules",
    description="The charter in force (text and checked rules) and this bank's adopted rules.",
)
def rules(mem: Mem, acc: Annotated[Access, Depends(allowed("rules"))]) -> JSONResponse:
    return answer(mem.admin.rules(bank=acc.bank))


@router.post(
    "/rules",
    summary="Adopt a proposed rule",
    description="After enough identical settlements of one kind of conflict, a person may "
    "adopt the rule they suggest. 409 when there are too few precedents.",
)
def adopt_rule(
    body: AdoptRuleIn, mem: Mem, acc: Annotated[Access, Depends(allowed("adopt_rule"))]
) -> JSONResponse:
    rule = mem.admin.adopt_rule(
        bank=acc.bank,
        kind=body.kind,
        attribute=body.attribute,
        decision=body.decision,
        actor=acc.agent,
    )
    return answer(rule)
