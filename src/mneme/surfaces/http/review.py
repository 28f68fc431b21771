"""Review: the worklist of what waits for a person, the claims by review status, decisions
(one or in bulk), rejections, restores, rules."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Depends, Path, Query
from fastapi.responses import JSONResponse

from mneme.errors import NotFound
from mneme.memory import Memory
from mneme.surfaces.http.auth import Access, allowed, sees_everything
from mneme.surfaces.http.context import Mem, answer
from mneme.surfaces.http.problems import ERROR_RESPONSES
from mneme.surfaces.http.schemas import (
    ID_PATTERN,
    AdoptRuleIn,
    BulkIn,
    DecideIn,
    RejectIn,
    RestoreIn,
)

router = APIRouter(prefix="/v1/banks/{bank:mneme_id}", tags=["review"], responses=ERROR_RESPONSES)

TargetId = Annotated[
    str,
    Path(description="A claim or memory (unit) id.", max_length=128, pattern=ID_PATTERN),
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


@router.get(
    "/review/worklist",
    summary="The review worklist",
    description="Only what waits for a person's decision (ADR 0048): open conflicts "
    "(`question`), pending claims with a live rival in their slot (`contested`), rejected "
    "values said again (`reasserted`) and sweep verdicts below the auto-apply bar "
    "(`proposal`); never what is superseded or settled. Each item is a card: `said` (the "
    "statement as said: text, author, source ids, occurred_at, recorded_at), `other` (the "
    "other side), `question`, and `actions`, the decisions that apply to its state. `counts` "
    "are per kind under the author and text filters; `total` the matches of the kinds asked. "
    "404 for a bank that does not exist.",
)
def worklist(
    mem: Mem,
    acc: Annotated[Access, Depends(allowed("review_queue"))],
    kind: Annotated[
        list[Literal["question", "contested", "reasserted", "proposal"]] | None,
        Query(description="Keep these kinds (repeat the parameter); all by default."),
    ] = None,
    author: Annotated[
        str | None,
        Query(description="What this agent said.", max_length=128, pattern=ID_PATTERN),
    ] = None,
    text: Annotated[
        str | None, Query(description="Said text contains this (any case).", max_length=200)
    ] = None,
    sort: Annotated[
        Literal["newest", "most_contested"], Query(description="newest or most_contested.")
    ] = "newest",
    limit: Annotated[int, Query(ge=1, le=200, description="At most this many.")] = 50,
    offset: Annotated[int, Query(ge=0, le=100_000, description="Skip this many.")] = 0,
) -> JSONResponse:
    page = mem.review.worklist(
        bank=acc.bank,
        kinds=kind,
        author=author,
        text=text,
        sort=sort,
        limit=limit,
        offset=offset,
    )
    return answer(page)


@router.post(
    "/review/bulk",
    summary="Approve or reject many cards",
    description="Each id is decided on its own (its own transaction) and answers its own "
    "result: `{id, ok, code, message}`; one that fails (decided meanwhile, no such action, "
    "not in this bank) leaves the others done. reject needs a `reason` (400, nothing "
    "decided). A sweep proposal is accepted (approve) or dismissed (reject).",
)
def bulk(
    body: BulkIn,
    mem: Mem,
    acc: Annotated[Access, Depends(allowed("review_decide"))],
) -> JSONResponse:
    results = mem.review.bulk(
        body.ids, body.decision, actor=acc.agent, reason=body.reason, bank=acc.bank
    )
    return answer({"bank": acc.bank, "decision": body.decision, "results": results})


@router.post(
    "/review/{target_id:mneme_id}/decide",
    summary="Decide on a claim or memory",
    description="approve, reject (tombstones the value; the `note` is its required reason), "
    "supersede (by the live value of its slot), or restore (undoes the latest decision); "
    "`because` names the belief the decision rests on. 409 when the decision does not apply "
    "to its current state (supersede with nothing to supersede it), 400 for a rejection "
    "without a reason, 404 when `because` names no memory of the bank; nothing is written "
    "then.",
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
    "/memories/{target_id:mneme_id}/reject",
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
    "/memories/{target_id:mneme_id}/restore",
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
