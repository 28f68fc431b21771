"""The embedded default backend: one SQLite file."""

from mneme.store.sqlite.store import SQLiteStore

__all__ = ["SQLiteStore"]
