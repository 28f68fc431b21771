"""Tools on memories themselves: add, update, the status of an accepted add, search, get,
list, and a memory's history."""

from __future__ import annotations

from typing import Annotated, Literal

from mcp.types import CallToolResult
from pydantic import Field, Strict

from mneme.memory import Memory
from mneme.surfaces.authority import viewer
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
    session: Annotated[
        OptionalId, Field(description="The conversation or task session this belongs to.")
    ] = None,
    occurred_at: Annotated[Time, Field(description="When it happened (ISO 8601).")] = None,
    source_id: Annotated[
        OptionalId,
        Field(description="Your own id for this input; kept as the evidence id answers cite."),
    ] = None,
    trust: Annotated[
        float | None,
        Strict(),
        Field(ge=0, le=1, description="How far to trust the source, 0 to 1."),
    ] = None,
    private: Annotated[
        Flag, Field(description="true: no other agent ever sees these memories.")
    ] = False,
    wait: Annotated[
        float | None,
        Strict(),
        Field(
            ge=0,
            le=60,
            description="Leave out to finish the write before answering. Seconds: hand it to "
            "the ingest buffer and answer within that time, with status 'accepted' and a "
            "pending_id for get_add_status if it is not done yet.",
        ),
    ] = None,
) -> CallToolResult:
    """Remember something: what happened, what was said, what you learned.

    Use it for facts, preferences, decisions and events worth keeping beyond this
    conversation. mneme splits the text into one-claim memories, links them, and checks
    them against what is known: a correction supersedes the old memory; a contradiction is
    kept but flagged. Returns status (ok | accepted | needs_clarification), memory_ids,
    source_id, the decision per claim, deduped (existing memories this repeated), questions
    (when a person must decide, e.g. a contradiction; answer them with
    resolve_contradiction) and pending_id (for status 'accepted'). You are the author.
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
    )


async def update_memory(
    ctx: Ctx,
    memory_id: MemoryId,
    text: Text,
    bank: Bank = None,
    reason: Annotated[str | None, Field(max_length=MAX_NOTE, description="Why it changed.")] = None,
    occurred_at: Annotated[Time, Field(description="When the change happened.")] = None,
) -> CallToolResult:
    """Correct a memory: the new text supersedes it (nothing is overwritten or deleted).

    Use it when you know a specific memory is wrong or out of date. The old memory stays in
    history, flagged as superseded by the new one. A memory marked immutable is not
    superseded: the result then carries a question for a person. Returns the same shape as
    add_memory.
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
            description="The pending_id add_memory returned with status 'accepted'.",
        ),
    ],
    bank: Bank = None,
) -> CallToolResult:
    """Where an accepted add stands: pending, processing, done (with its result) or failed.

    Use it after add_memory answered status 'accepted'. Returns pending_id, status, result
    (the add_memory result once done), error (if failed) and attempts. Only a write of
    your bank is found, and another agent's private write not at all.
    """
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
            description="recent: the last temporal_days (default 7), no graph expansion, "
            "current memories only; contextual (default): 10 hits plus their direct "
            "neighbours; deep: 20 hits, graph depth 2; full: 50 hits, graph depth 3."
        ),
    ] = "contextual",
    scope: Scope = "personal",
    k: Annotated[
        int | None, Strict(), Field(ge=1, le=100, description="How many hits (overrides mode).")
    ] = None,
    graph_depth: Annotated[
        int | None,
        Strict(),
        Field(ge=0, le=4, description="How far to expand the best hits' graph (overrides mode)."),
    ] = None,
    temporal_days: Annotated[
        int | None,
        Strict(),
        Field(ge=1, le=36_500, description="Only what happened in the last N days."),
    ] = None,
    time_from: Annotated[Time, Field(description="Only what holds from this time on.")] = None,
    time_to: Annotated[Time, Field(description="Only what held up to this time.")] = None,
    min_relevance: Annotated[
        float | None,
        Strict(),
        Field(
            ge=0,
            le=1,
            description="Only hits at least this likely to be an answer (relevance, 0 to 1); "
            "fewer than k may come back.",
        ),
    ] = None,
) -> CallToolResult:
    """Search memory: the best matching memories first, each with its evidence.

    Use it before answering anything that may depend on what was said or learned before.
    Returns hits (each: unit with text, type, status and times; score; relevance, the
    calibrated chance from 0 to 1 that it is an answer, comparable across searches; the
    channels that found it; superseded flag and successor; flashback flag;
    evidence_source_ids; open conflicts) and related (graph neighbours of the best hits, with
    the edge that links them). A superseded memory ranks below its successor and says so.
    Personal scope is what you stated; collective, the bank less other agents' private
    memories. {QUOTED}
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
        )

    return await run(ctx, work)


async def get_memory(
    ctx: Ctx, memory_id: MemoryId, bank: Bank = None, scope: Scope = "collective"
) -> CallToolResult:
    """One memory by id, with everything known about it.

    Returns the unit: text, network, type, status, confidence, both time axes, knowers,
    supersedes / superseded_by, evidence source ids, contradictions, entities, metadata.
    Reviewers and admins read it as the bank's owner. {QUOTED}
    """
    acc = granted()
    return await run(ctx, lambda m: m.get(memory_id, bank=acc.bank, **viewer(acc.who, scope)))


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
    """Every recorded change of a memory or source, oldest first.

    Use it to see why a memory looks the way it does: when it was recorded, who else stated
    it, when it was superseded or rejected, review decisions, edges. Returns a list of
    events (at, kind, actor, detail).
    """
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
    (get_memory, "read", "get"),
    (list_memories, "read", "list"),
    (history, "read", "history"),
]
