"""Legal erasure in SQLite: the one path that deletes, explicit and audited (ADR 0008)."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from mneme.core.chain import digest
from mneme.store.codec import ts
from mneme.store.protocol import CompactReport, PurgeCounts, Redactions
from mneme.store.sqlite.database import translate
from mneme.store.sqlite.lexicon import LexiconMixin


def _marks(ids: Sequence[object]) -> str:
    return ",".join("?" * len(ids)) or "NULL"


class PurgeMixin(LexiconMixin):
    def purge(
        self,
        bank_id: str,
        unit_ids: Sequence[str],
        source_ids: Sequence[str],
        *,
        actor: str,
        reason: str,
        target: str,
        redact: Redactions | None = None,
    ) -> PurgeCounts:
        more = redact or Redactions()
        self._forget()  # entities, tombstones and banks may go: no memoized read survives
        units, sources = list(dict.fromkeys(unit_ids)), list(dict.fromkeys(source_ids))
        u, s = _marks(units), _marks(sources)
        claims = [
            r[0]
            for r in self.db.query(
                f"SELECT DISTINCT claim_id FROM claim_units WHERE bank_id = ? AND unit_id IN ({u}) "
                "AND claim_id NOT IN (SELECT claim_id FROM claim_units WHERE bank_id = ? "
                f"AND unit_id NOT IN ({u}))",
                (bank_id, *units, bank_id, *units),
            )
        ]
        c = _marks(claims)
        # A rejected value's tombstone holds its text: by the unit, or by the key of a claim or
        # of a unit that goes (rejecting a memory tombstones its claim's key).
        tombs = [
            r[0]
            for r in self.db.query(
                f"SELECT id FROM tombstones WHERE bank_id = ? AND (unit_id IN ({u}) "
                f"OR claim_key IN (SELECT claim_key FROM claims WHERE bank_id = ? AND id IN ({c})) "
                f"OR content_key IN (SELECT content_key FROM units WHERE bank_id = ? "
                f"AND id IN ({u})))",
                (bank_id, *units, bank_id, *claims, bank_id, *units),
            )
        ]
        tombs = sorted({*tombs, *more.tombstones})
        entities = [
            r[0]
            for r in self.db.query(
                f"SELECT DISTINCT entity_id FROM mentions WHERE bank_id = ? AND unit_id IN ({u}) "
                "AND entity_id NOT IN (SELECT entity_id FROM mentions WHERE bank_id = ? "
                f"AND unit_id NOT IN ({u}))",
                (bank_id, *units, bank_id, *units),
            )
        ]
        entities = sorted({*entities, *more.entities})
        for table, col in (
            ("embeddings", "unit_id"),
            ("unit_knowers", "unit_id"),
            ("unit_evidence", "unit_id"),
            ("mentions", "unit_id"),
            ("claim_units", "unit_id"),
        ):
            self._w(f"DELETE FROM {table} WHERE bank_id = ? AND {col} IN ({u})", (bank_id, *units))
        self._w(
            f"DELETE FROM edges WHERE bank_id = ? AND (src IN ({u}) OR dst IN ({u}) "
            f"OR dst IN ({s}))",
            (bank_id, *units, *units, *sources),
        )
        self._w(f"DELETE FROM claims WHERE bank_id = ? AND id IN ({c})", (bank_id, *claims))
        self._w(
            f"DELETE FROM tombstones WHERE bank_id = ? AND id IN ({_marks(tombs)})",
            (bank_id, *tombs),
        )
        conflicts = [
            r[0]
            for r in self.db.query(
                f"SELECT id FROM conflicts WHERE bank_id = ? AND (a_unit IN ({u}) "
                f"OR b_unit IN ({u}))",
                (bank_id, *units, *units),
            )
        ]
        conflicts = sorted({*conflicts, *more.conflicts})
        self._w(
            "UPDATE conflicts SET question = '', note = '' WHERE bank_id = ? "
            f"AND id IN ({_marks(conflicts)})",
            (bank_id, *conflicts),
        )
        # Free text about what goes, or naming the subject: a person's words, blanked.
        about = sorted({*units, *claims, *tombs, *conflicts})
        self._w(
            f"UPDATE review_events SET note = '' WHERE bank_id = ? AND note != '' "
            f"AND (target_id IN ({_marks(about)}) OR seq IN ({_marks(more.notes)}))",
            (bank_id, *about, *more.notes),
        )
        self._w(
            f"UPDATE claims SET review_note = '' WHERE bank_id = ? "
            f"AND id IN ({_marks(more.claim_notes)})",
            (bank_id, *more.claim_notes),
        )
        self._w(
            f"DELETE FROM sweep_proposals WHERE bank_id = ? AND (unit_id IN ({u}) "
            f"OR belief_id IN ({u}) OR id IN ({_marks(more.proposals)}))",
            (bank_id, *units, *units, *more.proposals),
        )
        self._w(
            f"DELETE FROM reconsolidation WHERE bank_id = ? AND (belief_id IN ({u}) "
            f"OR id IN ({_marks(more.sweeps)}))",
            (bank_id, *units, *more.sweeps),
        )
        self._w(
            f"DELETE FROM adopted_rules WHERE bank_id = ? AND id IN ({_marks(more.rules)})",
            (bank_id, *more.rules),
        )
        # Out of the lexical index first (it reads the text it removes from the rows), merged.
        self._fts_remove(bank_id, units)
        self._w(f"DELETE FROM units WHERE bank_id = ? AND id IN ({u})", (bank_id, *units))
        # A name only the erased memories mentioned is content too.
        self._w(
            f"DELETE FROM mentions WHERE bank_id = ? AND entity_id IN ({_marks(entities)})",
            (bank_id, *entities),
        )
        self._w(
            f"DELETE FROM entities WHERE bank_id = ? AND id IN ({_marks(entities)})",
            (bank_id, *entities),
        )
        self._w(
            f"DELETE FROM unit_evidence WHERE bank_id = ? AND source_id IN ({s})",
            (bank_id, *sources),
        )
        self._w(f"DELETE FROM sources WHERE bank_id = ? AND id IN ({s})", (bank_id, *sources))
        self._w(
            "UPDATE ingest_queue SET payload = '{}', result = NULL WHERE bank_id = ? "
            f"AND json_extract(payload, '$.source_id') IN ({s})",
            (bank_id, *sources),
        )
        scrubbed = self._audit_targets(bank_id, more.audit)
        erased = sorted({*units, *sources, *claims, *tombs, *conflicts, *scrubbed})
        self._scrub_audit(bank_id, erased)
        self._touch(bank_id)
        for key in [k for k in self._indexes if k[0] == bank_id]:
            del self._indexes[key]
        counts = PurgeCounts(units=len(units), sources=len(sources), claims=len(claims))
        self.audit(
            bank_id,
            actor,
            "purge",
            target,
            None,
            {
                "units": counts.units,
                "sources": counts.sources,
                "claims": counts.claims,
                "targets": erased,
            },
            reason,
        )
        return counts

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

    def _audit_targets(self, bank_id: str, seqs: Sequence[int]) -> set[str]:
        """The targets of the given audit records: a purge erases the content of every record
        about them (verification knows erasures by target)."""
        if not seqs:
            return set()
        return {
            str(r[0])
            for r in self.db.query(
                f"SELECT DISTINCT target FROM audit_log WHERE bank_id = ? "
                f"AND seq IN ({_marks(seqs)})",
                (bank_id, *seqs),
            )
        }

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
