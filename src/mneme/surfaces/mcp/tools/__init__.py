"""The MCP tools, one module per concern; ``register`` adds them all to a server."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from mcp.types import ToolAnnotations

from mneme.surfaces.mcp.results import QUOTED
from mneme.surfaces.mcp.tools import memories, reasoning, review, swarm, think

if TYPE_CHECKING:
    from mneme.surfaces.mcp.server import MnemeServer

#: (tool function, its behaviour hints, its operation in authority.OPERATIONS) for every
#: module, in the order they are listed.
ToolSpec = tuple[Callable[..., Any], ToolAnnotations, str]

READ = ToolAnnotations(readOnlyHint=True, openWorldHint=False)
WRITE = ToolAnnotations(readOnlyHint=False, destructiveHint=False, openWorldHint=False)
DECIDE = ToolAnnotations(readOnlyHint=False, destructiveHint=True, openWorldHint=False)

MODULES = (memories, reasoning, swarm, think, review)


def specs() -> list[ToolSpec]:
    out: list[ToolSpec] = []
    for module in MODULES:
        for fn, kind, operation in module.TOOLS:
            out.append((fn, {"read": READ, "write": WRITE, "decide": DECIDE}[kind], operation))
    return out


def description(fn: Callable[..., Any]) -> str:
    """A tool's description: its docstring, with ``{QUOTED}`` spelled out."""
    return inspect.cleandoc(fn.__doc__ or "").replace("{QUOTED}", QUOTED)


def register(server: MnemeServer) -> None:
    for fn, hints, operation in specs():
        server.add_tool(
            fn,
            description=description(fn),
            annotations=hints,
            structured_output=False,
            operation=operation,
        )
