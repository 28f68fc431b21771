"""Reconsolidation scenarios: when a belief changes, what it held back and what held it up are
re-examined, both ways, with validated verdicts and nothing moving silently."""

from __future__ import annotations

import time

import pytest

import mneme
from mneme.core.model import EdgeType, UnitStatus, UnitType
from mneme.errors import Conflict, InvalidInput


@pytest.fixture
def vendor(mem: mneme.Memory) -> dict[str, str]:
    """A belief that vendor Kestrel is unreliable blocks using it for billing; two memories
    support the belief."""
    ids = {}
    r = mem.retain("I believe Kestrel Payments is unreliable.", bank="ops", agent="a1")
    ids["belief"] = r.memory_ids[0]
    assert mem.get(ids["belief"]).type == UnitType.BELIEF
    r = mem.retain("Use Kestrel Payments for billing.", bank="ops", agent="a1")
    ids["plan"] = r.memory_ids[0]
    r = mem.retain("Kestrel Payments missed two settlement windows in May.", bank="ops", agent="a1")
    ids["support"] = r.memory_ids[0]
    mem.beliefs.support(ids["support"], belief=ids["belief"], actor="a1")
    mem.review.decide(
        ids["plan"], "reject", "rev1", "not while Kestrel is unreliable", because=ids["belief"]
    )
    return ids


def test_a_rejection_can_name_the_belief_behind_it(mem, vendor):
    edges = mem.graph(vendor["plan"]).edges
    assert any(e.type == EdgeType.CONTESTED_BECAUSE and e.dst == vendor["belief"] for e in edges)
    assert mem.get(vendor["plan"]).status == UnitStatus.REJECTED


def test_retracting_the_belief_records_pending_work_cheaply(mem, vendor):
    assert not mem.beliefs.has_pending("ops")
    mem.review.reject(vendor["belief"], reason="they fixed their settlement system", actor="rev1")
    assert mem.beliefs.has_pending("ops")


def test_the_sweep_reaccepts_what_the_belief_blocked_and_flags_its_supporters(mem, vendor):
    mem.review.reject(vendor["belief"], reason="they fixed it", actor="rev1")
    (report,) = mem.beliefs.reconsolidate(bank="ops")
    assert report.examined == 2
    assert report.reaccepted == (vendor["plan"],)
    assert vendor["support"] in report.flagged
    assert mem.get(vendor["plan"]).status == UnitStatus.ACTIVE
    events = mem._store.trust.review_events("ops", vendor["plan"])
    assert events[-1].actor == "sweep:reconsolidate"
    assert "evidence" in events[-1].note
    (proposal,) = mem.beliefs.proposals(bank="ops")
    assert proposal.unit_id == vendor["support"]
    assert proposal.verdict == "unsupported"
    assert not mem.beliefs.has_pending("ops")
    hits = mem.recall("What do we use for billing?", bank="ops", agent="a1")
    assert any("billing" in h.text for h in hits)


def test_every_move_of_the_sweep_can_be_restored(mem, vendor):
    mem.review.reject(vendor["belief"], reason="they fixed it", actor="rev1")
    mem.beliefs.reconsolidate(bank="ops")
    mem.review.restore(vendor["plan"], actor="rev1", note="the sweep was too quick")
    assert mem.get(vendor["plan"]).status == UnitStatus.REJECTED


def test_a_memory_with_another_live_reason_is_left_alone(mem, vendor):
    r = mem.retain("I think billing vendors must be PCI certified first.", bank="ops", agent="a1")
    second = r.memory_ids[0]
    mem.beliefs.contest(vendor["plan"], because=second, actor="rev1")
    mem.review.reject(vendor["belief"], reason="they fixed it", actor="rev1")
    (report,) = mem.beliefs.reconsolidate(bank="ops")
    assert vendor["plan"] in report.left_alone
    assert mem.get(vendor["plan"]).status == UnitStatus.REJECTED


def test_a_belief_restored_after_retraction_contests_again(mem, vendor):
    mem.review.reject(vendor["belief"], reason="they fixed it", actor="rev1")
    mem.beliefs.reconsolidate(bank="ops")
    assert mem.get(vendor["plan"]).status == UnitStatus.ACTIVE
    mem.review.restore(vendor["belief"], actor="rev1", note="it broke again")
    reports = mem.beliefs.reconsolidate(bank="ops")
    assert any(vendor["plan"] in r.flagged for r in reports)
    assert mem.get(vendor["plan"]).status == UnitStatus.REJECTED


def test_a_chain_of_two_belief_changes(mem):
    b1 = mem.retain("I believe the Falcon cluster is overloaded.", bank="c", agent="a1")
    plan = mem.retain("Schedule the nightly jobs on the Falcon cluster.", bank="c", agent="a1")
    mem.review.decide(plan.memory_ids[0], "reject", "rev1", "overloaded", because=b1.memory_ids[0])
    b2 = mem.update(
        b1.memory_ids[0], "I believe the Falcon cluster is overloaded at night.", agent="a1"
    )
    assert mem.get(b1.memory_ids[0]).status == UnitStatus.SUPERSEDED
    first = mem.beliefs.reconsolidate(bank="c")
    assert first
    assert first[0].reaccepted == ()
    (proposal,) = [p for p in mem.beliefs.proposals(bank="c") if p.verdict == "reaccept"]
    assert proposal.unit_id == plan.memory_ids[0]
    mem.review.reject(b2.memory_ids[0], reason="capacity was doubled", actor="rev1")
    mem.beliefs.reconsolidate(bank="c")
    mem.beliefs.decide(proposal.id, True, actor="rev1")
    assert mem.get(plan.memory_ids[0]).status == UnitStatus.ACTIVE
    with pytest.raises(Conflict):
        mem.beliefs.decide(proposal.id, True, actor="rev1")


def test_a_supporter_that_contradicts_the_new_belief_opens_a_conflict(mem):
    b1 = mem.retain("I believe the launch date is 3 May.", bank="l", agent="a1")
    s = mem.retain("The launch date is 3 May.", bank="l", agent="a2")
    mem.beliefs.support(s.memory_ids[0], belief=b1.memory_ids[0], actor="a1")
    mem.update(b1.memory_ids[0], "I believe the launch date is 10 May.", agent="a1")
    (report,) = mem.beliefs.reconsolidate(bank="l")
    assert s.memory_ids[0] in report.flagged
    # Flagged for a person either way: as a conflict (above the bar) or as a proposal.
    opened = [c for c in mem.conflicts.list(bank="l") if c.kind == "reconsolidation"]
    queued = [p for p in mem.beliefs.proposals(bank="l") if p.verdict == "contradicts"]
    assert opened or queued


def test_a_why_edge_makes_any_memory_a_belief_by_its_role(mem):
    a = mem.retain("Book the Ilse piano repair for Friday.", bank="w", agent="a1").memory_ids[0]
    b = mem.retain("Ilse is away all of May.", bank="w", agent="a1").memory_ids[0]
    assert mem.get(b).type not in (UnitType.BELIEF, UnitType.OPINION)
    with pytest.raises(InvalidInput, match="itself"):
        mem.beliefs.contest(a, because=a, actor="rev1")
    mem.review.decide(a, "reject", "rev1", "she is away", because=b)
    mem.review.reject(b, reason="she is back on 3 May", actor="rev1")
    assert mem.beliefs.has_pending("w")
    (report,) = mem.beliefs.reconsolidate(bank="w")
    assert report.reaccepted == (a,)
    assert mem.get(a).status == UnitStatus.ACTIVE


@pytest.fixture
def correction(mem: mneme.Memory) -> dict[str, str]:
    """A plan superseded by a correction made because of a belief (why-edges both ways)."""
    ids = {"plan": mem.retain("The Q3 labels vendor is Kestrel Print.", bank="q", agent="a1")}
    ids["belief"] = mem.retain("Kestrel Print failed the security audit.", bank="q", agent="a1")
    ids["fix"] = mem.retain(
        "The Q3 labels vendor is undecided after the audit.",
        bank="q",
        agent="a1",
        supersedes=ids["plan"].memory_ids,
    )
    out = {k: r.memory_ids[0] for k, r in ids.items()}
    mem.beliefs.contest(out["plan"], because=out["belief"], actor="a1")
    mem.connect(out["fix"], out["belief"], bank="q", agent="a1", type="BECAUSE")
    assert mem.get(out["plan"]).status == UnitStatus.SUPERSEDED
    return out


def test_retracting_the_belief_undoes_the_correction_that_rested_on_it(mem, correction):
    mem.review.reject(correction["belief"], reason="it was Kestrel Freight", actor="rev1")
    (report,) = mem.beliefs.reconsolidate(correction["belief"])
    assert report.reaccepted == (correction["plan"],)
    assert report.flagged == (correction["fix"],)
    plan = mem.get(correction["plan"])
    assert plan.status == UnitStatus.ACTIVE
    assert (plan.superseded_by, plan.valid_until) == (None, None)
    assert mem.get(correction["fix"]).status == UnitStatus.REJECTED
    hits = mem.recall("Which vendor makes the Q3 labels?", bank="q", agent="a1", k=3)
    assert hits[0].id == correction["plan"]
    assert not hits[0].superseded


def test_restoring_the_belief_brings_the_correction_back(mem, correction):
    mem.review.reject(correction["belief"], reason="it was Kestrel Freight", actor="rev1")
    mem.beliefs.reconsolidate(correction["belief"])
    mem.review.restore(correction["belief"], actor="rev1", note="it was Kestrel Print after all")
    mem.beliefs.reconsolidate(correction["belief"])
    assert mem.get(correction["fix"]).status == UnitStatus.ACTIVE
    plan = mem.get(correction["plan"])
    assert plan.status == UnitStatus.SUPERSEDED
    assert plan.superseded_by == correction["fix"]


def test_health_reports_sweep_rates(mem, vendor):
    mem.review.reject(vendor["belief"], reason="they fixed it", actor="rev1")
    mem.beliefs.reconsolidate(bank="ops")
    h = mem.admin.health()["reconsolidation"]
    assert h["sweeps"] == 1
    assert h["examined"] == 2
    assert h["rates"]["reaccepted"] == 0.5
    assert h["open_proposals"]["ops"] == 1


def test_the_background_worker_runs_pending_sweeps(db_path):
    mem = mneme.Memory.open(db_path, embedder="hashing", reconsolidate_every=0.05)
    try:
        b = mem.retain("I believe the Heron API is deprecated.", bank="bg", agent="a1")
        p = mem.retain("Build the importer on the Heron API.", bank="bg", agent="a1")
        mem.review.decide(p.memory_ids[0], "reject", "rev1", "held back", because=b.memory_ids[0])
        mem.review.reject(b.memory_ids[0], reason="not deprecated after all", actor="rev1")
        deadline = time.monotonic() + 20
        while mem.beliefs.has_pending("bg") and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not mem.beliefs.has_pending("bg")
        assert mem.get(p.memory_ids[0]).status == UnitStatus.ACTIVE
    finally:
        mem.close()
