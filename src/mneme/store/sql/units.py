"""Units: written, changed, read back with their knowers, evidence and names, in one SQL.

What a backend adds lives behind named hooks, declared here and defined by each store:
``_insert_unit`` (the INSERT and the backend's lexical index; ``write_unit_parts`` writes the
rest one statement each), ``_unit_changed`` (a unit's
columns or knowers changed: SQLite keeps its in-memory vector index and read memo in step),
``_vector_stored`` (a model's vectors changed: PostgreSQL makes sure of its HNSW index, SQLite
drops a stale in-memory one).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from mneme.core.model import Network, Unit, UnitStatus, UnitType, Viewer, Visibility
from mneme.errors import InvalidInput, NotFound
from mneme.store.codec import unit_summary
from mneme.store.protocol import (
    CLEARABLE_UNIT_FIELDS,
    EmbeddingRow,
    Filters,
    UnitBrief,
    UnitChanges,
    Vector,
)
from mneme.store.sql.dialect import Dialect
from mneme.store.sql.executor import Executor
from mneme.store.sql.part import Part
from mneme.store.sql.records import EPOCH, Columns, chunks
from mneme.store.sql.scoping import clause as scope_clause

#: The columns of ``units`` a Unit is made from, in this order (``owner`` is derived).
UNIT_COLS = (
    "bank_id, id, text, content_key, network, type, status, confidence, agent_id, visibility, "
    "occurred_start, occurred_end, valid_from, valid_until, recorded_at, retired_at, "
    "mentioned_at, embedding_model, embedding_dim, superseded_by, supersedes, contradictions, "
    "categories, metadata"
)

#: What an INSERT of a unit writes: UNIT_COLS, then the owner of a private unit ("" if shared).
UNIT_ROW = Columns("units", [*(c.strip() for c in UNIT_COLS.split(",")), "owner"])

#: The columns an update of a unit sets when its field in UnitChanges is.
_UNIT_CHANGES = Columns(
    "units", ("status", "confidence", "valid_from", "valid_until", "retired_at", "superseded_by")
)
_KNOWER = "INSERT INTO unit_knowers VALUES (?, ?, ?, ?, ?)"
_EVIDENCE = "INSERT INTO unit_evidence VALUES (?, ?, ?, ?, ?)"


@dataclass(frozen=True, slots=True)
class UnitWrite:
    """What ``put_unit`` writes for one new unit, encoded for the backend: its row (``UNIT_ROW``),
    its knower rows and evidence rows (``unit_knowers`` / ``unit_evidence`` columns), and its
    embedding row (bank, unit, model, dim, vector) when it has one."""

    row: tuple[Any, ...]
    knowers: list[tuple[Any, ...]]
    evidence: list[tuple[Any, ...]]
    vector: tuple[Any, ...] | None


def write_unit_parts(sql: Executor, w: UnitWrite) -> None:
    """A new unit's knowers, evidence and vector, one statement each (for a backend whose
    statements cost no round trip: SQLite)."""
    sql.write_many(f"{_KNOWER} ON CONFLICT DO NOTHING", w.knowers)
    sql.write_many(f"{_EVIDENCE} ON CONFLICT DO NOTHING", w.evidence)
    if w.vector is not None:
        sql.write(_vector_upsert(sql), w.vector)


def _vector_upsert(sql: Executor) -> str:
    return (
        "INSERT INTO embeddings (bank_id, unit_id, model, dim, vector) "
        f"VALUES (?, ?, ?, ?, {sql.dialect.vector_mark}) ON CONFLICT "
        "(bank_id, unit_id, model) DO UPDATE SET dim = excluded.dim, vector = excluded.vector"
    )


def unit_record(
    d: Dialect,
    r: Sequence[Any],
    knowers: tuple[str, ...],
    evidence: tuple[str, ...],
    entities: tuple[str, ...],
) -> Unit:
    """One row of ``SELECT {UNIT_COLS}`` as a Unit (positional: this is the read path)."""
    t = d.decode
    return Unit(
        bank_id=r[0],
        id=r[1],
        text=r[2],
        content_key=r[3],
        network=Network(r[4]),
        type=UnitType(r[5]),
        status=UnitStatus(r[6]),
        confidence=float(r[7]),
        agent_id=r[8],
        visibility=Visibility(r[9]),
        occurred_start=t("ts", r[10]),
        occurred_end=t("ts", r[11]),
        valid_from=t("ts", r[12]),
        valid_until=t("ts", r[13]),
        recorded_at=t("ts", r[14]) or EPOCH,
        retired_at=t("ts", r[15]),
        mentioned_at=t("ts", r[16]),
        embedding_model=r[17],
        embedding_dim=r[18],
        superseded_by=r[19],
        supersedes=tuple(t("json", r[20]) or ()),
        contradictions=tuple(t("json", r[21]) or ()),
        categories=tuple(t("json", r[22]) or ()),
        metadata=t("json", r[23]) or {},
        knowers=knowers,
        evidence=evidence,
        entities=entities,
    )


def forget_unit(memo: dict[Any, Any] | None, unit_id: str) -> None:
    """Drop a unit from every remembered lean read of a transaction (it changed)."""
    for key, units in (memo or {}).items():
        if key[0] == "lean units":
            units.pop(unit_id, None)


def _owner(visibility: Visibility, agent_id: str) -> str:
    return agent_id if visibility == Visibility.PRIVATE else ""


class Units(Part):
    # -- the backend's hooks (declared only: each store defines them) ----------------------

    # -- writes --------------------------------------------------------------------------

    def put_unit(self, unit: Unit, vector: Vector | None) -> None:
        u = unit
        d = self.sql.dialect
        owner = _owner(u.visibility, u.agent_id)
        at = d.encode("ts", u.recorded_at)
        first_source = u.evidence[0] if u.evidence else None
        stored = vector is not None and bool(u.embedding_model)
        self.engine._insert_unit(
            u,
            UnitWrite(
                UNIT_ROW.row(d, u, owner=owner),
                [(u.bank_id, u.id, a, first_source, at) for a in u.knowers or (u.agent_id,)],
                [(u.bank_id, u.id, source_id, u.agent_id, at) for source_id in u.evidence],
                (
                    (u.bank_id, u.id, u.embedding_model, len(vector), d.encode("vector", vector))
                    if stored and vector is not None
                    else None
                ),
            ),
        )
        self._absent_keys(u.bank_id, owner).discard(u.content_key)
        self.engine._touch(u.bank_id)
        if stored and vector is not None:
            self.engine._vector_stored(u.bank_id, u, u.embedding_model or "", vector, False)
        self.engine.audit(u.bank_id, u.agent_id, "unit.put", u.id, None, unit_summary(u), "retain")

    def _store_vector(self, bank_id: str, unit_id: str, model: str, vector: Vector) -> None:
        v = self.sql.dialect.encode("vector", vector)
        self.sql.write(_vector_upsert(self.sql), (bank_id, unit_id, model, len(vector), v))

    def add_evidence(
        self, bank_id: str, unit_id: str, source_id: str, agent_id: str, at: dt.datetime
    ) -> bool:
        when = self.sql.dialect.encode("ts", at)
        self.sql.write(
            "INSERT INTO unit_evidence VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
            (bank_id, unit_id, source_id, agent_id, when),
        )
        new_knower = (
            self.sql.write(
                "INSERT INTO unit_knowers VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                (bank_id, unit_id, agent_id, source_id, when),
            )
            > 0
        )
        if new_knower:
            self.engine._touch(bank_id)
            self.engine._unit_changed(bank_id, unit_id, None, agent_id)
        self.engine.audit(
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
        unknown = changes.clear - CLEARABLE_UNIT_FIELDS
        if unknown:
            raise InvalidInput(f"cannot clear {sorted(unknown)} on a unit")
        # Locked: two writers merging lists into one unit must not lose each other's items.
        before = self._one(bank_id, unit_id, lock=True)
        enc = self.sql.dialect.encode
        sets, params = _UNIT_CHANGES.assignments(self.sql.dialect, changes)
        for col, extra, current in (
            ("supersedes", changes.add_supersedes, before.supersedes),
            ("contradictions", changes.add_contradictions, before.contradictions),
            ("categories", changes.add_categories, before.categories),
        ):
            if extra:
                sets.append(f"{col} = ?")
                params.append(enc("json", list(dict.fromkeys([*current, *extra]))))
        if changes.metadata:
            sets.append("metadata = ?")
            params.append(enc("json", {**before.metadata, **changes.metadata}))
        sets.extend(f"{col} = NULL" for col in sorted(changes.clear))
        if not sets:
            return before
        self.sql.write(
            f"UPDATE units SET {', '.join(sets)} WHERE bank_id = ? AND id = ?",
            (*params, bank_id, unit_id),
        )
        self.engine._touch(bank_id)
        self.engine._unit_changed(bank_id, unit_id, changes, None)
        after = self._one(bank_id, unit_id)
        self.engine.audit(
            bank_id,
            actor,
            "unit.update",
            unit_id,
            unit_summary(before),
            unit_summary(after),
            reason,
        )
        return after

    def put_embedding(self, bank_id: str, unit_id: str, model: str, vector: Vector) -> None:
        before = self._one(bank_id, unit_id, lock=True)
        self._store_vector(bank_id, unit_id, model, vector)
        self.sql.write(
            "UPDATE units SET embedding_model = ?, embedding_dim = ? WHERE bank_id = ? AND id = ?",
            (model, len(vector), bank_id, unit_id),
        )
        self.engine._touch(bank_id)
        self.engine._unit_changed(bank_id, unit_id, None, None)
        self.engine._vector_stored(bank_id, None, model, vector, True)
        self.engine.audit(
            bank_id,
            "system",
            "unit.reembed",
            unit_id,
            {"embedding_model": before.embedding_model},
            {"embedding_model": model, "embedding_dim": len(vector)},
            "reembed",
        )

    # -- reads by key ----------------------------------------------------------------------

    def _one(self, bank_id: str, unit_id: str, *, lock: bool = False) -> Unit:
        sql = f"SELECT {UNIT_COLS} FROM units WHERE bank_id = ? AND id = ?"
        units = self._hydrate(self.sql.rows(self._locked(sql) if lock else sql, (bank_id, unit_id)))
        if not units:
            raise NotFound(f"no unit {unit_id} in bank {bank_id}")
        return units[0]

    def find_by_content_key(
        self, bank_id: str, content_key: str, visibility: Visibility, agent_id: str
    ) -> Unit | None:
        owner = _owner(visibility, agent_id)
        if content_key in self._absent_keys(bank_id, owner):
            return None
        rows = self.sql.rows(
            f"SELECT {UNIT_COLS} FROM units WHERE bank_id = ? AND content_key = ? AND owner = ?",
            (bank_id, content_key, owner),
        )
        units = self._hydrate(rows)
        return units[0] if units else None

    def held_content_keys(
        self, bank_id: str, content_keys: Sequence[str], visibility: Visibility, agent_id: str
    ) -> set[str]:
        owner = _owner(visibility, agent_id)
        held: set[str] = set()
        for chunk in chunks(content_keys):
            among, values = self.sql.dialect.one_of("content_key", chunk)
            rows = self.sql.rows(
                f"SELECT content_key FROM units WHERE bank_id = ? AND owner = ? AND {among}",
                (bank_id, owner, *values),
            )
            held.update(str(r[0]) for r in rows)
        # Remembered for the write transaction (where the backend remembers reads): the write
        # path asks for a whole batch here, then looks each atom up again after earlier atoms
        # were written. Only ``put_unit`` makes an absent key held (it forgets it).
        self._absent_keys(bank_id, owner).update(k for k in content_keys if k not in held)
        return held

    def _absent_keys(self, bank_id: str, owner: str) -> set[str]:
        """Content keys known to hold no unit in this write transaction (see ``_memoized``)."""
        absent: set[str] = self.engine._memoized(("absent keys", bank_id, owner), set)
        return absent

    # -- reads in a viewer's scope ---------------------------------------------------------

    def get_units(
        self, viewer: Viewer, ids: Sequence[str], *, lean: bool = False
    ) -> dict[str, Unit]:
        if not ids:
            return {}
        if not lean:
            return self._fetch_units(viewer, ids, lean=False)
        # Lean units read inside a write transaction are remembered per viewer until the
        # transaction changes them (``_unit_changed``): the write path reads the same recent
        # neighbours for atom after atom.
        seen: dict[str, Unit] = self.engine._memoized(("lean units", viewer), dict)
        missing = [u for u in dict.fromkeys(ids) if u not in seen]
        if missing:
            seen.update(self._fetch_units(viewer, missing, lean=True))
        return {u: seen[u] for u in ids if u in seen}

    def _fetch_units(self, viewer: Viewer, ids: Sequence[str], *, lean: bool) -> dict[str, Unit]:
        out: dict[str, Unit] = {}
        clause, params = scope_clause(self.sql.dialect, viewer, Filters())
        for chunk in chunks(ids):
            among, values = self.sql.dialect.one_of("u.id", chunk)
            rows = self.sql.rows(
                f"SELECT {UNIT_COLS} FROM units u WHERE {clause} AND {among}", (*params, *values)
            )
            out.update({u.id: u for u in self._hydrate(rows, lean=lean)})
        return out

    def unit_briefs(self, viewer: Viewer, ids: Sequence[str]) -> dict[str, UnitBrief]:
        d = self.sql.dialect
        clause, params = scope_clause(d, viewer, Filters())
        out: dict[str, UnitBrief] = {}
        for chunk in chunks(ids):
            among, values = d.one_of("u.id", chunk)
            rows = self.sql.rows(
                "SELECT u.id, u.status, u.occurred_start, u.occurred_end, u.recorded_at, "
                f"u.valid_until, u.superseded_by, {d.json_text('u.metadata', 'scope')}, "
                "(SELECT count(*) FROM unit_knowers k WHERE k.bank_id = u.bank_id "
                "AND k.unit_id = u.id), "
                "(SELECT ev.source_id FROM unit_evidence ev WHERE ev.bank_id = u.bank_id "
                "AND ev.unit_id = u.id ORDER BY ev.at, ev.source_id LIMIT 1), u.network "
                f"FROM units u WHERE {clause} AND {among}",
                (*params, *values),
            )
            for r in rows:
                out[r[0]] = UnitBrief(
                    id=r[0],
                    status=UnitStatus(r[1]),
                    occurred_start=d.decode("ts", r[2]),
                    occurred_end=d.decode("ts", r[3]),
                    recorded_at=d.decode("ts", r[4]) or EPOCH,
                    valid_until=d.decode("ts", r[5]),
                    superseded_by=r[6],
                    scope=None if r[7] is None else str(r[7]),
                    knowers=int(r[8]),
                    family=r[9] or r[0],
                    network=Network(r[10]),
                )
        return out

    def units_of_source(self, viewer: Viewer, source_id: str) -> list[Unit]:
        d = self.sql.dialect
        clause, params = scope_clause(d, viewer, Filters())
        rows = self.sql.rows(
            # Driven from the source's evidence rows (an EXISTS per unit scanned the bank).
            f"SELECT {UNIT_COLS} FROM units u WHERE {clause} AND u.id IN (SELECT ev.unit_id "
            f"FROM unit_evidence ev{d.indexed_by('unit_evidence_source')} WHERE "
            f"ev.bank_id = ? AND ev.source_id = ?) ORDER BY u.{d.insertion}",
            (*params, viewer.bank_id, source_id),
        )
        return self._hydrate(rows)

    def list_units(
        self, viewer: Viewer, filters: Filters, limit: int, offset: int = 0, *, lean: bool = False
    ) -> list[Unit]:
        clause, params = scope_clause(self.sql.dialect, viewer, filters)
        rows = self.sql.rows(
            f"SELECT {UNIT_COLS} FROM units u WHERE {clause} "
            "ORDER BY u.recorded_at DESC, u.id DESC LIMIT ? OFFSET ?",
            (*params, limit, offset),
        )
        return self._hydrate(rows, lean=lean)

    # -- hydration ---------------------------------------------------------------------------

    def _hydrate(self, rows: Sequence[Any], *, lean: bool = False) -> list[Unit]:
        """Units from rows of ``SELECT {UNIT_COLS}``; ``lean`` leaves evidence and names out."""
        if not rows:
            return []
        d = self.sql.dialect
        keys = [(r[0], r[1]) for r in rows]
        knowers = self._group(
            "SELECT unit_id, agent_id FROM unit_knowers", keys, "ORDER BY first_at, agent_id"
        )
        if lean:
            return [unit_record(d, r, knowers.get(r[1], ()), (), ()) for r in rows]
        evidence = self._group(
            "SELECT unit_id, source_id FROM unit_evidence", keys, "ORDER BY at, source_id"
        )
        names = self._group(
            "SELECT m.unit_id, e.name FROM mentions m JOIN entities e "
            "ON e.bank_id = m.bank_id AND e.id = m.entity_id",
            keys,
            "ORDER BY e.name",
            alias="m",
        )
        return [
            unit_record(d, r, knowers.get(r[1], ()), evidence.get(r[1], ()), names.get(r[1], ()))
            for r in rows
        ]

    def _group(
        self, select: str, keys: Sequence[tuple[str, str]], order: str, alias: str | None = None
    ) -> dict[str, tuple[str, ...]]:
        """``select``'s (unit id, value) pairs for the units ``keys`` name, grouped by unit."""
        out: dict[str, list[str]] = {}
        prefix = f"{alias}." if alias else ""
        by_bank: dict[str, list[str]] = {}
        for bank, uid in keys:
            by_bank.setdefault(bank, []).append(uid)
        for bank, ids in by_bank.items():
            for chunk in chunks(ids):
                among, values = self.sql.dialect.one_of(f"{prefix}unit_id", chunk)
                rows = self.sql.rows(
                    f"{select} WHERE {prefix}bank_id = ? AND {among} {order}", (bank, *values)
                )
                for uid, value in rows:
                    out.setdefault(uid, []).append(value)
        # A value once (an id two writers' sources share evidences a unit once: ADR 0107).
        return {k: tuple(dict.fromkeys(v)) for k, v in out.items()}

    def unit_vectors(self, viewer: Viewer, ids: Sequence[str], model: str) -> dict[str, Any]:
        """The stored ``model`` vectors of the visible units among ``ids`` (float32 rows);
        a unit without one is left out."""
        d = self.sql.dialect
        out: dict[str, Any] = {}
        for chunk in chunks(list(ids)):
            clause, params = scope_clause(d, viewer, Filters())
            among, values = d.one_of("u.id", chunk)
            rows = self.sql.rows(
                f"SELECT u.id, {d.vector_select.format('e.vector')} FROM units u JOIN embeddings e "
                "ON e.bank_id = u.bank_id AND e.unit_id = u.id AND e.model = ? "
                f"WHERE {clause} AND {among}",
                (model, *params, *values),
            )
            for uid, vector in rows:
                out[uid] = np.asarray(d.decode("vector", vector), dtype=np.float32)
        return out

    def iter_for_embedding(
        self, bank_id: str | None, model: str, batch: int
    ) -> Iterator[list[EmbeddingRow]]:
        """Units without a ``model`` vector, in id order, ``batch`` at a time (re-embedding)."""
        last = ""
        while True:
            rows = self.sql.rows(
                "SELECT u.id, u.text, u.embedding_model FROM units u WHERE u.id > ? "
                + ("AND u.bank_id = ? " if bank_id else "")
                + "AND NOT EXISTS (SELECT 1 FROM embeddings e WHERE e.bank_id = u.bank_id "
                "AND e.unit_id = u.id AND e.model = ?) ORDER BY u.id LIMIT ?",
                (last, *((bank_id,) if bank_id else ()), model, batch),
            )
            if not rows:
                return
            last = rows[-1][0]
            yield [EmbeddingRow(unit_id=r[0], text=r[1], model=r[2]) for r in rows]
