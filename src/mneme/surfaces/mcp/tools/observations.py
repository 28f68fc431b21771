"""Observation tools: reflect, which consolidates a bank's evidence into observations
(ADR 0051). Outside the default profile (group ``reflect``): an agent finds observations by
recall; running a pass is a reviewer's or admin's act, as on HTTP."""

from __future__ import annotations

from typing import Annotated

from mcp.types import CallToolResult
from pydantic import Field, Strict

from mneme.surfaces.mcp.caller import granted
from mneme.surfaces.mcp.params import Bank
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
    revised ([old, new]), retired, unchanged, skipped ([group, why]), disposition."""
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


TOOLS = [
    (reflect, "write", "reflect"),
]
