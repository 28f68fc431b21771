"""Links a caller makes by hand: a typed edge between two memories named by id or by query."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Protocol

from mneme import validate
from mneme.core.model import Edge, Hit, Scope, Unit, Viewer
from mneme.errors import InvalidInput, NotFound
from mneme.ids import new_id
from mneme.store.protocol import Graph, Memories, Transactions


class LinksStore(Transactions, Protocol):
    """The roles of the store this module uses (ADR 0044)."""

    memories: Memories
    graph: Graph


#: ``Memory.recall``: a query names the best match it finds.
Recall = Callable[..., list[Hit]]


def connect(
    store: LinksStore,
    recall: Recall,
    a: str,
    b: str,
    *,
    bank: str,
    agent: str,
    type: str,
    weight: float,
    note: str,
    now: dt.datetime,
) -> Edge:
    """Link two memories (ids, or queries whose best match is taken) with a typed edge."""
    viewer = Viewer(validate.ident(bank, "bank"), validate.ident(agent, "agent"), Scope.COLLECTIVE)
    if not isinstance(type, str) or not type.replace("_", "").isalpha() or len(type) > 40:
        raise InvalidInput(f"edge type must be a word like RELATES_TO, not {type!r}")
    if isinstance(weight, bool) or not isinstance(weight, int | float) or not 0 < weight <= 1:
        raise InvalidInput("weight must be a number in (0, 1]")
    ends = [_end(store, recall, x, viewer) for x in (a, b)]
    if ends[0].id == ends[1].id:
        raise InvalidInput("cannot connect a memory to itself")
    edge = Edge(
        id=new_id("e_"),
        bank_id=viewer.bank_id,
        src=ends[0].id,
        dst=ends[1].id,
        type=type.upper(),
        made_by=f"agent:{viewer.agent_id}",
        created_at=now,
        weight=float(weight),
        metadata={"note": note} if note else {},
    )
    with store.transaction():
        store.graph.put_edge(edge)
    return edge


def _end(store: LinksStore, recall: Recall, ref: str, viewer: Viewer) -> Unit:
    if isinstance(ref, str) and ref.startswith("u_"):
        unit = store.memories.get_units(viewer, [ref]).get(ref)
        if unit is None:
            raise NotFound(f"no memory {ref!r} visible to {viewer.agent_id}")
        return unit
    hits = recall(ref, bank=viewer.bank_id, agent=viewer.agent_id, scope="collective", k=1)
    if not hits:
        raise NotFound(f"nothing matches {ref!r} in bank {viewer.bank_id}")
    return hits[0].unit
