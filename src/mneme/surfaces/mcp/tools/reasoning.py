"""Tools over how memories relate: contradictions a write raised, concepts, reasoning chains,
explicit links, and a memory's graph neighbourhood."""

from __future__ import annotations

from typing import Annotated, Literal

from mcp.types import CallToolResult
from pydantic import Field, Strict

from mneme.memory import Memory
from mneme.surfaces.authority import may_answer, viewer
from mneme.surfaces.mcp.caller import granted
from mneme.surfaces.mcp.params import (
    MAX_ID,
    MAX_QUERY,
    Bank,
    MemoryId,
    Note,
    Query,
    Scope,
)
from mneme.surfaces.mcp.results import Ctx, run

Ref = Annotated[
    str,
    Field(
        min_length=1,
        max_length=MAX_QUERY,
        description="A memory id (u_...) or a query whose best match is taken.",
    ),
]


async def resolve_contradiction(
    ctx: Ctx,
    from_id: Annotated[
        str,
        Field(min_length=1, max_length=MAX_ID, description="The new memory (new_memory_id)."),
    ],
    to_id: Annotated[
        str,
        Field(
            min_length=1,
            max_length=MAX_ID,
            description="The memory it disputed (existing_memory_id).",
        ),
    ],
    decision: Annotated[
        Literal["confirm", "retract", "preference"],
        Field(
            description="confirm: the new one supersedes the old; retract: the new one is "
            "rejected; preference: both hold."
        ),
    ],
    bank: Bank = None,
    note: Note = "",
) -> CallToolResult:
    """Answer a contradiction question from add_memory (needs_clarification) when you know
    which side is right. Returns the settled conflict."""
    acc = granted()

    def work(m: Memory) -> object:
        may_answer(m, acc.who, acc.bank, from_id)
        return m.conflicts.resolve_contradiction(
            from_id, to_id, decision, actor=acc.agent, note=note
        )

    return await run(ctx, work)


async def search_by_concept(
    ctx: Ctx,
    name: Annotated[
        str,
        Field(
            min_length=1,
            max_length=200,
            description="A named thing: a person, place, project, tool (or one of its aliases).",
        ),
    ],
    bank: Bank = None,
    scope: Scope = "collective",
    k: Annotated[int, Strict(), Field(ge=1, le=100, description="How many (1-100).")] = 20,
) -> CallToolResult:
    """Every memory that mentions a named thing (an entity), not only the best text matches.

    Use it to gather what is known about one person, place or project. Returns a list of
    units. {QUOTED}
    """
    acc = granted()
    return await run(
        ctx, lambda m: m.concept(name, bank=acc.bank, agent=acc.agent, scope=scope, k=k)
    )


async def search_reasoning_chain(
    ctx: Ctx,
    query: Query,
    bank: Bank = None,
    direction: Annotated[
        Literal["causal", "forward", "both"],
        Field(
            description="causal: what the best match rests on (its reasons, causes, "
            "evidence); forward: what rests on it (consequences); both."
        ),
    ] = "both",
    depth: Annotated[
        int, Strict(), Field(ge=1, le=6, description="How many steps to follow (1-6).")
    ] = 3,
    scope: Scope = "collective",
) -> CallToolResult:
    """Follow the why-edges from the memory that best matches the query.

    Use it to explain a belief or decision (why do we think X? what follows from X?).
    Returns steps: each a unit with its depth (0 the match, negative toward causes,
    positive toward consequences), the edge type that led there and the step before.
    {QUOTED}
    """
    acc = granted()
    return await run(
        ctx,
        lambda m: m.chain(
            query, bank=acc.bank, agent=acc.agent, scope=scope, direction=direction, depth=depth
        ),
    )


async def connect_memories(
    ctx: Ctx,
    a: Ref,
    b: Ref,
    bank: Bank = None,
    type: Annotated[
        str,
        Field(
            min_length=1,
            max_length=40,
            description="The edge type: SUPPORTS, CONTRADICTS, CAUSES, BECAUSE, IMPLIES, "
            "DERIVED_FROM, PART_OF, IS_A or RELATES_TO (any WORD_LIKE_THIS).",
        ),
    ] = "RELATES_TO",
    weight: Annotated[
        float, Strict(), Field(gt=0, le=1, description="Strength of the link, in (0, 1].")
    ] = 1.0,
    note: Note = "",
) -> CallToolResult:
    """Link two memories with a typed edge: a reason, a cause, a part, a relation.

    Each end is a memory id or a query (its best match is used). Use it when you see how
    two things relate and want later searches and reasoning chains to follow that link.
    Returns the edge (id, src, dst, type, weight).
    """
    acc = granted()
    return await run(
        ctx,
        lambda m: m.connect(
            a, b, bank=acc.bank, agent=acc.agent, type=type, weight=weight, note=note
        ),
    )


async def get_memory_graph(
    ctx: Ctx,
    memory_id: MemoryId,
    bank: Bank = None,
    depth: Annotated[int, Strict(), Field(ge=1, le=4, description="How many hops out (1-4).")] = 1,
    scope: Scope = "collective",
) -> CallToolResult:
    """A memory's neighbourhood: the memories around it and the typed edges between them.

    Use it to see what a memory is connected to (supports, contradictions, supersessions,
    shared topics). Returns center, units (by id) and edges. Reviewers and admins see the
    bank as its owner. {QUOTED}
    """
    acc = granted()
    return await run(
        ctx, lambda m: m.graph(memory_id, depth, bank=acc.bank, **viewer(acc.who, scope))
    )


TOOLS = [
    (resolve_contradiction, "decide", "resolve_contradiction"),
    (search_by_concept, "read", "concept"),
    (search_reasoning_chain, "read", "chain"),
    (connect_memories, "write", "connect"),
    (get_memory_graph, "read", "graph"),
]
