"""Tools for many agents on one bank: the roster, presence, and the state of the swarm."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from mcp.types import CallToolResult
from pydantic import Field

from mneme.memory import Memory
from mneme.serialize import to_jsonable
from mneme.surfaces.authority import ALL_BANKS, sees_everything
from mneme.surfaces.mcp.caller import granted
from mneme.surfaces.mcp.params import Bank
from mneme.surfaces.mcp.results import Ctx, run

#: Counts above this are reported as "at least" (the queue and conflict lists are paged).
COUNT_CAP = 1_000


async def list_agents(ctx: Ctx, bank: Bank = None) -> CallToolResult:
    """The agents working on a bank: who is live, and how many went quiet or left.

    Returns bank_id, live (each agent: id, first_seen, last_seen, host, status),
    hidden_stale (silent for over 30 minutes) and departed.
    """
    acc = granted()
    return await run(ctx, lambda m: m.swarm.roster(acc.bank))


async def enroll_agent(
    ctx: Ctx,
    bank: Bank = None,
    host: Annotated[str | None, Field(max_length=255, description="Where the agent runs.")] = None,
) -> CallToolResult:
    """Join a bank's roster (your first heartbeat) so other agents see you.

    The bank must exist: add a memory to it first. Returns your agent record.
    """
    acc = granted()
    return await run(ctx, lambda m: m.swarm.enroll(bank=acc.bank, agent=acc.agent, host=host))


async def agent_heartbeat(
    ctx: Ctx,
    bank: Bank = None,
    status: Annotated[
        Literal["active", "idle", "busy"], Field(description="What you are doing.")
    ] = "active",
) -> CallToolResult:
    """Tell the swarm you are still there (every write does this for you too).

    Returns your agent record.
    """
    acc = granted()
    return await run(
        ctx, lambda m: m.swarm.heartbeat(bank=acc.bank, agent=acc.agent, status=status)
    )


async def agent_farewell(ctx: Ctx, bank: Bank = None) -> CallToolResult:
    """Leave the bank's live roster (your record and memories stay). Returns your record."""
    acc = granted()
    return await run(ctx, lambda m: m.swarm.farewell(bank=acc.bank, agent=acc.agent))


async def swarm_status(ctx: Ctx, bank: Bank = None) -> CallToolResult:
    """One look at a bank's swarm: the roster, the store's size, and what awaits people.

    Returns roster, stats (store-wide counts of banks, sources, units, entities, edges;
    only for an admin of every bank, else null), open_conflicts and pending_review (counts
    as the caller may see them, at most 1000; the *_capped flags say when there are more),
    and open_think_sessions (in this server process).
    """
    acc = granted()
    store_wide = acc.who.role == "admin" and acc.who.bank == ALL_BANKS
    agent = None if sees_everything(acc.who) else acc.agent

    def work(m: Memory) -> dict[str, Any]:
        conflicts = len(m.conflicts.list(bank=acc.bank, status="open", limit=COUNT_CAP))
        pending = len(m.review.queue(bank=acc.bank, limit=COUNT_CAP, agent=agent))
        return {
            "bank": acc.bank,
            "roster": to_jsonable(m.swarm.roster(acc.bank)),
            # The counts cover every bank: only a caller for every bank may see them.
            "stats": to_jsonable(m.admin.stats()) if store_wide else None,
            "open_conflicts": conflicts,
            "open_conflicts_capped": conflicts >= COUNT_CAP,
            "pending_review": pending,
            "pending_review_capped": pending >= COUNT_CAP,
            "open_think_sessions": m.think.open_count(),
        }

    return await run(ctx, work)


TOOLS = [
    (list_agents, "read", "roster"),
    (enroll_agent, "write", "enroll"),
    (agent_heartbeat, "write", "heartbeat"),
    (agent_farewell, "write", "farewell"),
    (swarm_status, "read", "swarm_status"),
]
