"""What every part of the SQLite store shares: the database, writes, unit hydration."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from mneme.core.audit_chain import (
    FORMAT,
    GENESIS,
    head_mac,
    keyed_hash,
)
from mneme.core.audit_chain import digest as sha
from mneme.store.codec import ts
from mneme.store.sealing import SEALED_TABLES, AuditKeyMissing, rows_map, seal
from mneme.store.sql.executor import Executor
from mneme.store.sql.keys import AuditKeys
from mneme.store.sqlite import changes
from mneme.store.sqlite.database import Database
from mneme.store.sqlite.vectors import VectorIndex


class SQLiteBase(AuditKeys):
    db: Database
    sql: Executor
    _indexes: dict[tuple[str, str], VectorIndex]
    _touched: set[str]
    _audit_heads: dict[str, tuple[int, int, str, int]]  # bank -> (epoch, seq, hash, count)
    _audit_dirty: set[str]
    _audit_armed: bool
    _touched_rows: set[tuple[str, str, str]]  # (table, bank, id) written this transaction
    _importing: bool
    _fts_names: dict[str, str]
    _memo: dict[Any, Any]
    _memo_epoch: int

    def _memoized(self, key: Any, compute: Callable[[], Any]) -> Any:
        """A read remembered for the rest of this thread's write transaction.

        Inside it this thread holds the file's write lock (BEGIN IMMEDIATE): no other writer
        changes anything, and the writes that would change the answer forget the key. The
        epoch changes when a transaction begins and on any rollback (a savepoint included), so
        nothing outlives the state it was read from. Outside a write transaction: no memo.
        """
        if not self.db.owns_transaction:
            return compute()
        if self._memo_epoch != self.db.epoch:
            self._memo.clear()
            self._memo_epoch = self.db.epoch
        try:
            return self._memo[key]
        except KeyError:
            value = self._memo[key] = compute()
            return value

    def _forget(self, key: Any = None) -> None:
        """Drop one memoized read (all of them when ``key`` is None) after a write."""
        if key is None:
            self._memo.clear()
        else:
            self._memo.pop(key, None)

    def _w(self, sql: str, params: Any = ()) -> sqlite3.Cursor:
        self.sql.guard()
        return self.db.execute(sql, params)

    def _many(self, sql: str, rows: Sequence[Any]) -> None:
        self.sql.guard()
        self.db.execute_many(sql, rows)

    def _touch(self, bank_id: str) -> None:
        """Bump the bank's index generation once per transaction, and keep indexes in step."""
        if bank_id in self._touched:
            return
        self._touched.add(bank_id)
        self._w(
            "INSERT INTO index_state (bank_id, generation) VALUES (?, 1) "
            "ON CONFLICT (bank_id) DO UPDATE SET generation = generation + 1",
            (bank_id,),
        )
        self._forget(("generation", bank_id))
        gen = int(
            self.db.query("SELECT generation FROM index_state WHERE bank_id = ?", (bank_id,))[0][0]
        )
        changes.prune(self.db, gen)

        def committed() -> None:
            self._touched.discard(bank_id)
            for (b, _m), idx in list(self._indexes.items()):
                if b == bank_id:
                    if idx.generation in (gen - 1, gen):
                        # Our own changes were applied as they happened (or the index was
                        # built inside this transaction, after our bump, and saw them).
                        idx.generation = gen
                    else:
                        del self._indexes[(b, _m)]  # another writer got in between: rebuild

        def rolled_back() -> None:
            self._touched.discard(bank_id)
            for key in [k for k in self._indexes if k[0] == bank_id]:
                del self._indexes[key]  # in-memory changes of the failed transaction are void

        self.db.after(committed, rolled_back)

    # -- audit: a keyed chain, and the data rows it seals (ADR 0035) ---------------------

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
        cached = self._audit_heads.get(bank_id)
        if cached is not None and cached[0] == self.db.epoch:
            prev, count = cached[2], cached[3]
        else:
            _, prev, count = self._audit_tip(bank_id)
        at = ts(self._clock())
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
        cur = self._w(
            "INSERT INTO audit_log (bank_id, at, actor, op, target, before, after, "
            "reason, prev_hash, hash, before_sha, after_sha, version, key_id, reason_sha) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                bank_id,
                at,
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
            ),
        )
        # The head row is written once, just before commit (``_audit_commit``): one write per
        # transaction instead of one per entry. Until then this copy is the head; a rollback
        # or a new transaction changes the epoch and voids it (``_audit_tip`` reads it again).
        self._audit_heads[bank_id] = (self.db.epoch, int(cur.lastrowid or 0), digest, count + 1)
        if bank_id not in self._audit_dirty:
            self._audit_dirty.add(bank_id)
            self._arm_audit()

    def _arm_audit(self) -> None:
        """Seal this transaction's rows and write its heads just before it commits."""
        if self._audit_armed:
            return
        self._audit_armed = True

        def reset() -> None:
            self._audit_armed = False
            self._audit_dirty.clear()
            self._touched_rows.clear()

        self.db.before_commit(self._audit_commit)
        self.db.after(reset, reset)

    def _on_touched(self, table: str, bank_id: str, row_id: str) -> None:
        """Called by the writing connection's triggers for every row of a sealed table that a
        statement inserts, updates or deletes (see ``_install_sealing``)."""
        if self._importing:
            return
        self._touched_rows.add((table, str(bank_id), str(row_id)))
        self._arm_audit()

    def _install_sealing(self) -> None:
        def setup(conn: sqlite3.Connection) -> None:
            conn.create_function("mneme_touched", 3, self._on_touched)
            for t in SEALED_TABLES:
                for event, row in (("INSERT", "NEW"), ("UPDATE", "NEW"), ("DELETE", "OLD")):
                    conn.execute(
                        f"CREATE TEMP TRIGGER IF NOT EXISTS mneme_seal_{t}_{event.lower()} "
                        f"AFTER {event} ON main.{t} BEGIN "
                        f"SELECT mneme_touched('{t}', {row}.bank_id, {row}.id); END"
                    )

        self.db.on_writer(setup)

    def _audit_commit(self) -> None:
        by_bank: dict[str, dict[str, set[str]]] = {}
        while self._touched_rows:
            table, bank_id, row_id = self._touched_rows.pop()
            by_bank.setdefault(bank_id, {}).setdefault(table, set()).add(row_id)
        for bank_id in sorted(by_bank):
            self._seal_rows(bank_id, by_bank[bank_id])
        for bank_id in sorted(self._audit_dirty):
            self._write_head(bank_id)

    def _seal_rows(self, bank_id: str, touched: Mapping[str, set[str]]) -> None:
        """Tie the rows this transaction wrote to its last record of the bank: that record
        carries their state digests, and its hash is sealed again over them. It is the newest
        record of the chain and nothing links to it yet (the head is written after this)."""
        states = {t: self._row_digests(t, bank_id, sorted(ids)) for t, ids in touched.items()}
        seq = self._own_last(bank_id)
        if seq is None:
            self.audit(
                bank_id,
                "system",
                "rows.seal",
                bank_id,
                None,
                {t: len(v) for t, v in sorted(states.items())},
                "rows written without an audit record of their own",
            )
            seq = self._audit_heads[bank_id][1]
        rows = rows_map(states)
        r = self.db.query(
            "SELECT prev_hash, at, actor, op, target, before_sha, after_sha, reason_sha, key_id, "
            "version FROM audit_log WHERE seq = ?",
            (seq,),
        )[0]
        key = self._keyring.keys.get(str(r[8])) if self._keyring is not None else None
        if key is None or r[9] != FORMAT:
            raise AuditKeyMissing(f"audit record {seq} is not sealed with this store's key")
        digest = keyed_hash(
            key,
            r[0],
            bank_id=bank_id,
            at=r[1],
            actor=r[2],
            op=r[3],
            target=r[4],
            before_sha=r[5],
            after_sha=r[6],
            reason_sha=r[7],
            rows_sha=sha(rows),
        )
        self._w("UPDATE audit_log SET row_seals = ?, hash = ? WHERE seq = ?", (rows, digest, seq))
        cached = self._audit_heads.get(bank_id)
        if cached is not None and cached[0] == self.db.epoch and cached[1] == seq:
            self._audit_heads[bank_id] = (cached[0], seq, digest, cached[3])

    def _own_last(self, bank_id: str) -> int | None:
        """This transaction's newest record of the bank, if it wrote one (that survived)."""
        if bank_id not in self._audit_dirty:
            return None
        cached = self._audit_heads.get(bank_id)
        if cached is not None and cached[0] == self.db.epoch:
            return cached[1]
        head = self.db.query("SELECT seq FROM audit_head WHERE bank_id = ?", (bank_id,))
        last = self.db.query(
            "SELECT max(seq) FROM audit_log WHERE bank_id = ? AND seq > ?",
            (bank_id, int(head[0][0]) if head else 0),
        )[0][0]
        return None if last is None else int(last)

    def _audit_tip(self, bank_id: str) -> tuple[int, str, int]:
        """The bank's last audit entry (seq, hash, count), read from the file: the head row,
        then any entries this transaction appended after it and has not yet folded in."""
        head = self.db.query(
            "SELECT seq, hash, count FROM audit_head WHERE bank_id = ?", (bank_id,)
        )
        seq, digest, count = 0, GENESIS, 0
        if head:
            seq, digest, count = int(head[0][0]), str(head[0][1]), int(head[0][2])
        n, last = self.db.query(
            "SELECT count(*), max(seq) FROM audit_log WHERE bank_id = ? AND seq > ?",
            (bank_id, seq),
        )[0]
        if n:
            seq, count = int(last), count + int(n)
            digest = str(self.db.query("SELECT hash FROM audit_log WHERE seq = ?", (seq,))[0][0])
        return seq, digest, count

    def _write_head(self, bank_id: str) -> None:
        cached = self._audit_heads.get(bank_id)
        if cached is not None and cached[0] == self.db.epoch:
            seq, digest, count = cached[1], cached[2], cached[3]
        else:
            seq, digest, count = self._audit_tip(bank_id)
        mac = head_mac(self._signing_key(), bank_id, seq, digest, count)
        self._w(
            "INSERT INTO audit_head (bank_id, seq, hash, count, mac) VALUES (?, ?, ?, ?, ?) "
            "ON CONFLICT (bank_id) DO UPDATE SET seq = excluded.seq, hash = excluded.hash, "
            "count = excluded.count, mac = excluded.mac",
            (bank_id, seq, digest, count, mac),
        )
