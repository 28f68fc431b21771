"""Trust tools: the review queue and decisions, conflicts and their resolutions, and
rejecting or restoring a memory. These are decisions: a person usually makes them, and only a
reviewer or admin caller may (as on HTTP). The actor recorded is always the caller's agent."""

from __future__ import annotations

from typing import Annotated, Literal

from mcp.types import CallToolResult
from pydantic import Field, Strict

from mneme.memory import Memory
from mneme.surfaces.authority import sees_everything
from mneme.surfaces.mcp.caller import granted
from mneme.surfaces.mcp.params import MAX_ID, Bank, Limit, Note, OptionalId
from mneme.surfaces.mcp.results import Ctx, run

TargetId = Annotated[
    str,
    Field(min_length=1, max_length=MAX_ID, description="A claim (clm_...) or memory (u_...) id."),
]
ConflictId = Annotated[
    str, Field(min_length=1, max_length=MAX_ID, description="A conflict id (cfl_...).")
]
Because = Annotated[
    OptionalId,
    Field(description="The memory id this decision rests on; re-examined if it changes."),
]


def _in_bank(m: Memory, object_id: str, bank: str) -> None:
    """Refuse (not found) an id that belongs to another bank."""
    m.history(object_id, bank=bank)


async def review_queue(
    ctx: Ctx,
    bank: Bank = None,
    status: Annotated[
        Literal["pending_review", "approved", "rejected", "superseded"],
        Field(description="Which decisions to list; pending_review: what awaits a person."),
    ] = "pending_review",
    limit: Limit = 50,
) -> CallToolResult:
    """Claims waiting for a person's decision, newest first, each as it was said.

    Returns items: id, text (the statement as said), statement, unit_id, source_id, author,
    said_at, and the claim (subject, attribute, value, status, review_status,
    evidence_count, evidence_refs, contradiction_refs...). Decide them with review_decide.
    Reviewers and admins see the bank as its owner. {QUOTED}
    """
    acc = granted()
    agent = None if sees_everything(acc.who) else acc.agent
    return await run(
        ctx, lambda m: m.review.queue(bank=acc.bank, status=status, limit=limit, agent=agent)
    )


async def review_worklist(
    ctx: Ctx,
    bank: Bank = None,
    kinds: Annotated[
        list[Literal["question", "contested", "reasserted", "proposal"]] | None,
        Field(max_length=4, description="Only these kinds (default: all)."),
    ] = None,
    author: Annotated[
        str | None, Field(max_length=MAX_ID, description="Said by this agent.")
    ] = None,
    text: Annotated[str | None, Field(max_length=200, description="Containing this text.")] = None,
    sort: Literal["newest", "most_contested"] = "newest",
    limit: Limit = 50,
    offset: Annotated[int, Strict(), Field(ge=0, le=1_000_000)] = 0,
) -> CallToolResult:
    """What waits for a decision, only: open questions, contested claims, rejected values
    said again, sweep proposals; with counts per kind. Each item lists the actions that apply
    (decide with review_decide, resolve_conflict or review_bulk). {QUOTED}
    """
    acc = granted()
    return await run(
        ctx,
        lambda m: m.review.worklist(
            bank=acc.bank,
            kinds=kinds,
            author=author,
            text=text,
            sort=sort,
            limit=limit,
            offset=offset,
        ),
    )


async def review_bulk(
    ctx: Ctx,
    ids: Annotated[list[str], Field(min_length=1, max_length=200, description="Item ids.")],
    decision: Literal["approve", "reject"],
    bank: Bank = None,
    reason: Annotated[str, Field(max_length=4_000, description="Required to reject.")] = "",
) -> CallToolResult:
    """Approve or reject many worklist items at once; each answers its own result (a stale
    one fails alone). You are the actor recorded."""
    acc = granted()
    return await run(
        ctx,
        lambda m: m.review.bulk(ids, decision, actor=acc.agent, reason=reason, bank=acc.bank),
    )


async def review_decide(
    ctx: Ctx,
    target_id: TargetId,
    decision: Annotated[
        Literal["approve", "reject", "supersede", "restore"],
        Field(
            description="approve: it is right; reject: it is wrong (tombstoned, never comes "
            "back by itself; give the reason as note); supersede: replaced by the live value of "
            "its slot (refused when there is none); restore: undo the last "
            "decision."
        ),
    ],
    bank: Bank = None,
    note: Note = "",
    because: Because = None,
) -> CallToolResult:
    """Decide a claim or memory from the review queue (you are the actor recorded).

    A decision that does not apply to its current state, or a because naming no memory of
    the bank, is refused and changes nothing.
    Returns the review event (prior and new status on both axes).
    """

    acc = granted()

    def work(m: Memory) -> object:
        _in_bank(m, target_id, acc.bank)
        return m.review.decide(target_id, decision, acc.agent, note=note, because=because)

    return await run(ctx, work)


async def list_conflicts(
    ctx: Ctx,
    bank: Bank = None,
    status: Annotated[
        Literal["open", "resolved", "all"], Field(description="Which conflicts to list.")
    ] = "open",
    limit: Limit = 100,
) -> CallToolResult:
    """Disagreements between memories (open ones by default), each with both sides."""
    acc = granted()
    return await run(
        ctx,
        lambda m: m.conflicts.list(
            bank=acc.bank, status=None if status == "all" else status, limit=limit
        ),
    )


async def resolve_conflict(
    ctx: Ctx,
    conflict_id: ConflictId,
    resolution: Annotated[
        Literal["supersede", "reject", "not_conflict", "scoped_exception"],
        Field(
            description="supersede: the winner replaces the other; reject: the loser is "
            "wrong (rejected and tombstoned); not_conflict: both hold, never flag this pair "
            "again; scoped_exception: both hold, each in its own scope (give scope_a and "
            "scope_b)."
        ),
    ],
    bank: Bank = None,
    note: Note = "",
    winner: Annotated[
        OptionalId,
        Field(description="For supersede/reject: the memory that is right (default: newer)."),
    ] = None,
    scope_a: Annotated[
        str | None, Field(max_length=500, description="Where the first memory holds.")
    ] = None,
    scope_b: Annotated[
        str | None, Field(max_length=500, description="Where the second memory holds.")
    ] = None,
) -> CallToolResult:
    """Settle a conflict with one of the four resolutions (you are the actor recorded).

    Returns the resolved conflict.
    """
    acc = granted()

    def work(m: Memory) -> object:
        _in_bank(m, conflict_id, acc.bank)
        return m.conflicts.resolve(
            conflict_id,
            resolution,
            actor=acc.agent,
            note=note,
            winner=winner,
            scope_a=scope_a,
            scope_b=scope_b,
        )

    return await run(ctx, work)


async def reject(
    ctx: Ctx,
    memory_id: TargetId,
    reason: Annotated[str, Field(min_length=1, max_length=4_000, description="Why it is wrong.")],
    bank: Bank = None,
    because: Because = None,
) -> CallToolResult:
    """Reject a memory or claim as wrong: its value is tombstoned and stays rejected when
    added again. Returns the tombstone."""
    acc = granted()

    def work(m: Memory) -> object:
        _in_bank(m, memory_id, acc.bank)
        return m.review.reject(memory_id, reason, acc.agent, because=because)

    return await run(ctx, work)


async def restore(
    ctx: Ctx, memory_id: TargetId, bank: Bank = None, note: Note = ""
) -> CallToolResult:
    """Undo the latest decision on a memory or claim (a rejection lifts its tombstone).

    Returns the review event; you are the actor recorded.
    """
    acc = granted()

    def work(m: Memory) -> object:
        _in_bank(m, memory_id, acc.bank)
        return m.review.restore(memory_id, acc.agent, note)

    return await run(ctx, work)


TOOLS = [
    (review_queue, "read", "review_queue"),
    (review_worklist, "read", "review_queue"),
    (review_bulk, "decide", "review_decide"),
    (review_decide, "decide", "review_decide"),
    (list_conflicts, "read", "conflicts"),
    (resolve_conflict, "decide", "resolve_conflict"),
    (reject, "decide", "reject"),
    (restore, "decide", "restore"),
]
