"""Legal erasure: the one path that deletes, explicit and audited (ADR 0008, ADR 0036).

Which rows go is decided once here: the units and sources named, the claims and entities only
they carried or mentioned, the tombstones that hold their text, the conflicts, proposals and
sweeps about them, the free text that names them (review notes, conflict questions), queued
payloads of the sources, and the content of every past audit record about any of them (their
digests kept). What a backend adds is declared as hooks: ``_unindex_units`` (its lexical
index, while the rows still exist), ``_scrub_audit`` (blank the records' content, keep their
digests) and ``_purged`` (forget in-memory state of the bank).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from mneme.core.erasure import Redactions
from mneme.store.protocol import CompactReport, PurgeCounts
from mneme.store.sql.part import Part


class Erasure(Part):
    """The Erasure role: which rows go is decided here; compacting the files is the engine's."""

    def compact(self) -> CompactReport:
        return self.engine.compact()

    def _in(
        self, column: str, values: Sequence[Any], *, negate: bool = False, kind: str = "text"
    ) -> tuple[str, list[Any]]:
        return self.sql.dialect.one_of(column, list(values), negate=negate, kind=kind)

    def _column(self, sql: str, params: Sequence[Any]) -> list[str]:
        return [str(r[0]) for r in self.sql.rows(sql, params)]

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
        self.engine._forget()  # entities, tombstones and banks may go: no remembered read survives
        b = bank_id
        units, sources = list(dict.fromkeys(unit_ids)), list(dict.fromkeys(source_ids))
        in_u, pu = self._in("unit_id", units)
        out_u, po = self._in("unit_id", units, negate=True)
        # Claims and entities only the erased units carried or mentioned are content too.
        claims = self._column(
            f"SELECT DISTINCT claim_id FROM claim_units WHERE bank_id = ? AND {in_u} AND "
            f"claim_id NOT IN (SELECT claim_id FROM claim_units WHERE bank_id = ? AND {out_u})",
            (b, *pu, b, *po),
        )
        # A rejected value's tombstone holds its text: by the unit, or by the key of a claim or
        # of a unit that goes (rejecting a memory tombstones its claim's key).
        in_c, pc = self._in("id", claims)
        in_id, pi = self._in("id", units)
        found = self._column(
            f"SELECT id FROM tombstones WHERE bank_id = ? AND ({in_u} OR claim_key IN (SELECT "
            f"claim_key FROM claims WHERE bank_id = ? AND {in_c}) OR content_key IN (SELECT "
            f"content_key FROM units WHERE bank_id = ? AND {in_id}))",
            (b, *pu, b, *pc, b, *pi),
        )
        tombs = sorted({*found, *more.tombstones})
        named = self._column(
            f"SELECT DISTINCT entity_id FROM mentions WHERE bank_id = ? AND {in_u} AND "
            f"entity_id NOT IN (SELECT entity_id FROM mentions WHERE bank_id = ? AND {out_u})",
            (b, *pu, b, *po),
        )
        entities = sorted({*named, *more.entities})
        self.engine._touch(b)
        self.engine._unindex_units(
            b, units
        )  # it reads what it removes from the rows: before they go
        for table in ("embeddings", "unit_knowers", "unit_evidence", "mentions", "claim_units"):
            self.sql.write(f"DELETE FROM {table} WHERE bank_id = ? AND {in_u}", (b, *pu))
        src, ps = self._in("src", units)
        dst, pd = self._in("dst", units)
        dst_s, pds = self._in("dst", sources)
        self.sql.write(
            f"DELETE FROM edges WHERE bank_id = ? AND ({src} OR {dst} OR {dst_s})",
            (b, *ps, *pd, *pds),
        )
        self.sql.write(f"DELETE FROM claims WHERE bank_id = ? AND {in_c}", (b, *pc))
        in_t, pt = self._in("id", tombs)
        self.sql.write(f"DELETE FROM tombstones WHERE bank_id = ? AND {in_t}", (b, *pt))
        a_unit, pa = self._in("a_unit", units)
        b_unit, pb = self._in("b_unit", units)
        about_units = self._column(
            f"SELECT id FROM conflicts WHERE bank_id = ? AND ({a_unit} OR {b_unit})",
            (b, *pa, *pb),
        )
        conflicts = sorted({*about_units, *more.conflicts})
        in_k, pk = self._in("id", conflicts)
        self.sql.write(
            f"UPDATE conflicts SET question = '', note = '' WHERE bank_id = ? AND {in_k}", (b, *pk)
        )
        # Free text about what goes, or naming the subject: a person's words, blanked.
        about, pab = self._in("target_id", sorted({*units, *claims, *tombs, *conflicts}))
        notes, pn = self._in("seq", more.notes, kind="int")
        self.sql.write(
            f"UPDATE review_events SET note = '' WHERE bank_id = ? AND note != '' "
            f"AND ({about} OR {notes})",
            (b, *pab, *pn),
        )
        in_cn, pcn = self._in("id", more.claim_notes)
        self.sql.write(
            f"UPDATE claims SET review_note = '' WHERE bank_id = ? AND {in_cn}", (b, *pcn)
        )
        unit_of, p1 = self._in("unit_id", units)
        belief_of, p2 = self._in("belief_id", units)
        named_p, p3 = self._in("id", more.proposals)
        self.sql.write(
            f"DELETE FROM sweep_proposals WHERE bank_id = ? AND ({unit_of} OR {belief_of} OR "
            f"{named_p})",
            (b, *p1, *p2, *p3),
        )
        named_s, p4 = self._in("id", more.sweeps)
        self.sql.write(
            f"DELETE FROM reconsolidation WHERE bank_id = ? AND ({belief_of} OR {named_s})",
            (b, *p2, *p4),
        )
        in_r, pr = self._in("id", more.rules)
        self.sql.write(f"DELETE FROM adopted_rules WHERE bank_id = ? AND {in_r}", (b, *pr))
        # A category named from an erased memory's words goes with it (ADR 0056).
        minted, pm = self._in("minted_from", units)
        self.sql.write(f"DELETE FROM categories WHERE bank_id = ? AND {minted}", (b, *pm))
        self.sql.write(f"DELETE FROM units WHERE bank_id = ? AND {in_id}", (b, *pi))
        # A name only the erased memories mentioned is content too.
        of_e, pe = self._in("entity_id", entities)
        self.sql.write(f"DELETE FROM mentions WHERE bank_id = ? AND {of_e}", (b, *pe))
        in_e, pe2 = self._in("id", entities)
        self.sql.write(f"DELETE FROM entities WHERE bank_id = ? AND {in_e}", (b, *pe2))
        of_s, pss = self._in("source_id", sources)
        self.sql.write(f"DELETE FROM unit_evidence WHERE bank_id = ? AND {of_s}", (b, *pss))
        in_s, pis = self._in("id", sources)
        self.sql.write(f"DELETE FROM sources WHERE bank_id = ? AND {in_s}", (b, *pis))
        queued, pq = self._in(self.sql.dialect.json_text("payload", "source_id"), sources)
        self.sql.write(
            "UPDATE ingest_queue SET payload = '{}', result = NULL "
            f"WHERE bank_id = ? AND {queued}",
            (b, *pq),
        )
        seqs, pseq = self._in("seq", more.audit, kind="int")
        scrubbed = (
            self._column(
                f"SELECT DISTINCT target FROM audit_log WHERE bank_id = ? AND {seqs}", (b, *pseq)
            )
            if more.audit
            else []
        )
        erased = sorted({*units, *sources, *claims, *tombs, *conflicts, *scrubbed})
        self.engine._scrub_audit(b, erased)
        self.engine._purged(b)
        counts = PurgeCounts(units=len(units), sources=len(sources), claims=len(claims))
        self.engine.audit(
            b,
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
