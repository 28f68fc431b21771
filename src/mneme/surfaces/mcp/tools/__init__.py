"""The MCP tools, one module per concern; ``register`` adds them all to a server."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mcp.server.fastmcp import FastMCP
from mcp.types import ToolAnnotations

from mneme.surfaces.mcp.tools import memories, reasoning, review, swarm, think

#: (tool function, its behaviour hints) for every module, in the order they are listed.
ToolSpec = tuple[Callable[..., Any], ToolAnnotations]

READ = ToolAnnotations(readOnlyHint=True, openWorldHint=False)
WRITE = ToolAnnotations(readOnlyHint=False, destructiveHint=False, openWorldHint=False)
DECIDE = ToolAnnotations(readOnlyHint=False, destructiveHint=True, openWorldHint=False)

MODULES = (memories, reasoning, swarm, think, review)


def specs() -> list[ToolSpec]:
    out: list[ToolSpec] = []
    for module in MODULES:
        for fn, kind in module.TOOLS:
            out.append((fn, {"read": READ, "write": WRITE, "decide": DECIDE}[kind]))
    return out


def register(server: FastMCP[Any]) -> None:
    for fn, hints in specs():
        server.add_tool(fn, annotations=hints, structured_output=False)
