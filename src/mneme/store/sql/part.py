"""What a backend engine gives every shared component, and the base the components share.

A store is a composition (ADR 0044): the backend's *engine* (its connections and transactions,
migrations, audit chain, lexical and vector engines) and one shared component per role, each
built on the engine. A component reaches the engine only through :class:`Engine`: the
executor, the audit chain, the per-transaction memo, and the named hooks where a backend adds
to a shared step.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any, Protocol

from mneme.store.sql.executor import Executor

if TYPE_CHECKING:
    from mneme.core.model import Unit
    from mneme.store.audit_key import KeyRing
    from mneme.store.protocol import AuditAppend, CompactReport, UnitChanges, Vector
    from mneme.store.sql.units import UnitWrite


class Engine(Protocol):
    """A backend as its shared components see it."""

    sql: Executor
    _keyring: KeyRing | None
    _key_problem: str | None

    def transaction(self) -> AbstractContextManager[None]: ...

    @property
    def audit(self) -> AuditAppend:
        """Append a record to the bank's chain, in the current write transaction."""
        ...

    def audit_head(self, bank_id: str) -> tuple[int, str, int] | None: ...

    def _memoized(self, key: Any, compute: Callable[[], Any]) -> Any:
        """A read remembered for the rest of this write transaction (as far as the backend
        can vouch for it: every read on SQLite, which has one writer; a few on PostgreSQL)."""
        ...

    def _forget(self, key: Any = None) -> None:
        """Forget one remembered read (all of them with None) after a write that changes it."""
        ...

    def _touch(self, bank_id: str) -> None:
        """Bump the bank's index generation, once per transaction."""
        ...

    # -- hooks: where a backend adds to a shared step --------------------------------------

    def _bank_created(self, bank_id: str) -> None: ...

    def _insert_unit(self, unit: Unit, write: UnitWrite) -> None:
        """Write everything ``write`` holds and index the unit in the lexical engine."""
        ...

    def _unit_changed(
        self, bank_id: str, unit_id: str, changes: UnitChanges | None, new_knower: str | None
    ) -> None: ...

    def _vector_stored(
        self, bank_id: str, unit: Unit | None, model: str, vector: Vector, replaced: bool
    ) -> None: ...

    def _unindex_units(self, bank_id: str, unit_ids: list[str]) -> None: ...

    def _scrub_audit(self, bank_id: str, targets: Sequence[str]) -> None: ...

    def _purged(self, bank_id: str) -> None: ...

    def _registered_keys(self) -> dict[str, str]: ...

    # -- what truly differs, answered by the engine for its role ---------------------------

    def compact(self) -> CompactReport: ...

    def import_rows(self, table: str, rows: Sequence[Mapping[str, Any]]) -> None: ...


class Part:
    """The base of a shared component: the engine it is built on, and its executor."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.sql = engine.sql

    def _locked(self, sql: str) -> str:
        """``sql`` holding the rows it reads until the write transaction ends."""
        return sql + self.sql.dialect.for_update if self.sql.db.in_transaction else sql
