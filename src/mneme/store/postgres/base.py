"""The base of the PostgreSQL store: the database handle, the write guard, and the audit chain
that every write appends to in its own transaction."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from mneme.core.chain import (
    FORMAT,
    GENESIS,
    MacKey,
    head_mac,
    key_check,
    keyed_hash,
    row_digest,
    row_seals,
)
from mneme.core.chain import digest as sha
from mneme.errors import MnemeError
from mneme.store import audit_key
from mneme.store.audit_key import KeyRing
from mneme.store.codec import loads, ts, utc_now
from mneme.store.postgres.database import Database
from mneme.store.postgres.rows import portable, utc, utc_opt
from mneme.store.protocol import AuditAnchors, AuditRecord
from mneme.store.sealing import (
    KEYED_SCHEMA,
    SEALED_TABLES,
    AuditKeyMissing,
    rows_map,
    seal,
    stored_reason,
)
from mneme.store.tables import spec


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
        if not self.db.in_transaction:
            raise MnemeError("writes run inside Store.transaction()")
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

    def _signing_key(self) -> MacKey:
        """The key new records are sealed with; registered in the database on first use."""
        if self._key_problem is not None or self._keyring is None:
            raise AuditKeyMissing(self._key_problem or "this store has no audit key")
        key = self._keyring.signing
        if not self._key_registered:
            self._w(
                "INSERT INTO audit_keys (key_id, check_mac, added_at) VALUES (%s, %s, %s) "
                "ON CONFLICT (key_id) DO NOTHING",
                (key.id, key_check(key), self._clock()),
            )
            self._key_registered = True

            def undo() -> None:
                self._key_registered = False

            self.db.after(lambda: None, undo)
        return key

    def _audit_commit(self) -> None:
        """Before every commit: seal the rows the transaction wrote (the triggers of schema 15
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

    def _row_digests(self, table: str, bank_id: str, ids: Sequence[str]) -> dict[str, str | None]:
        """The state digest of each row (None: the row is gone), from its portable form."""
        t = spec(table)
        out: dict[str, str | None] = dict.fromkeys(ids)
        rows = self.db.query(
            f"SELECT {', '.join(t.names)} FROM {table} WHERE bank_id = %s AND id = ANY(%s::text[])",
            (bank_id, list(ids)),
        )
        for r in rows:
            row = {c: portable(k, r[n]) for n, (c, k) in enumerate(t.columns)}
            out[str(row["id"])] = row_digest(table, row)
        return out

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
            "before_sha, after_sha, purged_at, version, key_id, reason_sha, row_seals "
            "FROM audit_log " + (f"WHERE {' AND '.join(where)} " if where else "") + "ORDER BY seq",
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
                    "reason": stored_reason(r[8], r[16]),
                    "before_sha": r[11],
                    "after_sha": r[12],
                    "purged_at": ts(utc_opt(r[13])),
                    "v": r[14],
                    "key_id": r[15],
                    "reason_sha": r[16],
                    "rows": r[17],
                },
            )

    def audit_head(self, bank_id: str) -> tuple[int, str, int] | None:
        rows = self.db.query(
            "SELECT seq, hash, count FROM audit_head WHERE bank_id = %s", (bank_id,)
        )
        return (int(rows[0][0]), str(rows[0][1]), int(rows[0][2])) if rows else None

    def audit_anchors(self) -> AuditAnchors:
        return AuditAnchors(
            keyring=self._keyring,
            registered=self._registered_keys(),
            head_macs={
                str(b): None if m is None else str(m)
                for b, m in self.db.query("SELECT bank_id, mac FROM audit_head")
            },
            problem=self._key_problem,
        )

    # -- keys, and sealing a store that was not sealed ----------------------------------------

    def _registered_keys(self) -> dict[str, str]:
        if not self.db.scalar("SELECT to_regclass('audit_keys') IS NOT NULL"):
            return {}
        return {
            str(k): str(c) for k, c in self.db.query("SELECT key_id, check_mac FROM audit_keys")
        }

    def _open_keys(self, key_file: str | None) -> None:
        """Find the store's audit key ring (ADR 0035) and whether it may write with it. With no
        key file (a store built directly, as tests do) the key lives in this process only."""
        self._keyring, self._key_problem, self._key_registered = None, None, False
        registered = self._registered_keys()
        if key_file is None:
            self._keyring = audit_key.ephemeral()
        else:
            Path(key_file).expanduser().parent.mkdir(parents=True, exist_ok=True)
            self._keyring = audit_key.load(key_file, create=not registered)
            if self._keyring is None:
                self._key_problem = (
                    f"the audit chain of {self.db.where} is sealed with the audit key "
                    f"{', '.join(sorted(registered))}, and there is no key file at {key_file}: "
                    "copy it there from a host that has it, or set MNEME_AUDIT_KEY_FILE"
                )
                return
        if registered and not set(registered) & set(self._keyring.keys):
            self._key_problem = (
                f"{_where(self._keyring.path)} holds none of the keys the audit chain "
                f"of {self.db.where} is sealed with ({', '.join(sorted(registered))})"
            )
        self._key_registered = self._keyring.signing.id in registered

    def _seal_store(self, applied: list[int]) -> None:
        """Seal what the chain does not yet cover (see the SQLite twin)."""
        if self._keyring is None or self._key_problem is not None:
            return
        registered = self._registered_keys()
        if registered and not applied:
            return
        if not registered:
            if KEYED_SCHEMA not in applied:
                # A new store registers its key with its first write. A store that was keyed
                # before and names no key now lost its registration: never seal it again as
                # found (that would pass a chain rewritten without the key); verify reports it.
                return
            anything = self.db.query("SELECT 1 FROM audit_log LIMIT 1") or any(
                self.db.query(f"SELECT 1 FROM {t} LIMIT 1") for t in SEALED_TABLES
            )
            if not anything:
                return
        with self.db.transaction():
            # What transactions that ended unsealed left (a migration's writes, at open).
            self._w(
                "DELETE FROM audit_touched WHERE txid < txid_snapshot_xmin(txid_current_snapshot())"
            )
            self._signing_key()
            self._reseal(
                "rows sealed as found when the audit was keyed (schema 15)"
                if not registered
                else "rows sealed again after a schema migration"
            )
            for bank_id, seq, digest, count in self.db.query(
                "SELECT bank_id, seq, hash, count FROM audit_head WHERE mac IS NULL"
            ):
                self._w(
                    "UPDATE audit_head SET mac = %s WHERE bank_id = %s",
                    (head_mac(self._signing_key(), bank_id, seq, digest, count), bank_id),
                )

    def _reseal(self, reason: str) -> None:
        sealed: dict[str, list[str | None]] = {}
        for bank_id, rows in self.db.query(
            "SELECT bank_id, row_seals FROM audit_log WHERE row_seals IS NOT NULL ORDER BY seq"
        ):
            sealed.setdefault(str(bank_id), []).append(rows)
        seals = {b: row_seals(rows) for b, rows in sealed.items()}
        changed: dict[str, list[tuple[str, str]]] = {}
        for table in SEALED_TABLES:
            t = spec(table)
            for r in self.db.query(f"SELECT {', '.join(t.names)} FROM {table}"):
                row = {c: portable(k, r[n]) for n, (c, k) in enumerate(t.columns)}
                bank_id, row_id = str(row["bank_id"]), str(row["id"])
                if seals.get(bank_id, {}).get((table, row_id)) != row_digest(table, row):
                    changed.setdefault(bank_id, []).append((table, row_id))
        for bank_id in sorted(changed):
            self._many(
                "INSERT INTO audit_touched VALUES (txid_current(), %s, %s, %s) "
                "ON CONFLICT DO NOTHING",
                [(table, bank_id, row_id) for table, row_id in changed[bank_id]],
            )
            self.audit(
                bank_id,
                "system",
                "audit.reseal",
                bank_id,
                None,
                {"rows": len(changed[bank_id])},
                reason,
            )


def _loads_lenient(value: str | None) -> Any:
    """Audit JSON as stored; a record edited into invalid JSON still reads (verify flags it)."""
    try:
        return loads(value)
    except ValueError:
        return {"unreadable": value}


def _where(key_file: str | None) -> str:
    if key_file is None:
        return "this store's audit key (made for this process only: no key file was given)"
    return f"the audit key file {key_file}"
