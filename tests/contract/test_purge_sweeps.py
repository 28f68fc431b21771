"""Schema 6 and 7 on every backend: legal erasure (purge) with an audit chain over content
digests, and the bookkeeping of reconsolidation (pending sweeps and sweep proposals)."""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

import pytest

import mneme
from mneme.core.audit_chain import digest
from mneme.core.model import PendingSweep, SweepProposal, UnitStatus, UnitType
from mneme.errors import NotFound
from mneme.store.protocol import QueueItem, Store
from mneme.store.tables import TABLES

SECRET = "Zanzibar"

#: Rows of the lexical index that still match the secret, by backend (FTS5 / tsvector + GIN,
#: and PostgreSQL's postings and document frequencies).
LEXICAL_LEFT = {
    "sqlite": "SELECT count(*) FROM units_fts_1 WHERE units_fts_1 MATCH 'zanzibar'",
    "postgres": "SELECT (SELECT count(*) FROM units WHERE tsv @@ to_tsquery('english', 'zanzibar'))"
    " + (SELECT count(*) FROM lexeme_postings WHERE lexeme = 'zanzibar')"
    " + (SELECT count(*) FROM lexeme_df WHERE lexeme = 'zanzibar')",
}


def _raw(store: Store, sql: str) -> Any:
    """One raw statement on the backend's own database (tests reach past the protocol)."""
    db: Any = store.db  # type: ignore[attr-defined]
    return db.query(sql)


def _tamper(store: Store, sql: str) -> None:
    with store.transaction():
        store.db.execute(sql)  # type: ignore[attr-defined]


def _leaks(store: Store, needle: str) -> list[str]:
    """Every row of every table whose portable form still holds ``needle``."""
    return [
        f"{table}: {row}"
        for table in TABLES
        for batch in store.portable.export_rows(table)
        for row in batch
        if needle.casefold() in json.dumps(row, default=str).casefold()
    ]


def test_purge_erases_content_from_every_table_and_the_audit_still_verifies(target: str) -> None:
    mem = mneme.Memory.open(target, embedder="hashing:15")
    try:
        kept = mem.retain("Alice lives in Lisbon.", bank="b1", agent="a1", source_id="ev-1")
        # another agent disagrees: a conflict whose question quotes the secret, and a claim
        secret = mem.retain(f"Alice lives in {SECRET}.", bank="b1", agent="a3", source_id="ev-z")
        (sid,) = secret.memory_ids
        (conflict,) = mem.conflicts.list(bank="b1")
        assert SECRET in conflict.question
        mem.review.reject(sid, "wrong", "pat")  # a tombstone holding the rejected value
        with mem._store.transaction():  # a buffered write of the same evidence
            mem._store.queue.enqueue(
                QueueItem(
                    id="q-1",
                    bank_id="b1",
                    payload={"text": f"Alice lives in {SECRET}.", "source_id": "ev-z"},
                    status="done",
                    attempts=1,
                    created_at=conflict.created_at,
                    updated_at=conflict.created_at,
                    result={"memory_ids": [sid]},
                )
            )
        assert _leaks(mem._store, SECRET)

        done = mem.admin.purge(sid, actor="dpo", reason="GDPR art. 17 request #12")
        assert (done.units, done.sources) == ((sid,), ("ev-z",))

        assert _leaks(mem._store, SECRET) == []
        assert list(_raw(mem._store, LEXICAL_LEFT[mem._store.capabilities.name])) == [(0,)]
        assert mem.recall(SECRET, bank="b1", agent="a3", scope="collective") == []
        with pytest.raises(NotFound):
            mem.get(sid)
        assert mem.get(kept.memory_ids[0]).text == "Alice lives in Lisbon."
        assert mem._store.trust.get_conflict("b1", conflict.id).question == ""  # type: ignore[union-attr]
        hits = mem.recall("Where does Alice live?", bank="b1", agent="a1")
        assert [h.unit.id for h in hits] == list(kept.memory_ids)

        report = mem.admin.audit_verify()["b1"]
        assert report.ok, report
        (purge,) = [r for r in mem.admin.audit_log("b1") if r.op == "purge"]
        # The legal ground is kept only as its digest (ADR 0035): it names the data subject.
        assert purge.reason == ""
        assert purge.hashed["reason_sha"] == digest("GDPR art. 17 request #12")
        assert purge.actor == "dpo"
        targets = (purge.after or {})["targets"]
        assert sid in targets
        assert conflict.id in targets
        erased = list(mem.admin.audit_log("b1", target=sid))
        assert erased
        assert all(r.hashed["purged_at"] for r in erased if r.op != "purge")
        assert all(r.after is None and r.hashed["after_sha"] for r in erased if r.op == "unit.put")
    finally:
        mem.close()


def test_content_erased_or_edited_outside_a_purge_is_detected(target: str) -> None:
    mem = mneme.Memory.open(target, embedder="hashing:15")
    try:
        mem.retain("Omar keeps the spare key under the mat.", bank="p", agent="a1")
        assert mem.admin.audit_verify()["p"].ok
        for record in mem.admin.audit_log("p"):
            assert record.hashed["before_sha"] is None  # no before: no digest
            assert record.hashed["after_sha"]
            assert record.hashed["purged_at"] is None
        _tamper(
            mem._store,
            "UPDATE audit_log SET after = NULL, purged_at = '2030-01-01T00:00:00Z' "
            "WHERE op = 'unit.put'",
        )
        report = mem.admin.audit_verify()["p"]
        assert not report.ok
        assert "outside a purge" in report.problem
    finally:
        mem.close()


def test_content_edited_with_its_digest_kept_is_detected(target: str) -> None:
    mem = mneme.Memory.open(target, embedder="hashing:15")
    try:
        mem.retain("Omar keeps the spare key under the mat.", bank="p", agent="a1")
        _tamper(mem._store, "UPDATE audit_log SET after = replace(after, 'mat', 'rug')")
        assert not mem.admin.audit_verify()["p"].ok
    finally:
        mem.close()


# -- reconsolidation bookkeeping ----------------------------------------------------------


def _pending(make: Any, sid: str, bank: str = "b1", at_h: int = 0) -> PendingSweep:
    item = PendingSweep(
        id=sid,
        bank_id=bank,
        belief_id=f"belief-{sid}",
        reason="belief rejected",
        status="pending",
        created_at=make.t0 + dt.timedelta(hours=at_h),
    )
    with make.store.transaction():
        make.store.sweeps.add_pending_sweep(item)
    return item


def _proposal(make: Any, pid: str, at_h: int = 0, **kw: Any) -> SweepProposal:
    p = SweepProposal(
        id=pid,
        bank_id="b1",
        unit_id=kw.pop("unit_id", "u1"),
        belief_id="belief-1",
        verdict=kw.pop("verdict", "reaccept"),
        reason="the belief that blocked it is gone",
        evidence=("u2", "s9"),
        confidence=0.42,
        status="open",
        created_at=make.t0 + dt.timedelta(hours=at_h),
    )
    with make.store.transaction():
        make.store.sweeps.put_proposal(p)
    return p


def test_pending_sweeps_are_queued_per_bank_oldest_first_and_finished_with_a_report(
    store: Store, make: Any
) -> None:
    make.bank("b1")
    make.bank("b2")
    assert not store.sweeps.has_pending_sweep()
    assert not store.sweeps.has_pending_sweep("b1")
    later = _pending(make, "w2", at_h=2)
    first = _pending(make, "w1", at_h=1)
    other = _pending(make, "w3", bank="b2", at_h=0)
    assert store.sweeps.has_pending_sweep()
    assert store.sweeps.has_pending_sweep("b1")
    assert store.sweeps.pending_sweeps("b1", 10) == [first, later]
    assert store.sweeps.pending_sweeps(None, 10) == [other, first, later]
    assert store.sweeps.pending_sweeps(None, 1) == [other]
    assert store.sweeps.done_sweeps(None, 10) == []
    done_at = make.t0 + dt.timedelta(hours=5)
    report = {"examined": 2, "reaccepted": ["u1"], "ratio": 0.5}
    with store.transaction():
        store.sweeps.finish_sweep("b2", "w3", report, done_at)
        store.sweeps.finish_sweep("b1", "w1", {"examined": 0}, done_at - dt.timedelta(hours=1))
    assert not store.sweeps.has_pending_sweep("b2")
    assert store.sweeps.has_pending_sweep()
    assert store.sweeps.pending_sweeps(None, 10) == [later]
    (newest, older) = store.sweeps.done_sweeps(None, 10)
    assert (newest.id, newest.status, newest.done_at, newest.report) == (
        "w3",
        "done",
        done_at,
        report,
    )
    assert older.id == "w1"
    assert store.sweeps.done_sweeps("b1", 10) == [older]
    assert [r.op for r in store.audit.records("b1", target="belief-w1")] == [
        "reconsolidation.pending"
    ]


def test_sweep_proposals_wait_for_a_person_and_are_located(store: Store, make: Any) -> None:
    make.bank("b1")
    second = _proposal(make, "p2", at_h=2, unit_id="u3", verdict="unsupported")
    first = _proposal(make, "p1", at_h=1)
    assert store.sweeps.list_proposals("b1") == [first, second]
    assert store.sweeps.list_proposals("b1", limit=1) == [first]
    assert store.sweeps.list_proposals("b2") == []
    assert store.memories.locate("p1") == "b1"
    at = make.t0 + dt.timedelta(hours=3)
    with store.transaction():
        decided = store.sweeps.decide_proposal("b1", "p1", "accepted", "pat", at)
    assert (decided.status, decided.decided_at, decided.decided_by) == ("accepted", at, "pat")
    assert decided.evidence == ("u2", "s9")
    assert decided.confidence == pytest.approx(0.42)
    assert store.sweeps.list_proposals("b1") == [second]
    assert store.sweeps.list_proposals("b1", status=None) == [decided, second]
    assert store.sweeps.list_proposals("b1", status="accepted") == [decided]
    with pytest.raises(NotFound), store.transaction():
        store.sweeps.decide_proposal("b1", "nope", "dismissed", "pat", at)
    assert [r.op for r in store.audit.records("b1", target="u1")] == [
        "sweep.propose",
        "sweep.accepted",
    ]


# -- the public reconsolidation flow -------------------------------------------------------


def test_retracting_a_belief_reaccepts_what_it_blocked_on_every_backend(target: str) -> None:
    mem = mneme.Memory.open(target, embedder="hashing:15")
    try:
        belief = mem.retain("I believe Kestrel Payments is unreliable.", bank="ops", agent="a1")
        (bid,) = belief.memory_ids
        assert mem.get(bid).type == UnitType.BELIEF
        (plan,) = mem.retain("Use Kestrel Payments for billing.", bank="ops", agent="a1").memory_ids
        (support,) = mem.retain(
            "Kestrel Payments missed two settlement windows in May.", bank="ops", agent="a1"
        ).memory_ids
        mem.beliefs.support(support, belief=bid, actor="a1")
        mem.review.decide(plan, "reject", "rev1", "not while Kestrel is unreliable", because=bid)
        assert mem.get(plan).status == UnitStatus.REJECTED
        assert not mem.beliefs.has_pending("ops")

        mem.review.reject(bid, reason="they fixed their settlement system", actor="rev1")
        assert mem.beliefs.has_pending("ops")
        (report,) = mem.beliefs.reconsolidate(bank="ops")
        assert report.reaccepted == (plan,)
        assert support in report.flagged
        assert mem.get(plan).status == UnitStatus.ACTIVE
        assert not mem.beliefs.has_pending("ops")
        (proposal,) = mem.beliefs.proposals(bank="ops")
        assert (proposal.unit_id, proposal.verdict) == (support, "unsupported")
        assert mem._store.memories.locate(proposal.id) == "ops"
        assert mem.admin.audit_verify()["ops"].ok
    finally:
        mem.close()
