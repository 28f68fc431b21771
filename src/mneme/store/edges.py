"""What both backends share when writing edges: the row values and the audit entries (one per
(bank, maker) batch)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
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


#: The edges table's columns, in the order ``edge_values`` gives them.
EDGE_COLUMNS = "bank_id, id, src, dst, type, weight, confidence, made_by, created_at, metadata"


def edge_values(
    edges: Sequence[Edge], when: Callable[[Any], Any], meta: Callable[[dict[str, Any]], Any]
) -> list[tuple[Any, ...]]:
    """One parameter row per edge; ``when`` and ``meta`` encode time and JSON per backend."""
    return [
        (
            e.bank_id,
            e.id,
            e.src,
            e.dst,
            e.type,
            e.weight,
            e.confidence,
            e.made_by,
            when(e.created_at),
            meta(dict(e.metadata)),
        )
        for e in edges
    ]


def audit_edges(audit: Callable[..., None], edges: Sequence[Edge]) -> None:
    """One audit entry per (bank, maker) batch of edges just written (``audit`` is the
    store's own ``audit`` method)."""
    for (bank_id, made_by), group in edge_groups(edges).items():
        target = group[0].id if len(group) == 1 else group[0].src
        audit(bank_id, made_by, "edge.put", target, None, edge_audit(group), "link")
