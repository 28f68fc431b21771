"""The audit key of a store, and sealing what its chain does not yet cover (ADR 0035), for
both engines: finding the key ring and whether it may write with it, and, at a writable open,
sealing the rows of a store from before schema 14 (as found) or rows a migration rewrote.

What differs is declared as hooks: where the key file is and whether the engine may create it
(``_key_file``), whether a table exists (``_has_table``), what to clear before resealing
(``_before_reseal``) and how the rows to seal are marked (``_mark_touched``)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from typing import Any

from mneme.core.audit_chain import MacKey, head_mac, key_check, row_seals, rows_digest
from mneme.store import audit_key
from mneme.store.audit_key import KeyRing
from mneme.store.codec import utc_now
from mneme.store.sealing import KEYED_SCHEMA, SEALED_TABLES, AuditKeyMissing
from mneme.store.sql.audit import key_file_named
from mneme.store.sql.executor import Executor
from mneme.store.tables import spec


class AuditKeys:
    """The base of each engine's audit chain (declared members are the engine's)."""

    #: Record time for audit entries; Memory injects its clock so tests and replays agree.
    _clock: Callable[[], dt.datetime] = staticmethod(utc_now)

    def set_clock(self, clock: Callable[[], dt.datetime]) -> None:
        self._clock = clock

    def _signing_key(self) -> MacKey:
        """The key new records are sealed with; registered in the database on first use."""
        if self._key_problem is not None or self._keyring is None:
            raise AuditKeyMissing(self._key_problem or "this store has no audit key")
        key = self._keyring.signing
        if not self._key_registered:
            self.sql.write(
                "INSERT INTO audit_keys (key_id, check_mac, added_at) VALUES (?, ?, ?) "
                "ON CONFLICT (key_id) DO NOTHING",
                (key.id, key_check(key), self.sql.dialect.encode("ts", self._clock())),
            )
            self._key_registered = True

            def undo() -> None:
                self._key_registered = False

            self.sql.db.after(lambda: None, undo)
        return key

    def _row_digests(self, table: str, bank_id: str, ids: Sequence[str]) -> dict[str, str | None]:
        """The state digest of each row (None: the row is gone), from its portable form."""
        t = spec(table)
        d = self.sql.dialect
        found: dict[str, list[dict[str, Any]]] = {}
        for i in range(0, len(ids), 500):
            among, values = d.one_of("id", list(ids[i : i + 500]))
            rows = self.sql.rows(
                f"SELECT {', '.join(t.names)} FROM {table} WHERE bank_id = ? AND {among}",
                (bank_id, *values),
            )
            for r in rows:
                row = {c: d.decode(k, r[n]) for n, (c, k) in enumerate(t.columns)}
                found.setdefault(str(row["id"]), []).append(row)
        return {i: rows_digest(table, found[i]) if i in found else None for i in ids}

    sql: Executor
    _keyring: KeyRing | None
    _key_problem: str | None  # why this store may not write to its chain, if it may not
    _key_registered: bool
    audit: Callable[..., None]
    transaction: Callable[[], AbstractContextManager[None]]
    #: ``_key_file(key_file)``: the file to load the key ring from and whether it may be
    #: created there, or None for a key that lives in this process only.
    _key_file: Callable[[str | None], tuple[str, bool] | None]
    _has_table: Callable[[str], bool]
    #: Where the store lives, as messages name it (a file, or a server and database).
    _location: Callable[[], str]
    _before_reseal: Callable[[], None]
    _mark_touched: Callable[[str, Sequence[tuple[str, str]]], None]

    def _registered_keys(self) -> dict[str, str]:
        if not self._has_table("audit_keys"):
            return {}
        return {
            str(k): str(c) for k, c in self.sql.rows("SELECT key_id, check_mac FROM audit_keys")
        }

    def _open_keys(self, key_file: str | None) -> None:
        """Find the store's audit key ring (ADR 0035) and whether it may write with it."""
        self._keyring, self._key_problem, self._key_registered = None, None, False
        registered = self._registered_keys()
        found = self._key_file(key_file)
        if found is None:
            self._keyring = audit_key.ephemeral()
        else:
            path, creatable = found
            self._keyring = audit_key.load(path, create=creatable and not registered)
            if self._keyring is None:
                self._key_problem = (
                    f"the audit chain of {self._location()} is sealed with the audit key "
                    f"{', '.join(sorted(registered)) or '(none yet)'}, and there is no key file "
                    f"at {path}: restore it (or copy it from a host that has it), or set "
                    "MNEME_AUDIT_KEY_FILE to where it is"
                )
                return
        if registered and not set(registered) & set(self._keyring.keys):
            self._key_problem = (
                f"{key_file_named(self._keyring.path)} holds none of the keys the audit chain "
                f"of {self._location()} is sealed with ({', '.join(sorted(registered))})"
            )
        self._key_registered = self._keyring.signing.id in registered

    def _seal_store(self, applied: list[int]) -> None:
        """Seal what the chain does not yet cover: a store from before schema 14 (its rows as
        found, its heads keyed), or rows a migration rewrote. Runs at a writable open."""
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
            anything = self.sql.rows("SELECT 1 FROM audit_log LIMIT 1") or any(
                self.sql.rows(f"SELECT 1 FROM {t} LIMIT 1") for t in SEALED_TABLES
            )
            if not anything:
                return  # a new store: its first write registers the key
        with self.transaction():
            self._before_reseal()
            self._signing_key()
            self._reseal(
                "rows sealed as found when the audit was keyed (schema 14)"
                if not registered
                else "rows sealed again after a schema migration"
            )
            for bank_id, seq, digest, count in self.sql.rows(
                "SELECT bank_id, seq, hash, count FROM audit_head WHERE mac IS NULL"
            ):
                self.sql.write(
                    "UPDATE audit_head SET mac = ? WHERE bank_id = ?",
                    (head_mac(self._signing_key(), bank_id, seq, digest, count), bank_id),
                )

    def _reseal(self, reason: str) -> None:
        """Append a record per bank sealing every row whose state is not what its chain last
        sealed (all of them in a store sealed for the first time)."""
        d = self.sql.dialect
        sealed: dict[str, list[str | None]] = {}
        for bank_id, rows in self.sql.rows(
            "SELECT bank_id, row_seals FROM audit_log WHERE row_seals IS NOT NULL ORDER BY seq"
        ):
            sealed.setdefault(str(bank_id), []).append(rows)
        seals = {b: row_seals(rows) for b, rows in sealed.items()}
        changed: dict[str, list[tuple[str, str]]] = {}
        for table in SEALED_TABLES:
            t = spec(table)
            grouped: dict[tuple[str, str], list[dict[str, Any]]] = {}
            for r in self.sql.rows(f"SELECT {', '.join(t.names)} FROM {table}"):
                row: dict[str, Any] = {c: d.decode(k, r[n]) for n, (c, k) in enumerate(t.columns)}
                grouped.setdefault((str(row["bank_id"]), str(row["id"])), []).append(row)
            for (bank_id, row_id), rows in grouped.items():
                if seals.get(bank_id, {}).get((table, row_id)) != rows_digest(table, rows):
                    changed.setdefault(bank_id, []).append((table, row_id))
        for bank_id in sorted(changed):
            self._mark_touched(bank_id, changed[bank_id])
            rows = {"rows": len(changed[bank_id])}
            self.audit(bank_id, "system", "audit.reseal", bank_id, None, rows, reason)
