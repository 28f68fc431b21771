"""The semantic channel on pgvector: one partial HNSW index per (model, dim), made on demand.

The ``embeddings.vector`` column has no fixed dimension, so one table holds every model's
vectors, and an HNSW index needs a fixed one. Each (model, dim) therefore gets its own partial
expression index::

    CREATE INDEX ... ON embeddings USING hnsw ((vector::vector(384)) vector_cosine_ops)
        WHERE model = 'all-MiniLM-L6-v2' AND dim = 384

and the query casts the column and states the predicate the same way, with the model and dim
written as literals: a partial index is only usable when the planner can prove the query's
WHERE implies the index predicate, which it cannot do for a bind parameter under a generic plan.

HNSW applies the WHERE clause (bank, scope, filters) after walking the graph; pgvector 0.8's
iterative scan keeps walking until ``limit`` visible rows are found, so scope never costs
results on a selective filter (up to ``hnsw.max_scan_tuples``).
"""

from __future__ import annotations

import hashlib
import threading

from psycopg import sql

from mneme.core.model import Viewer
from mneme.store.postgres.database import Database
from mneme.store.postgres.dialect import literal
from mneme.store.postgres.scoping import where
from mneme.store.protocol import Filters, Vector


def index_name(model: str, dim: int) -> str:
    digest = hashlib.sha1(f"{model}\x00{dim}".encode(), usedforsecurity=False).hexdigest()[:16]
    return f"embeddings_hnsw_{digest}"


class VectorIndexes:
    """Knows which (model, dim) HNSW indexes exist, and creates missing ones in the write tx.

    With ``build=False`` (``pg_vector_index = "exact"``) it creates none: the semantic query
    is the same and the planner answers it by comparing every visible vector, exactly.
    """

    def __init__(self, db: Database, *, build: bool = True) -> None:
        self.db = db
        self.build = build
        self._known: set[str] = set()
        self._lock = threading.Lock()

    def ensure(self, model: str, dim: int) -> None:
        if not self.build:
            return
        name = index_name(model, dim)
        with self._lock:
            if name in self._known:
                return
        if not self.db.scalar("SELECT to_regclass(%s) IS NOT NULL", (name,)):
            # Two writers meeting a new model at once would race on the index name.
            self.db.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", (name,))
            self.db.execute(
                sql.SQL(
                    "CREATE INDEX IF NOT EXISTS {name} ON embeddings USING hnsw "
                    "((vector::vector({dim})) vector_cosine_ops) "
                    "WHERE model = {model} AND dim = {dim}"
                ).format(
                    name=sql.Identifier(name), dim=sql.Literal(int(dim)), model=sql.Literal(model)
                )
            )
            # Only trust the cache once the creating transaction commits.
            self.db.after(lambda: self._remember(name), lambda: None)
        else:
            self._remember(name)

    def _remember(self, name: str) -> None:
        with self._lock:
            self._known.add(name)


def semantic_query(
    viewer: Viewer, vector: Vector, model: str, filters: Filters, limit: int
) -> tuple[sql.Composed, list[object]]:
    """The semantic channel's SQL: scope and filters inside, ordered by the indexed distance.

    Ordered by the distance alone: a second sort key would stop the planner from reading the
    HNSW index in order. Ties are broken by insertion order (``seq``) by the caller.
    """
    dim = len(vector)
    clause, params = where(viewer, filters)
    cast = sql.SQL("vector({})").format(sql.Literal(int(dim)))
    # The model as an inline literal ('' doubles a quote; %% keeps a percent sign away from
    # the driver's placeholder parser).
    model_sql = sql.SQL("'" + model.replace("'", "''").replace("%", "%%") + "'")
    # A short list of allowed ids is cheaper (and exact) to rank directly: walking the HNSW
    # graph for a handful of ids would visit up to hnsw.max_scan_tuples rows and could stop
    # before reaching them. "+ 0" makes the ordering non-indexable, so the planner cannot
    # choose the index for it.
    exact = sql.SQL(" + 0" if filters.include_ids is not None else "")
    query = sql.SQL(
        "SELECT u.id, 1 - (e.vector::{cast} <=> %s::{cast}) AS score, u.seq "
        "FROM embeddings e JOIN units u ON u.bank_id = e.bank_id AND u.id = e.unit_id "
        "WHERE e.model = {model} AND e.dim = {dim} AND e.bank_id = %s AND {clause} "
        "ORDER BY (e.vector::{cast} <=> %s::{cast}){exact} LIMIT %s"
    ).format(
        cast=cast,
        model=model_sql,
        dim=sql.Literal(int(dim)),
        clause=sql.SQL(clause),
        exact=exact,
    )
    vec = literal(vector)
    return query, [vec, viewer.bank_id, *params, vec, limit]
