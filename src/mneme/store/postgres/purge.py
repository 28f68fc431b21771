"""Legal erasure in PostgreSQL: the one path that deletes, explicit and audited (ADR 0008).

The same rows go as in the SQLite backend's ``purge`` module. ``tsv`` is a generated column of
the unit row and its GIN entries point at that row, so deleting the row takes its text out of
that index (dead tuples are reclaimed by VACUUM, as for every deleted row). The BM25 statistics
are kept in step here: ``index_state``, and the units' postings and document frequencies (a
lexeme no remaining unit holds leaves ``lexeme_df``, so no erased word stays behind).
"""

from __future__ import annotations

from collections.abc import Sequence

from mneme.store.postgres.lexical import LexicalIndexMixin
from mneme.store.protocol import PurgeCounts, Redactions


class PurgeMixin(LexicalIndexMixin):
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
        units, sources = list(dict.fromkeys(unit_ids)), list(dict.fromkeys(source_ids))
        b, u, s = bank_id, units, sources

        def ids(sql: str, *params: object) -> list[str]:
            return [str(r[0]) for r in self.db.query(sql, params)]

        # Claims and entities only the erased units carried or mentioned are content too.
        claims = ids(
            "SELECT DISTINCT claim_id FROM claim_units WHERE bank_id = %s "
            "AND unit_id = ANY(%s::text[]) AND claim_id NOT IN (SELECT claim_id FROM claim_units "
            "WHERE bank_id = %s AND NOT unit_id = ANY(%s::text[]))",
            b, u, b, u,
        )  # fmt: skip
        # A rejected value's tombstone holds its text: by the unit, or by the key of a claim or
        # of a unit that goes (rejecting a memory tombstones its claim's key).
        tombs = ids(
            "SELECT id FROM tombstones WHERE bank_id = %s AND (unit_id = ANY(%s::text[]) "
            "OR claim_key IN (SELECT claim_key FROM claims WHERE bank_id = %s "
            "AND id = ANY(%s::text[])) OR content_key IN (SELECT content_key FROM units "
            "WHERE bank_id = %s AND id = ANY(%s::text[])))",
            b, u, b, claims, b, u,
        )  # fmt: skip
        tombs = sorted({*tombs, *more.tombstones})
        entities = ids(
            "SELECT DISTINCT entity_id FROM mentions WHERE bank_id = %s "
            "AND unit_id = ANY(%s::text[]) AND entity_id NOT IN (SELECT entity_id FROM mentions "
            "WHERE bank_id = %s AND NOT unit_id = ANY(%s::text[]))",
            b, u, b, u,
        )  # fmt: skip
        entities = sorted({*entities, *more.entities})
        self._touch(bank_id)
        self._w(
            "UPDATE index_state SET docs = docs - g.n, total_len = total_len - g.len "
            "FROM (SELECT count(*) AS n, coalesce(sum(doc_len), 0) AS len FROM units "
            "WHERE bank_id = %s AND id = ANY(%s::text[])) g WHERE bank_id = %s",
            (b, u, b),
        )
        self._unindex_lexemes(b, u)  # reads the units' tsv: before the units go
        for table in ("embeddings", "unit_knowers", "unit_evidence", "mentions", "claim_units"):
            self._w(f"DELETE FROM {table} WHERE bank_id = %s AND unit_id = ANY(%s::text[])", (b, u))
        self._w(
            "DELETE FROM edges WHERE bank_id = %s AND (src = ANY(%s::text[]) "
            "OR dst = ANY(%s::text[]) OR dst = ANY(%s::text[]))",
            (b, u, u, s),
        )
        self._w("DELETE FROM claims WHERE bank_id = %s AND id = ANY(%s::text[])", (b, claims))
        self._w("DELETE FROM tombstones WHERE bank_id = %s AND id = ANY(%s::text[])", (b, tombs))
        conflicts = ids(
            "SELECT id FROM conflicts WHERE bank_id = %s "
            "AND (a_unit = ANY(%s::text[]) OR b_unit = ANY(%s::text[]))",
            b, u, u,
        )  # fmt: skip
        conflicts = sorted({*conflicts, *more.conflicts})
        self._w(
            "UPDATE conflicts SET question = '', note = '' WHERE bank_id = %s "
            "AND id = ANY(%s::text[])",
            (b, conflicts),
        )
        # Free text about what goes, or naming the subject: a person's words, blanked.
        about = sorted({*units, *claims, *tombs, *conflicts})
        self._w(
            "UPDATE review_events SET note = '' WHERE bank_id = %s AND note != '' "
            "AND (target_id = ANY(%s::text[]) OR seq = ANY(%s::bigint[]))",
            (b, about, list(more.notes)),
        )
        self._w(
            "UPDATE claims SET review_note = '' WHERE bank_id = %s AND id = ANY(%s::text[])",
            (b, list(more.claim_notes)),
        )
        self._w(
            "DELETE FROM sweep_proposals WHERE bank_id = %s AND (unit_id = ANY(%s::text[]) "
            "OR belief_id = ANY(%s::text[]) OR id = ANY(%s::text[]))",
            (b, u, u, list(more.proposals)),
        )
        self._w(
            "DELETE FROM reconsolidation WHERE bank_id = %s AND (belief_id = ANY(%s::text[]) "
            "OR id = ANY(%s::text[]))",
            (b, u, list(more.sweeps)),
        )
        self._w(
            "DELETE FROM adopted_rules WHERE bank_id = %s AND id = ANY(%s::text[])",
            (b, list(more.rules)),
        )
        # The generated tsv and its GIN entries go with the row.
        self._w("DELETE FROM units WHERE bank_id = %s AND id = ANY(%s::text[])", (b, u))
        self._w(
            "DELETE FROM mentions WHERE bank_id = %s AND entity_id = ANY(%s::text[])", (b, entities)
        )
        self._w("DELETE FROM entities WHERE bank_id = %s AND id = ANY(%s::text[])", (b, entities))
        self._w(
            "DELETE FROM unit_evidence WHERE bank_id = %s AND source_id = ANY(%s::text[])", (b, s)
        )
        self._w("DELETE FROM sources WHERE bank_id = %s AND id = ANY(%s::text[])", (b, s))
        self._w(
            "UPDATE ingest_queue SET payload = '{}', result = NULL WHERE bank_id = %s "
            "AND payload ->> 'source_id' = ANY(%s::text[])",
            (b, s),
        )
        scrubbed = ids(
            "SELECT DISTINCT target FROM audit_log WHERE bank_id = %s AND seq = ANY(%s::bigint[])",
            b, list(more.audit),
        )  # fmt: skip
        erased = sorted({*units, *sources, *claims, *tombs, *conflicts, *scrubbed})
        self._scrub_audit(bank_id, erased)
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

    def _scrub_audit(self, bank_id: str, targets: Sequence[str]) -> None:
        """Erase the content of past audit records about the targets (before, after and
        reason); keep their digests (ADR 0008, ADR 0035). An erased reason is stored as ''.

        Records written before schema 6 have no digests yet: they are computed here exactly as
        ``mneme.core.chain.digest`` does (SHA-256 of the UTF-8 text, in hex).
        """
        self._w(
            "UPDATE audit_log SET before = NULL, after = NULL, reason = '', "
            "before_sha = coalesce(before_sha, encode(sha256(convert_to(before, 'UTF8')), 'hex')), "
            "after_sha = coalesce(after_sha, encode(sha256(convert_to(after, 'UTF8')), 'hex')), "
            "reason_sha = coalesce(reason_sha, encode(sha256(convert_to(reason, 'UTF8')), 'hex')), "
            "purged_at = %s WHERE bank_id = %s AND target = ANY(%s::text[]) AND purged_at IS NULL",
            (self._clock(), bank_id, list(targets)),
        )
