"""The append-only, hash-chained audit log in SQLite."""

from __future__ import annotations

from collections.abc import Iterator

from mneme.store.codec import parse_ts
from mneme.store.protocol import AuditRecord
from mneme.store.sqlite.base import SQLiteBase
from mneme.store.sqlite.rows import epoch, loads_lenient


class AuditMixin(SQLiteBase):
    def audit_records(
        self, bank_id: str | None = None, target: str | None = None
    ) -> Iterator[AuditRecord]:
        where, params = [], []
        if bank_id:
            where.append("bank_id = ?")
            params.append(bank_id)
        if target:
            where.append("target = ?")
            params.append(target)
        rows = self.db.query(
            "SELECT seq, bank_id, at, actor, op, target, before, after, reason, prev_hash, hash, "
            "before_sha, after_sha, purged_at FROM audit_log "
            + (f"WHERE {' AND '.join(where)} " if where else "")
            + "ORDER BY seq",
            params,
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
                    "before_sha": r[11],
                    "after_sha": r[12],
                    "purged_at": r[13],
                },
            )

    def audit_head(self, bank_id: str) -> tuple[int, str, int] | None:
        if self.db.owns_transaction and bank_id in self._audit_dirty:
            return self._audit_tip(bank_id)  # the head row is written at commit
        rows = self.db.query(
            "SELECT seq, hash, count FROM audit_head WHERE bank_id = ?", (bank_id,)
        )
        return (int(rows[0][0]), str(rows[0][1]), int(rows[0][2])) if rows else None
