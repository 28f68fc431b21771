"""The SQLite store: the embedded default backend of mneme's Store protocol."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from contextlib import AbstractContextManager
from typing import Any

import numpy as np

from mneme.core.model import (
    Unit,
    UnitStatus,
    Viewer,
    Visibility,
)
from mneme.errors import InvalidInput
from mneme.store.codec import dumps, parse_ts, ts, unit_summary, vector_bytes
from mneme.store.protocol import (
    CLEARABLE_UNIT_FIELDS,
    Capabilities,
    Filters,
    StoreStats,
    UnitBrief,
    UnitChanges,
    Vector,
)
from mneme.store.sql.entities import SharedEntities
from mneme.store.sql.executor import Executor
from mneme.store.sql.units import UNIT_COLS
from mneme.store.sqlite.audit import AuditMixin
from mneme.store.sqlite.base import SQLiteBase
from mneme.store.sqlite.channels import ChannelsMixin
from mneme.store.sqlite.database import Database
from mneme.store.sqlite.dialect import DIALECT
from mneme.store.sqlite.portable import PortableMixin
from mneme.store.sqlite.purge import PurgeMixin
from mneme.store.sqlite.rows import epoch, index_row
from mneme.store.sqlite.scoping import where
from mneme.store.sqlite.vectors import VectorIndex


class SQLiteStore(
    SharedEntities,
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

    def put_unit(self, unit: Unit, vector: Vector | None) -> None:
        owner = unit.agent_id if unit.visibility == Visibility.PRIVATE else ""
        cur = self._w(
            f"INSERT INTO units ({UNIT_COLS}, owner) VALUES ({','.join('?' * 25)})",
            (
                unit.bank_id,
                unit.id,
                unit.text,
                unit.content_key,
                unit.network.value,
                unit.type.value,
                unit.status.value,
                unit.confidence,
                unit.agent_id,
                unit.visibility.value,
                ts(unit.occurred_start),
                ts(unit.occurred_end),
                ts(unit.valid_from),
                ts(unit.valid_until),
                ts(unit.recorded_at),
                ts(unit.retired_at),
                ts(unit.mentioned_at),
                unit.embedding_model,
                unit.embedding_dim,
                unit.superseded_by,
                dumps(list(unit.supersedes)),
                dumps(list(unit.contradictions)),
                dumps(list(unit.categories)),
                dumps(dict(unit.metadata)),
                owner,
            ),
        )
        assert cur.lastrowid is not None
        if self.db.owns_transaction:
            self._absent_keys(unit.bank_id, owner).discard(unit.content_key)
        self._fts_add(unit.bank_id, cur.lastrowid, unit.text)
        self._touch(unit.bank_id)
        first_source = unit.evidence[0] if unit.evidence else None
        for agent in unit.knowers or (unit.agent_id,):
            self._w(
                "INSERT INTO unit_knowers VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                (unit.bank_id, unit.id, agent, first_source, ts(unit.recorded_at)),
            )
        for source_id in unit.evidence:
            self._w(
                "INSERT INTO unit_evidence VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                (unit.bank_id, unit.id, source_id, unit.agent_id, ts(unit.recorded_at)),
            )
        if vector is not None and unit.embedding_model:
            self._store_vector(unit.bank_id, unit.id, unit.embedding_model, vector)
            idx = self._indexes.get((unit.bank_id, unit.embedding_model))
            if idx is not None:
                idx.add(
                    index_row(
                        unit, np.asarray(vector, dtype=np.float32), unit.knowers or (unit.agent_id,)
                    )
                )
        self.audit(
            unit.bank_id, unit.agent_id, "unit.put", unit.id, None, unit_summary(unit), "retain"
        )

    def _store_vector(self, bank_id: str, unit_id: str, model: str, vector: Vector) -> None:
        blob = vector_bytes(vector)
        self._w(
            "INSERT INTO embeddings (bank_id, unit_id, model, dim, vector) "
            "VALUES (?, ?, ?, ?, ?) ON CONFLICT (bank_id, unit_id, model) DO UPDATE SET "
            "dim = excluded.dim, vector = excluded.vector",
            (bank_id, unit_id, model, len(blob) // 4, blob),
        )

    def find_by_content_key(
        self, bank_id: str, content_key: str, visibility: Visibility, agent_id: str
    ) -> Unit | None:
        owner = agent_id if visibility == Visibility.PRIVATE else ""
        if self.db.owns_transaction and content_key in self._absent_keys(bank_id, owner):
            return None
        rows = self.db.query(
            f"SELECT {UNIT_COLS} FROM units WHERE bank_id = ? AND content_key = ? AND owner = ?",
            (bank_id, content_key, owner),
        )
        units = self._hydrate(rows)
        return units[0] if units else None

    def held_content_keys(
        self, bank_id: str, content_keys: Sequence[str], visibility: Visibility, agent_id: str
    ) -> set[str]:
        owner = agent_id if visibility == Visibility.PRIVATE else ""
        unique = list(dict.fromkeys(content_keys))
        held: set[str] = set()
        for i in range(0, len(unique), 500):
            chunk = unique[i : i + 500]
            held.update(
                r[0]
                for r in self.db.query(
                    "SELECT content_key FROM units WHERE bank_id = ? AND owner = ? "
                    f"AND content_key IN ({','.join('?' * len(chunk))})",
                    (bank_id, owner, *chunk),
                )
            )
        if self.db.owns_transaction:
            # Remembered for the transaction: the write path asks for a whole batch here, then
            # looks each atom up again (``find_by_content_key``) after earlier atoms were
            # written. Only ``put_unit`` makes an absent key held (it forgets it).
            self._absent_keys(bank_id, owner).update(k for k in unique if k not in held)
        return held

    def _absent_keys(self, bank_id: str, owner: str) -> set[str]:
        """Content keys known to hold no unit in this write transaction (see ``_memoized``)."""
        absent: set[str] = self._memoized(("absent keys", bank_id, owner), set)
        return absent

    def add_evidence(
        self, bank_id: str, unit_id: str, source_id: str, agent_id: str, at: dt.datetime
    ) -> bool:
        self._w(
            "INSERT INTO unit_evidence VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
            (bank_id, unit_id, source_id, agent_id, ts(at)),
        )
        cur = self._w(
            "INSERT INTO unit_knowers VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
            (bank_id, unit_id, agent_id, source_id, ts(at)),
        )
        new_knower = cur.rowcount > 0
        if new_knower:
            self._forget_unit(unit_id)
            self._touch(bank_id)
            for (b, _m), idx in self._indexes.items():
                if b == bank_id:
                    idx.add_knower(unit_id, agent_id)
        self.audit(
            bank_id,
            agent_id,
            "unit.evidence",
            unit_id,
            None,
            {"source_id": source_id, "new_knower": new_knower},
            "repeat of a known fact",
        )
        return new_knower

    def update_unit(
        self, bank_id: str, unit_id: str, changes: UnitChanges, *, actor: str, reason: str
    ) -> Unit:
        before = self._one(bank_id, unit_id)
        sets: list[str] = []
        params: list[Any] = []
        for col, value in (
            ("status", changes.status and changes.status.value),
            ("confidence", changes.confidence),
            ("valid_from", ts(changes.valid_from)),
            ("valid_until", ts(changes.valid_until)),
            ("retired_at", ts(changes.retired_at)),
            ("superseded_by", changes.superseded_by),
        ):
            if value is not None:
                sets.append(f"{col} = ?")
                params.append(value)
        for col, extra, current in (
            ("supersedes", changes.add_supersedes, before.supersedes),
            ("contradictions", changes.add_contradictions, before.contradictions),
            ("categories", changes.add_categories, before.categories),
        ):
            if extra:
                merged = list(dict.fromkeys([*current, *extra]))
                sets.append(f"{col} = ?")
                params.append(dumps(merged))
        if changes.metadata:
            sets.append("metadata = ?")
            params.append(dumps({**before.metadata, **changes.metadata}))
        unknown = changes.clear - CLEARABLE_UNIT_FIELDS
        if unknown:
            raise InvalidInput(f"cannot clear {sorted(unknown)} on a unit")
        sets.extend(f"{col} = NULL" for col in sorted(changes.clear))
        if not sets:
            return before
        self._w(
            f"UPDATE units SET {', '.join(sets)} WHERE bank_id = ? AND id = ?",
            (*params, bank_id, unit_id),
        )
        self._forget_unit(unit_id)
        self._touch(bank_id)
        for (b, _m), idx in self._indexes.items():
            if b == bank_id:
                idx.update(unit_id, changes)
        after = self._one(bank_id, unit_id)
        self.audit(
            bank_id,
            actor,
            "unit.update",
            unit_id,
            unit_summary(before),
            unit_summary(after),
            reason,
        )
        return after

    def get_units(
        self, viewer: Viewer, ids: Sequence[str], *, lean: bool = False
    ) -> dict[str, Unit]:
        if not ids:
            return {}
        if not (lean and self.db.owns_transaction):
            return self._fetch_units(viewer, list(dict.fromkeys(ids)), lean=lean)
        # Lean units read inside a write transaction are remembered per viewer until the
        # transaction changes them (``_forget_unit``): the write path reads the same recent
        # neighbours for atom after atom.
        seen: dict[str, Unit] = self._memoized(("lean units", viewer), dict)
        missing = [u for u in dict.fromkeys(ids) if u not in seen]
        if missing:
            seen.update(self._fetch_units(viewer, missing, lean=True))
        return {u: seen[u] for u in ids if u in seen}

    def _fetch_units(self, viewer: Viewer, unique: list[str], *, lean: bool) -> dict[str, Unit]:
        out: dict[str, Unit] = {}
        clause, params = where(viewer, Filters())
        for i in range(0, len(unique), 500):
            chunk = unique[i : i + 500]
            rows = self.db.query(
                f"SELECT {UNIT_COLS} FROM units u WHERE {clause} "
                f"AND u.id IN ({','.join('?' * len(chunk))})",
                (*params, *chunk),
            )
            out.update({u.id: u for u in self._hydrate(rows, lean=lean)})
        return out

    def _forget_unit(self, unit_id: str) -> None:
        for key, units in self._memo.items():
            if key[0] == "lean units":
                units.pop(unit_id, None)

    def unit_briefs(self, viewer: Viewer, ids: Sequence[str]) -> dict[str, UnitBrief]:
        if not ids:
            return {}
        clause, params = where(viewer, Filters())
        out: dict[str, UnitBrief] = {}
        unique = list(dict.fromkeys(ids))
        for i in range(0, len(unique), 500):
            chunk = unique[i : i + 500]
            rows = self.db.query(
                "SELECT u.id, u.status, u.occurred_start, u.occurred_end, u.recorded_at, "
                "u.valid_until, u.superseded_by, json_extract(u.metadata, '$.scope'), "
                "(SELECT count(*) FROM unit_knowers k WHERE k.bank_id = u.bank_id "
                "AND k.unit_id = u.id), "
                "(SELECT ev.source_id FROM unit_evidence ev WHERE ev.bank_id = u.bank_id "
                "AND ev.unit_id = u.id ORDER BY ev.at, ev.source_id LIMIT 1) "
                f"FROM units u WHERE {clause} AND u.id IN ({','.join('?' * len(chunk))})",
                (*params, *chunk),
            )
            for r in rows:
                out[r[0]] = UnitBrief(
                    id=r[0],
                    status=UnitStatus(r[1]),
                    occurred_start=parse_ts(r[2]),
                    occurred_end=parse_ts(r[3]),
                    recorded_at=parse_ts(r[4]) or epoch(),
                    valid_until=parse_ts(r[5]),
                    superseded_by=r[6],
                    scope=None if r[7] is None else str(r[7]),
                    knowers=int(r[8]),
                    family=r[9] or r[0],
                )
        return out

    def units_of_source(self, viewer: Viewer, source_id: str) -> list[Unit]:
        clause, params = where(viewer, Filters())
        rows = self.db.query(
            # Driven from the source's evidence rows (an EXISTS per unit scanned the bank).
            f"SELECT {UNIT_COLS} FROM units u WHERE {clause} AND u.id IN (SELECT ev.unit_id "
            "FROM unit_evidence ev INDEXED BY unit_evidence_source WHERE ev.bank_id = ? "
            "AND ev.source_id = ?) ORDER BY u.rowid",
            (*params, viewer.bank_id, source_id),
        )
        return self._hydrate(rows)

    def list_units(
        self, viewer: Viewer, filters: Filters, limit: int, offset: int = 0, *, lean: bool = False
    ) -> list[Unit]:
        clause, params = where(viewer, filters)
        rows = self.db.query(
            f"SELECT {UNIT_COLS} FROM units u WHERE {clause} "
            "ORDER BY u.recorded_at DESC, u.id DESC LIMIT ? OFFSET ?",
            (*params, limit, offset),
        )
        return self._hydrate(rows, lean=lean)

    def put_embedding(self, bank_id: str, unit_id: str, model: str, vector: Vector) -> None:
        before = self._one(bank_id, unit_id)
        self._store_vector(bank_id, unit_id, model, vector)
        self._w(
            "UPDATE units SET embedding_model = ?, embedding_dim = ? WHERE bank_id = ? AND id = ?",
            (model, len(vector), bank_id, unit_id),
        )
        self._forget_unit(unit_id)
        self._touch(bank_id)
        self._indexes.pop((bank_id, model), None)
        self.audit(
            bank_id,
            "system",
            "unit.reembed",
            unit_id,
            {"embedding_model": before.embedding_model},
            {"embedding_model": model, "embedding_dim": len(vector)},
            "reembed",
        )
