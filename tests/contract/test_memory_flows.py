"""The public API's main flows on every backend: ``Memory.open(path or DSN)`` behaves alike.

Retain and recall with scope, hive repeats, a cross-agent contradiction through the review
queue and conflict resolution, reject and restore against a tombstone, and the audit chain
(verified, then tampered with by raw SQL and caught).
"""

from __future__ import annotations

from tests.workloads import conversation

import mneme
from mneme.core.model import ReviewStatus, UnitStatus


def test_public_api_flows_behave_alike_on_every_backend(target: str) -> None:
    mem = mneme.Memory.open(target, embedder="hashing:15")
    try:
        # retain and recall, with scope and evidence
        first = mem.retain("Alice lives in Lisbon.", bank="b1", agent="a1", source_id="ev-1")
        (lisbon_id,) = first.memory_ids
        hits = mem.recall("Where does Alice live?", bank="b1", agent="a1")
        assert hits[0].unit.id == lisbon_id
        assert hits[0].evidence_source_ids == ("ev-1",)
        mine = mem.recall("Where does Alice live?", bank="b1", agent="a2", scope="personal")
        assert mine == []
        assert mem.recall("Where does Alice live?", bank="b2", agent="a1") == []
        collective = mem.recall("Where does Alice live?", bank="b1", agent="a2")  # the default
        assert [h.unit.id for h in collective][:1] == [lisbon_id]

        # a second agent states the same fact: one unit, one more knower
        again = mem.retain("Alice lives in Lisbon.", bank="b1", agent="a2")
        assert again.memory_ids == (lisbon_id,)
        assert mem.get(lisbon_id).knowers == ("a1", "a2")

        # a third agent disagrees: both stand, a conflict and two claims wait for a person
        disputed = mem.retain("Alice lives in Porto.", bank="b1", agent="a3")
        assert disputed.status == mneme.RetainStatus.NEEDS_CLARIFICATION
        (porto_id,) = disputed.memory_ids
        (conflict,) = mem.conflicts.list(bank="b1")
        assert {conflict.a_unit, conflict.b_unit} == {lisbon_id, porto_id}
        queue = mem.review.queue(bank="b1")
        assert [c.claim.value for c in queue] == ["porto", "lisbon"]  # newest first
        porto_claim = queue[0]
        event = mem.review.decide(porto_claim.id, "approve", "pat", note="confirmed by phone")
        assert event.new_review_status == ReviewStatus.APPROVED.value
        assert [c.claim.value for c in mem.review.queue(bank="b1")] == ["lisbon"]

        # the person settles the conflict: Porto supersedes Lisbon, which stays reachable
        settled = mem.conflicts.resolve(conflict.id, "supersede", actor="pat", winner=porto_id)
        assert settled.status == "resolved"
        assert mem.conflicts.list(bank="b1") == []
        old = mem.get(lisbon_id)
        assert old.status == UnitStatus.SUPERSEDED
        assert old.superseded_by == porto_id

        # reject: tombstoned, and the same value retained again stays rejected
        stone = mem.review.reject(porto_id, "wrong after all", "pat")
        assert stone.unit_id == porto_id
        assert mem.get(porto_id).status == UnitStatus.REJECTED
        repeat = mem.retain("Alice lives in Porto.", bank="b1", agent="a4")
        assert repeat.status == mneme.RetainStatus.NEEDS_CLARIFICATION
        assert mem.get(porto_id).status == UnitStatus.REJECTED
        mem.review.restore(porto_id, "pat", note="it was right")
        assert mem.get(porto_id).status == UnitStatus.ACTIVE

        # the audit chain verifies, and an edit by raw SQL is caught
        reports = mem.admin.audit_verify()
        assert set(reports) == {"b1"}
        assert reports["b1"].ok, reports
        assert reports["b1"].records > 10
        with mem._store.transaction():
            mem._store.db.execute(  # type: ignore[attr-defined]
                "UPDATE audit_log SET reason = reason || ' ' "
                "WHERE seq = (SELECT min(seq) FROM audit_log)"
            )
        assert not mem.admin.audit_verify()["b1"].ok
    finally:
        mem.close()


def test_streamed_batches_decide_as_retain_many_calls_do_on_every_backend(target: str) -> None:
    """ADR 0024: the same workload into two banks of one store, once through
    ``retain_batches`` and once as ``retain_many`` calls, is judged verdict for verdict alike."""
    decisions = {}
    mem = mneme.Memory.open(target, embedder="hashing:15")
    try:
        for bank in ("stream", "calls"):
            items = conversation(bank)
            work = [items[i : i + 16] for i in range(0, len(items), 16)]
            if bank == "stream":
                results = [r for done in mem.retain_batches(work) for r in done]
            else:
                results = [r for batch in work for r in mem.retain_many(batch)]
            decisions[bank] = [(d.verdict, d.text, d.reason) for r in results for d in r.decisions]
    finally:
        mem.close()
    assert decisions["stream"] == decisions["calls"]
    assert len({v for v, *_ in decisions["stream"]}) >= 4


def test_a_correction_retires_the_read_backs_of_the_old_value_on_every_backend(target: str) -> None:
    # ADR 0074: the read-back is found through its SUPPORTS edge (the graph role of each
    # backend), read through the agent's viewer, and retired with what it restated.
    mem = mneme.Memory.open(target, embedder="hashing:15")
    try:
        turns = [
            "User: I need a taxi to 12 Harbour Road.",
            "Assistant: Please confirm: a taxi for 1 to 12 Harbour Road.",
        ]
        ids = [mem.retain(t, bank="b", agent="a", session="s").memory_ids[0] for t in turns]
        r = mem.retain("User: Sorry, could I go to the Casa Azul instead?", bank="b", agent="a",
                       session="s")  # fmt: skip
        retired = {d.target_id for d in r.decisions if d.verdict.value == "SUPERSEDE"}
        assert set(ids) <= retired
        assert [mem.get(i).status for i in ids] == [UnitStatus.SUPERSEDED] * 2
        # each retirement has its own record
        assert all(mem.history(i) for i in ids)
    finally:
        mem.close()


def test_a_change_of_a_value_a_retired_statement_still_held_retires_it_for_that_one_too(
    target: str,
) -> None:
    # ADR 0076: "Can you change the date?" after the time changed retires the first request
    # for its date as well; it keeps its first successor, names the second, and recall does
    # not offer it as still holding the date.
    mem = mneme.Memory.open(target, embedder="hashing:15")
    try:
        first = mem.retain(
            "User: Can you make an appointment for Wednesday next week at 4:45 pm?",
            bank="b", agent="a", session="s",
        ).memory_ids[0]  # fmt: skip
        time = mem.retain(
            "User: Can you change the time to 3:45 pm?", bank="b", agent="a", session="s"
        )
        (by_time,) = time.memory_ids
        assert [(d.verdict.value, d.target_id) for d in time.decisions] == [("SUPERSEDE", first)]
        date = mem.retain(
            "User: Can you change the date to the 10th of March?", bank="b", agent="a", session="s"
        )
        (by_date,) = date.memory_ids
        assert [(d.verdict.value, d.target_id) for d in date.decisions] == [("SUPERSEDE", first)]
        retired = mem.get(first)
        assert retired.status == UnitStatus.SUPERSEDED
        assert retired.superseded_by == by_time
        assert retired.metadata["also_superseded_by"] == [by_date]
        assert first in mem.get(by_date).supersedes
        assert mem.get(by_time).status == UnitStatus.ACTIVE
        details = [str(e.detail) for e in mem.history(first)]
        assert any(by_date in d for d in details), details
        # a later date change is judged against the newest date, not the first request
        again = mem.retain(
            "User: Actually, change the date to the 12th of March.", bank="b", agent="a",
            session="s",
        )  # fmt: skip
        assert [(d.verdict.value, d.target_id) for d in again.decisions] == [("SUPERSEDE", by_date)]
    finally:
        mem.close()


def test_a_change_retires_the_authors_retired_statement_with_the_newer_echo_it_outranks(
    target: str,
) -> None:
    # The author's statement, retired for its date, still holds the stay; the other speaker
    # asks it back; the author changes the stay. The newest statement of the old value (the
    # echo) is the target, and the author's own statement goes with it: it must not keep
    # answering for the stay it no longer holds.
    mem = mneme.Memory.open(target, embedder="hashing:15")
    try:
        (first,) = mem.retain(
            "User: I plan on checking in on the 2nd, and staying for eleven days.",
            bank="b", agent="a", session="s",
        ).memory_ids  # fmt: skip
        date = mem.retain(
            "User: Make the check-in date March 4th instead.", bank="b", agent="a", session="s"
        )
        assert ("SUPERSEDE", first) in [(d.verdict.value, d.target_id) for d in date.decisions]
        echo = mem.retain(
            "Assistant: Are you still staying for 11 days?", bank="b", agent="a", session="s"
        ).memory_ids[-1]
        stay = mem.retain(
            "User: No. I'll instead be staying for 8 days.", bank="b", agent="a", session="s"
        )
        retired = {d.target_id for d in stay.decisions if d.verdict.value == "SUPERSEDE"}
        assert {first, echo} <= retired, stay.decisions
        (by_stay,) = stay.memory_ids
        assert mem.get(first).metadata["also_superseded_by"] == [by_stay]
        assert mem.get(echo).status == UnitStatus.SUPERSEDED
    finally:
        mem.close()
