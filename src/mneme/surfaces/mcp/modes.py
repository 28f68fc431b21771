"""search_memory's modes: how wide and how deep one search goes.

``recent`` looks at the last ``temporal_days`` (7 by default); ``contextual`` (the default)
is ten hits (recall's own graph channel already brings linked memories in); ``deep`` and
``full`` take more hits and add the best hits' graph neighbourhoods as ``related``.
Explicit ``k``, ``graph_depth`` and ``temporal_days`` win over the
mode's defaults; an explicit ``time_from`` wins over ``temporal_days``.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from mneme.memory import Memory
from mneme.serialize import hits_view, to_jsonable


@dataclass(frozen=True, slots=True)
class Mode:
    k: int
    graph_depth: int
    temporal_days: int | None
    include_superseded: bool


MODES = {
    "recent": Mode(k=10, graph_depth=0, temporal_days=7, include_superseded=False),
    "contextual": Mode(k=10, graph_depth=0, temporal_days=None, include_superseded=True),
    "deep": Mode(k=20, graph_depth=2, temporal_days=None, include_superseded=True),
    "full": Mode(k=50, graph_depth=3, temporal_days=None, include_superseded=True),
}
#: How many of the best hits get their graph neighbourhood expanded.
EXPAND_TOP = 5


@dataclass(frozen=True, slots=True)
class Plan:
    mode: str
    k: int
    graph_depth: int
    time_from: str | None
    time_to: str | None
    include_superseded: bool


def plan(
    mode: str,
    *,
    now: dt.datetime,
    k: int | None,
    graph_depth: int | None,
    temporal_days: int | None,
    time_from: str | None,
    time_to: str | None,
) -> Plan:
    preset = MODES[mode]
    days = temporal_days if temporal_days is not None else preset.temporal_days
    start = time_from
    if start is None and days is not None:
        start = (now - dt.timedelta(days=days)).isoformat()
    return Plan(
        mode=mode,
        k=k if k is not None else preset.k,
        graph_depth=graph_depth if graph_depth is not None else preset.graph_depth,
        time_from=start,
        time_to=time_to,
        include_superseded=preset.include_superseded,
    )


def search(
    memory: Memory,
    query: str,
    *,
    bank: str,
    agent: str,
    scope: str,
    how: Plan,
    min_relevance: float | None = None,
    as_of: str | None = None,
    types: Sequence[str] | None = None,
    detail: str = "compact",
    session: str | None = None,
) -> dict[str, Any]:
    """Recall, then (for a graph depth above 0) the neighbourhoods of the best hits.

    Compact (the default) is the hits alone, each as ``serialize.compact_hit``, with
    ``related`` only when there is some; full is today's whole shape."""
    hits = memory.recall(
        query,
        bank=bank,
        agent=agent,
        scope=scope,
        k=how.k,
        time_from=how.time_from,
        time_to=how.time_to,
        include_superseded=how.include_superseded,
        min_relevance=min_relevance,
        as_of=as_of,
        types=types,
        session=session,
    )
    seen = {h.unit.id for h in hits}
    related: list[dict[str, Any]] = []
    if how.graph_depth > 0:
        for hit in hits[:EXPAND_TOP]:
            view = memory.graph(hit.unit.id, how.graph_depth, bank=bank, agent=agent, scope=scope)
            for edge in view.edges:
                for end, other in ((edge.src, edge.dst), (edge.dst, edge.src)):
                    unit = view.units.get(end)
                    if unit is None or end in seen or len(related) >= 2 * how.k:
                        continue
                    seen.add(end)
                    related.append(
                        {
                            "id": unit.id,
                            "text": unit.text,
                            "type": unit.type.value,
                            "status": unit.status.value,
                            "via_edge": edge.type,
                            "linked_to": other,
                            "reached_from": hit.unit.id,
                        }
                    )
    if detail == "compact":
        out: dict[str, Any] = {"hits": hits_view(hits, detail)}
        if related:
            out["related"] = [
                {"id": r["id"], "text": r["text"], "via": r["via_edge"], "of": r["linked_to"]}
                for r in related
            ]
        return out
    return {
        "query": query,
        "mode": how.mode,
        "scope": scope,
        "k": how.k,
        "graph_depth": how.graph_depth,
        "time_from": how.time_from,
        "time_to": how.time_to,
        "hits": to_jsonable(hits),
        "related": related,
    }
