"""The Channels role: the entity channel and the graph's links are shared SQL; the lexical,
semantic and temporal channels are the engine's own (FTS5 and an in-memory vector index on
SQLite; BM25 tables and pgvector on PostgreSQL). Scope and filters are inside every query."""

from __future__ import annotations

import math
from collections.abc import Sequence

from mneme.core.model import Viewer
from mneme.store.protocol import LINK_KINDS, Filters, Link, Scored, Searches
from mneme.store.sql.part import Engine, Part
from mneme.store.sql.scoping import clause as scope_clause
from mneme.store.sql.sources import knower_wrote

#: Entities mentioned by more units than this are hubs ("the user"): no evidence of relation.
MAX_ENTITY_DEGREE = 48


def _rarity(degree: float) -> float:
    """Rarer entities say more: the weight of a shared entity by inverse log degree."""
    return 1.0 / (1.0 + math.log1p(float(degree)))


#: Two evidence rows ``e1``, ``e2`` of one id rest on one source: one knower, or not two
#: knowers that each wrote a source of that id (ids are the writer's, ADR 0107; an
#: observation's rows cite the sources of its evidence).
_ONE_SOURCE = f"(e2.agent_id = e1.agent_id OR NOT ({knower_wrote('e1')} AND {knower_wrote('e2')}))"


class Channels(Part):
    def __init__(self, engine: Engine, own: Searches) -> None:
        super().__init__(engine)
        # The engine's own channels, as they are.
        self.search_lexical = own.search_lexical
        self.search_semantic = own.search_semantic
        self.search_semantic_many = own.search_semantic_many
        self.search_temporal = own.search_temporal
        self.semantic_density = own.semantic_density

    def search_entities(
        self, viewer: Viewer, keys: Sequence[str], filters: Filters, limit: int
    ) -> list[Scored]:
        keys = list(dict.fromkeys(k for k in keys if k))
        if not keys:
            return []
        clause, params = scope_clause(self.sql.dialect, viewer, filters)
        among, values = self.sql.dialect.one_of("e.key", keys)
        rows = self.sql.rows(
            "WITH ent AS (SELECT e.bank_id, e.id, (SELECT count(*) FROM mentions d "
            "WHERE d.bank_id = e.bank_id AND d.entity_id = e.id) AS deg FROM entities e "
            f"WHERE e.bank_id = ? AND {among}) "
            "SELECT u.id, ent.deg FROM ent JOIN mentions m ON m.bank_id = ent.bank_id "
            "AND m.entity_id = ent.id JOIN units u ON u.bank_id = m.bank_id AND u.id = m.unit_id "
            f"WHERE ent.deg <= ? AND {clause} ORDER BY ent.deg, u.id LIMIT ?",
            (viewer.bank_id, *values, MAX_ENTITY_DEGREE, *params, limit * 4),
        )
        scores: dict[str, float] = {}
        for uid, deg in rows:
            scores[uid] = scores.get(uid, 0.0) + _rarity(deg)  # summed over entities
        ranked = sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))[:limit]
        return [Scored(uid, s) for uid, s in ranked]

    def entity_mentions(
        self, viewer: Viewer, keys: Sequence[str], filters: Filters, limit: int
    ) -> dict[str, list[str]]:
        """The visible units that mention each entity of ``keys`` the bank knows, the last
        written first (unit ids are time-ordered ULIDs: no sort), at most ``limit`` per key;
        keys the bank does not know are left out. Unlike ``search_entities`` no entity is too
        common: the caller asked for these."""
        keys = list(dict.fromkeys(k for k in keys if k))
        if not keys:
            return {}
        clause, params = scope_clause(self.sql.dialect, viewer, filters)
        out: dict[str, list[str]] = {}
        for key in keys:
            rows = self.sql.rows(
                "SELECT u.id FROM entities e JOIN mentions m ON m.bank_id = e.bank_id "
                "AND m.entity_id = e.id JOIN units u ON u.bank_id = m.bank_id AND u.id = m.unit_id "
                f"WHERE e.bank_id = ? AND e.key = ? AND {clause} ORDER BY m.unit_id DESC LIMIT ?",
                (viewer.bank_id, key, *params, limit),
            )
            if rows:
                out[key] = list(dict.fromkeys(r[0] for r in rows))
        return out

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
        d = self.sql.dialect
        seeds = list(dict.fromkeys(unit_ids))
        bank = viewer.bank_id
        clause, params = scope_clause(d, viewer, filters, "b")
        links: list[Link] = []
        if "EDGE" in kinds:
            # Typed edges between units, both directions: one indexed branch per direction
            # (an OR over src and dst scanned every edge of the bank: 5.3 ms vs 0.7 ms on a
            # 9k-edge SQLite bank). An edge with both ends among the seeds comes once, from
            # its src.
            src, p1 = d.one_of("e.src", seeds)
            dst, p2 = d.one_of("e.dst", seeds)
            not_src, p3 = d.one_of("e.src", seeds, negate=True)
            rows = self.sql.rows(
                "SELECT a, o, type, w, id FROM ("
                "SELECT e.src AS a, e.dst AS o, e.type AS type, e.weight * e.confidence AS w, "
                "e.weight AS ew, e.id AS id FROM edges e "
                "JOIN units b ON b.bank_id = e.bank_id AND b.id = e.dst "
                f"WHERE e.bank_id = ? AND {src} AND {clause} "
                "UNION ALL "
                "SELECT e.dst, e.src, e.type, e.weight * e.confidence, e.weight, e.id FROM edges e "
                "JOIN units b ON b.bank_id = e.bank_id AND b.id = e.src "
                f"WHERE e.bank_id = ? AND {dst} AND {not_src} AND {clause}"
                ") x ORDER BY ew DESC, id LIMIT ?",
                (bank, *p1, *params, bank, *p2, *p3, *params, limit),
            )
            links.extend(Link(a, b, typ, float(w), eid) for a, b, typ, w, eid in rows)
        if "ENTITY" in kinds:
            # shared entities (hubs excluded), weighted by rarity
            of_seeds, p1 = d.one_of("unit_id", seeds)
            m1_seeds, p2 = d.one_of("m1.unit_id", seeds)
            rows = self.sql.rows(
                "WITH deg AS (SELECT entity_id, count(*) AS n FROM mentions WHERE bank_id = ? "
                "AND entity_id IN (SELECT entity_id FROM mentions WHERE bank_id = ? "
                f"AND {of_seeds}) GROUP BY entity_id HAVING count(*) <= ?) "
                "SELECT m1.unit_id, m2.unit_id, en.name, deg.n FROM mentions m1 "
                "JOIN deg ON deg.entity_id = m1.entity_id "
                "JOIN mentions m2 ON m2.bank_id = m1.bank_id AND m2.entity_id = m1.entity_id "
                "AND m2.unit_id != m1.unit_id "
                "JOIN entities en ON en.bank_id = m1.bank_id AND en.id = m1.entity_id "
                "JOIN units b ON b.bank_id = m2.bank_id AND b.id = m2.unit_id "
                f"WHERE m1.bank_id = ? AND {m1_seeds} AND {clause} "
                "ORDER BY deg.n, m2.unit_id LIMIT ?",
                (bank, bank, *p1, MAX_ENTITY_DEGREE, bank, *p2, *params, limit),
            )
            links.extend(Link(a, b, "ENTITY", _rarity(n), name) for a, b, name, n in rows)
        if "SOURCE" in kinds:
            # sibling atoms of the same source
            e1_seeds, p1 = d.one_of("e1.unit_id", seeds)
            rows = self.sql.rows(
                "SELECT e1.unit_id, e2.unit_id, e1.source_id FROM unit_evidence e1 "
                "JOIN unit_evidence e2 ON e2.bank_id = e1.bank_id AND e2.source_id = e1.source_id "
                f"AND e2.unit_id != e1.unit_id AND {_ONE_SOURCE} "
                "JOIN units b ON b.bank_id = e2.bank_id AND b.id = e2.unit_id "
                f"WHERE e1.bank_id = ? AND {e1_seeds} AND {clause} "
                "ORDER BY e2.unit_id LIMIT ?",
                (bank, *p1, *params, limit),
            )
            links.extend(Link(a, b, "SOURCE", 0.5, sid) for a, b, sid in rows)
        return links
