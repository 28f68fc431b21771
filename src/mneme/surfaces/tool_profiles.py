"""Which MCP tools a server lists: its profile.

``core`` (the default) is about ten tools, what an agent needs to remember, recall, cite and
correct; ``full`` is every tool; or groups joined by commas (``core,review``). Kept apart from
the tools themselves so the CLI can name profiles without importing the MCP SDK.
"""

from __future__ import annotations

import click

from mneme.errors import InvalidInput

#: Each tool's group. ``core`` is the default profile: what an agent needs to remember,
#: recall, cite and correct (issue 18); the rest is listed when its group is asked for.
GROUPS: dict[str, str] = {
    "add_memory": "core",
    "search_memory": "core",
    "get_context": "core",
    "get_memory": "core",
    "get_source": "core",
    "update_memory": "core",
    "reject": "core",
    "resolve_contradiction": "core",
    "list_conflicts": "core",
    "history": "core",
    "list_banks": "core",
    "get_add_status": "core",
    "list_memories": "memories",
    "review_queue": "review",
    "review_decide": "review",
    "review_worklist": "review",
    "review_bulk": "review",
    "resolve_conflict": "review",
    "restore": "review",
    "search_by_concept": "graph",
    "search_reasoning_chain": "graph",
    "connect_memories": "graph",
    "get_memory_graph": "graph",
    "list_agents": "swarm",
    "enroll_agent": "swarm",
    "agent_heartbeat": "swarm",
    "agent_farewell": "swarm",
    "swarm_status": "swarm",
    "think_start": "think",
    "think_add": "think",
    "think_recall": "think",
    "think_conclude": "think",
    "think_commit": "think",
    "think_discard": "think",
    "think_status": "think",
    "search_incomplete_thoughts": "think",
    "reflect": "reflect",
    "list_insights": "reflect",
    "run_insights": "reflect",
    "verify_insights": "reflect",
}
GROUP_NAMES = ("core", "memories", "review", "graph", "swarm", "think", "reflect")
DEFAULT_PROFILE = "core"
PROFILE_HELP = (
    "Which MCP tools to list: core (the default: add, search, context, get memory and source, "
    "update, reject, resolve contradiction, list conflicts, history, list banks, add status), "
    f"full (every tool), or groups joined by commas from: {', '.join(GROUP_NAMES)}."
)


def groups_of(profile: str) -> frozenset[str]:
    """The groups a profile names.

    Raises:
        InvalidInput: an empty profile or an unknown group.
    """
    names = {p.strip() for p in profile.split(",") if p.strip()}
    if "full" in names:
        return frozenset(GROUP_NAMES)
    unknown = sorted(names - set(GROUP_NAMES))
    if unknown or not names:
        raise InvalidInput(
            f"unknown MCP tool profile {profile[:100]!r}: use full, or groups joined by commas "
            f"from {', '.join(GROUP_NAMES)}"
        )
    return frozenset(names)


def check_profile(_ctx: click.Context, _param: click.Parameter, value: str | None) -> str | None:
    """A click callback: the profile, or a usage error naming the choices (None: not given,
    the configuration's ``mcp_tools`` decides)."""
    if value is None:
        return None
    try:
        groups_of(value)
    except InvalidInput as exc:
        raise click.BadParameter(str(exc)) from exc
    return value
