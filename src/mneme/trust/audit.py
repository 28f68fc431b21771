"""Verifying the mutation audit (ADR 0008, ADR 0035): the keyed hash chain and its keyed
head, that erasures were purges, and that every row of the data tables is in the state its
last audit record sealed (so an edit made beside mneme, straight in the database, shows)."""

from __future__ import annotations

import hmac
from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any, Protocol

from mneme import validate
from mneme.core.audit_chain import (
    FORMAT,
    ChainReport,
    MacKey,
    head_mac_ok,
    key_check,
    row_seals,
    rows_digest,
    verify_chain,
)
from mneme.errors import NotFound
from mneme.store.protocol import Audit, AuditAnchors, AuditRecord, Banks, Portable
from mneme.store.sealing import SEALED_TABLES


class AuditStore(Protocol):
    """The roles of the store this module uses (ADR 0044)."""

    banks: Banks
    portable: Portable
    audit: Audit


Row = tuple[int, str, str, Mapping[str, Any]]
_MISSING = object()


#: The format of an anchor: the heads of a store's chains, kept somewhere else.
ANCHOR_FORMAT = "mneme.audit-anchor/1"


def anchor(store: AuditStore, at: str) -> dict[str, Any]:
    """The heads of every bank's chain now, with their keyed seals (``mneme audit anchor``).

    Kept outside the store (another machine, a write-once bucket, a ticket), an anchor catches
    what a key cannot: a rollback of the whole database to an older copy, or a rewrite by
    someone who holds the key. ``verify(..., anchors=)`` checks each anchored head is still
    on its chain."""
    marks = store.audit.anchors().head_macs
    heads = {}
    for b in sorted({x.id for x in store.banks.list_banks()} | set(marks)):
        head = store.audit.head(b)
        if head is not None:
            heads[b] = {"seq": head[0], "hash": head[1], "count": head[2], "mac": marks.get(b)}
    return {"format": ANCHOR_FORMAT, "at": at, "heads": heads}


def records(
    store: AuditStore, bank: str, *, target: str | None = None, last: int | None = None
) -> list[AuditRecord]:
    """A bank's audit records, oldest first: every one, or the ``last`` ones; ``target``
    keeps those about one object. An unknown bank has none."""
    found = store.audit.records(
        validate.ident(bank, "bank"), target=validate.optional_ident(target, "target")
    )
    if last is None:
        return list(found)
    return list(deque(found, maxlen=validate.positive_int(last, "last", high=100_000)))


def verify_bank(
    store: AuditStore, bank: str | None, anchors: Sequence[Mapping[str, Any]]
) -> dict[str, ChainReport]:
    """``verify`` for a bank that exists, or (None) for every bank.

    Raises:
        NotFound: no bank has this id.
    """
    if bank is not None:
        validate.ident(bank, "bank")
        if store.banks.get_bank(bank) is None:
            raise NotFound(f"no bank {bank!r}")
    return verify(store, bank, anchors)


def verify(
    store: AuditStore, bank: str | None = None, anchors: Sequence[Mapping[str, Any]] = ()
) -> dict[str, ChainReport]:
    """Check every bank's chain: edited, deleted, reordered, inserted or truncated records, a
    chain recomputed without the key, content erased outside a purge, data rows changed,
    added or deleted outside mneme, and (given ``anchors``) heads exported earlier that are
    no longer on their chain."""
    by_bank: dict[str, list[Row]] = {}
    purged: dict[str, set[str]] = {}
    for rec in store.audit.records(bank):
        by_bank.setdefault(rec.bank_id, []).append((rec.seq, rec.prev_hash, rec.hash, rec.hashed))
        if rec.op == "purge" and rec.after:
            purged.setdefault(rec.bank_id, set()).update(rec.after.get("targets", ()))
    data = _data_rows(store, bank)
    sealing = store.audit.anchors()
    keys: dict[str, MacKey] = dict(sealing.keyring.keys) if sealing.keyring else {}
    any_records = any(by_bank.values())
    keyed = any(f.get("v") == FORMAT for rows in by_bank.values() for _, _, _, f in rows)
    strict = bool(sealing.registered) or keyed or (sealing.keyring is not None and any_records)
    store_problem = _keys_problem(sealing, keys, any_records) if strict else None
    banks = {b.id for b in store.banks.list_banks()} | set(by_bank) | set(data)
    banks |= {b for a in anchors for b in a.get("heads", {})}
    reports = {}
    for b in sorted(banks if bank is None else {bank}):
        rows = by_bank.get(b, [])
        report = verify_chain(rows, keys, strict=strict)
        if report.ok and store_problem:
            report = ChainReport(False, len(rows), None, store_problem)
        if report.ok:
            report = _head(store, sealing, keys, b, rows, strict) or report
        if report.ok and not rows and (data.get(b) or store.banks.get_bank(b)):
            report = ChainReport(
                False,
                0,
                None,
                f"bank {b!r} holds data but has no audit records (its log was deleted)",
            )
        if report.ok:
            report = _erasures_covered(rows, purged.get(b, set())) or report
        if report.ok and strict:
            report = _rows_sealed(rows, data.get(b, {}), purged.get(b, set())) or report
        if report.ok:
            report = _anchored(rows, b, anchors) or report
        if report.ok and not strict:
            report = replace(
                report,
                notes=(
                    *report.notes,
                    "unkeyed legacy chain: open the store for writing once to key it "
                    "(until then a chain recomputed with plain SHA-256 is not detected)",
                ),
            )
        reports[b] = report
    return reports


def _keys_problem(
    anchors: AuditAnchors, keys: Mapping[str, MacKey], any_records: bool
) -> str | None:
    if not anchors.registered:
        if any_records:
            return (
                "the database no longer names the audit key its chain is sealed with "
                "(audit_keys was emptied)"
            )
        return None
    for kid, check in anchors.registered.items():
        key = keys.get(kid)
        if key is not None and not hmac.compare_digest(key_check(key), check):
            return f"the check value of audit key {kid} was changed in the database"
    if not set(anchors.registered) & set(keys):
        return anchors.problem or (
            f"the audit chain is sealed with the key(s) {', '.join(sorted(anchors.registered))}, "
            "which this store was not opened with (MNEME_AUDIT_KEY_FILE)"
        )
    return None


def _head(
    store: AuditStore,
    anchors: AuditAnchors,
    keys: Mapping[str, MacKey],
    bank: str,
    rows: list[Row],
    strict: bool,
) -> ChainReport | None:
    head = store.audit.head(bank)
    last = rows[-1][0] if rows else None
    if head is None:
        if rows:
            return ChainReport(False, len(rows), last, "the chain head of the bank is missing")
        return None
    if not rows or rows[-1][2] != head[1] or len(rows) != head[2] or rows[-1][0] != head[0]:
        return ChainReport(
            False,
            len(rows),
            last,
            "the newest records were removed (the chain head does not match the last record)",
        )
    if strict and not head_mac_ok(keys, anchors.head_macs.get(bank), (bank, *head)):
        return ChainReport(
            False,
            len(rows),
            last,
            "the chain head was rewritten without the audit key (its keyed seal does not match)",
        )
    return None


def _erasures_covered(rows: list[Row], purged: set[str]) -> ChainReport | None:
    for seq, _prev, _hash, fields in rows:
        if fields.get("purged_at") and fields.get("target") not in purged:
            return ChainReport(
                False, len(rows), seq, f"record {seq} had its content erased outside a purge"
            )
    return None


def _data_rows(store: AuditStore, bank: str | None) -> dict[str, dict[tuple[str, str], str]]:
    """bank -> (table, id) -> state digest of every row of the sealed tables."""
    grouped: dict[str, dict[tuple[str, str], list[Mapping[str, Any]]]] = {}
    for table in SEALED_TABLES:
        for batch in store.portable.export_rows(table):
            for row in batch:
                b = str(row["bank_id"])
                if bank is None or b == bank:
                    key = (table, str(row["id"]))
                    grouped.setdefault(b, {}).setdefault(key, []).append(row)
    # Several rows of one id (two writers' sources, ADR 0107) are sealed as one state.
    return {
        b: {key: rows_digest(key[0], rows) for key, rows in keyed.items()}
        for b, keyed in grouped.items()
    }


def _rows_sealed(
    rows: list[Row], data: Mapping[tuple[str, str], str], purged: set[str]
) -> ChainReport | None:
    sealed_at: dict[tuple[str, str], int] = {}
    for seq, _prev, _hash, fields in rows:
        for key in row_seals([fields.get("rows")]):
            sealed_at[key] = seq
    seals = row_seals(fields.get("rows") for _, _, _, fields in rows)
    for (table, rid), state in sorted(data.items()):
        sealed: Any = seals.get((table, rid), _MISSING)
        if sealed is _MISSING or sealed is None:
            return ChainReport(
                False,
                len(rows),
                None,
                f"{_noun(table)} {rid} has no audit record (it was written outside mneme)",
            )
        if sealed != state:
            return ChainReport(
                False,
                len(rows),
                sealed_at.get((table, rid)),
                f"{_noun(table)} {rid} was changed outside mneme (it is not in the state its "
                "last audit record sealed)",
            )
    for (table, rid), sealed in sorted(seals.items(), key=lambda kv: kv[0]):
        if sealed is not None and (table, rid) not in data and rid not in purged:
            return ChainReport(
                False,
                len(rows),
                sealed_at.get((table, rid)),
                f"{_noun(table)} {rid} was deleted outside mneme (no purge names it)",
            )
    return None


def _anchored(
    rows: list[Row], bank: str, anchors: Sequence[Mapping[str, Any]]
) -> ChainReport | None:
    position = {seq: (n, h) for n, (seq, _prev, h, _f) in enumerate(rows, 1)}
    for a in anchors:
        head = a.get("heads", {}).get(bank)
        if not head:
            continue
        found = position.get(int(head["seq"]))
        if found is None or found != (int(head["count"]), str(head["hash"])):
            return ChainReport(
                False,
                len(rows),
                int(head["seq"]),
                f"the head anchored at {a.get('at')} (record {head['seq']}) is no longer on the "
                "chain: the log was rolled back or rewritten",
            )
    return None


def _noun(table: str) -> str:
    return {"units": "unit", "sources": "source", "claims": "claim"}.get(table, table[:-1])
