"""Entities, mentions, edges and embeddings of the PostgreSQL store."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from psycopg.types.json import Jsonb

from mneme.core.model import Edge, Entity, Unit, Viewer
from mneme.store.edges import EDGE_COLUMNS, audit_edges, edge_values
from mneme.store.postgres.base import PostgresBase
from mneme.store.postgres.rows import utc
from mneme.store.postgres.scoping import where
from mneme.store.postgres.vectors import VectorIndexes
from mneme.store.protocol import EmbeddingRow, Filters, Vector


class GraphMixin(PostgresBase):
    vectors: VectorIndexes

    # Implemented by PostgresStore, which owns unit rows and their vectors.
    def _one(self, bank_id: str, unit_id: str, *, lock: bool = False) -> Unit:
        raise NotImplementedError

    def _store_vector(self, bank_id: str, unit_id: str, model: str, vector: Vector) -> None:
        raise NotImplementedError

    # -- entities, mentions, edges ------------------------------------------------------

    def upsert_entity(self, entity: Entity) -> Entity:
        rows = self.db.query(
            "SELECT id, name, kind, aliases FROM entities WHERE bank_id = %s AND key = %s"
            + (" FOR UPDATE" if self.db.in_transaction else ""),
            (entity.bank_id, entity.key),
        )
        if not rows:
            self._w(
                "INSERT INTO entities (bank_id, id, name, key, kind, aliases) "
                "VALUES (%s, %s, %s, %s, %s, %s)",
                (
                    entity.bank_id,
                    entity.id,
                    entity.name,
                    entity.key,
                    entity.kind,
                    Jsonb(list(entity.aliases)),
                ),
            )
            return entity
        eid, name, kind, aliases = rows[0]
        known = list(aliases or [])
        merged = list(dict.fromkeys([*known, *entity.aliases]))
        better_kind = kind if kind != "thing" else entity.kind
        if merged != known or better_kind != kind:
            self._w(
                "UPDATE entities SET aliases = %s, kind = %s WHERE bank_id = %s AND id = %s",
                (Jsonb(merged), better_kind, entity.bank_id, eid),
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
        for eid in dict.fromkeys(entity_ids):
            self._w(
                "INSERT INTO mentions VALUES (%s, %s, %s) ON CONFLICT DO NOTHING",
                (bank_id, unit_id, eid),
            )

    def put_edge(self, edge: Edge) -> None:
        self.put_edges([edge])

    def put_edges(self, edges: Sequence[Edge]) -> None:
        if not edges:
            return
        self._many(
            f"INSERT INTO edges ({EDGE_COLUMNS}) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
            edge_values(edges, utc, Jsonb),
        )
        audit_edges(self.audit, edges)

    def edges_of(self, viewer: Viewer, unit_id: str) -> list[Edge]:
        """Edges touching a visible unit whose other end is visible too (or is a source)."""
        clause_a, pa = where(viewer, Filters(), "a")
        clause_b, pb = where(viewer, Filters(), "b")
        rows = self.db.query(
            "SELECT e.bank_id, e.id, e.src, e.dst, e.type, e.weight, e.confidence, e.made_by, "
            "e.created_at, e.metadata FROM edges e "
            f"JOIN units a ON a.bank_id = e.bank_id AND a.id = %s AND {clause_a} "
            "LEFT JOIN units b ON b.bank_id = e.bank_id "
            "AND b.id = CASE WHEN e.src = a.id THEN e.dst ELSE e.src END "
            "WHERE e.bank_id = %s AND (e.src = a.id OR e.dst = a.id) "
            "AND (b.id IS NULL AND EXISTS (SELECT 1 FROM sources s WHERE s.bank_id = e.bank_id "
            "AND s.id = CASE WHEN e.src = a.id THEN e.dst ELSE e.src END "
            "AND (s.visibility = 'shared' OR s.agent_id = %s)) "
            f"OR b.id IS NOT NULL AND {clause_b}) ORDER BY e.created_at, e.id",
            (unit_id, *pa, viewer.bank_id, viewer.agent_id, *pb),
        )
        return [
            Edge(
                bank_id=r[0],
                id=r[1],
                src=r[2],
                dst=r[3],
                type=r[4],
                weight=r[5],
                confidence=r[6],
                made_by=r[7],
                created_at=utc(r[8]),
                metadata=r[9] or {},
            )
            for r in rows
        ]

    # -- embeddings ---------------------------------------------------------------------

    def put_embedding(self, bank_id: str, unit_id: str, model: str, vector: Vector) -> None:
        before = self._one(bank_id, unit_id, lock=True)
        self._store_vector(bank_id, unit_id, model, vector)
        self._w(
            "UPDATE units SET embedding_model = %s, embedding_dim = %s "
            "WHERE bank_id = %s AND id = %s",
            (model, len(vector), bank_id, unit_id),
        )
        self._touch(bank_id)
        self.audit(
            bank_id,
            "system",
            "unit.reembed",
            unit_id,
            {"embedding_model": before.embedding_model},
            {"embedding_model": model, "embedding_dim": len(vector)},
            "reembed",
        )

    def iter_for_embedding(
        self, bank_id: str | None, model: str, batch: int
    ) -> Iterator[list[EmbeddingRow]]:
        last = ""
        while True:
            rows = self.db.query(
                "SELECT u.id, u.text, u.embedding_model FROM units u WHERE u.id > %s "
                + ("AND u.bank_id = %s " if bank_id else "")
                + "AND NOT EXISTS (SELECT 1 FROM embeddings e WHERE e.bank_id = u.bank_id "
                "AND e.unit_id = u.id AND e.model = %s) ORDER BY u.id LIMIT %s",
                (last, *((bank_id,) if bank_id else ()), model, batch),
            )
            if not rows:
                return
            last = rows[-1][0]
            yield [EmbeddingRow(unit_id=r[0], text=r[1], model=r[2]) for r in rows]
