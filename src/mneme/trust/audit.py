"""Verifying the mutation audit: the hash chain, its head, and that erasures were purges."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mneme.core.chain import ChainReport, verify_chain
from mneme.store.protocol import Store

Row = tuple[int, str, str, Mapping[str, Any]]


def verify(store: Store, bank: str | None = None) -> dict[str, ChainReport]:
    """Check every bank's chain: edited, deleted, reordered or truncated records, and content
    erased outside a purge."""
    by_bank: dict[str, list[Row]] = {}
    purged: dict[str, set[str]] = {}
    for rec in store.audit_records(bank):
        by_bank.setdefault(rec.bank_id, []).append((rec.seq, rec.prev_hash, rec.hash, rec.hashed))
        if rec.op == "purge" and rec.after:
            purged.setdefault(rec.bank_id, set()).update(rec.after.get("targets", ()))
    reports = {}
    banks = {b.id for b in store.list_banks()} | set(by_bank)
    for b in sorted(banks if bank is None else {bank}):
        rows = by_bank.get(b, [])
        report = verify_chain(rows)
        head = store.audit_head(b)
        if (
            report.ok
            and head is not None
            and (not rows or rows[-1][2] != head[1] or len(rows) != head[2])
        ):
            report = ChainReport(
                False,
                len(rows),
                rows[-1][0] if rows else None,
                "the newest records were removed (the chain head does not match the last record)",
            )
        if report.ok:
            report = _erasures_covered(rows, purged.get(b, set())) or report
        reports[b] = report
    return reports


def _erasures_covered(rows: list[Row], purged: set[str]) -> ChainReport | None:
    for seq, _prev, _hash, fields in rows:
        if fields.get("purged_at") and fields.get("target") not in purged:
            return ChainReport(
                False, len(rows), seq, f"record {seq} had its content erased outside a purge"
            )
    return None
