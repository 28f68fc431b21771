"""How both backends audit edges written together: one entry per (bank, maker) batch."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from mneme.core.model import Edge


def edge_groups(edges: Sequence[Edge]) -> dict[tuple[str, str], list[Edge]]:
    """Edges grouped by bank and maker, in the order given."""
    out: dict[tuple[str, str], list[Edge]] = {}
    for edge in edges:
        out.setdefault((edge.bank_id, edge.made_by), []).append(edge)
    return out


def edge_audit(edges: Sequence[Edge]) -> dict[str, Any]:
    """The audit record of edges made together: one edge as before, several as a list."""
    if len(edges) == 1:
        e = edges[0]
        return {"src": e.src, "dst": e.dst, "type": e.type}
    return {"edges": [{"id": e.id, "src": e.src, "dst": e.dst, "type": e.type} for e in edges]}
