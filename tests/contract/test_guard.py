"""The guard on rejected units and claims: only a review decision brings one back to life.

Every path other than a restore or approve event, newest for its target and naming the very
status being set, must fail on both backends: the store's update methods and raw SQL alike.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from mneme.core.model import ClaimRecord, ClaimStatus, ReviewEvent, ReviewStatus, UnitStatus
from mneme.errors import MnemeError
from mneme.store.protocol import ClaimChanges, Store, UnitChanges

LIVE_ONLY_BY_REVIEW = "becomes live only through a review decision"


def _event(store: Store, eid: str, target: str, kind: str, decision: str, new: str) -> None:
    with store.transaction():
        store.trust.put_review_event(
            ReviewEvent(
                id=eid,
                bank_id="b1",
                target_kind=kind,
                target_id=target,
                decision=decision,
                actor="pat",
                at=dt.datetime(2024, 3, 5, tzinfo=dt.UTC),
                prior_status="rejected",
                new_status=new,
            )
        )


def _rejected_claim(store: Store, make: Any) -> ClaimRecord:
    c = ClaimRecord(
        id="c1",
        bank_id="b1",
        claim_key="alice|lives_in|lisbon",
        slot_key="alice|lives_in",
        subject="alice",
        attribute="lives_in",
        value="lisbon",
        negated=False,
        status=ClaimStatus.REJECTED,
        review_status=ReviewStatus.REJECTED,
        evidence_count=1,
        evidence_refs=(),
        contradiction_refs=(),
        first_evidence_at=make.t0,
        last_evidence_at=make.t0,
        created_at=make.t0,
        updated_at=make.t0,
    )
    with store.transaction():
        store.trust.put_claim(c)
    return c


def _raw_update(store: Store, table: str, status: str, row_id: str) -> None:
    # Literal SQL with no parameters: the same text runs on both drivers.
    store.db.execute(  # type: ignore[attr-defined]
        f"UPDATE {table} SET status = '{status}' WHERE id = '{row_id}'"
    )


def test_a_rejected_unit_cannot_be_revived_by_update_unit_or_raw_sql(
    store: Store, make: Any
) -> None:
    make.bank()
    u = make.unit("Alice lives in Lisbon", status=UnitStatus.REJECTED)
    for status in (UnitStatus.ACTIVE, UnitStatus.PROPOSED, UnitStatus.SUPERSEDED):
        with pytest.raises(MnemeError, match=LIVE_ONLY_BY_REVIEW), store.transaction():
            store.memories.update_unit(
                "b1", u.id, UnitChanges(status=status), actor="x", reason="sneak"
            )
    with pytest.raises(MnemeError, match=LIVE_ONLY_BY_REVIEW), store.transaction():
        _raw_update(store, "units", "active", u.id)
    # a reject event, or a restore to another status, does not open the door
    _event(store, "ev1", u.id, "unit", "reject", "rejected")
    _event(store, "ev2", u.id, "unit", "restore", "superseded")
    with pytest.raises(MnemeError, match=LIVE_ONLY_BY_REVIEW), store.transaction():
        store.memories.update_unit(
            "b1", u.id, UnitChanges(status=UnitStatus.ACTIVE), actor="x", reason=""
        )
    # a restore to active that is no longer the newest event does not either
    _event(store, "ev3", u.id, "unit", "restore", "active")
    _event(store, "ev4", u.id, "unit", "approve", "proposed")
    with pytest.raises(MnemeError, match=LIVE_ONLY_BY_REVIEW), store.transaction():
        _raw_update(store, "units", "active", u.id)
    assert store.memories.get_units(make.viewer(), [u.id])[u.id].status == UnitStatus.REJECTED
    # other fields of a rejected unit may change; staying rejected is always allowed
    with store.transaction():
        store.memories.update_unit("b1", u.id, UnitChanges(confidence=0.2), actor="x", reason="")
        _raw_update(store, "units", "rejected", u.id)


def test_the_newest_restore_event_lets_exactly_its_status_through(store: Store, make: Any) -> None:
    make.bank()
    u = make.unit("Alice lives in Lisbon", status=UnitStatus.REJECTED)
    _event(store, "ev1", u.id, "unit", "restore", "active")
    with pytest.raises(MnemeError, match=LIVE_ONLY_BY_REVIEW), store.transaction():
        store.memories.update_unit(
            "b1", u.id, UnitChanges(status=UnitStatus.PROPOSED), actor="x", reason=""
        )
    with store.transaction():
        after = store.memories.update_unit(
            "b1", u.id, UnitChanges(status=UnitStatus.ACTIVE), actor="pat", reason="restore"
        )
    assert after.status == UnitStatus.ACTIVE


def test_a_rejected_claim_cannot_be_revived_by_update_claim_or_raw_sql(
    store: Store, make: Any
) -> None:
    make.bank()
    c = _rejected_claim(store, make)

    def revive(status: ClaimStatus) -> None:
        with store.transaction():
            store.trust.update_claim(
                "b1", c.id, ClaimChanges(status=status), actor="x", reason="", now=make.t0
            )

    for status in (ClaimStatus.ACTIVE, ClaimStatus.SUPERSEDED):
        with pytest.raises(MnemeError, match=LIVE_ONLY_BY_REVIEW):
            revive(status)
    with pytest.raises(MnemeError, match=LIVE_ONLY_BY_REVIEW), store.transaction():
        _raw_update(store, "claims", "active", c.id)
    _event(store, "ev1", c.id, "claim", "approve", "superseded")
    with pytest.raises(MnemeError, match=LIVE_ONLY_BY_REVIEW):
        revive(ClaimStatus.ACTIVE)
    _event(store, "ev2", c.id, "claim", "supersede", "active")  # not a restore or approve
    with pytest.raises(MnemeError, match=LIVE_ONLY_BY_REVIEW):
        revive(ClaimStatus.ACTIVE)
    got = store.trust.get_claim("b1", c.id)
    assert got is not None
    assert got.status == ClaimStatus.REJECTED
    # the review status axis is a person's, not guarded: only the system's status is
    with store.transaction():
        store.trust.update_claim(
            "b1",
            c.id,
            ClaimChanges(review_status=ReviewStatus.PENDING_REVIEW),
            actor="x",
            reason="",
            now=make.t0,
        )
    _event(store, "ev3", c.id, "claim", "restore", "active")
    revive(ClaimStatus.ACTIVE)
    got = store.trust.get_claim("b1", c.id)
    assert got is not None
    assert got.status == ClaimStatus.ACTIVE
