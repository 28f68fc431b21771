"""The base of the PostgreSQL store: the database handle, the write guard, and the audit chain
that every write appends to in its own transaction."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from mneme.core.chain import GENESIS
from mneme.errors import MnemeError
from mneme.store.codec import loads, ts, utc_now
from mneme.store.postgres.database import Database
from mneme.store.postgres.rows import utc, utc_opt
from mneme.store.protocol import AuditRecord
from mneme.store.sealing import seal


class PostgresBase:
    #: Record time for audit entries; Memory injects its clock so tests and replays agree.
    _clock: Callable[[], dt.datetime] = staticmethod(utc_now)

    def set_clock(self, clock: Callable[[], dt.datetime]) -> None:
        self._clock = clock

    db: Database

    def _w(self, sql: Any, params: Any = None) -> int:
        if not self.db.in_transaction:
            raise MnemeError("writes run inside Store.transaction()")
        return self.db.execute(sql, params)

    def _many(self, sql: Any, rows: Sequence[Any]) -> None:
        if not self.db.in_transaction:
            raise MnemeError("writes run inside Store.transaction()")
        self.db.execute_many(sql, rows)

    def _touch(self, bank_id: str) -> None:
        """Bump the bank's index generation once per transaction (parity with SQLite)."""
        touched = self.db.touched()
        if bank_id in touched:
            return
        touched.add(bank_id)
        self._w(
            "INSERT INTO index_state (bank_id, generation) VALUES (%s, 1) "
            "ON CONFLICT (bank_id) DO UPDATE SET generation = index_state.generation + 1",
            (bank_id,),
        )

    # -- audit --------------------------------------------------------------------------

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
        # Concurrent writers to one bank would both extend the same head and fork the chain:
        # the per-bank lock orders them, and it holds until commit, so seq order is chain order.
        # Once held, only this transaction moves the head: it is read once, then kept in step
        # (a third of the statements of a retain went to re-locking and re-reading it).
        heads = self.db.audit_heads()
        if bank_id not in heads:
            self._w(
                "SELECT pg_advisory_xact_lock(hashtext('mneme.audit'), hashtext(%s))", (bank_id,)
            )
            head = self.db.query(
                "SELECT hash, count FROM audit_head WHERE bank_id = %s", (bank_id,)
            )
            heads[bank_id] = (str(head[0][0]), int(head[0][1])) if head else (GENESIS, 0)
        prev, count = heads[bank_id]
        now = self._clock()
        at = ts(now)
        entry = seal(
            prev,
            bank_id=bank_id,
            at=at,
            actor=actor,
            op=op,
            target=target,
            before=before,
            after=after,
            reason=reason,
        )
        digest = entry.hash
        self._w(
            "WITH rec AS (INSERT INTO audit_log (bank_id, at, actor, op, target, before, "
            "after, reason, prev_hash, hash, before_sha, after_sha) "
            "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s) RETURNING seq) "
            "INSERT INTO audit_head (bank_id, seq, hash, count) "
            "SELECT %s, rec.seq, %s, %s FROM rec "
            "ON CONFLICT (bank_id) DO UPDATE SET seq = excluded.seq, hash = excluded.hash, "
            "count = excluded.count",
            (
                bank_id,
                now,
                actor,
                op,
                target,
                entry.before,
                entry.after,
                reason,
                prev,
                digest,
                entry.before_sha,
                entry.after_sha,
                bank_id,
                digest,
                count + 1,
            ),
        )
        heads[bank_id] = (digest, count + 1)

    def audit_records(
        self, bank_id: str | None = None, target: str | None = None
    ) -> Iterator[AuditRecord]:
        where, params = [], []
        if bank_id:
            where.append("bank_id = %s")
            params.append(bank_id)
        if target:
            where.append("target = %s")
            params.append(target)
        rows = self.db.query(
            "SELECT seq, bank_id, at, actor, op, target, before, after, reason, prev_hash, hash, "
            "before_sha, after_sha, purged_at FROM audit_log "
            + (f"WHERE {' AND '.join(where)} " if where else "")
            + "ORDER BY seq",
            params or None,
        )
        for r in rows:
            at = utc(r[2])
            yield AuditRecord(
                seq=int(r[0]),
                bank_id=r[1],
                at=at,
                actor=r[3],
                op=r[4],
                target=r[5],
                before=_loads_lenient(r[6]),
                after=_loads_lenient(r[7]),
                reason=r[8],
                prev_hash=r[9],
                hash=r[10],
                hashed={
                    "bank_id": r[1],
                    "at": ts(at),
                    "actor": r[3],
                    "op": r[4],
                    "target": r[5],
                    "before": r[6],
                    "after": r[7],
                    "reason": r[8],
                    "before_sha": r[11],
                    "after_sha": r[12],
                    "purged_at": ts(utc_opt(r[13])),
                },
            )

    def audit_head(self, bank_id: str) -> tuple[int, str, int] | None:
        rows = self.db.query(
            "SELECT seq, hash, count FROM audit_head WHERE bank_id = %s", (bank_id,)
        )
        return (int(rows[0][0]), str(rows[0][1]), int(rows[0][2])) if rows else None


def _loads_lenient(value: str | None) -> Any:
    """Audit JSON as stored; a record edited into invalid JSON still reads (verify flags it)."""
    try:
        return loads(value)
    except ValueError:
        return {"unreadable": value}
