"""Generative tools: reflect, which consolidates a bank's evidence into observations
(ADR 0051), and the insights pass, its list and its verification (ADR 0056). Outside the
default profile (group ``reflect``): an agent finds observations and insights by recall;
running or verifying a pass is a reviewer's or admin's act, as on HTTP."""

from __future__ import annotations

from typing import Annotated, Literal

from mcp.types import CallToolResult
from pydantic import Field, Strict

from mneme.surfaces.mcp.caller import granted
from mneme.surfaces.mcp.params import Bank, OptionalId
from mneme.surfaces.mcp.results import Ctx, run

Count = Annotated[int | None, Strict(), Field(ge=1, le=64)]


async def reflect(
    ctx: Ctx,
    bank: Bank = None,
    skepticism: Annotated[Count, Field(description="Fewest evidence units per observation")] = None,
    literalism: Annotated[
        bool | None, Strict(), Field(description="Statements verbatim (true) or compressed.")
    ] = None,
    max_cited: Annotated[Count, Field(description="Most units one observation cites")] = None,
) -> CallToolResult:
    """Consolidate the bank's shared memories into observations (per entity and topic, each
    citing its evidence); writes only what changed, so a second call adds nothing. The
    arguments override the bank's disposition for this pass. Returns the report: created,
    revised ([old, new]), retired, unchanged, skipped ([group, why]), disposition; with the
    server's reflect_llm on: llm (groups the model composed), fallbacks ([group, why] composed
    offline), dropped ([group, "claim: why"] unsupported claims), deferred (groups past the
    pass's cap of model calls, written offline; a later call composes them)."""
    acc = granted()
    return await run(
        ctx,
        lambda m: m.reflect(
            acc.bank,
            agent=acc.agent,
            skepticism=skepticism,
            literalism=literalism,
            max_cited=max_cited,
        ),
    )


async def list_insights(
    ctx: Ctx,
    bank: Bank = None,
    state: Annotated[
        Literal["proposed", "verified", "retired"] | None, Field(description="Only this state")
    ] = None,
    limit: Annotated[int, Strict(), Field(ge=1, le=1000, description="At most this many")] = 20,
) -> CallToolResult:
    """The bank's insights, best first: hypotheses that link memories no single memory links
    (a chain of categories, each hop witnessed by a memory, witnesses in the order said).
    Each: id, text, status and metadata.insight (witnesses, hops, score, state)."""
    acc = granted()
    return await run(ctx, lambda m: m.insights.list(acc.bank, state=state, limit=limit))


async def run_insights(
    ctx: Ctx,
    bank: Bank = None,
    resume: Annotated[bool, Strict(), Field(description="Lift a flood-guard pause")] = False,
) -> CallToolResult:
    """One insight pass: tag memories, find threads, write new insights (capped by the flood
    guard, which pauses the bank when exceeded) and verify held ones; a second call adds
    nothing. Returns the report: created, verified, retired, candidates, held_back, paused;
    with the server's insights_llm on: categorized.named ([phrase, name]), categorized.refused
    ([phrase, why]), categorized.naming_fallback, judged (pairs asked), judge_fallback."""
    acc = granted()
    return await run(
        ctx, lambda m: m.insights.run(acc.bank, agent=acc.agent, resume=resume).as_dict()
    )


async def verify_insights(
    ctx: Ctx,
    bank: Bank = None,
    insight: Annotated[OptionalId, Field(description="Only this insight (its id)")] = None,
) -> CallToolResult:
    """Judge the bank's proposed and verified insights (or one) against their witnesses now:
    all live and linking: verified; one rejected, superseded or gone: retired with why."""
    acc = granted()
    return await run(
        ctx, lambda m: m.insights.verify(acc.bank, agent=acc.agent, insight=insight).as_dict()
    )


TOOLS = [
    (reflect, "write", "reflect"),
    (list_insights, "read", "insights"),
    (run_insights, "write", "insights_run"),
    (verify_insights, "write", "insights_run"),
]
