"""Batched reads the Store protocol offers for the write path, on PostgreSQL.

pgvector answers one nearest-neighbour query per statement (its HNSW scan is per vector), so a
batch is its queries in turn: the same results and cost as asking them one by one, kept behind
the batch method so the write path has one way to ask.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from mneme.core.model import Viewer
from mneme.store.protocol import Filters, Scored, Vector


class BatchReadsMixin:
    search_semantic: Callable[[Viewer, Vector, str, Filters, int], list[Scored]]

    def search_semantic_many(
        self, viewer: Viewer, vectors: Sequence[Vector], model: str, filters: Filters, limit: int
    ) -> list[list[Scored]]:
        return [self.search_semantic(viewer, v, model, filters, limit) for v in vectors]
