"""What every shared entity class is given by the backend it is part of."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from mneme.store.sql.executor import Executor

#: ``audit(bank_id, actor, op, target, before, after, reason)``: append to the bank's chain.
Audit = Callable[
    [str, str, str, str, Mapping[str, Any] | None, Mapping[str, Any] | None, str], None
]


class Part:
    """The base of a shared entity class: the executor, and the backend's audit chain.

    Both are only declared here (no values, no stubs): the backend's store provides them, so
    nothing in a method resolution order can shadow the real ones.
    """

    sql: Executor
    audit: Audit
    #: A read remembered for the rest of this write transaction, and forgetting one (or all,
    #: with None) after a write that changes it. Where many writers share the database
    #: (PostgreSQL) nothing is remembered.
    _memoized: Callable[[Any, Callable[[], Any]], Any]
    _forget: Callable[..., None]

    def _locked(self, sql: str) -> str:
        """``sql`` holding the rows it reads until the write transaction ends."""
        return sql + self.sql.dialect.for_update if self.sql.db.in_transaction else sql
