"""The recall channels on PostgreSQL: lexical (BM25 from per-bank postings, see ``lexical``),
semantic (pgvector HNSW), temporal, named entities, and graph expansion, each with scope and
filters inside its query.

Scores, orderings and tie-breaks follow the SQLite backend, the reference: every channel is
higher-is-better and ties go to the smaller id (or to insertion order where SQLite uses rowid).
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Sequence

from mneme.core.model import Viewer
from mneme.store.postgres.database import Database
from mneme.store.postgres.lexical import BM25
from mneme.store.postgres.scoping import where
from mneme.store.postgres.vectors import semantic_query
from mneme.store.protocol import LINK_KINDS, Filters, Link, Scored, Vector
from mneme.store.ranking import temporal_order

#: Entities mentioned by more units than this are hubs (a speaker's name in every line of a
#: transcript): they link everything to everything and carry no signal for graph expansion.
#: The same cap as the SQLite backend's.
MAX_ENTITY_DEGREE = 48


class RecallChannels:
    """The read side of :class:`PostgresStore`: one method per recall channel."""

    db: Database

    def search_lexical(
        self, viewer: Viewer, terms: Sequence[str], filters: Filters, limit: int
    ) -> list[Scored]:
        text = " ".join(t for t in terms if t.strip())
        if not text or limit <= 0:
            return []
        clause, params = where(viewer, filters)
        sql = BM25.replace("{clause}", clause)
        bank = viewer.bank_id
        # The bank's top `fetch` by BM25, then scope and filters on those units (ADR 0019),
        # widening as the SQLite backend does until `limit` are visible or the ranking ends.
        fetch = max(4 * limit, 64)
        while True:
            rows = self.db.query(sql, (text, bank, bank, bank, fetch, bank, *params, limit))
            hits = [Scored(r[0], float(r[1])) for r in rows if r[0] is not None]
            if len(hits) >= limit or not rows or int(rows[0][2]) < fetch:
                return hits
            fetch *= 4

    def search_semantic(
        self, viewer: Viewer, vector: Vector, model: str, filters: Filters, limit: int
    ) -> list[Scored]:
        if limit <= 0 or len(vector) == 0:
            return []
        query, params = semantic_query(viewer, vector, model, filters, limit)
        rows = self.db.query(query, params)
        # Score desc, then insertion order: SQLite's tie-break (its matrix is in rowid order).
        rows.sort(key=lambda r: (-float(r[1]), r[2]))
        return [Scored(r[0], float(r[1])) for r in rows]

    def search_semantic_many(
        self, viewer: Viewer, vectors: Sequence[Vector], model: str, filters: Filters, limit: int
    ) -> list[list[Scored]]:
        """The searches one by one: pgvector walks its index per vector, and one LATERAL
        statement for all of them measured slower here (exact scans: 0.45-0.59 s against
        0.25-0.35 s for 160 vectors on 1,135 units), its plan unprovable with HNSW (ADR 0040)."""
        return [self.search_semantic(viewer, v, model, filters, limit) for v in vectors]

    def search_temporal(
        self, viewer: Viewer, start: dt.datetime, end: dt.datetime, filters: Filters, limit: int
    ) -> list[Scored]:
        clause, params = where(viewer, filters)
        mid = start + (end - start) / 2
        rows = self.db.query(
            f"SELECT u.id, u.occurred_start, u.occurred_end FROM units u WHERE {clause} "
            "AND u.occurred_start < %s AND (coalesce(u.occurred_end, u.occurred_start) > %s "
            "OR u.occurred_start >= %s) "
            "ORDER BY abs(extract(epoch FROM u.occurred_start - %s::timestamptz)), u.id "
            "LIMIT %s",
            (*params, end, start, start, mid, limit * 4),
        )
        return temporal_order([(r[0], r[1] or start, r[2]) for r in rows], start, end, limit)

    def search_entities(
        self, viewer: Viewer, keys: Sequence[str], filters: Filters, limit: int
    ) -> list[Scored]:
        keys = list(dict.fromkeys(k for k in keys if k))
        if not keys:
            return []
        clause, params = where(viewer, filters)
        rows = self.db.query(
            "WITH ent AS (SELECT e.bank_id, e.id, (SELECT count(*) FROM mentions d "
            "WHERE d.bank_id = e.bank_id AND d.entity_id = e.id) AS deg FROM entities e "
            "WHERE e.bank_id = %s AND e.key = ANY(%s::text[])) "
            "SELECT u.id, ent.deg FROM ent JOIN mentions m ON m.bank_id = ent.bank_id "
            "AND m.entity_id = ent.id JOIN units u ON u.bank_id = m.bank_id AND u.id = m.unit_id "
            f"WHERE ent.deg <= %s AND {clause} ORDER BY ent.deg, u.id LIMIT %s",
            (viewer.bank_id, keys, MAX_ENTITY_DEGREE, *params, limit * 4),
        )
        scores: dict[str, float] = {}
        for uid, deg in rows:
            # Rarer entities say more: weight by inverse log degree, summed over entities.
            scores[uid] = scores.get(uid, 0.0) + 1.0 / (1.0 + math.log1p(float(deg)))
        ranked = sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))[:limit]
        return [Scored(uid, s) for uid, s in ranked]

    def graph_links(
        self,
        viewer: Viewer,
        unit_ids: Sequence[str],
        filters: Filters,
        limit: int,
        kinds: frozenset[str] = LINK_KINDS,
    ) -> list[Link]:
        if not unit_ids:
            return []
        seeds = list(dict.fromkeys(unit_ids))
        clause, params = where(viewer, filters, "b")
        links: list[Link] = []
        if "EDGE" in kinds:
            # Typed edges between units, both directions: one indexed branch per direction
            # (as on SQLite); an edge with both ends among the seeds comes once, from its src.
            rows = self.db.query(
                "SELECT a, o, type, w, id FROM ("
                "SELECT e.src AS a, e.dst AS o, e.type AS type, e.weight * e.confidence AS w, "
                "e.weight AS ew, e.id AS id FROM edges e "
                "JOIN units b ON b.bank_id = e.bank_id AND b.id = e.dst "
                f"WHERE e.bank_id = %s AND e.src = ANY(%s::text[]) AND {clause} "
                "UNION ALL "
                "SELECT e.dst, e.src, e.type, e.weight * e.confidence, e.weight, e.id FROM edges e "
                "JOIN units b ON b.bank_id = e.bank_id AND b.id = e.src "
                "WHERE e.bank_id = %s AND e.dst = ANY(%s::text[]) "
                f"AND NOT (e.src = ANY(%s::text[])) AND {clause}"
                ") x ORDER BY ew DESC, id LIMIT %s",
                (viewer.bank_id, seeds, *params, viewer.bank_id, seeds, seeds, *params, limit),
            )
            links.extend(Link(a, b, typ, float(w), eid) for a, b, typ, w, eid in rows)
        if "ENTITY" in kinds:
            # shared entities (hubs excluded), weighted by rarity
            rows = self.db.query(
                "WITH deg AS (SELECT entity_id, count(*) AS n FROM mentions WHERE bank_id = %s "
                "AND entity_id IN (SELECT entity_id FROM mentions WHERE bank_id = %s "
                "AND unit_id = ANY(%s::text[])) GROUP BY entity_id HAVING count(*) <= %s) "
                "SELECT m1.unit_id, m2.unit_id, en.name, deg.n FROM mentions m1 "
                "JOIN deg ON deg.entity_id = m1.entity_id "
                "JOIN mentions m2 ON m2.bank_id = m1.bank_id AND m2.entity_id = m1.entity_id "
                "AND m2.unit_id != m1.unit_id "
                "JOIN entities en ON en.bank_id = m1.bank_id AND en.id = m1.entity_id "
                "JOIN units b ON b.bank_id = m2.bank_id AND b.id = m2.unit_id "
                f"WHERE m1.bank_id = %s AND m1.unit_id = ANY(%s::text[]) AND {clause} "
                "ORDER BY deg.n, m2.unit_id LIMIT %s",
                (
                    viewer.bank_id,
                    viewer.bank_id,
                    seeds,
                    MAX_ENTITY_DEGREE,
                    viewer.bank_id,
                    seeds,
                    *params,
                    limit,
                ),
            )
            for a, b, name, n in rows:
                links.append(Link(a, b, "ENTITY", 1.0 / (1.0 + math.log1p(float(n))), name))
        if "SOURCE" in kinds:
            # sibling atoms of the same source
            rows = self.db.query(
                "SELECT e1.unit_id, e2.unit_id, e1.source_id FROM unit_evidence e1 "
                "JOIN unit_evidence e2 ON e2.bank_id = e1.bank_id AND e2.source_id = e1.source_id "
                "AND e2.unit_id != e1.unit_id "
                "JOIN units b ON b.bank_id = e2.bank_id AND b.id = e2.unit_id "
                f"WHERE e1.bank_id = %s AND e1.unit_id = ANY(%s::text[]) AND {clause} "
                "ORDER BY e2.unit_id LIMIT %s",
                (viewer.bank_id, seeds, *params, limit),
            )
            links.extend(Link(a, b, "SOURCE", 0.5, sid) for a, b, sid in rows)
        return links
