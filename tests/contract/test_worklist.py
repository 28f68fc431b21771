"""The review worklist on both backends (ADR 0048): only what waits for a decision, with its
order, page and every filter applied in the storage query."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from mneme.core.model import (
    ClaimRecord,
    ClaimStatus,
    ConflictRecord,
    ReviewStatus,
    SweepProposal,
)
from mneme.store.protocol import Store, WorkFilter

H = dt.timedelta(hours=1)


def _claim(make: Any, cid: str, slot: str, value: str, unit: str, *, at_h: int, **kw: Any) -> None:
    at = make.t0 + at_h * H
    record = ClaimRecord(
        id=cid,
        bank_id=kw.pop("bank_id", "b1"),
        claim_key=f"{slot}|{value}",
        slot_key=slot,
        subject=slot.split("|")[0],
        attribute=slot.split("|")[1],
        value=value,
        negated=False,
        status=kw.pop("status", ClaimStatus.ACTIVE),
        review_status=kw.pop("review_status", ReviewStatus.PENDING_REVIEW),
        evidence_count=kw.pop("evidence_count", 1),
        evidence_refs=(unit,),
        contradiction_refs=(),
        first_evidence_at=at,
        last_evidence_at=at,
        created_at=at,
        updated_at=at,
    )
    with make.store.transaction():
        make.store.trust.put_claim(record)
        make.store.trust.link_claim_unit(record.bank_id, cid, unit)


def _conflict(make: Any, cid: str, a: str, b: str, *, at_h: int, status: str = "open") -> None:
    record = ConflictRecord(
        id=cid,
        bank_id="b1",
        kind="value",
        pair_key=f"{a}:{b}",
        a_unit=a,
        b_unit=b,
        status=status,
        created_at=make.t0 + at_h * H,
        question="which holds?",
    )
    with make.store.transaction():
        make.store.trust.put_conflict(record)


def _proposal(make: Any, pid: str, unit: str, *, at_h: int, status: str = "open") -> None:
    record = SweepProposal(
        id=pid,
        bank_id="b1",
        unit_id=unit,
        belief_id="belief-1",
        verdict="unsupported",
        reason="its belief is gone",
        evidence=(),
        confidence=0.4,
        status=status,
        created_at=make.t0 + at_h * H,
    )
    with make.store.transaction():
        make.store.sweeps.put_proposal(record)


@pytest.fixture
def desk(store: Store, make: Any) -> Store:
    """b1: an open conflict (Paris/Berlin, claims of its own), a contested pair (tea/coffee)
    with a superseded third value, a lone claim, a rejected value said again three times, a
    rejection already confirmed, an open and a dismissed proposal, a settled conflict; b2: the
    same contested pair (never in b1's answers)."""
    make.bank("b1")
    make.bank("b2")
    u = {
        name: make.unit(text, agent=agent, id=f"u_{name}").id
        for name, text, agent in [
            ("paris", "Alice lives in Paris.", "a1"),
            ("berlin", "Alice lives in Berlin.", "a2"),
            ("tea", "Bob drinks tea 100% of the time.", "a1"),
            ("coffee", "Bob drinks coffee.", "a2"),
            ("cocoa", "Bob drinks cocoa.", "a1"),
            ("carol", "Carol works at Initech.", "a1"),
            ("dan", "Dan's birthday is 3 March.", "a3"),
            ("erin", "Erin's birthday is 9 June.", "a3"),
            ("x", "X is y.", "a1"),
            ("z", "X is z.", "a2"),
        ]
    }
    make.unit("Bob drinks tea.", bank_id="b2", id="u_b2tea")
    make.unit("Bob drinks coffee.", bank_id="b2", id="u_b2coffee", agent="a2")
    _claim(make, "c_paris", "alice|lives_in", "paris", u["paris"], at_h=1)
    _claim(make, "c_berlin", "alice|lives_in", "berlin", u["berlin"], at_h=2)
    _conflict(make, "cfl_open", u["paris"], u["berlin"], at_h=2)
    _claim(make, "c_tea", "bob|drinks", "tea", u["tea"], at_h=3)
    _claim(make, "c_coffee", "bob|drinks", "coffee", u["coffee"], at_h=4)
    _claim(make, "c_cocoa", "bob|drinks", "cocoa", u["cocoa"], at_h=5,
           status=ClaimStatus.SUPERSEDED, review_status=ReviewStatus.SUPERSEDED)  # fmt: skip
    _claim(make, "c_carol", "carol|works_at", "initech", u["carol"], at_h=6)
    _claim(make, "c_dan", "dan|birthday", "3 march", u["dan"], at_h=7, evidence_count=3,
           status=ClaimStatus.REJECTED)  # fmt: skip
    _claim(make, "c_erin", "erin|birthday", "9 june", u["erin"], at_h=8,
           status=ClaimStatus.REJECTED, review_status=ReviewStatus.REJECTED)  # fmt: skip
    _proposal(make, "prop_open", u["tea"], at_h=9)
    _proposal(make, "prop_done", u["coffee"], at_h=10, status="dismissed")
    _conflict(make, "cfl_done", u["x"], u["z"], at_h=11, status="resolved")
    _claim(make, "c_b2tea", "bob|drinks", "tea", "u_b2tea", at_h=12, bank_id="b2")
    _claim(make, "c_b2coffee", "bob|drinks", "coffee", "u_b2coffee", at_h=13, bank_id="b2")
    return store


def _ids(store: Store, **kw: Any) -> list[str]:
    return [r.id for r in store.trust.review_worklist("b1", WorkFilter(**kw))]


def test_the_worklist_holds_only_what_waits_for_a_decision_newest_first(desk: Store) -> None:
    rows = desk.trust.review_worklist("b1", WorkFilter())
    assert [(r.kind, r.id) for r in rows] == [
        ("proposal", "prop_open"),
        ("reasserted", "c_dan"),
        ("contested", "c_coffee"),
        ("contested", "c_tea"),
        ("question", "cfl_open"),
    ]
    assert rows[0].at > rows[-1].at
    counts = desk.trust.review_counts("b1", WorkFilter())
    assert counts == {"question": 1, "contested": 2, "reasserted": 1, "proposal": 1}
    assert desk.trust.review_counts("b2", WorkFilter())["contested"] == 2


def test_the_worklist_orders_by_contest_pages_and_keeps_kinds(desk: Store) -> None:
    assert _ids(desk, sort="most_contested")[0] == "c_dan"  # said three times
    assert _ids(desk, limit=2) == ["prop_open", "c_dan"]
    assert _ids(desk, limit=2, offset=2) == ["c_coffee", "c_tea"]
    assert _ids(desk, offset=5) == []
    assert _ids(desk, kinds=("question", "proposal")) == ["prop_open", "cfl_open"]
    assert _ids(desk, kinds=()) == []


def test_the_worklist_filters_by_author_and_literal_text_in_the_query(desk: Store) -> None:
    assert _ids(desk, author="a2") == ["c_coffee", "cfl_open"]  # Berlin is a2's side
    assert _ids(desk, author="nobody") == []
    assert _ids(desk, text="TEA") == ["prop_open", "c_tea"]
    assert _ids(desk, text="100%") == ["prop_open", "c_tea"]
    assert _ids(desk, text="1_0") == []  # LIKE's wildcards are taken literally
    counts = desk.trust.review_counts("b1", WorkFilter(author="a3"))
    assert counts == {"question": 0, "contested": 0, "reasserted": 1, "proposal": 0}
