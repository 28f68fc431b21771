"""Importing a portable archive into a store, empty or not (``mneme import --portable``; ADR 0053).

A row is known by its identity: its table's key, except for ``units`` (bank, id), the audit
log (bank, hash: its seq is a position in one store's log) and review events (bank, id). A
row the store already has in the same state is skipped; one it has in another state is a
clash, and any clash refuses the whole import, naming the first ones. So importing the same
archive again adds nothing, and an archive of other banks merges beside what is there.

Everything is checked before a row is written: the manifest (format, schema), every line
against the digests, the trailer, the keyed seal, and the clashes. Then the rows are written
in one transaction, which ``check`` (the audit verification of the imported banks) may still
refuse before it commits: a failed import leaves the store as it was.

Audit log seqs and review event seqs are kept when free; when one of the new rows' seqs is
taken, the table's new rows move past the store's last seq in their order, and the heads of
the moved chains are sealed again with the key that sealed them (the chain hashes do not
cover the seq; the head seal does).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from mneme.core.audit_chain import head_mac
from mneme.errors import Conflict
from mneme.store.archive import Reader, decode_row, encode_row
from mneme.store.audit_key import KeyRing
from mneme.store.protocol import Store
from mneme.store.tables import SPECS, Table

#: Columns that are a row's place in one store, not its content: not compared.
_PLACE = {
    "audit_log": ("seq",),
    "review_events": ("seq",),
    "audit_head": ("seq", "mac"),
    "audit_keys": ("added_at",),
}
_SEQ_TABLES = ("audit_log", "review_events")


@dataclass(frozen=True, slots=True)
class ImportReport:
    added: dict[str, int] = field(default_factory=dict)  # table -> rows added
    present: dict[str, int] = field(default_factory=dict)  # table -> rows already there
    banks: list[str] = field(default_factory=list)  # banks that got rows
    moved_seqs: dict[str, int] = field(default_factory=dict)  # table -> offset applied

    @property
    def total(self) -> int:
        return sum(self.added.values())


def identity(t: Table, row: Mapping[str, Any]) -> tuple[Any, ...]:
    if t.name == "units" or t.name == "review_events":
        return (row["bank_id"], row["id"])
    if t.name == "audit_log":
        return (row["bank_id"], row["hash"])
    return tuple(row[k] for k in t.key)


def content(t: Table, row: Mapping[str, Any]) -> str:
    """The digest of a row's state (in its archive encoding), without its place columns."""
    skip = _PLACE.get(t.name, ())
    body = {k: v for k, v in row.items() if k not in skip}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass
class _Known:
    """The rows a store already has: identity -> state digest, per table; seqs in use."""

    rows: dict[str, dict[tuple[Any, ...], str]] = field(default_factory=dict)
    seqs: dict[str, set[int]] = field(default_factory=dict)


def _known(store: Store) -> _Known:
    known = _Known()
    for t in SPECS:
        table: dict[tuple[Any, ...], str] = {}
        seqs: set[int] = set()
        for rows in store.portable.export_rows(t.name):
            for row in rows:
                enc = encode_row(t, row)
                table[identity(t, enc)] = content(t, enc)
                if t.name in _SEQ_TABLES:
                    seqs.add(int(row["seq"]))
        known.rows[t.name] = table
        known.seqs[t.name] = seqs
    return known


def _is_empty(store: Store) -> bool:
    return not any(next(iter(store.portable.export_rows(t.name, batch=1)), None) for t in SPECS)


@dataclass
class _Plan:
    new: dict[str, int] = field(default_factory=dict)
    present: dict[str, int] = field(default_factory=dict)
    clashes: list[str] = field(default_factory=list)
    new_seqs: dict[str, list[int]] = field(default_factory=dict)
    banks: set[str] = field(default_factory=set)


def _plan(reader: Reader, known: _Known | None) -> _Plan:
    """Read the whole archive once: digests, trailer, and what is new, present or clashing."""
    plan = _Plan()
    for t, row, _raw in reader.rows():
        ident = identity(t, row)
        have = None if known is None else known.rows[t.name].get(ident)
        if have is None:
            plan.new[t.name] = plan.new.get(t.name, 0) + 1
            if t.name in _SEQ_TABLES:
                plan.new_seqs.setdefault(t.name, []).append(int(row["seq"]))
            if "bank_id" in row:
                plan.banks.add(str(row["bank_id"]))
        elif have == content(t, row):
            plan.present[t.name] = plan.present.get(t.name, 0) + 1
        elif len(plan.clashes) < 5:
            plan.clashes.append(f"{t.name} {'/'.join(str(x) for x in ident)}")
        else:
            plan.clashes.append("")
    return plan


def import_archive(
    store: Store,
    reader: Reader,
    ring: KeyRing | None,
    *,
    check: Callable[[Iterable[str]], None] | None = None,
    progress: Callable[[str, int], None] | None = None,
    batch: int = 1000,
) -> ImportReport:
    """Merge the archive of ``reader`` into ``store`` by identity (see the module).

    ``ring`` holds the keys that sealed the archive's audit records (its key file); they join
    the store's key ring. ``check`` runs inside the transaction, after the rows are written,
    on the banks that got rows: raising there refuses the import.

    Raises:
        InvalidInput: the archive is truncated, damaged or changed (a digest or its seal).
        SchemaMismatch: the archive is of a newer schema or format than this build.
        Conflict: rows of the archive clash with rows of the store (same id, other state).
    """
    reader.check_schema(store.schema_version())
    known = None if _is_empty(store) else _known(store)
    plan = _plan(reader, known)
    problem = reader.check_seal(ring)
    if problem:
        raise reader.bad(problem)
    if plan.clashes:
        shown = [c for c in plan.clashes if c]
        raise Conflict(
            f"{len(plan.clashes)} row(s) of {reader.path} have the id of a row of this store "
            f"in another state, first: {'; '.join(shown)}; nothing was imported"
        )
    offsets: dict[str, int] = {}
    if known is not None:
        for name, seqs in plan.new_seqs.items():
            used = known.seqs[name]
            if used and any(s in used for s in seqs):
                offsets[name] = max(used)
    mine = store.audit.anchors().keyring
    if ring is not None and mine is not None:
        mine.adopt(ring.secrets())
    keys = dict(mine.keys) if mine is not None else {}
    added: dict[str, int] = {}
    with store.transaction():
        pending: list[dict[str, Any]] = []
        current: Table | None = None

        def flush() -> None:
            if current is not None and pending:
                store.portable.import_rows(current.name, pending)
                added[current.name] = added.get(current.name, 0) + len(pending)
                if progress is not None:
                    progress(current.name, added[current.name])
                pending.clear()

        for t, row, _raw in reader.rows():
            if known is not None and identity(t, row) in known.rows[t.name]:
                continue
            if t is not current:
                flush()
                current = t
            row = _moved(t, row, offsets, keys)
            pending.append(decode_row(t, row))
            if len(pending) >= batch:
                flush()
        flush()
        if check is not None and plan.banks:
            check(sorted(plan.banks))
    return ImportReport(
        added,
        plan.present,
        sorted(b for b in plan.banks if b),
        offsets,
    )


def _moved(
    t: Table, row: dict[str, Any], offsets: Mapping[str, int], keys: Mapping[str, Any]
) -> dict[str, Any]:
    """A row with its seq moved past the store's (and a moved chain's head sealed again)."""
    if t.name in offsets:
        return {**row, "seq": int(row["seq"]) + offsets[t.name]}
    if t.name == "audit_head" and "audit_log" in offsets:
        seq = int(row["seq"]) + offsets["audit_log"]
        mac = row.get("mac")
        key = keys.get(str(mac).split(":", 1)[0]) if mac else None
        new_mac = (
            None
            if key is None
            else head_mac(key, str(row["bank_id"]), seq, str(row["hash"]), int(row["count"]))
        )
        return {**row, "seq": seq, "mac": new_mac}
    return row
