"""Conflicts: open disagreements between memories, and how a person settles them."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Depends, Path, Query
from fastapi.responses import JSONResponse

from mneme.errors import NotFound
from mneme.surfaces.authority import may_answer
from mneme.surfaces.http.auth import Access, allowed
from mneme.surfaces.http.context import Mem, answer
from mneme.surfaces.http.problems import ERROR_RESPONSES
from mneme.surfaces.http.schemas import ID_PATTERN, ContradictionIn, ResolveIn

router = APIRouter(
    prefix="/v1/banks/{bank:mneme_id}", tags=["conflicts"], responses=ERROR_RESPONSES
)


@router.get(
    "/conflicts",
    summary="List conflicts",
    description="Disagreements between memories (open by default), each with both parties, "
    "its kind, the question it raises and, once settled, its resolution.",
)
def list_conflicts(
    mem: Mem,
    acc: Annotated[Access, Depends(allowed("conflicts"))],
    status: Annotated[
        Literal["open", "resolved", "all"], Query(description="open, resolved or all.")
    ] = "open",
    limit: Annotated[int, Query(ge=1, le=1000, description="At most this many.")] = 100,
) -> JSONResponse:
    found = mem.conflicts.list(
        bank=acc.bank, status=None if status == "all" else status, limit=limit
    )
    return answer({"bank": acc.bank, "status": status, "conflicts": found})


@router.post(
    "/conflicts/{conflict_id:mneme_id}/resolve",
    summary="Resolve a conflict",
    description="supersede (the winner replaces the other), reject (the other is wrong: "
    "rejected and tombstoned), not_conflict (both hold; the pair is never flagged again) or "
    "scoped_exception (both hold, each in its stated scope: give scope_a and scope_b). "
    "409 when it is already resolved.",
)
def resolve(
    conflict_id: Annotated[
        str, Path(description="The conflict id.", max_length=128, pattern=ID_PATTERN)
    ],
    body: ResolveIn,
    mem: Mem,
    acc: Annotated[Access, Depends(allowed("resolve_conflict"))],
) -> JSONResponse:
    # Ids are global: history() answers 404 unless the conflict lives in this bank.
    try:
        mem.history(conflict_id, bank=acc.bank)
    except NotFound:
        raise NotFound(f"no conflict {conflict_id!r} in bank {acc.bank!r}") from None
    record = mem.conflicts.resolve(
        conflict_id,
        body.resolution,
        actor=acc.agent,
        note=body.note,
        winner=body.winner,
        scope_a=body.scope_a,
        scope_b=body.scope_b,
    )
    return answer(record)


@router.post(
    "/contradictions/resolve",
    summary="Answer a write's question (resolve_contradiction)",
    description="A write that came back needs_clarification named the new memory (from_id) "
    "and the one it disputed (to_id). confirm: the new one replaces the old; retract: the new "
    "one is wrong; preference: both hold. Agents may answer for their own memories.",
)
def resolve_contradiction(
    body: ContradictionIn,
    mem: Mem,
    acc: Annotated[Access, Depends(allowed("resolve_contradiction"))],
) -> JSONResponse:
    may_answer(mem, acc.who, acc.bank, body.from_id)
    settlement = mem.conflicts.resolve_contradiction(
        body.from_id, body.to_id, body.decision, actor=acc.agent, note=body.note
    )
    return answer(settlement)
