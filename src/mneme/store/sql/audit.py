"""Reading the keyed, hash-chained audit log (ADR 0008, ADR 0035): its records as they were
hashed, and the anchors a verifier checks them against. Writing and sealing differ by backend
(SQLite writes the head once per transaction, PostgreSQL orders writers with a lock)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from mneme.store.codec import loads
from mneme.store.protocol import AuditAnchors, AuditRecord
from mneme.store.sealing import stored_reason
from mneme.store.sql.part import Engine, Part
from mneme.store.sql.records import EPOCH


def loads_lenient(value: str | None) -> Any:
    """Audit JSON as stored; a record edited into invalid JSON still reads (verify flags it)."""
    try:
        return loads(value)
    except ValueError:
        return {"unreadable": value}


def key_file_named(key_file: str | None) -> str:
    """The audit key as an error message names it."""
    if key_file is None:
        return "this store's audit key (made for this process only: no key file was given)"
    return f"the audit key file {key_file}"


class AuditLog(Part):
    """The Audit role: appending goes to the engine's chain writer; reading is shared."""

    def __init__(self, engine: Engine) -> None:
        super().__init__(engine)
        self.append = engine.audit

    def head(self, bank_id: str) -> tuple[int, str, int] | None:
        """(seq, hash, count) of the bank's last record, including this transaction's."""
        return self.engine.audit_head(bank_id)

    #: The key ids the database registered, with their check MACs (the backend reads them).

    def records(
        self, bank_id: str | None = None, target: str | None = None
    ) -> Iterator[AuditRecord]:
        d = self.sql.dialect
        where, params = [], []
        if bank_id:
            where.append("bank_id = ?")
            params.append(bank_id)
        if target:
            where.append("target = ?")
            params.append(target)
        rows = self.sql.rows(
            "SELECT seq, bank_id, at, actor, op, target, before, after, reason, prev_hash, hash, "
            "before_sha, after_sha, purged_at, version, key_id, reason_sha, row_seals "
            "FROM audit_log " + (f"WHERE {' AND '.join(where)} " if where else "") + "ORDER BY seq",
            params,
        )
        for r in rows:
            yield AuditRecord(
                seq=int(r[0]),
                bank_id=r[1],
                at=d.decode("ts", r[2]) or EPOCH,
                actor=r[3],
                op=r[4],
                target=r[5],
                before=loads_lenient(r[6]),
                after=loads_lenient(r[7]),
                reason=r[8],
                prev_hash=r[9],
                hash=r[10],
                hashed={
                    "bank_id": r[1],
                    "at": d.hashed_ts(r[2]),
                    "actor": r[3],
                    "op": r[4],
                    "target": r[5],
                    "before": r[6],
                    "after": r[7],
                    "reason": stored_reason(r[8], r[16]),
                    "before_sha": r[11],
                    "after_sha": r[12],
                    "purged_at": d.hashed_ts(r[13]),
                    "v": r[14],
                    "key_id": r[15],
                    "reason_sha": r[16],
                    "rows": r[17],
                },
            )

    def anchors(self) -> AuditAnchors:
        return AuditAnchors(
            keyring=self.engine._keyring,
            registered=self.engine._registered_keys(),
            head_macs={
                str(b): None if m is None else str(m)
                for b, m in self.sql.rows("SELECT bank_id, mac FROM audit_head")
            },
            problem=self.engine._key_problem,
        )
