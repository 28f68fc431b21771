"""The SQLite store: the embedded default backend, its engine composed with the shared roles."""

from __future__ import annotations

from mneme.store.protocol import Probe
from mneme.store.sql.store import SQLStore
from mneme.store.sqlite.engine import SQLiteEngine
from mneme.store.sqlite.probe import SQLiteProbe


class SQLiteStore(SQLStore):
    """One file, no server (see :class:`~mneme.store.sql.store.SQLStore` for the roles)."""

    engine: SQLiteEngine

    def __init__(
        self,
        path: str,
        *,
        read_only: bool = False,
        migrate: bool = True,
        audit_key_file: str | None = None,
    ) -> None:
        super().__init__(
            SQLiteEngine(path, read_only=read_only, migrate=migrate, audit_key_file=audit_key_file)
        )
        self.probe: Probe = SQLiteProbe(self.engine)
