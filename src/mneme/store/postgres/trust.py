"""Trust in PostgreSQL: claims with two status axes, review events, tombstones and conflicts.

The same rows, orderings and audit records as the SQLite backend's ``trust`` module. The guard
on rejected units and claims and the append-only rule of review events are triggers (schema 4),
so they hold for every path, raw SQL included.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Any

from psycopg.types.json import Jsonb

from mneme.core.model import (
    ClaimRecord,
    ClaimStatus,
    ConflictRecord,
    Resolution,
    ReviewEvent,
    ReviewStatus,
    Rule,
    Tombstone,
)
from mneme.errors import NotFound
from mneme.store.codec import claim_summary, conflict_summary, ts
from mneme.store.postgres.base import PostgresBase
from mneme.store.postgres.rows import utc, utc_opt
from mneme.store.protocol import ClaimChanges, ConflictChanges

CLAIM_COLS = (
    "bank_id, id, claim_key, slot_key, subject, attribute, value, negated, status, "
    "review_status, evidence_count, evidence_refs, contradiction_refs, supersedes, "
    "superseded_by, first_evidence_at, last_evidence_at, created_at, updated_at, reviewed_at, "
    "reviewed_by, review_note"
)
EVENT_COLS = (
    "bank_id, id, target_kind, target_id, decision, actor, note, at, prior_status, "
    "prior_review_status, new_status, new_review_status, metadata"
)
TOMB_COLS = (
    "bank_id, id, content_key, claim_key, unit_id, text, reason, actor, at, lifted_at, "
    "lifted_by, evidence"
)
CONFLICT_COLS = (
    "bank_id, id, kind, pair_key, a_unit, b_unit, a_claim, b_claim, status, resolution, winner, "
    "scope_a, scope_b, question, created_at, resolved_at, resolved_by, note"
)


def _marks(n: int) -> str:
    return ",".join(["%s"] * n)


def claim_row(r: Sequence[Any]) -> ClaimRecord:
    return ClaimRecord(
        bank_id=r[0],
        id=r[1],
        claim_key=r[2],
        slot_key=r[3],
        subject=r[4],
        attribute=r[5],
        value=r[6],
        negated=bool(r[7]),
        status=ClaimStatus(r[8]),
        review_status=ReviewStatus(r[9]),
        evidence_count=int(r[10]),
        evidence_refs=tuple(r[11] or ()),
        contradiction_refs=tuple(r[12] or ()),
        supersedes=r[13],
        superseded_by=r[14],
        first_evidence_at=utc(r[15]),
        last_evidence_at=utc(r[16]),
        created_at=utc(r[17]),
        updated_at=utc(r[18]),
        reviewed_at=utc_opt(r[19]),
        reviewed_by=r[20],
        review_note=r[21],
    )


def event_row(r: Sequence[Any]) -> ReviewEvent:
    return ReviewEvent(
        bank_id=r[0],
        id=r[1],
        target_kind=r[2],
        target_id=r[3],
        decision=r[4],
        actor=r[5],
        note=r[6],
        at=utc(r[7]),
        prior_status=r[8],
        prior_review_status=r[9],
        new_status=r[10],
        new_review_status=r[11],
        metadata=r[12] or {},
    )


def tomb_row(r: Sequence[Any]) -> Tombstone:
    return Tombstone(
        bank_id=r[0],
        id=r[1],
        content_key=r[2],
        claim_key=r[3],
        unit_id=r[4],
        text=r[5],
        reason=r[6],
        actor=r[7],
        at=utc(r[8]),
        lifted_at=utc_opt(r[9]),
        lifted_by=r[10],
        evidence=tuple(r[11] or ()),
    )


def conflict_row(r: Sequence[Any]) -> ConflictRecord:
    return ConflictRecord(
        bank_id=r[0],
        id=r[1],
        kind=r[2],
        pair_key=r[3],
        a_unit=r[4],
        b_unit=r[5],
        a_claim=r[6],
        b_claim=r[7],
        status=r[8],
        resolution=Resolution(r[9]) if r[9] else None,
        winner=r[10],
        scope_a=r[11],
        scope_b=r[12],
        question=r[13],
        created_at=utc(r[14]),
        resolved_at=utc_opt(r[15]),
        resolved_by=r[16],
        note=r[17],
    )


class TrustMixin(PostgresBase):
    # -- claims -------------------------------------------------------------------------

    def put_claim(self, claim: ClaimRecord) -> None:
        c = claim
        self._w(
            f"INSERT INTO claims ({CLAIM_COLS}) VALUES ({_marks(22)})",
            (
                c.bank_id,
                c.id,
                c.claim_key,
                c.slot_key,
                c.subject,
                c.attribute,
                c.value,
                c.negated,
                c.status.value,
                c.review_status.value,
                c.evidence_count,
                Jsonb(list(c.evidence_refs)),
                Jsonb(list(c.contradiction_refs)),
                c.supersedes,
                c.superseded_by,
                utc(c.first_evidence_at),
                utc(c.last_evidence_at),
                utc(c.created_at),
                utc(c.updated_at),
                utc(c.reviewed_at),
                c.reviewed_by,
                c.review_note,
            ),
        )
        self.audit(c.bank_id, "system", "claim.put", c.id, None, claim_summary(c), "a new claim")

    def get_claim(self, bank_id: str, claim_id: str) -> ClaimRecord | None:
        return self._claim(bank_id, claim_id)

    def _claim(self, bank_id: str, claim_id: str, *, lock: bool = False) -> ClaimRecord | None:
        # FOR UPDATE: two writers appending evidence to one claim must not lose each other's.
        rows = self.db.query(
            f"SELECT {CLAIM_COLS} FROM claims WHERE bank_id = %s AND id = %s"
            + (" FOR UPDATE" if lock and self.db.in_transaction else ""),
            (bank_id, claim_id),
        )
        return claim_row(rows[0]) if rows else None

    def find_claims(
        self,
        bank_id: str,
        *,
        claim_key: str | None = None,
        slot_key: str | None = None,
        unit_id: str | None = None,
    ) -> list[ClaimRecord]:
        sql = f"SELECT {CLAIM_COLS} FROM claims c WHERE c.bank_id = %s"
        params: list[Any] = [bank_id]
        if claim_key is not None:
            sql += " AND c.claim_key = %s"
            params.append(claim_key)
        if slot_key is not None:
            sql += " AND c.slot_key = %s"
            params.append(slot_key)
        if unit_id is not None:
            sql += (
                " AND EXISTS (SELECT 1 FROM claim_units cu WHERE cu.bank_id = c.bank_id "
                "AND cu.claim_id = c.id AND cu.unit_id = %s)"
            )
            params.append(unit_id)
        rows = self.db.query(sql + " ORDER BY c.created_at, c.id", params)
        return [claim_row(r) for r in rows]

    def update_claim(
        self,
        bank_id: str,
        claim_id: str,
        changes: ClaimChanges,
        *,
        actor: str,
        reason: str,
        now: dt.datetime,
    ) -> ClaimRecord:
        before = self._claim(bank_id, claim_id, lock=True)
        if before is None:
            raise NotFound(f"no claim {claim_id} in bank {bank_id}")
        sets = ["updated_at = %s"]
        params: list[Any] = [utc(now)]
        for col, value in (
            ("status", changes.status and changes.status.value),
            ("review_status", changes.review_status and changes.review_status.value),
            ("last_evidence_at", utc(changes.last_evidence_at)),
            ("supersedes", changes.supersedes),
            ("superseded_by", changes.superseded_by),
            ("reviewed_at", utc(changes.reviewed_at)),
            ("reviewed_by", changes.reviewed_by),
            ("review_note", changes.review_note),
        ):
            if value is not None:
                sets.append(f"{col} = %s")
                params.append(value)
        if changes.add_evidence_refs:
            refs = list(dict.fromkeys([*before.evidence_refs, *changes.add_evidence_refs]))
            added = len(refs) - len(before.evidence_refs)
            sets += ["evidence_refs = %s", "evidence_count = %s"]
            params += [Jsonb(refs), before.evidence_count + (1 if added else 0)]
        if changes.add_contradiction_refs:
            refs = list(
                dict.fromkeys([*before.contradiction_refs, *changes.add_contradiction_refs])
            )
            sets.append("contradiction_refs = %s")
            params.append(Jsonb(refs))
        self._w(
            f"UPDATE claims SET {', '.join(sets)} WHERE bank_id = %s AND id = %s",
            (*params, bank_id, claim_id),
        )
        after = self._claim(bank_id, claim_id)
        assert after is not None
        self.audit(
            bank_id,
            actor,
            "claim.update",
            claim_id,
            claim_summary(before),
            claim_summary(after),
            reason,
        )
        return after

    def link_claim_unit(self, bank_id: str, claim_id: str, unit_id: str) -> None:
        self._w(
            "INSERT INTO claim_units (bank_id, claim_id, unit_id) VALUES (%s, %s, %s) "
            "ON CONFLICT DO NOTHING",
            (bank_id, claim_id, unit_id),
        )

    def claim_unit_ids(self, bank_id: str, claim_id: str) -> list[str]:
        rows = self.db.query(
            "SELECT unit_id FROM claim_units WHERE bank_id = %s AND claim_id = %s ORDER BY unit_id",
            (bank_id, claim_id),
        )
        return [r[0] for r in rows]

    def review_queue(
        self, bank_id: str, review_statuses: Sequence[ReviewStatus], limit: int
    ) -> list[ClaimRecord]:
        rows = self.db.query(
            f"SELECT {CLAIM_COLS} FROM claims WHERE bank_id = %s "
            "AND review_status = ANY(%s::text[]) ORDER BY updated_at DESC, id DESC LIMIT %s",
            (bank_id, [s.value for s in review_statuses], limit),
        )
        return [claim_row(r) for r in rows]

    # -- review events (append-only) ----------------------------------------------------

    def put_review_event(self, event: ReviewEvent) -> None:
        e = event
        self._w(
            f"INSERT INTO review_events ({EVENT_COLS}) VALUES ({_marks(13)})",
            (
                e.bank_id,
                e.id,
                e.target_kind,
                e.target_id,
                e.decision,
                e.actor,
                e.note,
                utc(e.at),
                e.prior_status,
                e.prior_review_status,
                e.new_status,
                e.new_review_status,
                Jsonb(dict(e.metadata)),
            ),
        )
        self.audit(
            e.bank_id,
            e.actor,
            f"review.{e.decision}",
            e.target_id,
            {"status": e.prior_status, "review_status": e.prior_review_status},
            {"status": e.new_status, "review_status": e.new_review_status},
            e.note,
        )

    def review_events(self, bank_id: str, target_id: str) -> list[ReviewEvent]:
        rows = self.db.query(
            f"SELECT {EVENT_COLS} FROM review_events WHERE bank_id = %s AND target_id = %s "
            "ORDER BY seq",
            (bank_id, target_id),
        )
        return [event_row(r) for r in rows]

    def review_events_caused_by(self, bank_id: str, event_id: str) -> list[ReviewEvent]:
        rows = self.db.query(
            f"SELECT {EVENT_COLS} FROM review_events WHERE bank_id = %s "
            "AND metadata ->> 'cause' = %s ORDER BY seq",
            (bank_id, event_id),
        )
        return [event_row(r) for r in rows]

    # -- tombstones ---------------------------------------------------------------------

    def put_tombstone(self, tombstone: Tombstone) -> None:
        t = tombstone
        self._w(
            f"INSERT INTO tombstones ({TOMB_COLS}) VALUES ({_marks(12)})",
            (
                t.bank_id,
                t.id,
                t.content_key,
                t.claim_key,
                t.unit_id,
                t.text,
                t.reason,
                t.actor,
                utc(t.at),
                utc(t.lifted_at),
                t.lifted_by,
                Jsonb(list(t.evidence)),
            ),
        )
        self.audit(
            t.bank_id,
            t.actor,
            "tombstone.put",
            t.id,
            None,
            {
                "unit_id": t.unit_id,
                "content_key": t.content_key,
                "claim_key": t.claim_key,
                "text": t.text,
            },
            t.reason,
        )

    def has_tombstones(self, bank_id: str) -> bool:
        return bool(
            self.db.query("SELECT 1 FROM tombstones WHERE bank_id = %s LIMIT 1", (bank_id,))
        )

    def find_tombstones(
        self,
        bank_id: str,
        *,
        content_key: str | None = None,
        claim_key: str | None = None,
        unit_id: str | None = None,
        live_only: bool = True,
    ) -> list[Tombstone]:
        keys = [("content_key", content_key), ("claim_key", claim_key), ("unit_id", unit_id)]
        wanted = [(c, v) for c, v in keys if v is not None]
        if not wanted:
            return []
        match = " OR ".join(f"{c} = %s" for c, _ in wanted)
        rows = self.db.query(
            f"SELECT {TOMB_COLS} FROM tombstones WHERE bank_id = %s AND ({match})"
            + (" AND lifted_at IS NULL" if live_only else "")
            + " ORDER BY at, id",
            (bank_id, *[v for _, v in wanted]),
        )
        return [tomb_row(r) for r in rows]

    def update_tombstone(
        self,
        bank_id: str,
        tombstone_id: str,
        *,
        lifted_at: dt.datetime | None,
        lifted_by: str | None,
        add_evidence: tuple[str, ...] = (),
    ) -> None:
        rows = self.db.query(
            f"SELECT {TOMB_COLS} FROM tombstones WHERE bank_id = %s AND id = %s"
            + (" FOR UPDATE" if self.db.in_transaction else ""),
            (bank_id, tombstone_id),
        )
        if not rows:
            raise NotFound(f"no tombstone {tombstone_id} in bank {bank_id}")
        before = tomb_row(rows[0])
        evidence = list(dict.fromkeys([*before.evidence, *add_evidence]))
        self._w(
            "UPDATE tombstones SET lifted_at = coalesce(%s, lifted_at), "
            "lifted_by = coalesce(%s, lifted_by), evidence = %s WHERE bank_id = %s AND id = %s",
            (utc(lifted_at), lifted_by, Jsonb(evidence), bank_id, tombstone_id),
        )
        self.audit(
            bank_id,
            lifted_by or "system",
            "tombstone.lift" if lifted_at else "tombstone.evidence",
            tombstone_id,
            {"lifted_at": ts(before.lifted_at), "evidence": list(before.evidence)},
            {"lifted_at": ts(lifted_at) or ts(before.lifted_at), "evidence": evidence},
            "restore" if lifted_at else "the rejected value was asserted again",
        )

    # -- conflicts ----------------------------------------------------------------------

    def put_conflict(self, conflict: ConflictRecord) -> None:
        c = conflict
        self._w(
            f"INSERT INTO conflicts ({CONFLICT_COLS}) VALUES ({_marks(18)})",
            (
                c.bank_id,
                c.id,
                c.kind,
                c.pair_key,
                c.a_unit,
                c.b_unit,
                c.a_claim,
                c.b_claim,
                c.status,
                c.resolution.value if c.resolution else None,
                c.winner,
                c.scope_a,
                c.scope_b,
                c.question,
                utc(c.created_at),
                utc(c.resolved_at),
                c.resolved_by,
                c.note,
            ),
        )
        self.audit(
            c.bank_id,
            "system",
            "conflict.open",
            c.id,
            None,
            # The question quotes both memories: content, so in the erasable part (ADR 0008).
            {**conflict_summary(c), "question": c.question},
            c.kind,
        )

    def get_conflict(self, bank_id: str, conflict_id: str) -> ConflictRecord | None:
        return self._conflict(bank_id, conflict_id)

    def _conflict(
        self, bank_id: str, conflict_id: str, *, lock: bool = False
    ) -> ConflictRecord | None:
        rows = self.db.query(
            f"SELECT {CONFLICT_COLS} FROM conflicts WHERE bank_id = %s AND id = %s"
            + (" FOR UPDATE" if lock and self.db.in_transaction else ""),
            (bank_id, conflict_id),
        )
        return conflict_row(rows[0]) if rows else None

    def list_conflicts(
        self,
        bank_id: str,
        *,
        status: str | None,
        unit_id: str | None = None,
        pair_key: str | None = None,
        limit: int = 100,
    ) -> list[ConflictRecord]:
        sql = f"SELECT {CONFLICT_COLS} FROM conflicts WHERE bank_id = %s"
        params: list[Any] = [bank_id]
        if status is not None:
            sql += " AND status = %s"
            params.append(status)
        if unit_id is not None:
            sql += " AND (a_unit = %s OR b_unit = %s)"
            params += [unit_id, unit_id]
        if pair_key is not None:
            sql += " AND pair_key = %s"
            params.append(pair_key)
        rows = self.db.query(sql + " ORDER BY created_at, id LIMIT %s", (*params, limit))
        return [conflict_row(r) for r in rows]

    def update_conflict(
        self, bank_id: str, conflict_id: str, changes: ConflictChanges, *, actor: str, reason: str
    ) -> ConflictRecord:
        before = self._conflict(bank_id, conflict_id, lock=True)
        if before is None:
            raise NotFound(f"no conflict {conflict_id} in bank {bank_id}")
        sets: list[str] = []
        params: list[Any] = []
        for col, value in (
            ("status", changes.status),
            ("resolution", changes.resolution and changes.resolution.value),
            ("winner", changes.winner),
            ("scope_a", changes.scope_a),
            ("scope_b", changes.scope_b),
            ("resolved_at", utc(changes.resolved_at)),
            ("resolved_by", changes.resolved_by),
            ("note", changes.note),
        ):
            if value is not None:
                sets.append(f"{col} = %s")
                params.append(value)
        if sets:
            self._w(
                f"UPDATE conflicts SET {', '.join(sets)} WHERE bank_id = %s AND id = %s",
                (*params, bank_id, conflict_id),
            )
        after = self._conflict(bank_id, conflict_id)
        assert after is not None
        self.audit(
            bank_id,
            actor,
            "conflict.update",
            conflict_id,
            conflict_summary(before),
            conflict_summary(after),
            reason,
        )
        return after

    # -- adopted rules ------------------------------------------------------------------

    def put_rule(self, rule: Rule) -> None:
        self._w(
            "INSERT INTO adopted_rules (bank_id, id, kind, attribute, decision, text, precedents, "
            f"adopted_by, adopted_at, retired_at) VALUES ({_marks(10)})",
            (
                rule.bank_id,
                rule.id,
                rule.kind,
                rule.attribute,
                rule.decision,
                rule.text,
                rule.precedents,
                rule.adopted_by,
                utc(rule.adopted_at),
                utc(rule.retired_at),
            ),
        )
        self.audit(
            rule.bank_id,
            rule.adopted_by,
            "rule.adopt",
            rule.id,
            None,
            {
                "kind": rule.kind,
                "attribute": rule.attribute,
                "decision": rule.decision,
                "text": rule.text,
            },
            f"{rule.precedents} identical settlements",
        )

    def list_rules(self, bank_id: str) -> list[Rule]:
        rows = self.db.query(
            "SELECT bank_id, id, kind, attribute, decision, text, precedents, adopted_by, "
            "adopted_at, retired_at FROM adopted_rules WHERE bank_id = %s "
            "ORDER BY adopted_at, id",
            (bank_id,),
        )
        return [
            Rule(
                bank_id=r[0],
                id=r[1],
                kind=r[2],
                attribute=r[3],
                decision=r[4],
                text=r[5],
                precedents=int(r[6]),
                adopted_by=r[7],
                adopted_at=utc(r[8]),
                retired_at=utc_opt(r[9]),
            )
            for r in rows
        ]
