"""Reasoning chains: from the memory a query finds, follow the why-edges back and forth.

``causal`` walks to what a memory rests on (its BECAUSE / SUPPORTS / DERIVED_FROM / IMPLIES
sources and what CAUSES it); ``forward`` walks to what rests on it; ``both`` does both. Every
step is scoped like recall: a unit the viewer may not see is never a step.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from mneme import validate
from mneme.core.model import Edge, Hit, Unit, Viewer
from mneme.errors import InvalidInput
from mneme.store.protocol import Graph, Memories


class ChainStore(Protocol):
    """The roles of the store this module uses (ADR 0044)."""

    memories: Memories
    graph: Graph


#: For an edge src -TYPE-> dst, the direction in which dst is a reason for src.
REASON_EDGES = frozenset(
    {"BECAUSE", "SUPPORTS", "DERIVED_FROM", "CAUSES", "IMPLIES", "CONTESTED_BECAUSE"}
)
# src CAUSES dst / src IMPLIES dst / src SUPPORTS dst: src is the reason for dst.
_SRC_IS_REASON = frozenset({"CAUSES", "IMPLIES", "SUPPORTS"})
DIRECTIONS = ("causal", "forward", "both")

#: ``Memory.recall``: the chain starts at its best hit.
Recall = Callable[..., list[Hit]]


@dataclass(frozen=True, slots=True)
class ChainStep:
    unit: Unit
    depth: int  # 0 for the start, negative toward causes, positive toward consequences
    via_edge: str | None
    parent: str | None


def _reason_and_result(edge: Edge) -> tuple[str, str]:
    """(reason, result) of a why-edge, whatever way round it is stored."""
    if edge.type in _SRC_IS_REASON:
        return edge.src, edge.dst
    return edge.dst, edge.src  # src BECAUSE dst, src DERIVED_FROM dst, src CONTESTED_BECAUSE dst


def walk(
    store: ChainStore, viewer: Viewer, start: Unit, direction: str, depth: int
) -> list[ChainStep]:
    steps = [ChainStep(start, 0, None, None)]
    seen = {start.id}
    frontier = [(start.id, 0)]
    while frontier:
        uid, level = frontier.pop(0)
        if abs(level) >= depth:
            continue
        for edge in store.graph.edges_of(viewer, uid):
            if edge.type not in REASON_EDGES:
                continue
            reason, result = _reason_and_result(edge)
            if uid == result and direction in ("causal", "both") and level <= 0:
                nxt, nlevel = reason, level - 1
            elif uid == reason and direction in ("forward", "both") and level >= 0:
                nxt, nlevel = result, level + 1
            else:
                continue
            if nxt in seen:
                continue
            unit = store.memories.get_units(viewer, [nxt]).get(nxt)
            if unit is None:
                continue
            seen.add(nxt)
            steps.append(ChainStep(unit, nlevel, edge.type, uid))
            frontier.append((nxt, nlevel))
    steps.sort(key=lambda s: (s.depth, s.unit.id))
    return steps


def from_query(
    store: ChainStore,
    recall: Recall,
    query: str,
    *,
    bank: str,
    agent: str,
    scope: str,
    direction: str,
    depth: int,
) -> list[ChainStep]:
    """The chain around the best match for ``query`` (none when nothing matches)."""
    if direction not in DIRECTIONS:
        raise InvalidInput(f"direction must be one of {', '.join(DIRECTIONS)}")
    depth = validate.positive_int(depth, "depth", high=6)
    hits = recall(query, bank=bank, agent=agent, scope=scope, k=1)
    if not hits:
        return []
    viewer = Viewer(bank, agent, validate.scope(scope))
    return walk(store, viewer, hits[0].unit, direction, depth)
