"""Claims, review events, tombstones, conflicts and adopted rules: the store's trust methods."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

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
from mneme.errors import MnemeError, NotFound
from mneme.store.protocol import ClaimChanges, ConflictChanges, Store

H = dt.timedelta(hours=1)


def claim(make: Any, cid: str, value: str, *, at_h: int = 0, **kw: Any) -> ClaimRecord:
    at = make.t0 + at_h * H
    record = ClaimRecord(
        id=cid,
        bank_id=kw.pop("bank_id", "b1"),
        claim_key=kw.pop("claim_key", f"alice|lives_in|{value}"),
        slot_key=kw.pop("slot_key", "alice|lives_in"),
        subject="alice",
        attribute="lives_in",
        value=value,
        negated=kw.pop("negated", False),
        status=kw.pop("status", ClaimStatus.ACTIVE),
        review_status=kw.pop("review_status", ReviewStatus.PENDING_REVIEW),
        evidence_count=1,
        evidence_refs=kw.pop("evidence_refs", ("s1",)),
        contradiction_refs=(),
        first_evidence_at=at,
        last_evidence_at=at,
        created_at=at,
        updated_at=at,
        **kw,
    )
    with make.store.transaction():
        make.store.trust.put_claim(record)
    return record


def event(make: Any, eid: str, target: str, decision: str, **kw: Any) -> ReviewEvent:
    record = ReviewEvent(
        id=eid,
        bank_id=kw.pop("bank_id", "b1"),
        target_kind=kw.pop("target_kind", "claim"),
        target_id=target,
        decision=decision,
        actor=kw.pop("actor", "pat"),
        at=kw.pop("at", make.t0),
        **kw,
    )
    with make.store.transaction():
        make.store.trust.put_review_event(record)
    return record


def conflict(make: Any, cid: str, a: str, b: str, *, at_h: int = 0, **kw: Any) -> ConflictRecord:
    record = ConflictRecord(
        id=cid,
        bank_id="b1",
        kind=kw.pop("kind", "value"),
        pair_key=kw.pop("pair_key", f"{a}:{b}"),
        a_unit=a,
        b_unit=b,
        status=kw.pop("status", "open"),
        created_at=make.t0 + at_h * H,
        **kw,
    )
    with make.store.transaction():
        make.store.trust.put_conflict(record)
    return record


def test_put_claim_round_trips_every_field_and_is_located(store: Store, make: Any) -> None:
    make.bank()
    c = claim(
        make,
        "c1",
        "lisbon",
        negated=True,
        supersedes="c0",
        superseded_by="c2",
        reviewed_at=make.t0 + H,
        reviewed_by="pat",
        review_note="checked",
        review_status=ReviewStatus.APPROVED,
    )
    assert store.trust.get_claim("b1", "c1") == c
    assert store.trust.get_claim("b2", "c1") is None
    assert store.trust.get_claim("b1", "nope") is None
    assert store.memories.locate("c1") == "b1"
    with pytest.raises(MnemeError), store.transaction():
        store.trust.put_claim(c)  # one claim per (bank, claim_key)


def test_find_claims_by_key_slot_and_unit_in_creation_order(store: Store, make: Any) -> None:
    make.bank()
    u = make.unit("Alice lives in Porto")
    porto = claim(make, "c2", "porto", at_h=1)
    lisbon = claim(make, "c1", "lisbon")
    claim(make, "c3", "ann", slot_key="bob|lives_in", claim_key="bob|lives_in|ann")
    with store.transaction():
        store.trust.link_claim_unit("b1", porto.id, u.id)
        store.trust.link_claim_unit("b1", porto.id, u.id)  # idempotent
        store.trust.link_claim_unit("b1", porto.id, "u-other")
    assert store.trust.find_claims("b1", slot_key="alice|lives_in") == [lisbon, porto]
    assert store.trust.find_claims("b1", claim_key=porto.claim_key) == [porto]
    assert store.trust.find_claims("b1", unit_id=u.id) == [porto]
    assert store.trust.find_claims("b1", slot_key="alice|lives_in", unit_id="u-other") == [porto]
    assert [c.id for c in store.trust.find_claims("b1")] == ["c1", "c3", "c2"]  # created_at, id
    assert store.trust.find_claims("b2", slot_key="alice|lives_in") == []
    assert store.trust.claim_unit_ids("b1", porto.id) == sorted([u.id, "u-other"])
    assert store.trust.claim_unit_ids("b1", lisbon.id) == []
    # A slot's units in one query: claim by claim (created_at, id), each claim's by id.
    with store.transaction():
        store.trust.link_claim_unit("b1", lisbon.id, "u-z")
    assert store.trust.slot_unit_ids("b1", "alice|lives_in") == [
        "u-z",
        *sorted([u.id, "u-other"]),
    ]
    assert store.trust.slot_unit_ids("b1", "bob|lives_in") == []
    assert store.trust.slot_unit_ids("b2", "alice|lives_in") == []


def test_update_claim_merges_refs_counts_new_evidence_once_and_is_audited(
    store: Store, make: Any
) -> None:
    make.bank()
    claim(make, "c1", "lisbon")
    later = make.t0 + 2 * H
    with store.transaction():
        after = store.trust.update_claim(
            "b1",
            "c1",
            ClaimChanges(
                add_evidence_refs=("s1", "s2", "u9"),
                add_contradiction_refs=("c7",),
                last_evidence_at=later,
                status=ClaimStatus.SUPERSEDED,
                review_status=ReviewStatus.SUPERSEDED,
                superseded_by="c8",
                reviewed_at=later,
                reviewed_by="pat",
                review_note="moved",
            ),
            actor="pat",
            reason="test",
            now=later,
        )
        again = store.trust.update_claim(
            "b1",
            "c1",
            ClaimChanges(add_evidence_refs=("s2",), add_contradiction_refs=("c7",)),
            actor="pat",
            reason="repeat",
            now=later,
        )
    assert after.evidence_refs == ("s1", "s2", "u9")
    assert after.evidence_count == 2  # one more piece of evidence per update that adds any
    assert again.evidence_count == 2
    assert after.contradiction_refs == ("c7",)
    assert (after.status, after.review_status) == (ClaimStatus.SUPERSEDED, ReviewStatus.SUPERSEDED)
    assert (after.superseded_by, after.reviewed_by, after.review_note) == ("c8", "pat", "moved")
    assert after.updated_at == later
    assert after.last_evidence_at == later
    assert store.trust.get_claim("b1", "c1") == again
    ops = [r.op for r in store.audit.records("b1", target="c1")]
    assert ops == ["claim.put", "claim.update", "claim.update"]
    with pytest.raises(NotFound), store.transaction():
        store.trust.update_claim("b1", "nope", ClaimChanges(), actor="x", reason="", now=later)


def test_review_queue_is_newest_first_filtered_by_review_status(store: Store, make: Any) -> None:
    make.bank()
    make.bank("b2")
    claim(make, "c1", "a", at_h=1)
    claim(make, "c2", "b", at_h=3)
    claim(make, "c3", "c", at_h=2, review_status=ReviewStatus.APPROVED)
    claim(make, "c4", "d", at_h=5, bank_id="b2")
    pending = [ReviewStatus.PENDING_REVIEW]
    assert [c.id for c in store.trust.review_queue("b1", pending, 10)] == ["c2", "c1"]
    both = [ReviewStatus.PENDING_REVIEW, ReviewStatus.APPROVED]
    assert [c.id for c in store.trust.review_queue("b1", both, 10)] == ["c2", "c3", "c1"]
    assert [c.id for c in store.trust.review_queue("b1", both, 1)] == ["c2"]
    assert store.trust.review_queue("b1", [], 10) == []


def test_review_events_are_kept_in_order_and_found_by_cause(store: Store, make: Any) -> None:
    make.bank()
    first = event(
        make,
        "ev1",
        "c1",
        "reject",
        note="wrong",
        prior_status="active",
        prior_review_status="pending_review",
        new_status="rejected",
        new_review_status="rejected",
        metadata={"tombstone": "t1"},
    )
    caused = event(make, "ev2", "u1", "reject", target_kind="unit", metadata={"cause": "ev1"})
    last = event(make, "ev0", "c1", "restore", at=make.t0 + H)  # ids need not sort by time
    assert store.trust.review_events("b1", "c1") == [first, last]
    assert store.trust.review_events("b1", "u1") == [caused]
    assert store.trust.review_events("b2", "c1") == []
    assert store.trust.review_events_caused_by("b1", "ev1") == [caused]
    assert store.trust.review_events_caused_by("b1", "ev2") == []
    assert [r.op for r in store.audit.records("b1", target="c1")] == [
        "review.reject",
        "review.restore",
    ]


def test_review_events_are_append_only_even_to_raw_sql(store: Store, make: Any) -> None:
    make.bank()
    event(make, "ev1", "c1", "approve")
    with pytest.raises(MnemeError, match="append-only"), store.transaction():
        store.db.execute("UPDATE review_events SET decision = 'reject'")  # type: ignore[attr-defined]
    with pytest.raises(MnemeError, match="append-only"), store.transaction():
        store.db.execute("DELETE FROM review_events")  # type: ignore[attr-defined]
    assert [e.decision for e in store.trust.review_events("b1", "c1")] == ["approve"]


def test_tombstones_match_any_key_and_lifting_hides_them_from_live_lookups(
    store: Store, make: Any
) -> None:
    make.bank()
    t1 = Tombstone(
        id="t1",
        bank_id="b1",
        text="Alice lives in Lisbon",
        reason="wrong",
        actor="pat",
        at=make.t0,
        content_key="ck1",
        claim_key="alice|lives_in|lisbon",
        unit_id="u1",
    )
    t2 = Tombstone(
        id="t2", bank_id="b1", text="x", reason="r", actor="pat", at=make.t0 + H, content_key="ck2"
    )
    with store.transaction():
        store.trust.put_tombstone(t1)
        store.trust.put_tombstone(t2)
    assert store.trust.find_tombstones("b1", content_key="ck1") == [t1]
    assert store.trust.find_tombstones("b1", claim_key="alice|lives_in|lisbon") == [t1]
    assert store.trust.find_tombstones("b1", unit_id="u1") == [t1]
    assert store.trust.find_tombstones("b1", content_key="ck2", unit_id="u1") == [t1, t2]
    assert store.trust.find_tombstones("b1") == []
    assert store.trust.find_tombstones("b2", content_key="ck1") == []
    with store.transaction():
        store.trust.update_tombstone(
            "b1", "t1", lifted_at=None, lifted_by=None, add_evidence=("s9",)
        )
        store.trust.update_tombstone(
            "b1", "t1", lifted_at=None, lifted_by=None, add_evidence=("s9",)
        )
    assert store.trust.find_tombstones("b1", unit_id="u1")[0].evidence == ("s9",)
    lifted_at = make.t0 + 2 * H
    with store.transaction():
        store.trust.update_tombstone("b1", "t1", lifted_at=lifted_at, lifted_by="pat")
    assert store.trust.find_tombstones("b1", unit_id="u1") == []
    (gone,) = store.trust.find_tombstones("b1", unit_id="u1", live_only=False)
    assert (gone.lifted_at, gone.lifted_by, gone.evidence) == (lifted_at, "pat", ("s9",))
    ops = [r.op for r in store.audit.records("b1", target="t1")]
    assert ops == ["tombstone.put", "tombstone.evidence", "tombstone.evidence", "tombstone.lift"]
    with pytest.raises(NotFound), store.transaction():
        store.trust.update_tombstone("b1", "nope", lifted_at=None, lifted_by=None)


def test_conflicts_round_trip_filter_resolve_and_are_located(store: Store, make: Any) -> None:
    make.bank()
    c1 = conflict(make, "k1", "u1", "u2", a_claim="c1", b_claim="c2", question="Which?")
    c2 = conflict(make, "k2", "u2", "u3", at_h=1, kind="numbers")
    assert store.trust.get_conflict("b1", "k1") == c1
    assert store.trust.get_conflict("b2", "k1") is None
    assert store.memories.locate("k1") == "b1"
    assert store.trust.list_conflicts("b1", status="open") == [c1, c2]
    assert store.trust.list_conflicts("b1", status="open", limit=1) == [c1]
    assert store.trust.list_conflicts("b1", status=None, unit_id="u3") == [c2]
    assert store.trust.list_conflicts("b1", status=None, unit_id="u2") == [c1, c2]
    assert store.trust.list_conflicts("b1", status=None, pair_key="u1:u2") == [c1]
    done_at = make.t0 + 3 * H
    with store.transaction():
        done = store.trust.update_conflict(
            "b1",
            "k1",
            ConflictChanges(
                status="resolved",
                resolution=Resolution.SCOPED_EXCEPTION,
                winner="u1",
                scope_a="at work",
                scope_b="at home",
                resolved_at=done_at,
                resolved_by="pat",
                note="both",
            ),
            actor="pat",
            reason="settled",
        )
    assert done.resolution == Resolution.SCOPED_EXCEPTION
    assert (done.status, done.winner, done.scope_a, done.scope_b) == (
        "resolved",
        "u1",
        "at work",
        "at home",
    )
    assert (done.resolved_at, done.resolved_by, done.note) == (done_at, "pat", "both")
    assert store.trust.get_conflict("b1", "k1") == done
    assert store.trust.list_conflicts("b1", status="open") == [c2]
    assert store.trust.list_conflicts("b1", status="resolved") == [done]
    assert [r.op for r in store.audit.records("b1", target="k1")] == [
        "conflict.open",
        "conflict.update",
    ]
    with pytest.raises(NotFound), store.transaction():
        store.trust.update_conflict("b1", "nope", ConflictChanges(), actor="x", reason="")


def test_adopted_rules_are_listed_per_bank_one_live_rule_per_pattern(
    store: Store, make: Any
) -> None:
    make.bank()

    def rule(rid: str, at_h: int, retired: bool = False) -> Rule:
        return Rule(
            id=rid,
            bank_id="b1",
            kind="value",
            attribute="lives_in",
            decision="confirm",
            text="the newer statement wins",
            precedents=3,
            adopted_by="pat",
            adopted_at=make.t0 + at_h * H,
            retired_at=make.t0 + H if retired else None,
        )

    old, live = rule("r1", 0, retired=True), rule("r2", 1)
    with store.transaction():
        store.trust.put_rule(live)
        store.trust.put_rule(old)
    assert store.trust.list_rules("b1") == [old, live]
    assert store.trust.list_rules("b2") == []
    with pytest.raises(MnemeError), store.transaction():
        store.trust.put_rule(rule("r3", 2))  # a second live rule for the same pattern
    assert [r.op for r in store.audit.records("b1", target="r2")] == ["rule.adopt"]


def test_audit_records_filter_by_target_within_a_bank(store: Store, make: Any) -> None:
    make.bank()
    make.bank("b2")
    u = make.unit("Alice lives in Lisbon")
    make.unit("Alice lives in Lisbon", bank_id="b2", id=u.id + "x")
    records = list(store.audit.records("b1", target=u.id))
    assert [r.op for r in records] == ["unit.put"]
    assert records[0].bank_id == "b1"
    assert [r.bank_id for r in store.audit.records(None, target=u.id)] == ["b1"]
    assert list(store.audit.records("b2", target=u.id)) == []
    assert list(store.audit.records("b1", target="missing")) == []
