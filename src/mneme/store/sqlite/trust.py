"""Trust in SQLite: claims with two status axes, review events, tombstones and conflicts."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Any

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
from mneme.store.codec import claim_summary, conflict_summary, dumps, loads, parse_ts, ts
from mneme.store.protocol import ClaimChanges, ConflictChanges
from mneme.store.sqlite.base import SQLiteBase
from mneme.store.sqlite.rows import epoch

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
        evidence_refs=tuple(loads(r[11], [])),
        contradiction_refs=tuple(loads(r[12], [])),
        supersedes=r[13],
        superseded_by=r[14],
        first_evidence_at=parse_ts(r[15]) or epoch(),
        last_evidence_at=parse_ts(r[16]) or epoch(),
        created_at=parse_ts(r[17]) or epoch(),
        updated_at=parse_ts(r[18]) or epoch(),
        reviewed_at=parse_ts(r[19]),
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
        at=parse_ts(r[7]) or epoch(),
        prior_status=r[8],
        prior_review_status=r[9],
        new_status=r[10],
        new_review_status=r[11],
        metadata=loads(r[12], {}),
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
        at=parse_ts(r[8]) or epoch(),
        lifted_at=parse_ts(r[9]),
        lifted_by=r[10],
        evidence=tuple(loads(r[11], [])),
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
        created_at=parse_ts(r[14]) or epoch(),
        resolved_at=parse_ts(r[15]),
        resolved_by=r[16],
        note=r[17],
    )


class TrustMixin(SQLiteBase):
    # -- claims -------------------------------------------------------------------------

    def put_claim(self, claim: ClaimRecord) -> None:
        self._w(
            f"INSERT INTO claims ({CLAIM_COLS}) VALUES ({','.join('?' * 22)})",
            (
                claim.bank_id,
                claim.id,
                claim.claim_key,
                claim.slot_key,
                claim.subject,
                claim.attribute,
                claim.value,
                int(claim.negated),
                claim.status.value,
                claim.review_status.value,
                claim.evidence_count,
                dumps(list(claim.evidence_refs)),
                dumps(list(claim.contradiction_refs)),
                claim.supersedes,
                claim.superseded_by,
                ts(claim.first_evidence_at),
                ts(claim.last_evidence_at),
                ts(claim.created_at),
                ts(claim.updated_at),
                ts(claim.reviewed_at),
                claim.reviewed_by,
                claim.review_note,
            ),
        )
        self.audit(
            claim.bank_id,
            "system",
            "claim.put",
            claim.id,
            None,
            claim_summary(claim),
            "a new claim",
        )

    def get_claim(self, bank_id: str, claim_id: str) -> ClaimRecord | None:
        rows = self.db.query(
            f"SELECT {CLAIM_COLS} FROM claims WHERE bank_id = ? AND id = ?", (bank_id, claim_id)
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
        sql = f"SELECT {CLAIM_COLS} FROM claims c WHERE c.bank_id = ?"
        params: list[Any] = [bank_id]
        if claim_key is not None:
            sql += " AND c.claim_key = ?"
            params.append(claim_key)
        if slot_key is not None:
            sql += " AND c.slot_key = ?"
            params.append(slot_key)
        if unit_id is not None:
            # Driven from the unit's claim links (an EXISTS per claim scanned the bank's
            # claims: 12 ms per call at 10k units).
            sql += (
                " AND c.id IN (SELECT cu.claim_id FROM claim_units cu "
                "INDEXED BY claim_units_unit WHERE cu.bank_id = ? AND cu.unit_id = ?)"
            )
            params += [bank_id, unit_id]
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
        before = self.get_claim(bank_id, claim_id)
        if before is None:
            raise NotFound(f"no claim {claim_id} in bank {bank_id}")
        sets = ["updated_at = ?"]
        params: list[Any] = [ts(now)]
        for col, value in (
            ("status", changes.status and changes.status.value),
            ("review_status", changes.review_status and changes.review_status.value),
            ("last_evidence_at", ts(changes.last_evidence_at)),
            ("supersedes", changes.supersedes),
            ("superseded_by", changes.superseded_by),
            ("reviewed_at", ts(changes.reviewed_at)),
            ("reviewed_by", changes.reviewed_by),
            ("review_note", changes.review_note),
        ):
            if value is not None:
                sets.append(f"{col} = ?")
                params.append(value)
        if changes.add_evidence_refs:
            refs = list(dict.fromkeys([*before.evidence_refs, *changes.add_evidence_refs]))
            sets += ["evidence_refs = ?", "evidence_count = ?"]
            added = len(refs) - len(before.evidence_refs)
            params += [dumps(refs), before.evidence_count + (1 if added else 0)]
        if changes.add_contradiction_refs:
            refs = list(
                dict.fromkeys([*before.contradiction_refs, *changes.add_contradiction_refs])
            )
            sets.append("contradiction_refs = ?")
            params.append(dumps(refs))
        self._w(
            f"UPDATE claims SET {', '.join(sets)} WHERE bank_id = ? AND id = ?",
            (*params, bank_id, claim_id),
        )
        after = self.get_claim(bank_id, claim_id)
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
            "INSERT INTO claim_units VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
            (bank_id, claim_id, unit_id),
        )

    def claim_unit_ids(self, bank_id: str, claim_id: str) -> list[str]:
        return [
            r[0]
            for r in self.db.query(
                "SELECT unit_id FROM claim_units WHERE bank_id = ? AND claim_id = ? "
                "ORDER BY unit_id",
                (bank_id, claim_id),
            )
        ]

    def review_queue(
        self, bank_id: str, review_statuses: Sequence[ReviewStatus], limit: int
    ) -> list[ClaimRecord]:
        marks = ",".join("?" * len(review_statuses)) or "NULL"
        rows = self.db.query(
            f"SELECT {CLAIM_COLS} FROM claims WHERE bank_id = ? AND review_status IN ({marks}) "
            "ORDER BY updated_at DESC, id DESC LIMIT ?",
            (bank_id, *[s.value for s in review_statuses], limit),
        )
        return [claim_row(r) for r in rows]

    # -- review events (append-only) ----------------------------------------------------

    def put_review_event(self, event: ReviewEvent) -> None:
        self._w(
            f"INSERT INTO review_events ({EVENT_COLS}) VALUES ({','.join('?' * 13)})",
            (
                event.bank_id,
                event.id,
                event.target_kind,
                event.target_id,
                event.decision,
                event.actor,
                event.note,
                ts(event.at),
                event.prior_status,
                event.prior_review_status,
                event.new_status,
                event.new_review_status,
                dumps(dict(event.metadata)),
            ),
        )
        self.audit(
            event.bank_id,
            event.actor,
            f"review.{event.decision}",
            event.target_id,
            {"status": event.prior_status, "review_status": event.prior_review_status},
            {"status": event.new_status, "review_status": event.new_review_status},
            event.note,
        )

    def review_events(self, bank_id: str, target_id: str) -> list[ReviewEvent]:
        rows = self.db.query(
            f"SELECT {EVENT_COLS} FROM review_events WHERE bank_id = ? AND target_id = ? "
            "ORDER BY seq",
            (bank_id, target_id),
        )
        return [event_row(r) for r in rows]

    def review_events_caused_by(self, bank_id: str, event_id: str) -> list[ReviewEvent]:
        rows = self.db.query(
            f"SELECT {EVENT_COLS} FROM review_events WHERE bank_id = ? "
            "AND json_extract(metadata, '$.cause') = ? ORDER BY seq",
            (bank_id, event_id),
        )
        return [event_row(r) for r in rows]

    # -- tombstones ---------------------------------------------------------------------

    def put_tombstone(self, tombstone: Tombstone) -> None:
        t = tombstone
        self._forget(("tombstones", t.bank_id))
        self._w(
            f"INSERT INTO tombstones ({TOMB_COLS}) VALUES ({','.join('?' * 12)})",
            (
                t.bank_id,
                t.id,
                t.content_key,
                t.claim_key,
                t.unit_id,
                t.text,
                t.reason,
                t.actor,
                ts(t.at),
                ts(t.lifted_at),
                t.lifted_by,
                dumps(list(t.evidence)),
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
        # Most banks hold no tombstone at all: inside a write transaction that is read once.
        return bool(
            self._memoized(
                ("tombstones", bank_id),
                lambda: bool(
                    self.db.query("SELECT 1 FROM tombstones WHERE bank_id = ? LIMIT 1", (bank_id,))
                ),
            )
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
        if not self.has_tombstones(bank_id):
            return []
        match = " OR ".join(f"{c} = ?" for c, _ in wanted)
        rows = self.db.query(
            f"SELECT {TOMB_COLS} FROM tombstones WHERE bank_id = ? AND ({match})"
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
            f"SELECT {TOMB_COLS} FROM tombstones WHERE bank_id = ? AND id = ?",
            (bank_id, tombstone_id),
        )
        if not rows:
            raise NotFound(f"no tombstone {tombstone_id} in bank {bank_id}")
        before = tomb_row(rows[0])
        evidence = list(dict.fromkeys([*before.evidence, *add_evidence]))
        self._w(
            "UPDATE tombstones SET lifted_at = coalesce(?, lifted_at), "
            "lifted_by = coalesce(?, lifted_by), evidence = ? WHERE bank_id = ? AND id = ?",
            (ts(lifted_at), lifted_by, dumps(evidence), bank_id, tombstone_id),
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
            f"INSERT INTO conflicts ({CONFLICT_COLS}) VALUES ({','.join('?' * 18)})",
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
                ts(c.created_at),
                ts(c.resolved_at),
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
        rows = self.db.query(
            f"SELECT {CONFLICT_COLS} FROM conflicts WHERE bank_id = ? AND id = ?",
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
        where = "bank_id = ?"
        params: list[Any] = [bank_id]
        if status is not None:
            where += " AND status = ?"
            params.append(status)
        if pair_key is not None:
            where += " AND pair_key = ?"
            params.append(pair_key)
        if unit_id is None:
            sql = f"SELECT {CONFLICT_COLS} FROM conflicts WHERE {where}"
        else:
            # One indexed lookup per side: with "a_unit = ? OR b_unit = ?" the planner walked
            # the (bank, status, created_at) index through every open conflict of the bank.
            sql = (
                f"SELECT {CONFLICT_COLS} FROM conflicts INDEXED BY conflicts_a_unit "
                f"WHERE {where} AND a_unit = ? UNION "
                f"SELECT {CONFLICT_COLS} FROM conflicts INDEXED BY conflicts_b_unit "
                f"WHERE {where} AND b_unit = ?"
            )
            params = [*params, unit_id, *params, unit_id]
        rows = self.db.query(sql + " ORDER BY created_at, id LIMIT ?", (*params, limit))
        return [conflict_row(r) for r in rows]

    def update_conflict(
        self, bank_id: str, conflict_id: str, changes: ConflictChanges, *, actor: str, reason: str
    ) -> ConflictRecord:
        before = self.get_conflict(bank_id, conflict_id)
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
            ("resolved_at", ts(changes.resolved_at)),
            ("resolved_by", changes.resolved_by),
            ("note", changes.note),
        ):
            if value is not None:
                sets.append(f"{col} = ?")
                params.append(value)
        if sets:
            self._w(
                f"UPDATE conflicts SET {', '.join(sets)} WHERE bank_id = ? AND id = ?",
                (*params, bank_id, conflict_id),
            )
        after = self.get_conflict(bank_id, conflict_id)
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
            "adopted_by, adopted_at, retired_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                rule.bank_id,
                rule.id,
                rule.kind,
                rule.attribute,
                rule.decision,
                rule.text,
                rule.precedents,
                rule.adopted_by,
                ts(rule.adopted_at),
                ts(rule.retired_at),
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
            "adopted_at, retired_at FROM adopted_rules WHERE bank_id = ? ORDER BY adopted_at, id",
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
                adopted_at=parse_ts(r[8]) or epoch(),
                retired_at=parse_ts(r[9]),
            )
            for r in rows
        ]
