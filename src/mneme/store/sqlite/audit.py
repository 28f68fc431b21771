"""The append-only, hash-chained audit log in SQLite."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator, Mapping
from typing import Any

from mneme.core.chain import GENESIS, record_hash
from mneme.store.codec import dumps, parse_ts, ts
from mneme.store.protocol import AuditRecord
from mneme.store.sqlite.base import SQLiteBase
from mneme.store.sqlite.rows import epoch, loads_lenient


class AuditMixin(SQLiteBase):
    def audit(
        self,
        bank_id: str,
        actor: str,
        op: str,
        target: str,
        before: Mapping[str, Any] | None,
        after: Mapping[str, Any] | None,
        reason: str,
    ) -> None:
        head = self.db.query(
            "SELECT seq, hash, count FROM audit_head WHERE bank_id = ?", (bank_id,)
        )
        prev = head[0][1] if head else GENESIS
        count = int(head[0][2]) if head else 0
        at = ts(dt.datetime.now(dt.UTC))
        before_s = None if before is None else dumps(dict(before))
        after_s = None if after is None else dumps(dict(after))
        fields = {
            "bank_id": bank_id,
            "at": at,
            "actor": actor,
            "op": op,
            "target": target,
            "before": before_s,
            "after": after_s,
            "reason": reason,
        }
        digest = record_hash(prev, fields)
        cur = self._w(
            "INSERT INTO audit_log (bank_id, at, actor, op, target, before, after, "
            "reason, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (bank_id, at, actor, op, target, before_s, after_s, reason, prev, digest),
        )
        self._w(
            "INSERT INTO audit_head (bank_id, seq, hash, count) VALUES (?, ?, ?, ?) "
            "ON CONFLICT (bank_id) DO UPDATE SET seq = excluded.seq, hash = excluded.hash, "
            "count = excluded.count",
            (bank_id, cur.lastrowid, digest, count + 1),
        )

    def audit_records(self, bank_id: str | None = None) -> Iterator[AuditRecord]:
        rows = self.db.query(
            "SELECT seq, bank_id, at, actor, op, target, before, after, reason, prev_hash, hash "
            "FROM audit_log " + ("WHERE bank_id = ? " if bank_id else "") + "ORDER BY seq",
            (bank_id,) if bank_id else (),
        )
        for r in rows:
            yield AuditRecord(
                seq=r[0],
                bank_id=r[1],
                at=parse_ts(r[2]) or epoch(),
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
                    "at": r[2],
                    "actor": r[3],
                    "op": r[4],
                    "target": r[5],
                    "before": r[6],
                    "after": r[7],
                    "reason": r[8],
                },
            )

    def audit_head(self, bank_id: str) -> tuple[int, str, int] | None:
        rows = self.db.query(
            "SELECT seq, hash, count FROM audit_head WHERE bank_id = ?", (bank_id,)
        )
        return (int(rows[0][0]), str(rows[0][1]), int(rows[0][2])) if rows else None
