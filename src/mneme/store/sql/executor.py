"""One way to run the shared statements, with the one write guard both backends keep."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

from mneme.errors import MnemeError
from mneme.store.sql.dialect import Dialect


class Connection(Protocol):
    """What a backend's database object offers the executor (compiled SQL, native values)."""

    @property
    def in_transaction(self) -> bool: ...

    def run(self, sql: str, params: Any) -> int: ...

    def query(self, sql: str, params: Any) -> list[Any]: ...

    def execute_many(self, sql: str, rows: Sequence[Any]) -> None: ...

    def after(self, on_commit: Callable[[], None], on_rollback: Callable[[], None]) -> None:
        """Run a hook when the current transaction ends."""
        ...


class Executor:
    """Shared statements on one backend: compiled once per text, writes only in a transaction."""

    def __init__(self, db: Connection, dialect: Dialect) -> None:
        self.db = db
        self.dialect = dialect
        self._compiled: dict[str, str] = {}

    def _sql(self, sql: str) -> str:
        out = self._compiled.get(sql)
        if out is None:
            out = self._compiled[sql] = self.dialect.compile(sql)
        return out

    def guard(self) -> None:
        """The one write guard: refuse a write outside ``Store.transaction()`` (a raised error,
        never an ``assert``, so it holds under ``python -O`` too)."""
        if not self.db.in_transaction:
            raise MnemeError("writes run inside Store.transaction()")

    def rows(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        """The rows a read returns."""
        return self.db.query(self._sql(sql), tuple(params))

    def write(self, sql: str, params: Sequence[Any] = ()) -> int:
        """Run one write; the number of rows it touched."""
        self.guard()
        return self.db.run(self._sql(sql), tuple(params))

    def write_rows(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        """Run one write that returns rows (``RETURNING``)."""
        self.guard()
        return self.db.query(self._sql(sql), tuple(params))

    def write_many(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        self.guard()
        self.db.execute_many(self._sql(sql), [tuple(r) for r in rows])
