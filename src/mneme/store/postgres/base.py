"""The base of the PostgreSQL store: the database handle, the write guard, and the audit chain
that every write appends to in its own transaction."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from mneme.core.audit_chain import (
    FORMAT,
    GENESIS,
    head_mac,
    keyed_hash,
)
from mneme.core.audit_chain import digest as sha
from mneme.store.audit_key import KeyRing
from mneme.store.codec import ts
from mneme.store.postgres.database import Database
from mneme.store.postgres.rows import utc
from mneme.store.sealing import (
    AuditKeyMissing,
    rows_map,
    seal,
)
from mneme.store.sql.executor import Executor
from mneme.store.sql.keys import AuditKeys

#: The kinds of read ``PostgresBase._memoized`` remembers within a write transaction.
_REMEMBERED = frozenset({"entity", "bank", "tombstones", "lean units"})


class PostgresBase(AuditKeys):
    db: Database
    sql: Executor

    def _memoized(self, key: Any, compute: Callable[[], Any]) -> Any:
        """A read remembered for the rest of this thread's write transaction, for the kinds of
        read another writer cannot make wrong within it (see SQLite's for the whole idea).

        Many writers share the database, so most reads must not outlive their statement. These
        may: an entity row read ``FOR UPDATE`` (this transaction holds its lock until it ends);
        a bank's row (its configuration changes by a person's command, and a change committed
        while this transaction runs reads as having come after it); whether a bank holds any
        tombstone (likewise: a rejection committed meanwhile is ordered after this write); and
        the lean units the write path judges atom after atom against (read as of this
        transaction's first read of each, as REPEATABLE READ would: another writer's change
        committed meanwhile is ordered after this write; this transaction's own changes
        forget them, ``_unit_changed``). Content keys are not remembered: a key another writer
        takes meanwhile must be seen, or the unique key would refuse the whole write.
        """
        memo = self.db.memo() if key[0] in _REMEMBERED else None
        if memo is None:
            return compute()
        try:
            return memo[key]
        except KeyError:
            value = memo[key] = compute()
            return value

    def _forget(self, key: Any = None) -> None:
        """Drop one remembered read (all of them when ``key`` is None) after a write."""
        memo = self.db.memo()
        if memo is None:
            return
        if key is None:
            memo.clear()
        else:
            memo.pop(key, None)

    def _w(self, sql: Any, params: Any = None) -> int:
        self.sql.guard()
        return self.db.execute(sql, params)

    def _many(self, sql: Any, rows: Sequence[Any]) -> None:
        self.sql.guard()
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

    # -- audit: a keyed chain, and the data rows it seals (ADR 0035) ---------------------

    _keyring: KeyRing | None = None
    _key_problem: str | None = "the audit key is not open yet"
    _key_registered: bool = False

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
        key = self._signing_key()
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
            key,
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
        self.sql.guard()
        rows = self.db.query(
            "WITH rec AS (INSERT INTO audit_log (bank_id, at, actor, op, target, before, "
            "after, reason, prev_hash, hash, before_sha, after_sha, version, key_id, reason_sha) "
            "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s) RETURNING seq) "
            "INSERT INTO audit_head (bank_id, seq, hash, count) "
            "SELECT %s, rec.seq, %s, %s FROM rec "
            "ON CONFLICT (bank_id) DO UPDATE SET seq = excluded.seq, hash = excluded.hash, "
            "count = excluded.count RETURNING seq",
            (
                bank_id,
                now,
                actor,
                op,
                target,
                entry.before,
                entry.after,
                "" if entry.reason is None else entry.reason,
                prev,
                digest,
                entry.before_sha,
                entry.after_sha,
                FORMAT,
                key.id,
                entry.reason_sha,
                bank_id,
                digest,
                count + 1,
            ),
        )
        heads[bank_id] = (digest, count + 1)
        self.db.audit_first().setdefault(bank_id, int(rows[0][0]))

    def _audit_commit(self) -> None:
        """Before every commit: seal the rows the transaction wrote (the triggers of schema 14
        recorded them in ``audit_touched``), then key the heads it moved."""
        if self._keyring is None:
            return  # opening (a migration's own writes): the open seals them (_seal_store)
        touched = self.db.query(
            "DELETE FROM audit_touched WHERE txid = txid_current() RETURNING tbl, bank_id, id"
        )
        by_bank: dict[str, dict[str, set[str]]] = {}
        for table, bank_id, row_id in touched:
            by_bank.setdefault(str(bank_id), {}).setdefault(str(table), set()).add(str(row_id))
        for bank_id in sorted(by_bank):
            self._seal_rows(bank_id, by_bank[bank_id])
        for bank_id in sorted(self.db.audit_first()):
            head = self.db.query(
                "SELECT seq, hash, count FROM audit_head WHERE bank_id = %s", (bank_id,)
            )
            if head:
                seq, digest, count = int(head[0][0]), str(head[0][1]), int(head[0][2])
                self._w(
                    "UPDATE audit_head SET mac = %s WHERE bank_id = %s",
                    (head_mac(self._signing_key(), bank_id, seq, digest, count), bank_id),
                )

    def _seal_rows(self, bank_id: str, touched: Mapping[str, set[str]]) -> None:
        """Tie the rows this transaction wrote to its last record of the bank (see the SQLite
        twin): that record carries their state digests and is sealed again over them."""
        states = {t: self._row_digests(t, bank_id, sorted(ids)) for t, ids in touched.items()}
        first = self.db.audit_first().get(bank_id)
        last = None
        if first is not None:
            last = self.db.scalar(
                "SELECT max(seq) FROM audit_log WHERE bank_id = %s AND seq >= %s",
                (bank_id, first),
            )
        if last is None:
            self.audit(
                bank_id,
                "system",
                "rows.seal",
                bank_id,
                None,
                {t: len(v) for t, v in sorted(states.items())},
                "rows written without an audit record of their own",
            )
            last = self.db.scalar("SELECT max(seq) FROM audit_log WHERE bank_id = %s", (bank_id,))
        seq = int(last)
        rows = rows_map(states)
        r = self.db.query(
            "SELECT prev_hash, at, actor, op, target, before_sha, after_sha, reason_sha, key_id, "
            "version FROM audit_log WHERE bank_id = %s AND seq = %s",
            (bank_id, seq),
        )[0]
        key = self._keyring.keys.get(str(r[8])) if self._keyring is not None else None
        if key is None or r[9] != FORMAT:
            raise AuditKeyMissing(f"audit record {seq} is not sealed with this store's key")
        digest = keyed_hash(
            key,
            r[0],
            bank_id=bank_id,
            at=ts(utc(r[1])),
            actor=r[2],
            op=r[3],
            target=r[4],
            before_sha=r[5],
            after_sha=r[6],
            reason_sha=r[7],
            rows_sha=sha(rows),
        )
        self._w(
            "UPDATE audit_log SET row_seals = %s, hash = %s WHERE bank_id = %s AND seq = %s",
            (rows, digest, bank_id, seq),
        )
        self._w(
            "UPDATE audit_head SET hash = %s WHERE bank_id = %s AND seq = %s",
            (digest, bank_id, seq),
        )
        heads = self.db.audit_heads()
        if bank_id in heads:
            heads[bank_id] = (digest, heads[bank_id][1])
