"""The SQLite engine: one file, its connections and transactions, migrations, the audit chain
writer, FTS5 and the in-memory vector indexes (the recall channels), and the hooks the shared
components call (ADR 0041, ADR 0044). ``SQLiteStore`` composes it with the shared roles."""

from __future__ import annotations

import logging
from contextlib import AbstractContextManager
from typing import Any

import numpy as np

from mneme.core.model import (
    Scope,
    Unit,
    Viewer,
    Visibility,
)
from mneme.errors import MnemeError
from mneme.store.protocol import (
    Capabilities,
    StoreStats,
    UnitChanges,
    Vector,
)
from mneme.store.sql.executor import Executor
from mneme.store.sql.units import (
    UNIT_ROW,
    UnitWrite,
    forget_unit,
    unit_record,
    write_unit_parts,
)
from mneme.store.sqlite.audit import AuditMixin
from mneme.store.sqlite.base import SQLiteBase
from mneme.store.sqlite.channels import ChannelsMixin
from mneme.store.sqlite.database import Database
from mneme.store.sqlite.dialect import DIALECT
from mneme.store.sqlite.indexfiles import IndexFiles
from mneme.store.sqlite.portable import PortableMixin
from mneme.store.sqlite.purge import PurgeMixin
from mneme.store.sqlite.rows import index_row
from mneme.store.sqlite.vectors import VectorIndex

log = logging.getLogger("mneme.store.index")


class SQLiteEngine(
    ChannelsMixin,
    PurgeMixin,
    PortableMixin,
    AuditMixin,
    SQLiteBase,
):
    capabilities = Capabilities(
        name="sqlite",
        native_vector_index=False,
        concurrent_writers=False,
        row_level_security=False,
    )

    def __init__(
        self,
        path: str,
        *,
        read_only: bool = False,
        migrate: bool = True,
        audit_key_file: str | None = None,
    ) -> None:
        self.db = Database(path, read_only=read_only)
        self.sql = Executor(self.db, DIALECT)
        self.path = self.db.path
        self._indexes: dict[tuple[str, str], VectorIndex] = {}
        self.index_files = IndexFiles(self.db)
        self._touched: set[str] = set()
        self._audit_heads: dict[str, tuple[int, int, str, int]] = {}
        self._audit_dirty: set[str] = set()
        self._audit_armed = False
        self._touched_rows: set[tuple[str, str, str]] = set()
        self._importing = False
        self._keyring = None
        self._key_problem = None
        self._key_registered = False
        self._memo: dict[Any, Any] = {}
        self._memo_epoch = -1
        self._fts_names: dict[str, str] = {}
        self._keys_open = False
        applied = []
        if migrate:
            applied = self.migrate()
        else:
            self.db.schema_version()  # refuse a foreign file early
        # The audit key, and the triggers that seal every row written (ADR 0035).
        self._open_keys(audit_key_file)
        self._keys_open = True
        if not self.db.read_only:  # also when the file turned out unwritable (ADR 0033)
            self._install_sealing()
            self._seal_store(applied)

    def schema_version(self) -> int:
        return self.db.schema_version()

    @property
    def read_only(self) -> bool:
        return self.db.read_only

    def migrate(self) -> list[int]:
        applied = self.db.migrate()
        self._fts_backfill()  # banks written before migration 8 get their lexical table
        if applied and self._keys_open and not self.db.read_only:
            self._seal_store(applied)  # rows a migration rewrote are sealed again
        return applied

    def transaction(self) -> AbstractContextManager[None]:
        return self.db.transaction()

    def close(self) -> None:
        try:
            self._save_indexes()  # what changed since they were saved (ADR 0052)
        except MnemeError as exc:  # the index files are derived: closing still closes
            log.warning("could not save the index files of %s: %s", self.path, exc)
        self._indexes.clear()
        self.db.close()

    def stats(self) -> StoreStats:
        q = self.db.query
        by_model = {
            str(m): int(n) for m, n in q("SELECT model, count(*) FROM embeddings GROUP BY model")
        }
        return StoreStats(
            banks=int(q("SELECT count(*) FROM banks")[0][0]),
            sources=int(q("SELECT count(*) FROM sources")[0][0]),
            units=int(q("SELECT count(*) FROM units")[0][0]),
            entities=int(q("SELECT count(*) FROM entities")[0][0]),
            edges=int(q("SELECT count(*) FROM edges")[0][0]),
            embeddings_by_model=by_model,
        )

    def _bank_created(self, bank_id: str) -> None:
        self._fts_create(bank_id)  # the bank's own lexical index (ADR 0017)

    # -- the unit hooks of the shared SQL (store.sql.units) ------------------------------

    def _insert_unit(self, unit: Unit, write: UnitWrite) -> None:
        cur = self._w(UNIT_ROW.insert, write.row)
        assert cur.lastrowid is not None
        self._fts_add(unit.bank_id, cur.lastrowid, unit.text)
        write_unit_parts(self.sql, write)
        self._remember_written(unit, write)

    def _remember_written(self, unit: Unit, write: UnitWrite) -> None:
        """Add a unit just inserted to this transaction's remembered lean reads (``get_units``)
        of every viewer who may see it, as the read would return it: its stored row decoded,
        its knowers in stored order, no evidence or names. The write path judges each next
        atom against the units the batch wrote; each would otherwise be read back once."""
        if not self.db.owns_transaction or self._memo_epoch != self.db.epoch:
            return  # no memo of this transaction yet: nothing to add to
        lean: Unit | None = None
        for key, seen in self._memo.items():
            if key[0] != "lean units" or not _sees(key[1], unit):
                continue
            if lean is None:
                # One row per distinct knower, all written at once: read back by agent id.
                knowers = tuple(sorted({k[2] for k in write.knowers}))
                lean = unit_record(self.sql.dialect, write.row[:_SELECTED], knowers, (), ())
            seen[unit.id] = lean

    def _unit_changed(
        self, bank_id: str, unit_id: str, changes: UnitChanges | None, new_knower: str | None
    ) -> None:
        forget_unit(self._memo, unit_id)
        for (b, _m), idx in self._indexes.items():
            if b != bank_id:
                continue
            if new_knower is not None:
                idx.add_knower(unit_id, new_knower)
            if changes is not None:
                idx.update(unit_id, changes)

    def _vector_stored(
        self, bank_id: str, unit: Unit | None, model: str, vector: Vector, replaced: bool
    ) -> None:
        if replaced or unit is None:
            self._indexes.pop((bank_id, model), None)  # rebuilt from the table when next asked
            return
        idx = self._indexes.get((bank_id, model))
        if idx is not None:
            row = index_row(
                unit, np.asarray(vector, dtype=np.float32), unit.knowers or (unit.agent_id,)
            )
            idx.add(row)


#: The columns a unit read selects: the inserted row less its last column (the owner).
_SELECTED = len(UNIT_ROW.names) - 1


def _sees(viewer: Viewer, unit: Unit) -> bool:
    """Whether a read of ``viewer``'s scope returns ``unit`` (``store.sql.scoping``)."""
    if viewer.bank_id != unit.bank_id:
        return False
    if viewer.scope == Scope.OWNER:
        return True
    if unit.visibility != Visibility.SHARED and unit.agent_id != viewer.agent_id:
        return False
    return viewer.scope != Scope.PERSONAL or viewer.agent_id in (unit.knowers or (unit.agent_id,))
