"""The review queue shows each claim as it was said, within the viewer's scope, and a rejection
can name the belief it rests on: through the public API, on real SQLite files."""

from __future__ import annotations

import datetime as dt
import sqlite3

import pytest

import mneme
from mneme.core.model import EdgeType, UnitStatus
from mneme.errors import NotFound


def _count(db_path: str, table: str) -> int:
    con = sqlite3.connect(db_path)
    try:
        return int(con.execute(f"SELECT count(*) FROM {table}").fetchone()[0])
    finally:
        con.close()


# -- the statement as said -------------------------------------------------------------------


def test_a_queue_item_is_the_statement_as_said_with_its_source_author_and_date(mem):
    mem.retain(
        "Henry does not work remotely.",
        bank="h",
        agent="a1",
        source_id="ev-7",
        occurred_at="2025-02-01",
    )
    (item,) = mem.review.queue(bank="h")
    assert item.statement == "Henry does not work remotely."
    assert item.text == item.statement
    assert item.claim.text != item.statement  # the normal form stays beside it, secondary
    assert (item.source_id, item.author) == ("ev-7", "a1")
    assert item.said_at == dt.datetime(2025, 2, 1, tzinfo=dt.UTC)
    assert item.id == item.claim.id
    assert item.unit_id in item.claim.evidence_refs
    assert mem.get(item.unit_id).text == item.statement


def test_without_an_occurrence_time_a_statement_is_dated_when_it_was_said(mem):
    said = dt.datetime(2025, 3, 4, 10, 30, tzinfo=dt.UTC)
    mem.retain("Bob prefers tea over coffee.", bank="t", agent="a1", mentioned_at=said)
    (item,) = mem.review.queue(bank="t")
    assert item.said_at == said


def test_another_agents_private_statement_never_reaches_an_agents_queue(mem):
    private = mem.retain(
        "The vault code is 4711.", bank="t", agent="a1", source_id="p1", visibility="private"
    ).memory_ids[0]
    assert [i.statement for i in mem.review.queue(bank="t", agent="a1")] == [
        "The vault code is 4711."
    ]
    assert mem.review.queue(bank="t", agent="a2") == []
    # The same value said openly by another agent: others see that statement, never the first.
    mem.retain("The vault code is 4711.", bank="t", agent="a2", source_id="s2")
    (seen,) = mem.review.queue(bank="t", agent="a3")
    assert (seen.author, seen.source_id, seen.statement) == ("a2", "s2", "The vault code is 4711.")
    assert not {"p1", private} & set(seen.claim.evidence_refs)
    # The owner (a reviewer) sees both; the private statement is a claim of its own, so the
    # shared claim holds no private evidence (ADR 0036).
    queue = {i.author: i for i in mem.review.queue(bank="t")}
    assert (queue["a1"].source_id, queue["a1"].unit_id) == ("p1", private)
    assert {"p1", private} <= set(queue["a1"].claim.evidence_refs)
    assert not {"p1", private} & set(queue["a2"].claim.evidence_refs)


def test_a_scoped_queue_still_fills_its_page_past_claims_it_may_not_see(mem):
    mem.retain("Bob prefers tea over coffee.", bank="t", agent="a1")
    for code in ("4711", "5822", "6933"):
        mem.retain(f"The vault {code} door is red.", bank="t", agent="a1", visibility="private")
    assert len(mem.review.queue(bank="t")) >= 2
    (item,) = mem.review.queue(bank="t", agent="a2", limit=1)
    assert item.statement == "Bob prefers tea over coffee."


# -- reject because a belief -----------------------------------------------------------------


def _vendor(mem: mneme.Memory, bank: str) -> tuple[str, str]:
    belief = mem.retain("I believe Kestrel Payments is unreliable.", bank=bank, agent="a1")
    plan = mem.retain("Use Kestrel Payments for billing.", bank=bank, agent="a1")
    return belief.memory_ids[0], plan.memory_ids[0]


def _why(mem: mneme.Memory, unit_id: str) -> list[tuple[str, str, str]]:
    return [
        (str(e.type), e.dst, e.made_by)
        for e in mem.graph(unit_id).edges
        if e.src == unit_id and e.type == EdgeType.CONTESTED_BECAUSE
    ]


def test_reject_because_a_belief_records_what_review_decide_records(mem):
    belief, plan = _vendor(mem, "ops")
    twin_belief, twin_plan = _vendor(mem, "ops2")
    tomb = mem.review.reject(plan, "not while Kestrel is unreliable", "rev1", because=belief)
    mem.review.decide(
        twin_plan, "reject", "rev1", "not while Kestrel is unreliable", because=twin_belief
    )
    assert tomb.unit_id == plan
    assert tomb.reason == "not while Kestrel is unreliable"
    (event,) = mem._store.trust.review_events("ops", plan)
    (twin,) = mem._store.trust.review_events("ops2", twin_plan)
    shape = ("decision", "actor", "note", "prior_status", "new_status", "new_review_status")
    assert [getattr(event, f) for f in shape] == [getattr(twin, f) for f in shape]
    assert event.metadata == {"because": belief}
    assert twin.metadata == {"because": twin_belief}
    assert _why(mem, plan) == [("CONTESTED_BECAUSE", belief, "person:rev1")]
    assert _why(mem, twin_plan) == [("CONTESTED_BECAUSE", twin_belief, "person:rev1")]
    # Reconsolidation sees it: with the belief retracted, the rejection is re-examined.
    mem.review.reject(belief, reason="they fixed their settlement system", actor="rev1")
    (report,) = mem.beliefs.reconsolidate(bank="ops")
    assert report.reaccepted == (plan,)
    assert mem.get(plan).status == UnitStatus.ACTIVE


@pytest.mark.parametrize("because", ["u_nothing_here", "elsewhere"])
def test_a_because_naming_nothing_visible_is_not_found_and_changes_nothing(mem, db_path, because):
    _, plan = _vendor(mem, "ops")
    if because == "elsewhere":
        because = mem.retain("I think Kestrel is fine.", bank="other", agent="a1").memory_ids[0]
    before = {t: _count(db_path, t) for t in ("review_events", "tombstones", "edges")}
    with pytest.raises(NotFound, match="no belief"):
        mem.review.reject(plan, "not while Kestrel is unreliable", "rev1", because=because)
    with pytest.raises(NotFound, match="no belief"):
        mem.review.decide(plan, "reject", "rev1", because=because)
    assert {t: _count(db_path, t) for t in before} == before
    assert mem.get(plan).status == UnitStatus.ACTIVE
    assert _why(mem, plan) == []
