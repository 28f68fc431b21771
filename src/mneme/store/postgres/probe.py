"""What the health watchdog reads and repairs in a PostgreSQL store (ADR 0054): a round trip
(the connection is alive), the database's size, and each pgvector index's validity. The WAL
is the server's own (checkpoints are its business, and need a superuser): no repair here."""

from __future__ import annotations

from psycopg import sql

from mneme.core.watchdog import IndexState
from mneme.errors import MnemeError
from mneme.store.postgres.engine import PostgresEngine
from mneme.store.postgres.vectors import index_name
from mneme.store.protocol import FileSizes

#: The HNSW indexes of ``postgres.vectors`` (one per model), with the model they index.
_INDEXES = (
    "SELECT c.relname, i.indisvalid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid "
    "JOIN pg_class t ON t.oid = i.indrelid JOIN pg_am a ON a.oid = c.relam "
    "WHERE t.relname = 'embeddings' AND a.amname = 'hnsw' AND t.relnamespace = "
    "to_regnamespace(current_schema())"
)


class PostgresProbe:
    def __init__(self, engine: PostgresEngine) -> None:
        self._engine = engine

    def integrity(self) -> str | None:
        try:
            self._engine.db.scalar("SELECT 1")
        except MnemeError as exc:
            return str(exc)
        return None

    def files(self) -> FileSizes:
        size = self._engine.db.scalar("SELECT pg_database_size(current_database())")
        return FileSizes(None, int(size), None)

    def checkpoint(self) -> str:
        return "skipped: PostgreSQL checkpoints its own WAL"

    def indexes(self) -> list[IndexState]:
        """One entry per HNSW index: the native index holds every row by construction (it is
        maintained in each write's transaction), so only its validity can be wrong."""
        named = {
            index_name(str(model), int(dim)): (str(model), int(n))
            for model, dim, n in self._engine.db.query(
                "SELECT model, dim, count(*) FROM embeddings GROUP BY 1, 2"
            )
        }
        found = []
        for name, valid in self._engine.db.query(_INDEXES):
            model, stored = named.get(str(name), (str(name), 0))
            found.append(IndexState("*", model, stored, None, bool(valid)))
        return found

    def rebuild_index(self, bank_id: str, model: str) -> int:
        """REINDEX the model's HNSW indexes (every bank shares them); how many were rebuilt."""
        dims = [
            int(d)
            for (d,) in self._engine.db.query(
                "SELECT DISTINCT dim FROM embeddings WHERE model = %s", (model,)
            )
        ]
        present = {str(name) for name, _valid in self._engine.db.query(_INDEXES)}
        rebuilt = 0
        for dim in dims:
            name = index_name(model, dim)
            if name in present:
                self._engine.db.execute(sql.SQL("REINDEX INDEX {}").format(sql.Identifier(name)))
                rebuilt += 1
        return rebuilt
