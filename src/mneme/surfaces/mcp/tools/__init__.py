"""The MCP tools, one module per concern; ``register`` adds a profile's tools to a server
(``mneme.surfaces.tool_profiles``: ``core`` by default)."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from mcp.types import ToolAnnotations

from mneme.surfaces.mcp.results import QUOTED
from mneme.surfaces.mcp.tools import memories, observations, reasoning, review, swarm, think
from mneme.surfaces.tool_profiles import DEFAULT_PROFILE, GROUPS, groups_of

if TYPE_CHECKING:
    from mneme.surfaces.mcp.server import MnemeServer

#: (tool function, its behaviour hints, its operation in authority.OPERATIONS) for every
#: module, in the order they are listed.
ToolSpec = tuple[Callable[..., Any], ToolAnnotations, str]

READ = ToolAnnotations(readOnlyHint=True, openWorldHint=False)
WRITE = ToolAnnotations(readOnlyHint=False, destructiveHint=False, openWorldHint=False)
DECIDE = ToolAnnotations(readOnlyHint=False, destructiveHint=True, openWorldHint=False)

MODULES = (memories, reasoning, review, observations, swarm, think)


def specs(profile: str = "full") -> list[ToolSpec]:
    """The tools of ``profile``, in listing order."""
    chosen = groups_of(profile)
    out: list[ToolSpec] = []
    for module in MODULES:
        for fn, kind, operation in module.TOOLS:
            if GROUPS[fn.__name__] in chosen:
                hints = {"read": READ, "write": WRITE, "decide": DECIDE}[kind]
                out.append((fn, hints, operation))
    return out


def description(fn: Callable[..., Any]) -> str:
    """A tool's description: its docstring, with ``{QUOTED}`` spelled out."""
    return inspect.cleandoc(fn.__doc__ or "").replace("{QUOTED}", QUOTED)


def register(server: MnemeServer, profile: str = DEFAULT_PROFILE) -> None:
    for fn, hints, operation in specs(profile):
        server.add_tool(
            fn,
            description=description(fn),
            annotations=hints,
            structured_output=False,
            operation=operation,
        )
