"""The append-only, keyed, hash-chained audit log in SQLite (ADR 0008, ADR 0035)."""

from __future__ import annotations

from mneme.core.audit_chain import head_mac, row_digest, row_seals
from mneme.store import audit_key
from mneme.store.sealing import KEYED_SCHEMA, SEALED_TABLES
from mneme.store.sql.audit import key_file_named
from mneme.store.sqlite.base import SQLiteBase
from mneme.store.sqlite.rows import from_storage
from mneme.store.tables import spec


class AuditMixin(SQLiteBase):
    def audit_head(self, bank_id: str) -> tuple[int, str, int] | None:
        if self.db.owns_transaction and bank_id in self._audit_dirty:
            return self._audit_tip(bank_id)  # the head row is written at commit
        rows = self.db.query(
            "SELECT seq, hash, count FROM audit_head WHERE bank_id = ?", (bank_id,)
        )
        return (int(rows[0][0]), str(rows[0][1]), int(rows[0][2])) if rows else None

    # -- keys, and sealing a store that was not sealed ----------------------------------------

    def _registered_keys(self) -> dict[str, str]:
        if not self.db.query(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'audit_keys'"
        ):
            return {}
        return {
            str(k): str(c) for k, c in self.db.query("SELECT key_id, check_mac FROM audit_keys")
        }

    def _open_keys(self, key_file: str | None) -> None:
        """Find the store's audit key ring (ADR 0035) and whether it may write with it."""
        self._keyring, self._key_problem, self._key_registered = None, None, False
        registered = self._registered_keys()
        if key_file is None and self.db.path == ":memory:":
            self._keyring = audit_key.ephemeral()
        else:
            path = key_file or audit_key.default_path(self.db.path)
            writable = not self.db.read_only
            self._keyring = audit_key.load(path, create=writable and not registered)
            if self._keyring is None:
                self._key_problem = (
                    f"the audit chain of {self.db.path} is sealed with the audit key "
                    f"{', '.join(sorted(registered)) or '(none yet)'}, and there is no key file "
                    f"at {path}: restore it, or set MNEME_AUDIT_KEY_FILE to where it is"
                )
                return
        if registered and not set(registered) & set(self._keyring.keys):
            self._key_problem = (
                f"{key_file_named(self._keyring.path)} holds none of the keys the audit chain "
                f"of {self.db.path} is sealed with ({', '.join(sorted(registered))})"
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
            anything = self.db.query("SELECT 1 FROM audit_log LIMIT 1") or any(
                self.db.query(f"SELECT 1 FROM {t} LIMIT 1") for t in SEALED_TABLES
            )
            if not anything:
                return  # a new store: its first write registers the key
        with self.db.transaction():
            self._signing_key()
            self._reseal(
                "rows sealed as found when the audit was keyed (schema 14)"
                if not registered
                else "rows sealed again after a schema migration"
            )
            for bank_id, seq, digest, count in self.db.query(
                "SELECT bank_id, seq, hash, count FROM audit_head WHERE mac IS NULL"
            ):
                self._w(
                    "UPDATE audit_head SET mac = ? WHERE bank_id = ?",
                    (head_mac(self._signing_key(), bank_id, seq, digest, count), bank_id),
                )

    def _reseal(self, reason: str) -> None:
        """Append a record per bank sealing every row whose state is not what its chain last
        sealed (all of them in a store sealed for the first time)."""
        sealed: dict[str, list[str | None]] = {}
        for bank_id, rows in self.db.query(
            "SELECT bank_id, row_seals FROM audit_log WHERE row_seals IS NOT NULL ORDER BY seq"
        ):
            sealed.setdefault(str(bank_id), []).append(rows)
        seals = {b: row_seals(rows) for b, rows in sealed.items()}
        changed: dict[str, int] = {}
        for table in SEALED_TABLES:
            t = spec(table)
            for r in self.db.query(f"SELECT {', '.join(t.names)} FROM {table}"):
                row = {c: from_storage(k, r[n]) for n, (c, k) in enumerate(t.columns)}
                bank_id, row_id = str(row["bank_id"]), str(row["id"])
                if seals.get(bank_id, {}).get((table, row_id)) != row_digest(table, row):
                    self._touched_rows.add((table, bank_id, row_id))
                    changed[bank_id] = changed.get(bank_id, 0) + 1
        for bank_id in sorted(changed):
            self.audit(
                bank_id, "system", "audit.reseal", bank_id, None, {"rows": changed[bank_id]}, reason
            )
