"""A unit's neighbourhood: the units its typed edges reach within a few hops, scoped like
recall (an edge to a unit the viewer may not see leads nowhere)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol

from mneme import validate
from mneme.core.model import Edge, Unit, Viewer
from mneme.read.lookup import unseen
from mneme.store.protocol import Graph, Memories


class NeighbourhoodStore(Protocol):
    """The roles of the store this module uses (ADR 0044)."""

    memories: Memories
    graph: Graph


#: Past this many edges the walk stops widening: a hub's neighbourhood is a page, not a dump.
MAX_EDGES = 2_000


@dataclass(frozen=True, slots=True)
class GraphView:
    center: str
    units: Mapping[str, Unit]
    edges: tuple[Edge, ...]


def neighbourhood(
    store: NeighbourhoodStore, viewer: Viewer, memory_id: str, depth: int
) -> GraphView:
    """Breadth first from ``memory_id``, ``depth`` hops (1 to 4) over edges of every type.

    Raises:
        NotFound: the unit is not visible to the viewer (in the words ``unseen`` uses).
    """
    depth = validate.positive_int(depth, "depth", high=4)
    units: dict[str, Unit] = {}
    edges: dict[str, Edge] = {}
    frontier = [memory_id]
    for _ in range(depth + 1):
        found = store.memories.get_units(viewer, [f for f in frontier if f not in units])
        units.update(found)
        if len(edges) > MAX_EDGES:
            break
        nxt: list[str] = []
        for uid in found:
            for e in store.graph.edges_of(viewer, uid):
                edges[e.id] = e
                nxt.extend(x for x in (e.src, e.dst) if x not in units)
        frontier = nxt
    if memory_id not in units:
        raise unseen("memory", memory_id, viewer.agent_id)
    return GraphView(memory_id, units, tuple(edges.values()))
