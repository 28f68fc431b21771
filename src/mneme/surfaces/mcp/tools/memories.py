"""Tools on memories themselves: add, update, the status of an accepted add, search, a
context block, get a memory or a source, list banks and memories, and a memory's history."""

from __future__ import annotations

from typing import Annotated, Literal

from mcp.types import CallToolResult
from pydantic import Field, Strict

from mneme.memory import Memory
from mneme.surfaces.authority import viewer, visible_banks
from mneme.surfaces.literals import MemoryType
from mneme.surfaces.mcp import modes
from mneme.surfaces.mcp.caller import granted
from mneme.surfaces.mcp.params import (
    MAX_ID,
    MAX_NOTE,
    Bank,
    Flag,
    Limit,
    MemoryId,
    ObjectId,
    OptionalId,
    Query,
    Scope,
    Text,
    Time,
)
from mneme.surfaces.mcp.results import Ctx, run


async def add_memory(
    ctx: Ctx,
    text: Text,
    bank: Bank = None,
    session: Annotated[OptionalId, Field(description="Conversation or task id.")] = None,
    occurred_at: Annotated[Time, Field(description="When it happened (ISO 8601).")] = None,
    source_id: Annotated[
        OptionalId,
        Field(description="Your id for this input, cited as evidence."),
    ] = None,
    trust: Annotated[
        float | None,
        Strict(),
        Field(ge=0, le=1, description="Trust in the source."),
    ] = None,
    private: Annotated[Flag, Field(description="No other agent ever sees it.")] = False,
    wait: Annotated[
        float | None,
        Strict(),
        Field(
            ge=0,
            le=60,
            description="Seconds to wait, then status accepted (see get_add_status).",
        ),
    ] = None,
    create_bank: Annotated[Flag, Field(description="Make the bank if it does not exist.")] = False,
) -> CallToolResult:
    """Remember a fact, preference, decision or event. A correction supersedes the old
    memory; a contradiction is kept and returned in questions (see resolve_contradiction).
    Returns status, memory_ids, source_id, decisions, questions, pending_id.
    """
    acc = granted()
    return await run(
        ctx,
        lambda m: m.retain(
            text,
            bank=acc.bank,
            agent=acc.agent,
            session=session,
            occurred_at=occurred_at,
            source_id=source_id,
            trust=trust,
            visibility="private" if private else "shared",
            wait=wait,
        ),
        create_bank=create_bank,
    )


async def update_memory(
    ctx: Ctx,
    memory_id: MemoryId,
    text: Text,
    bank: Bank = None,
    reason: Annotated[str | None, Field(max_length=MAX_NOTE, description="Why it changed.")] = None,
    occurred_at: Annotated[Time, Field(description="When the change happened.")] = None,
) -> CallToolResult:
    """Correct a memory that is wrong or out of date: the new text supersedes it (the old
    stays in history). Returns what add_memory returns.
    """

    acc = granted()

    def work(m: Memory) -> object:
        # In this bank and visible to the agent, before anything is written.
        m.get(memory_id, bank=acc.bank, agent=acc.agent, scope="collective")
        return m.update(memory_id, text, agent=acc.agent, reason=reason, occurred_at=occurred_at)

    return await run(ctx, work)


async def get_add_status(
    ctx: Ctx,
    pending_id: Annotated[
        str,
        Field(
            min_length=1,
            max_length=MAX_ID,
            description="From add_memory's status accepted.",
        ),
    ],
    bank: Bank = None,
) -> CallToolResult:
    """Where an accepted add_memory stands: pending, processing, done (with its result) or
    failed (with its error)."""
    acc = granted()

    def work(m: Memory) -> object:
        who = viewer(acc.who)
        status = m.get_add_status(pending_id, bank=acc.bank, agent=who["agent"])
        source_id = status.result.source_id if status.result else None
        if source_id:
            # The write's source must be in this bank and visible to the caller (as on HTTP).
            m.source(source_id, bank=acc.bank, **who)
        return status

    return await run(ctx, work)


async def search_memory(
    ctx: Ctx,
    query: Query,
    bank: Bank = None,
    mode: Annotated[
        Literal["recent", "contextual", "deep", "full"],
        Field(
            description="contextual: 10 hits; recent: last 7 days, current only; deep: 20 "
            "plus graph; full: 50."
        ),
    ] = "contextual",
    scope: Scope = "collective",
    k: Annotated[int | None, Strict(), Field(ge=1, le=100, description="Hits (1-100).")] = None,
    as_of: Annotated[Time, Field(description="As believed then.")] = None,
    types: Annotated[
        list[MemoryType] | None, Field(max_length=11, description="Only these types.")
    ] = None,
    min_relevance: Annotated[
        float | None,
        Strict(),
        Field(ge=0, le=1, description="Drop hits less relevant."),
    ] = None,
    time_from: Annotated[Time, Field(description="Happened from then.")] = None,
    time_to: Annotated[Time, Field(description="Happened until then.")] = None,
    temporal_days: Annotated[
        int | None, Strict(), Field(ge=1, le=36_500, description="Last N days.")
    ] = None,
    graph_depth: Annotated[int | None, Strict(), Field(ge=0, le=4)] = None,
    detail: Annotated[
        Literal["compact", "full"], Field(description="full: every field of each hit.")
    ] = "compact",
    session: Annotated[OptionalId, Field(description="Only this conversation's.")] = None,
) -> CallToolResult:
    """Search memory before answering anything that may depend on the past. Hits: id, text,
    relevance (0-1), occurred, source_ids (cite them), and superseded_by, conflicts, flashback
    when set. {QUOTED}
    """
    acc = granted()

    def work(m: Memory) -> object:
        how = modes.plan(
            mode,
            now=m.clock(),
            k=k,
            graph_depth=graph_depth,
            temporal_days=temporal_days,
            time_from=time_from,
            time_to=time_to,
        )
        return modes.search(
            m,
            query,
            bank=acc.bank,
            agent=acc.agent,
            scope=scope,
            how=how,
            min_relevance=min_relevance,
            as_of=as_of,
            types=types,
            detail=detail,
            session=session,
        )

    return await run(ctx, work)


async def get_context(
    ctx: Ctx,
    query: Query,
    bank: Bank = None,
    max_tokens: Annotated[
        int, Strict(), Field(ge=16, le=100_000, description="Budget (characters / 4).")
    ] = 800,
    scope: Scope = "collective",
    as_of: Annotated[Time, Field(description="As believed then.")] = None,
    session: Annotated[OptionalId, Field(description="Only this conversation's.")] = None,
) -> CallToolResult:
    """A ready prompt block within max_tokens: a line per memory citing its source id,
    superseded and contested ones marked. Returns text, tokens, items. {QUOTED}
    """
    acc = granted()
    return await run(
        ctx,
        lambda m: m.context(
            query,
            bank=acc.bank,
            agent=acc.agent,
            scope=scope,
            max_tokens=max_tokens,
            as_of=as_of,
            session=session,
        ),
    )


async def get_memory(
    ctx: Ctx, memory_id: MemoryId, bank: Bank = None, scope: Scope = "collective"
) -> CallToolResult:
    """One memory by id, with all it carries: status, confidence, times, knowers,
    supersedes, superseded_by, evidence, contradictions. {QUOTED}
    """
    acc = granted()
    return await run(ctx, lambda m: m.get(memory_id, bank=acc.bank, **viewer(acc.who, scope)))


async def get_source(
    ctx: Ctx,
    source_id: Annotated[
        str, Field(min_length=1, max_length=MAX_ID, description="A source id from a hit.")
    ],
    bank: Bank = None,
    scope: Scope = "collective",
) -> CallToolResult:
    """A source: the input memories were taken from, as given (text, author, times). {QUOTED}"""
    acc = granted()
    return await run(ctx, lambda m: m.source(source_id, bank=acc.bank, **viewer(acc.who, scope)))


async def list_banks(ctx: Ctx, bank: Bank = None) -> CallToolResult:
    """The banks you may use (yours, or every bank for a caller of every bank)."""
    acc = granted()
    return await run(ctx, lambda m: {"banks": visible_banks(m, acc.who)}, create_bank=False)


async def list_memories(
    ctx: Ctx,
    bank: Bank = None,
    scope: Scope = "collective",
    limit: Limit = 50,
    offset: Annotated[int, Strict(), Field(ge=0, le=1_000_000, description="Skip this many.")] = 0,
) -> CallToolResult:
    """Browse a bank's memories, newest first (no query; use search_memory to find things).

    Returns a list of units (id, text, type, status, times, knowers...). Reviewers and
    admins see the bank as its owner. {QUOTED}
    """
    acc = granted()
    return await run(
        ctx,
        lambda m: m.list_memories(
            bank=acc.bank, limit=limit, offset=offset, **viewer(acc.who, scope)
        ),
    )


async def history(ctx: Ctx, object_id: ObjectId, bank: Bank = None) -> CallToolResult:
    """Every recorded change of a memory or source, oldest first: recorded, restated,
    superseded, rejected, reviewed (at, kind, actor, detail)."""
    acc = granted()
    return await run(
        ctx, lambda m: m.history(object_id, bank=acc.bank, agent=viewer(acc.who)["agent"])
    )


#: (tool, behaviour hint, the operation its caller's role must allow: authority.OPERATIONS)
TOOLS = [
    (add_memory, "write", "retain"),
    (update_memory, "write", "update"),
    (get_add_status, "read", "add_status"),
    (search_memory, "read", "recall"),
    (get_context, "read", "recall"),
    (get_memory, "read", "get"),
    (get_source, "read", "source"),
    (list_banks, "read", "banks"),
    (list_memories, "read", "list"),
    (history, "read", "history"),
]
