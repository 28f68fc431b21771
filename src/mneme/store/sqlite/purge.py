"""Legal erasure in SQLite (which rows go: ``store.sql.purge``): its lexical index, its
in-memory vector indexes, the audit content scrubbed, and compaction on disk (ADR 0036)."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from mneme.core.audit_chain import digest
from mneme.store.codec import ts
from mneme.store.protocol import CompactReport
from mneme.store.sqlite.database import translate
from mneme.store.sqlite.lexicon import LexiconMixin


def _marks(ids: Sequence[object]) -> str:
    return ",".join("?" * len(ids)) or "NULL"


class PurgeMixin(LexiconMixin):
    # -- the erasure hooks of the shared SQL (store.sql.purge) --------------------------

    def _unindex_units(self, bank_id: str, unit_ids: list[str]) -> None:
        self._fts_remove(bank_id, unit_ids)

    def _purged(self, bank_id: str) -> None:
        for key in [k for k in self._indexes if k[0] == bank_id]:
            del self._indexes[key]

    def compact(self) -> CompactReport:
        """Fold the WAL into the file and rewrite it (VACUUM): a deleted row's bytes stay in
        free pages and WAL frames until then. Outside any transaction; takes the write lock."""
        if self.db.owns_transaction:
            raise RuntimeError("compact runs outside a transaction")
        if self.db.path == ":memory:":
            return CompactReport((), ("vacuum: an in-memory store has no file",))
        if getattr(self, "read_only", False):
            return CompactReport((), ("vacuum: the store is open read-only",))
        conn = sqlite3.connect(self.db.path, timeout=30, isolation_level=None)
        try:
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            conn.execute("VACUUM")
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        except sqlite3.Error as exc:
            raise translate(exc, self.db.path) from exc
        finally:
            conn.close()
        return CompactReport(("wal_checkpoint", "vacuum"))

    def _scrub_audit(self, bank_id: str, targets: Sequence[str]) -> None:
        """Erase the content of past audit records about the targets (before, after and
        reason); keep their digests (ADR 0008, ADR 0035). An erased reason is stored as ''."""
        t = _marks(targets)
        rows = self.db.query(
            f"SELECT seq, before, after, reason, before_sha, after_sha, reason_sha FROM audit_log "
            f"WHERE bank_id = ? AND target IN ({t}) AND purged_at IS NULL",
            (bank_id, *targets),
        )
        now = ts(self._clock())
        for seq, before, after, reason, before_sha, after_sha, reason_sha in rows:
            self._w(
                "UPDATE audit_log SET before = NULL, after = NULL, reason = '', before_sha = ?, "
                "after_sha = ?, reason_sha = ?, purged_at = ? WHERE seq = ?",
                (
                    before_sha or digest(before),
                    after_sha or digest(after),
                    reason_sha or digest(reason),
                    now,
                    seq,
                ),
            )
