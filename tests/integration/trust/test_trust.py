"""Trust: claims with two axes, review, conflicts, tombstones, guarded transitions, audit and
bitemporal history, through the public API."""

from __future__ import annotations

import datetime as dt
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import mneme
from mneme.core.audit_chain import digest
from mneme.core.model import ClaimStatus, ReviewStatus, UnitStatus
from mneme.errors import Conflict, InvalidInput, NotFound
from mneme.store.protocol import ClaimChanges, UnitChanges

T0 = dt.datetime(2025, 2, 1, 9, 0, tzinfo=dt.UTC)


def day(n: int) -> dt.datetime:
    return T0 + dt.timedelta(days=n)


def _events(db_path: str) -> int:
    con = sqlite3.connect(db_path)
    try:
        return int(con.execute("SELECT count(*) FROM review_events").fetchone()[0])
    finally:
        con.close()


# -- claims ----------------------------------------------------------------------------------


def test_a_claim_starts_active_and_pending_review_and_gathers_evidence(mem):
    mem.retain(
        "My favorite color is blue.", bank="u", agent="a1", source_id="s1", occurred_at=day(0)
    )
    mem.retain(
        "My favourite colour is blue.", bank="u", agent="a1", source_id="s2", occurred_at=day(1)
    )
    queue = mem.review.queue(bank="u")
    assert len(queue) == 1
    claim = queue[0].claim
    assert claim.status == ClaimStatus.ACTIVE
    assert claim.review_status == ReviewStatus.PENDING_REVIEW
    assert claim.evidence_count == 2
    assert {"s1", "s2"} <= set(claim.evidence_refs)


def test_the_same_slot_with_another_value_is_a_conflict_on_both_claims(mem):
    mem.retain("I work at Acme Robotics.", bank="job", agent="a1", occurred_at=day(0))
    r = mem.retain("I work at Globex Labs.", bank="job", agent="a1", occurred_at=day(40))
    assert r.status == mneme.RetainStatus.NEEDS_CLARIFICATION
    claims = mem.review.queue(bank="job")
    assert len(claims) == 2
    a, b = (item.claim for item in claims)
    assert b.id in a.contradiction_refs
    assert a.id in b.contradiction_refs
    (conflict,) = mem.conflicts.list(bank="job")
    assert {conflict.a_claim, conflict.b_claim} == {a.id, b.id}


# -- review ----------------------------------------------------------------------------------


def test_every_decision_is_an_event_with_both_axes_before_and_after(mem):
    mem.retain("Quill's birthday is 3 March.", bank="u", agent="a1")
    (claim,) = mem.review.queue(bank="u")
    ev = mem.review.decide(claim.id, "approve", "rev1", "checked with Quill")
    assert (ev.prior_status, ev.prior_review_status) == ("active", "pending_review")
    assert (ev.new_status, ev.new_review_status) == ("active", "approved")
    hist = [h for h in mem.history(claim.id) if h.kind == "review"]
    assert hist[-1].actor == "rev1"
    assert hist[-1].detail["decision"] == "approve"
    assert [i for i in mem.review.worklist(bank="u").items if i.kind == "reasserted"] == []
    assert mem.review.queue(bank="u", status="approved")[0].id == claim.id


def test_restore_undoes_decisions_one_at_a_time(mem):
    mem.retain("Quill's birthday is 3 March.", bank="u", agent="a1")
    mem.retain("Quill's birthday is 5 March.", bank="u", agent="a2")  # what supersedes it
    claim = next(c for c in mem.review.queue(bank="u") if "3" in c.claim.value)
    mem.review.decide(claim.id, "approve", "rev1")
    mem.review.decide(claim.id, "supersede", "rev1", "wrong date")
    states = []
    for _ in range(2):
        mem.review.restore(claim.id, actor="rev2")
        c = mem._store.trust.get_claim("u", claim.id)
        states.append((c.status.value, c.review_status.value))
    assert states == [("active", "approved"), ("active", "pending_review")]
    with pytest.raises(Conflict, match="nothing to restore"):
        mem.review.restore(claim.id, actor="rev2")


def test_history_of_a_claim_rebuilds_from_its_events_alone(mem):
    mem.retain("Quill's birthday is 3 March.", bank="u", agent="a1")
    (claim,) = mem.review.queue(bank="u")
    for decision in ("approve", "reject", "restore"):
        mem.review.decide(claim.id, decision, "rev1", "checked")
    events = mem._store.trust.review_events("u", claim.id)
    state = (events[0].prior_status, events[0].prior_review_status)
    for e in events:
        assert (e.prior_status, e.prior_review_status) == state
        state = (e.new_status, e.new_review_status)
    now = mem._store.trust.get_claim("u", claim.id)
    assert state == (now.status.value, now.review_status.value)


@pytest.mark.parametrize(
    ("setup", "call", "error"),
    [
        ("none", lambda m, c: m.review.decide("clm_missing", "approve", "rev1"), NotFound),
        ("approved", lambda m, c: m.review.decide(c, "approve", "rev1"), Conflict),
        ("none", lambda m, c: m.review.decide(c, "restore", "rev1"), Conflict),
        ("none", lambda m, c: m.review.decide(c, "promote", "rev1"), InvalidInput),
        ("none", lambda m, c: m.review.decide(c, "approve", "bad actor!"), InvalidInput),
        ("none", lambda m, c: m.review.decide(c, "supersede", "rev1", "old"), Conflict),
        ("none", lambda m, c: m.review.decide(c, "reject", "rev1"), InvalidInput),
        ("none", lambda m, c: m.review.decide(c, "reject", "rev1", " \n "), InvalidInput),
        ("none", lambda m, c: m.review.reject(c, "", "rev1"), InvalidInput),
    ],
)
def test_a_decision_that_does_not_apply_is_refused_and_writes_no_event(
    mem, db_path, setup, call, error
):
    mem.retain("Quill's birthday is 3 March.", bank="u", agent="a1")
    (claim,) = mem.review.queue(bank="u")
    if setup == "approved":
        mem.review.decide(claim.id, "approve", "rev1")
    before = _events(db_path)
    with pytest.raises(error):
        call(mem, claim.id)
    assert _events(db_path) == before


# -- tombstones ------------------------------------------------------------------------------


def test_a_rejected_value_stays_rejected_from_any_source_or_agent_until_restored(mem):
    r = mem.retain("My favorite color is blue.", bank="u", agent="a1", source_id="s1")
    tomb = mem.review.reject(r.memory_ids[0], reason="wrong user", actor="rev1")
    assert tomb.reason == "wrong user"
    assert tomb.actor == "rev1"
    again = mem.retain("My favorite color is blue.", bank="u", agent="a2", source_id="s3")
    assert again.questions
    assert again.questions[0].conflict_type == "tombstoned"
    para = mem.retain("My favourite colour is blue!", bank="u", agent="a3", source_id="s4")
    hits = mem.recall("favorite color", bank="u", agent="a1", scope="collective")
    assert not [h for h in hits if "blue" in h.text.lower()]
    # surfaced for review: the rejected claim is back in the queue, still rejected
    (queued,) = mem.review.queue(bank="u")
    assert queued.claim.status == ClaimStatus.REJECTED
    stones = mem._store.trust.find_tombstones("u", unit_id=r.memory_ids[0])
    assert {"s3"} <= set(stones[0].evidence)
    assert para.memory_ids
    assert mem.get(para.memory_ids[0]).status == UnitStatus.REJECTED
    mem.review.restore(r.memory_ids[0], actor="rev1", note="was right")
    assert mem.get(r.memory_ids[0]).status == UnitStatus.ACTIVE
    assert mem._store.trust.find_tombstones("u", unit_id=r.memory_ids[0]) == []
    assert any("blue" in h.text for h in mem.recall("favorite color", bank="u", agent="a1"))
    # What the tombstone held back returns with the value, by the same decision, audited
    # (a new user's probe: the paraphrase stayed rejected and left the worklist; ADR 0110).
    back = [i for i in (*again.memory_ids, *para.memory_ids) if i != r.memory_ids[0]]
    assert back
    for uid in back:
        assert mem.get(uid).status == UnitStatus.ACTIVE
        (event,) = mem._store.trust.review_events("u", uid)
        assert event.decision == "approve"
    assert [i for i in mem.review.worklist(bank="u").items if i.kind == "reasserted"] == []


# -- guarded transitions ---------------------------------------------------------------------


def test_a_rejected_unit_or_claim_comes_back_only_through_review(mem, db_path):
    r = mem.retain("Quill's birthday is 3 March.", bank="u", agent="a1")
    uid = r.memory_ids[0]
    mem.review.reject(uid, reason="wrong", actor="rev1")
    (claim,) = mem._store.trust.find_claims("u", unit_id=uid)
    assert claim.status == ClaimStatus.REJECTED
    attempts: list[Callable[[], object]] = [
        lambda: mem._store.memories.update_unit(
            "u", uid, UnitChanges(status=UnitStatus.ACTIVE), actor="x", reason="sneak"
        ),
        lambda: mem._store.trust.update_claim(
            "u",
            claim.id,
            ClaimChanges(status=ClaimStatus.ACTIVE),
            actor="x",
            reason="sneak",
            now=day(1),
        ),
    ]
    for attempt in attempts:
        with (
            pytest.raises(mneme.MnemeError, match="only through a review"),
            mem._store.transaction(),
        ):
            attempt()
    con = sqlite3.connect(db_path)
    for sql in (
        "UPDATE units SET status = 'active' WHERE id = ?",
        "UPDATE claims SET status = 'active' WHERE id = ?",
    ):
        with pytest.raises(sqlite3.IntegrityError):
            con.execute(sql, (uid if "units" in sql else claim.id,))
    con.close()
    assert mem.get(uid).status == UnitStatus.REJECTED
    mem.review.restore(uid, actor="rev1")
    assert mem.get(uid).status == UnitStatus.ACTIVE


# -- conflicts -------------------------------------------------------------------------------


def _conflict(mem: mneme.Memory, bank: str) -> tuple[str, str, str]:
    a = mem.retain("The launch date is 3 May.", bank=bank, agent="a1", occurred_at=day(0))
    b = mem.retain("The launch date is 10 May.", bank=bank, agent="a2", occurred_at=day(1))
    (c,) = mem.conflicts.list(bank=bank)
    return c.id, a.memory_ids[0], b.memory_ids[0]


def test_a_conflict_keeps_both_parties_and_links_them(mem):
    _cid, a, b = _conflict(mem, "c1")
    ua, ub = mem.get(a), mem.get(b)
    assert ua.status == ub.status == UnitStatus.CONFLICTED
    assert b in ua.contradictions
    assert a in ub.contradictions
    assert any(e.type == "CONTRADICTS" for e in mem.graph(b).edges)
    hits = mem.recall("When is the launch?", bank="c1", agent="a1", scope="collective")
    assert any(h.conflicts for h in hits)


def test_a_personal_recall_flags_a_hit_another_agent_disputes(mem):
    # A new user's probe: a1 asked in its own (personal) scope and got "3 May" with no
    # conflict on it, though a2's shared "10 May" disputed it: the other party was looked up
    # in the personal scope, where a2's statement is not, and the conflict was dropped.
    cid, a, b = _conflict(mem, "c1p")
    (hit,) = [h for h in mem.recall("When is the launch?", bank="c1p", agent="a1") if h.id == a]
    assert [(c.conflict_id, c.unit_id) for c in hit.conflicts] == [(cid, b)]
    # another agent's private statement is never named, in any scope
    mem.retain("The launch date is 17 May.", bank="c1p", agent="a3", visibility="private")
    for scope in ("personal", "collective"):
        for h in mem.recall("When is the launch?", bank="c1p", agent="a1", scope=scope):
            assert {c.unit_id for c in h.conflicts} <= {a, b}


def test_resolving_as_supersede_retires_the_loser(mem):
    cid, a, b = _conflict(mem, "c2")
    mem.conflicts.resolve(cid, "supersede", actor="rev1", winner=b)
    assert mem.get(a).status == UnitStatus.SUPERSEDED
    assert mem.get(a).superseded_by == b
    assert mem.get(b).status == UnitStatus.ACTIVE
    assert mem.conflicts.list(bank="c2") == []
    with pytest.raises(Conflict, match="already resolved"):
        mem.conflicts.resolve(cid, "reject", actor="rev1")


def test_an_explicit_supersession_settles_the_open_conflict_between_the_two(mem):
    _cid, a, b = _conflict(mem, "c2b")
    c = mem.retain(
        "The launch date is 10 May, as agreed.", bank="c2b", agent="a1", supersedes=[a, b]
    )
    assert mem.get(a).status == mem.get(b).status == UnitStatus.SUPERSEDED
    assert mem.conflicts.list(bank="c2b") == []
    settled = mem.conflicts.list(bank="c2b", status="resolved")
    assert settled
    assert {c.resolution.value for c in settled if c.resolution} == {"supersede"}
    assert mem.get(c.memory_ids[0]).status == UnitStatus.ACTIVE


def test_resolving_as_reject_tombstones_the_loser(mem):
    cid, a, b = _conflict(mem, "c3")
    mem.conflicts.resolve(cid, "reject", actor="rev1", winner=a, note="a typo")
    assert mem.get(b).status == UnitStatus.REJECTED
    assert mem._store.trust.find_tombstones("c3", unit_id=b)


def test_not_a_conflict_is_never_flagged_again(mem):
    cid, a, b = _conflict(mem, "c4")
    mem.conflicts.resolve(cid, "not_conflict", actor="rev1", note="two launches")
    assert mem.get(a).status == mem.get(b).status == UnitStatus.ACTIVE
    mem.retain("The launch date is 10 May.", bank="c4", agent="a3", occurred_at=day(2))
    mem.retain("The launch date is 3 May.", bank="c4", agent="a4", occurred_at=day(3))
    assert mem.conflicts.list(bank="c4") == []


@pytest.mark.parametrize(
    ("older", "newer", "scopes", "questions"),
    [
        (
            "I prefer tea in the morning.",
            "I prefer coffee in the morning.",
            ("at home", "at work"),
            ("What do I drink in the morning at home?", "What do I drink in the morning at work?"),
        ),
        # A question about now orders the statements of its slot newest first (ADR 0063,
        # 0093, 0096); a memory a scoped exception holds elsewhere than the question says is
        # not one of them, however new (ADR 0096 amendment).
        (
            "I start work at 8am.",
            "I start work at 10am.",
            ("on weekdays", "on weekends"),
            ("When do I start work now on weekdays?", "When do I start work now on weekends?"),
        ),
    ],
)
def test_a_scoped_exception_holds_both_and_recall_honours_the_scope(
    mem: Any, older: str, newer: str, scopes: tuple[str, str], questions: tuple[str, str]
) -> None:
    mem.retain(older, bank="s", agent="a1", occurred_at=day(0))
    mem.retain(newer, bank="s", agent="a1", occurred_at=day(1))
    (c,) = mem.conflicts.list(bank="s")
    with pytest.raises(InvalidInput, match="scope"):
        mem.conflicts.resolve(c.id, "scoped_exception", actor="rev1", scope_a=scopes[0])
    assert mem.conflicts.list(bank="s")  # nothing was written
    mem.conflicts.resolve(
        c.id, "scoped_exception", actor="rev1", scope_a=scopes[0], scope_b=scopes[1]
    )
    firsts = [mem.recall(q, bank="s", agent="a1")[0].text for q in questions]
    assert firsts == [older, newer]


# -- audit -----------------------------------------------------------------------------------


@pytest.mark.parametrize("tamper", ["edit", "delete", "reorder", "truncate"])
def test_audit_verify_detects_tampering_behind_mneme_s_back(mem, db_path, tamper):
    for i in range(4):
        mem.retain(f"Robot {i} guards gate {i}.", bank="b1", agent="a1")
    assert mem.admin.audit_verify()["b1"].ok
    mem.close()
    con = sqlite3.connect(db_path)
    seqs = [
        r[0] for r in con.execute("SELECT seq FROM audit_log WHERE bank_id = 'b1' ORDER BY seq")
    ]
    if tamper == "edit":
        con.execute("UPDATE audit_log SET reason = reason || '!' WHERE seq = ?", (seqs[3],))
    elif tamper == "delete":
        con.execute("DELETE FROM audit_log WHERE seq = ?", (seqs[3],))
    elif tamper == "reorder":
        a, b = con.execute(
            "SELECT op, target FROM audit_log WHERE seq IN (?, ?) ORDER BY seq", (seqs[2], seqs[3])
        ).fetchall()
        con.execute("UPDATE audit_log SET op = ?, target = ? WHERE seq = ?", (*b, seqs[2]))
        con.execute("UPDATE audit_log SET op = ?, target = ? WHERE seq = ?", (*a, seqs[3]))
    else:
        con.execute("DELETE FROM audit_log WHERE seq = ?", (seqs[-1],))
    con.commit()
    con.close()
    again = mneme.Memory.open(db_path, embedder="hashing")
    report = again.admin.audit_verify()["b1"]
    again.close()
    assert not report.ok
    assert report.problem


# -- bitemporal ------------------------------------------------------------------------------


def test_valid_time_is_set_apart_from_record_time_and_never_before_its_start(mem):
    r = mem.retain("Ravi leads the data team.", bank="b", agent="a1", occurred_at=day(10))
    uid = r.memory_ids[0]
    with pytest.raises(InvalidInput, match="before"):
        mem.invalidate(uid, day(5), actor="rev1")
    mem.invalidate(uid, day(30), actor="rev1", reason="Ravi moved on")
    assert mem.get(uid).valid_until == day(30)
    assert mem.recall("data team lead", bank="b", agent="a1", as_of=day(20))
    assert not mem.recall("data team lead", bank="b", agent="a1", as_of=day(31))
    assert not mem.recall("data team lead", bank="b", agent="a1", include_superseded=False)


def test_a_reverted_supersession_is_in_force_only_between_its_two_records(mem, clock):
    old = mem.retain("I live in Paris.", bank="b", agent="a1", occurred_at=day(0))
    clock.advance(hours=1)
    mem.retain("I moved to Berlin last month.", bank="b", agent="a1", occurred_at=day(60))
    paris = old.memory_ids[0]
    superseded_at = clock()
    assert mem.get(paris).status == UnitStatus.SUPERSEDED
    clock.advance(hours=1)
    mem.review.restore(paris, actor="rev1", note="never moved")
    restored = mem.get(paris)
    assert restored.status == UnitStatus.ACTIVE
    assert restored.superseded_by is None
    assert restored.valid_until is None
    assert mem.state_at(paris, superseded_at)["status"] == "superseded"
    assert mem.state_at(paris, clock())["status"] == "active"
    assert mem.state_at(paris, superseded_at - dt.timedelta(minutes=30))["status"] == "active"


# -- legal erasure ---------------------------------------------------------------------------


def test_purge_erases_content_everywhere_and_leaves_an_audit_record_without_it(mem, db_path):
    secret = "Nadia's passport number is X9-4471."
    r = mem.retain(secret, bank="p", agent="a1", source_id="ev-secret")
    keep = mem.retain("Nadia likes sailing.", bank="p", agent="a1", source_id="ev-keep")
    uid = r.memory_ids[0]
    dry = mem.admin.purge(uid, actor="dpo", reason="GDPR art. 17 request #12", dry_run=True)
    assert dry.units == (uid,)
    assert dry.sources == ("ev-secret",)
    assert mem.get(uid)  # a dry run changes nothing
    done = mem.admin.purge(uid, actor="dpo", reason="GDPR art. 17 request #12")
    assert not done.dry_run
    with pytest.raises(NotFound):
        mem.get(uid)
    with pytest.raises(NotFound):
        mem.source("ev-secret")
    assert not mem.recall("passport number", bank="p", agent="a1", scope="collective")
    assert mem.get(keep.memory_ids[0]).text == "Nadia likes sailing."
    mem.close()
    con = sqlite3.connect(db_path)
    con.execute("VACUUM")  # free pages may still hold old bytes until the file is rewritten
    con.close()
    assert b"X9-4471" not in Path(db_path).read_bytes()
    again = mneme.Memory.open(db_path, embedder="hashing")
    assert again.admin.audit_verify()["p"].ok
    purges = [rec for rec in again.admin.audit_log("p") if rec.op == "purge"]
    assert purges
    # The legal ground is kept only as its digest (it names the data subject; ADR 0035).
    assert purges[0].reason == ""
    assert purges[0].hashed["reason_sha"] == digest("GDPR art. 17 request #12")
    assert "X9-4471" not in repr(purges[0].after)
    again.close()


def test_content_erased_outside_a_purge_is_detected(mem, db_path):
    mem.retain("Omar keeps the spare key under the mat.", bank="p", agent="a1")
    mem.close()
    con = sqlite3.connect(db_path)
    con.execute("UPDATE audit_log SET after = NULL, purged_at = '2030-01-01' WHERE op = 'unit.put'")
    con.commit()
    con.close()
    again = mneme.Memory.open(db_path, embedder="hashing")
    report = again.admin.audit_verify()["p"]
    again.close()
    assert not report.ok
    assert "outside a purge" in report.problem


def _pairs(mem: mneme.Memory, bank: str) -> set[frozenset[str]]:
    return {frozenset((c.a_unit, c.b_unit)) for c in mem.conflicts.list(bank=bank, status="open")}


def test_a_new_value_disputes_every_other_live_value_of_a_one_valued_slot(mem):
    rooms = ["Maple", "Birch", "Cedar"]
    ids = [
        mem.retain(
            f"The standup is in room {room}.", bank="slot", agent=f"a{i}", source_id=f"ev-{i}"
        ).memory_ids[0]
        for i, room in enumerate(rooms)
    ]
    maple, birch, cedar = ids
    # Cedar contradicts both earlier values, not only the closest one: every pair is a conflict.
    assert _pairs(mem, "slot") == {
        frozenset((maple, birch)),
        frozenset((maple, cedar)),
        frozenset((birch, cedar)),
    }
    # Nothing is overwritten: all three stand, each in conflict.
    assert [mem.get(u).status for u in ids] == [UnitStatus.CONFLICTED] * 3


def test_the_disputes_one_value_opens_are_bounded(mem):
    rooms = ["Maple", "Birch", "Cedar", "Oak", "Elm", "Pine", "Ash", "Fir"]
    ids = [
        mem.retain(
            f"The standup is in room {room}.", bank="many", agent="a1", source_id=f"ev-{i}"
        ).memory_ids[0]
        for i, room in enumerate(rooms)
    ]
    last = ids[-1]
    with_last = [p for p in _pairs(mem, "many") if last in p]
    # The unit the verdict names, plus at most MAX_SLOT_RIVALS (5) further slot-mates.
    assert len(with_last) == 6
    assert all(mem.get(u).status != UnitStatus.SUPERSEDED for u in ids)


def test_a_multi_valued_slot_opens_no_extra_disputes(mem):
    for i, food in enumerate(["pasta", "sushi", "tacos"]):
        mem.retain(f"Dana likes {food}.", bank="multi", agent="a1", source_id=f"ev-{i}")
    assert mem.conflicts.list(bank="multi", status="open") == []
