"""Legal erasure in PostgreSQL (which rows go: ``store.sql.purge``; ADR 0008).

``tsv`` is a generated column of
the unit row and its GIN entries point at that row, so deleting the row takes its text out of
that index (dead tuples are reclaimed by VACUUM, as for every deleted row). The BM25 statistics
are kept in step here: ``index_state``, and the units' postings and document frequencies (a
lexeme no remaining unit holds leaves ``lexeme_df``, so no erased word stays behind).
"""

from __future__ import annotations

from collections.abc import Sequence

import psycopg

from mneme.store.postgres.lexical import LexicalIndexMixin
from mneme.store.protocol import CompactReport


class PurgeMixin(LexicalIndexMixin):
    # -- the erasure hooks of the shared SQL (store.sql.purge) --------------------------

    def _unindex_units(self, bank_id: str, unit_ids: list[str]) -> None:
        self._w(
            "UPDATE index_state SET docs = docs - g.n, total_len = total_len - g.len "
            "FROM (SELECT count(*) AS n, coalesce(sum(doc_len), 0) AS len FROM units "
            "WHERE bank_id = %s AND id = ANY(%s::text[])) g WHERE bank_id = %s",
            (bank_id, unit_ids, bank_id),
        )
        self._unindex_lexemes(bank_id, unit_ids)  # reads the units' tsv: before the units go

    def _purged(self, bank_id: str) -> None:
        """Nothing is kept in memory beside the database."""

    def compact(self) -> CompactReport:
        """Rewrite the tables (VACUUM FULL: dead tuples of erased rows go), then end the WAL
        segment that logged them and checkpoint, so it can be removed. A step the role may not
        take (CHECKPOINT and pg_switch_wal need a superuser or their grants) is reported as
        skipped. A server with ``wal_recycle = on`` (the default) renames old segments for
        reuse, bytes and all, until they are written over: set it off where erasure on disk
        must be proved (ADR 0036); base backups and replicas hold their own copies."""
        if self.db.in_transaction:
            raise RuntimeError("compact runs outside a transaction")
        done: list[str] = []
        skipped: list[str] = []
        for step, sql in (
            ("vacuum_full", "VACUUM FULL"),
            ("checkpoint", "CHECKPOINT"),
            ("switch_wal", "SELECT pg_switch_wal()"),
            ("checkpoint_again", "CHECKPOINT"),
        ):
            with self.db.conn() as conn:
                try:
                    conn.execute(sql)
                    done.append(step)
                except psycopg.errors.InsufficientPrivilege as exc:
                    skipped.append(f"{step}: {str(exc).strip().splitlines()[0]}")
        return CompactReport(tuple(done), tuple(skipped))

    def _scrub_audit(self, bank_id: str, targets: Sequence[str]) -> None:
        """Erase the content of past audit records about the targets (before, after and
        reason); keep their digests (ADR 0008, ADR 0035). An erased reason is stored as ''.

        Records written before schema 6 have no digests yet: they are computed here exactly as
        ``mneme.core.audit_chain.digest`` does (SHA-256 of the UTF-8 text, in hex).
        """
        self._w(
            "UPDATE audit_log SET before = NULL, after = NULL, reason = '', "
            "before_sha = coalesce(before_sha, encode(sha256(convert_to(before, 'UTF8')), 'hex')), "
            "after_sha = coalesce(after_sha, encode(sha256(convert_to(after, 'UTF8')), 'hex')), "
            "reason_sha = coalesce(reason_sha, encode(sha256(convert_to(reason, 'UTF8')), 'hex')), "
            "purged_at = %s WHERE bank_id = %s AND target = ANY(%s::text[]) AND purged_at IS NULL",
            (self._clock(), bank_id, list(targets)),
        )
