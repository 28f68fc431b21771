"""The tool reference of docs/mcp.md, written from the tools themselves.

``python -m mneme.surfaces.mcp.reference`` rewrites the part of docs/mcp.md between
``<!-- tools:begin -->`` and ``<!-- tools:end -->``; a test fails when the two differ, so the
reference never drifts from what a server lists.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from mneme.surfaces.authority import CAPABILITIES, OPERATIONS
from mneme.surfaces.mcp.tools import MODULES, READ, WRITE, description, specs
from mneme.surfaces.tool_profiles import GROUPS

BEGIN = "<!-- tools:begin -->"
END = "<!-- tools:end -->"
DOCS = Path(__file__).resolve().parents[4] / "docs" / "mcp.md"

_TITLES = {
    "memories": "Memories",
    "reasoning": "Reasoning and links",
    "review": "Review and conflicts",
    "observations": "Observations",
    "swarm": "Swarm",
    "think": "FastThink",
}


def _type(spec: dict[str, Any]) -> str:
    if "enum" in spec:
        return " \\| ".join(f"`{v}`" for v in spec["enum"])
    if "anyOf" in spec:
        return " or ".join(_type(s) for s in spec["anyOf"] if s.get("type") != "null")
    kind = spec.get("type", "any")
    if kind == "string" and "maxLength" in spec:
        return f"string (≤ {spec['maxLength']:,} chars)"
    if kind in ("integer", "number") and "minimum" in spec and "maximum" in spec:
        return f"{kind} ({spec['minimum']}–{spec['maximum']})"
    if kind == "array":
        return f"list of {_type(spec.get('items', {}))}"
    return str(kind)


def _table(schema: dict[str, Any]) -> list[str]:
    props = schema.get("properties", {})
    if not props:
        return []
    required = set(schema.get("required", ()))
    rows = [
        "| argument | type | required | default | meaning |",
        "|---|---|---|---|---|",
    ]
    for name, spec in props.items():
        default = "" if name in required else json.dumps(spec.get("default"))
        rows.append(
            f"| `{name}` | {_type(spec)} | {'yes' if name in required else ''} | {default} | "
            f"{spec.get('description', '')} |"
        )
    return [*rows, ""]


def render() -> str:
    """The tool reference as Markdown, every tool of every group, by module."""
    from mcp.server.fastmcp.utilities.func_metadata import func_metadata

    out = [
        BEGIN,
        "",
        'Grouped by concern, as in `src/mneme/surfaces/mcp/tools/`. "Group" is the tool '
        'profile that lists it (see [Tool profiles](#tool-profiles)); "Kind" is also '
        "published as MCP tool annotations (read-only, writes, destructive decision); "
        '"Operation" is the tool\'s row in the role table (see '
        "[Who calls](#who-calls-one-authority)). This part is written by "
        "`python -m mneme.surfaces.mcp.reference`.",
        "",
    ]
    chosen = {fn.__name__: (hints, op) for fn, hints, op in specs("full")}
    for module in MODULES:
        title = _TITLES[module.__name__.rsplit(".", 1)[-1]]
        out += [f"## Tools: {title}", ""]
        for fn, _, _ in module.TOOLS:
            hints, operation = chosen[fn.__name__]
            schema = func_metadata(fn, skip_names=["ctx"]).arg_model.model_json_schema()
            capability = OPERATIONS[operation]
            roles = ", ".join(r for r, caps in CAPABILITIES.items() if capability in caps)
            kind = {id(READ): "read-only", id(WRITE): "writes"}.get(
                id(hints), "a decision (writes)"
            )
            out += [f"### {fn.__name__}", "", description(fn), "", *_table(schema)]
            out += [
                f"Group: `{GROUPS[fn.__name__]}`. Kind: {kind}. Operation: `{operation}` "
                f"(needs `{capability}`: {roles}).",
                "",
            ]
    out.append(END)
    return "\n".join(out)


def updated(text: str) -> str:
    """``text`` (docs/mcp.md) with its tool reference rewritten."""
    start, end = text.index(BEGIN), text.index(END) + len(END)
    return text[:start] + render() + text[end:]


if __name__ == "__main__":  # pragma: no cover - a maintainer's command
    DOCS.write_text(updated(DOCS.read_text()))
    sys.stdout.write(f"wrote the tool reference of {DOCS}\n")
