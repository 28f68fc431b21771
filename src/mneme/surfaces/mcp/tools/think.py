"""FastThink tools: a private scratchpad that writes nothing to memory until think_commit."""

from __future__ import annotations

from typing import Annotated, Literal

from mcp.types import CallToolResult
from pydantic import Field, Strict

from mneme.core.thoughts import MAX_GOAL_CHARS, MAX_THOUGHT_CHARS, MAX_THOUGHTS
from mneme.surfaces.mcp.caller import granted
from mneme.surfaces.mcp.params import (
    MAX_ID,
    Bank,
    Flag,
    Query,
    Scope,
    SessionId,
)
from mneme.surfaces.mcp.results import Ctx, run

ThoughtText = Annotated[
    str, Field(min_length=1, max_length=MAX_THOUGHT_CHARS, description="The thought.")
]
Refs = Annotated[
    list[Annotated[str, Field(min_length=1, max_length=MAX_ID)]] | None,
    Field(max_length=MAX_THOUGHTS),
]


async def think_start(
    ctx: Ctx,
    goal: Annotated[
        str,
        Field(min_length=1, max_length=MAX_GOAL_CHARS, description="What you are thinking about."),
    ],
    bank: Bank = None,
) -> CallToolResult:
    """Open a private scratchpad to reason step by step before saving anything.

    Nothing in it touches memory until think_commit; think_discard drops it; after 30
    minutes idle it is saved as an incomplete thought (search_incomplete_thoughts). Only
    you (this agent, in this bank) can use it. Returns session_id.
    """
    acc = granted()
    return await run(ctx, lambda m: {"session_id": m.think.start(acc.bank, acc.agent, goal)})


async def think_add(
    ctx: Ctx,
    session_id: SessionId,
    text: ThoughtText,
    bank: Bank = None,
    kind: Annotated[
        Literal["observation", "hypothesis", "evidence", "question"],
        Field(description="What sort of thought it is."),
    ] = "observation",
    supports: Annotated[
        Refs, Field(description="Ids of thoughts in this session (t1, t2...) this one supports.")
    ] = None,
) -> CallToolResult:
    """Add a thought to your scratchpad (an observation, hypothesis, evidence or question).

    Returns the thought (id like t3, kind, text, at).
    """
    acc = granted()
    return await run(
        ctx,
        lambda m: m.think.add(session_id, text, kind, supports, bank=acc.bank, agent=acc.agent),
    )


async def think_recall(
    ctx: Ctx,
    session_id: SessionId,
    query: Query,
    bank: Bank = None,
    k: Annotated[int, Strict(), Field(ge=1, le=50, description="How many hits (1-50).")] = 5,
    scope: Scope = "collective",
) -> CallToolResult:
    """Search memory from your scratchpad (read-only): each hit becomes an evidence thought.

    Returns the evidence thoughts (id, text, memory_id, score); cite them in think_conclude.
    {QUOTED}
    """
    acc = granted()
    return await run(
        ctx,
        lambda m: m.think.recall(session_id, query, k, bank=acc.bank, agent=acc.agent, scope=scope),
    )


async def think_conclude(
    ctx: Ctx,
    session_id: SessionId,
    text: ThoughtText,
    bank: Bank = None,
    evidence: Annotated[
        Refs,
        Field(
            description="What the conclusion rests on: thought ids (t1...) or memory ids "
            "(u_...). Leave out to cite every memory think_recall found."
        ),
    ] = None,
) -> CallToolResult:
    """State your conclusion (replacing an earlier one) and what supports it.

    Still nothing is saved: think_commit does that. Returns the conclusion thought.
    """
    acc = granted()
    return await run(
        ctx,
        lambda m: m.think.conclude(session_id, text, evidence, bank=acc.bank, agent=acc.agent),
    )


async def think_commit(
    ctx: Ctx,
    session_id: SessionId,
    bank: Bank = None,
    private: Annotated[Flag, Field(description="true: only you will see the conclusion.")] = False,
) -> CallToolResult:
    """Save the conclusion as one memory, with SUPPORTS edges from the memories it cites.

    The session closes. Returns the add_memory result; metadata holds think_session,
    evidence (the cited memory ids) and supports (the new edge ids).
    """
    acc = granted()
    return await run(
        ctx, lambda m: m.think.commit(session_id, bank=acc.bank, agent=acc.agent, private=private)
    )


async def think_discard(
    ctx: Ctx,
    session_id: SessionId,
    bank: Bank = None,
) -> CallToolResult:
    """Throw the scratchpad away; nothing of it was ever saved. Returns what it held."""
    acc = granted()
    return await run(ctx, lambda m: m.think.discard(session_id, bank=acc.bank, agent=acc.agent))


async def think_status(
    ctx: Ctx,
    session_id: SessionId,
    bank: Bank = None,
) -> CallToolResult:
    """Look at your scratchpad while you reason (it changes nothing).

    Returns goal, thoughts, links (SUPPORTS between thoughts), conclusion_id,
    cited_memory_ids (what a commit would cite) and expires_at.
    """
    acc = granted()
    return await run(ctx, lambda m: m.think.status(session_id, bank=acc.bank, agent=acc.agent))


async def search_incomplete_thoughts(
    ctx: Ctx,
    bank: Bank = None,
    query: Annotated[
        Query | None, Field(description="What the thinking was about; leave out for newest.")
    ] = None,
    k: Annotated[int, Strict(), Field(ge=1, le=100, description="How many (1-100).")] = 10,
) -> CallToolResult:
    """Find your scratchpads that timed out before a commit and were saved as incomplete.

    Use it to pick up unfinished reasoning. Returns a list of incomplete thoughts
    (memory_id, session_id, goal, saved_at, reason, thoughts).
    """
    acc = granted()
    return await run(ctx, lambda m: m.think.incomplete(query, acc.bank, acc.agent, k))


TOOLS = [
    (think_start, "write", "think"),
    (think_add, "write", "think"),
    (think_recall, "read", "think"),
    (think_conclude, "write", "think"),
    (think_commit, "write", "think"),
    (think_discard, "write", "think"),
    (think_status, "read", "think"),
    (search_incomplete_thoughts, "read", "think"),
]
