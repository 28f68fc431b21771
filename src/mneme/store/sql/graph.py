"""The typed graph's rows: entities, the units that mention them, and edges between memories."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from mneme.core.model import Edge, Entity, Viewer
from mneme.store.protocol import Filters
from mneme.store.sql.part import Part
from mneme.store.sql.records import EPOCH, Columns
from mneme.store.sql.scoping import clause

EDGE = Columns("edges")


def _edge_audit(edges: Sequence[Edge]) -> dict[str, Any]:
    """The audit record of edges made together: one edge as before, several as a list."""
    if len(edges) == 1:
        e = edges[0]
        return {"src": e.src, "dst": e.dst, "type": e.type}
    return {"edges": [{"id": e.id, "src": e.src, "dst": e.dst, "type": e.type} for e in edges]}


def audit_edges(audit: Callable[..., None], edges: Sequence[Edge]) -> None:
    """One audit entry per (bank, maker) batch of edges just written."""
    groups: dict[tuple[str, str], list[Edge]] = {}
    for edge in edges:
        groups.setdefault((edge.bank_id, edge.made_by), []).append(edge)
    for (bank_id, made_by), group in groups.items():
        target = group[0].id if len(group) == 1 else group[0].src
        audit(bank_id, made_by, "edge.put", target, None, _edge_audit(group), "link")


class Graph(Part):
    def upsert_entity(self, entity: Entity) -> Entity:
        d = self.sql.dialect
        memo = ("entity", entity.bank_id, entity.key)
        rows = self.engine._memoized(
            memo,
            lambda: self.sql.rows(
                self._locked(
                    "SELECT id, name, kind, aliases FROM entities WHERE bank_id = ? AND key = ?"
                ),
                (entity.bank_id, entity.key),
            ),
        )
        if not rows:
            self.engine._forget(memo)
            self.sql.write(
                "INSERT INTO entities (bank_id, id, name, key, kind, aliases) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (
                    entity.bank_id,
                    entity.id,
                    entity.name,
                    entity.key,
                    entity.kind,
                    d.encode("json", list(entity.aliases)),
                ),
            )
            return entity
        eid, name, kind, aliases = rows[0]
        known = list(d.decode("json", aliases) or [])
        merged = list(dict.fromkeys([*known, *entity.aliases]))
        better_kind = kind if kind != "thing" else entity.kind
        if merged != known or better_kind != kind:
            self.engine._forget(memo)
            self.sql.write(
                "UPDATE entities SET aliases = ?, kind = ? WHERE bank_id = ? AND id = ?",
                (d.encode("json", merged), better_kind, entity.bank_id, eid),
            )
        return Entity(
            id=eid,
            bank_id=entity.bank_id,
            name=name,
            key=entity.key,
            kind=better_kind,
            aliases=tuple(merged),
        )

    def add_mentions(self, bank_id: str, unit_id: str, entity_ids: Sequence[str]) -> None:
        self.sql.write_many(
            "INSERT INTO mentions (bank_id, unit_id, entity_id) VALUES (?, ?, ?) "
            "ON CONFLICT DO NOTHING",
            [(bank_id, unit_id, eid) for eid in dict.fromkeys(entity_ids)],
        )

    def put_edge(self, edge: Edge) -> None:
        self.put_edges([edge])

    def put_edges(self, edges: Sequence[Edge]) -> None:
        if not edges:
            return
        self.sql.write_many(EDGE.insert, [EDGE.row(self.sql.dialect, e) for e in edges])
        audit_edges(self.engine.audit, edges)

    def edges_of(self, viewer: Viewer, unit_id: str) -> list[Edge]:
        """Edges touching a visible unit whose other end is visible too (or is a source)."""
        d = self.sql.dialect
        clause_a, pa = clause(d, viewer, Filters(), "a")
        clause_b, pb = clause(d, viewer, Filters(), "b")
        # One indexed branch per direction (an OR over src and dst scanned the bank's edges:
        # 113 ms per call at 10k units in SQLite); an edge from the unit to itself comes once.
        cols = ", ".join(f"e.{c}" for c in EDGE.names)
        rows = self.sql.rows(
            f"SELECT {cols} FROM (SELECT {cols}, e.dst AS other FROM edges e "
            "WHERE e.bank_id = ? AND e.src = ? "
            f"UNION ALL SELECT {cols}, e.src AS other FROM edges e "
            "WHERE e.bank_id = ? AND e.dst = ? AND e.src != ?) e "
            f"JOIN units a ON a.bank_id = e.bank_id AND a.id = ? AND {clause_a} "
            "LEFT JOIN units b ON b.bank_id = e.bank_id AND b.id = e.other "
            "WHERE (b.id IS NULL AND EXISTS (SELECT 1 FROM sources s WHERE s.bank_id = e.bank_id "
            "AND s.id = e.other AND (s.visibility = 'shared' OR s.agent_id = ?)) "
            f"OR b.id IS NOT NULL AND {clause_b}) ORDER BY e.created_at, e.id",
            (
                viewer.bank_id,
                unit_id,
                viewer.bank_id,
                unit_id,
                unit_id,
                unit_id,
                *pa,
                viewer.agent_id,
                *pb,
            ),
        )
        out = []
        for row in rows:
            v = EDGE.decode(d, row)
            v["created_at"] = v["created_at"] or EPOCH
            v["metadata"] = v["metadata"] or {}
            out.append(Edge(**v))
        return out
