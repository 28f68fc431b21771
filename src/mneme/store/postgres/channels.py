"""The recall channels on PostgreSQL: lexical (BM25 from per-bank postings, see ``lexical``),
semantic (pgvector HNSW), temporal, named entities, and graph expansion, each with scope and
filters inside its query.

Scores, orderings and tie-breaks follow the SQLite backend, the reference: every channel is
higher-is-better and ties go to the smaller id (or to insertion order where SQLite uses rowid).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

from mneme.core.model import Viewer
from mneme.store.postgres.database import Database
from mneme.store.postgres.lexical import BM25
from mneme.store.postgres.scoping import where
from mneme.store.postgres.vectors import semantic_query
from mneme.store.protocol import Filters, Scored, Vector
from mneme.store.ranking import temporal_order

#: Entities mentioned by more units than this are hubs (a speaker's name in every line of a
#: transcript): they link everything to everything and carry no signal for graph expansion.


#: Rows read past a semantic search's limit, to cut ties by insertion order.
TIE_SLACK = 8


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
        # A few rows past the limit, so that vectors tied at the cut are all seen and the cut
        # is made by insertion order, as SQLite's is (its matrix is in rowid order): the
        # database alone orders ties arbitrarily (a flaky decision under load, issue 17).
        query, params = semantic_query(viewer, vector, model, filters, limit + TIE_SLACK)
        rows = self.db.query(query, params)
        rows.sort(key=lambda r: (-float(r[1]), r[2]))
        return [Scored(r[0], float(r[1])) for r in rows[:limit]]

    def semantic_density(
        self, viewer: Viewer, ids: Sequence[str], model: str, neighbours: int
    ) -> dict[str, float]:
        """Computed where the vectors are, in one query: reading 150 vectors as text took
        10-14 ms to parse in Python; the pairwise distances of the pool take far less."""
        wanted = list(dict.fromkeys(ids))
        if neighbours < 1 or len(wanted) <= neighbours:
            return {}
        clause, params = where(viewer, Filters())
        rows = self.db.query(
            "WITH p AS MATERIALIZED (SELECT u.id, e.vector FROM embeddings e JOIN units u "
            "ON u.bank_id = e.bank_id AND u.id = e.unit_id "
            f"WHERE e.model = %s AND e.bank_id = %s AND u.id = ANY(%s::text[]) AND {clause}) "
            # Each distance computed once (ORDER BY its column): 3.5 ms for a pool of 150
            # here, against 5.2 ms writing it twice and 15 ms as a window over a self-join.
            "SELECT a.id, (SELECT avg(1 - t.d) FROM (SELECT a.vector <=> b.vector AS d "
            "FROM p b WHERE b.id <> a.id ORDER BY 1 LIMIT %s) t) FROM p a",
            (model, viewer.bank_id, wanted, *params, neighbours),
        )
        if len(rows) <= neighbours:
            return {}
        return {r[0]: float(r[1]) for r in rows}

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
