"""The PostgreSQL store: the shared backend, its engine composed with the shared roles."""

from __future__ import annotations

from mneme.store.postgres.engine import PostgresEngine
from mneme.store.postgres.probe import PostgresProbe
from mneme.store.protocol import Probe
from mneme.store.sql.store import SQLStore


class PostgresStore(SQLStore):
    """One PostgreSQL database (one per team), many writers at once (see
    :class:`~mneme.store.sql.store.SQLStore` for the roles)."""

    engine: PostgresEngine

    def __init__(
        self,
        dsn: str,
        *,
        migrate: bool = True,
        pool_size: int = 8,
        connect_timeout: float = 10.0,
        audit_key_file: str | None = None,
        vector_index: str | None = None,
    ) -> None:
        """Connect to ``dsn`` (a ``postgresql://`` URL or a libpq key=value string).

        ``vector_index``: "hnsw" builds an HNSW index per embedding model on first use;
        "exact" builds none, so the semantic channel compares every visible vector. None
        takes the configured one (``Config.pg_vector_index``, ``MNEME_PG_VECTOR_INDEX``).

        Raises:
            BackendUnavailable: the server cannot be reached or refuses the credentials.
            SchemaMismatch: the schema is newer than this code, or pgvector is missing.
        """
        super().__init__(
            PostgresEngine(
                dsn,
                migrate=migrate,
                pool_size=pool_size,
                connect_timeout=connect_timeout,
                audit_key_file=audit_key_file,
                vector_index=vector_index,
            )
        )
        self.probe: Probe = PostgresProbe(self.engine)
