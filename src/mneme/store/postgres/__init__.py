"""The shared backend: PostgreSQL with pgvector (HNSW) and full-text search.

Needs the ``postgres`` extra (``pip install 'mneme[postgres]'``).
"""

try:
    import psycopg  # noqa: F401 - only to name the extra when it is missing
except ImportError as exc:  # pragma: no cover - depends on the installed extras
    raise ImportError(
        "the PostgreSQL backend needs the postgres extra: pip install 'mneme[postgres]'"
    ) from exc

from mneme.store.postgres.store import PostgresStore

__all__ = ["PostgresStore"]
