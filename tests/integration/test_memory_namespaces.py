"""Memory's namespaces, and the flat names of 0.1 kept one release (ADR 0043).

Every old name still works and warns with a DeprecationWarning that names the new spelling,
at the caller's line; the new spellings do what the old ones did.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

import mneme
from mneme.deprecation import Moved
from mneme.trust.review import Review

#: Every method that moved, and where it went: the table ADR 0043 gives.
MOVED = {
    "reject": "review.reject",
    "restore": "review.restore",
    "resolve": "conflicts.resolve",
    "resolve_contradiction": "conflicts.resolve_contradiction",
    "reconsolidate": "beliefs.reconsolidate",
    "has_pending_reconsolidation": "beliefs.has_pending",
    "contest": "beliefs.contest",
    "support": "beliefs.support",
    "set_confidence": "beliefs.set_confidence",
    "sweep_proposals": "beliefs.proposals",
    "decide_proposal": "beliefs.decide",
    "roster": "swarm.roster",
    "enroll": "swarm.enroll",
    "heartbeat": "swarm.heartbeat",
    "farewell": "swarm.farewell",
    "banks": "admin.banks",
    "stats": "admin.stats",
    "health": "admin.health",
    "schema_version": "admin.schema_version",
    "migrate": "admin.migrate",
    "compact": "admin.compact",
    "reembed": "admin.reembed",
    "audit_verify": "admin.audit_verify",
    "audit_anchor": "admin.audit_anchor",
    "purge": "admin.purge",
    "purge_subject": "admin.purge_subject",
    "sensitive_policy": "admin.sensitive_policy",
    "set_sensitive_policy": "admin.set_sensitive_policy",
    "rules": "admin.rules",
    "adopt_rule": "admin.adopt_rule",
}
#: The methods that stay on Memory itself.
FLAT = {
    "open",
    "close",
    "retain",
    "retain_many",
    "retain_batches",
    "get_add_status",
    "recall",
    "context",
    "get",
    "source",
    "list_memories",
    "concept",
    "graph",
    "chain",
    "history",
    "state_at",
    "update",
    "invalidate",
    "connect",
    "reflect",  # DESIGN.md's mem.reflect(bank, ...): observations from memories (ADR 0051)
    # Its life: a new configuration without a restart (ADR 0057).
    "reconfigure",
    "reload",
    "reload_status",
}


def _warning(old: str, new: str) -> str:
    return rf"Memory\.{old} is deprecated .*; use Memory\.{re.escape(new)}"


def test_every_moved_name_is_listed_and_only_the_verbs_on_memories_stay_methods():
    public = {n for n in vars(mneme.Memory) if not n.startswith("_")}
    moved = {n for n in public if isinstance(vars(mneme.Memory)[n], Moved)}
    properties = {n for n in public if isinstance(vars(mneme.Memory)[n], property)}
    assert moved == set(MOVED)
    # config and llm: what a reload may replace, read from the swapped value (ADR 0057)
    assert properties == {"store", "presence", "reconsolidator", "config", "llm"}
    assert public - moved - properties == FLAT


@pytest.mark.parametrize(("old", "new"), sorted(MOVED.items()))
def test_an_old_name_warns_with_the_new_one_and_calls_it_with_the_same_arguments(
    mem, monkeypatch, old, new
):
    space, name = new.split(".")
    calls: list[tuple[tuple[Any, ...], dict[str, Any]]] = []
    answer = object()

    def new_spelling(*args: Any, **kwargs: Any) -> object:
        calls.append((args, kwargs))
        return answer

    monkeypatch.setattr(getattr(mem, space), name, new_spelling)
    with pytest.warns(DeprecationWarning, match=_warning(old, new)) as caught:
        assert getattr(mem, old)("x", 2, flag=True) is answer
    assert calls == [(("x", 2), {"flag": True})]
    assert [w.filename for w in caught] == [__file__]  # the caller's line, not mneme's


def test_the_old_names_still_do_the_work_on_a_real_store(mem):
    mem.retain("I work at Acme Robotics.", bank="job", agent="a1")
    mem.retain("I work at Globex Labs.", bank="job", agent="a1")
    with pytest.deprecated_call():
        (conflict,) = mem.conflicts(bank="job")
    assert mem.conflicts.list(bank="job") == [conflict]
    with pytest.deprecated_call():
        settled = mem.resolve(conflict.id, "not_conflict", actor="rev1", note="both true")
    assert settled.status == "resolved"
    unit = mem.retain("The printer is on floor 3.", bank="ops", agent="a1").memory_ids[0]
    with pytest.deprecated_call():
        tomb = mem.reject(unit, "wrong floor", "rev1")
    assert tomb.unit_id == unit
    assert mem.get(unit).status == mneme.UnitStatus.REJECTED
    with pytest.deprecated_call():
        mem.restore(unit, "rev1", "it was right")
    assert mem.get(unit).status == mneme.UnitStatus.ACTIVE
    with pytest.deprecated_call():
        assert mem.stats() == mem.admin.stats()
    with pytest.deprecated_call():
        assert mem.audit_verify("job")["job"].ok


def test_a_conflicts_call_with_the_old_arguments_lists_as_before(mem):
    mem.retain("I work at Acme Robotics.", bank="job", agent="a1")
    mem.retain("I work at Globex Labs.", bank="job", agent="a1")
    with pytest.warns(DeprecationWarning, match=_warning("conflicts", "conflicts.list")):
        old = mem.conflicts(bank="job", status=None, limit=5)
    assert old == mem.conflicts.list(bank="job", status=None, limit=5)


@pytest.mark.parametrize(
    ("old", "new", "probe"),
    [
        ("store", "admin.audit_log and the other public methods", "schema_version"),
        ("presence", "swarm", "roster"),
        ("reconsolidator", "beliefs", "has_pending"),
    ],
)
def test_an_old_attribute_warns_and_still_hands_out_what_it_did(mem, old, new, probe):
    with pytest.warns(DeprecationWarning, match=_warning(old, new)):
        part = getattr(mem, old)
    assert callable(getattr(part, probe))


def test_the_audit_log_reads_a_banks_records_oldest_first_or_the_last_few(mem):
    first = mem.retain("Carol lives in Porto.", bank="team", agent="a1")
    mem.retain("Dan lives in Lyon.", bank="team", agent="a1")
    log = mem.admin.audit_log("team")
    assert [r.seq for r in log] == sorted(r.seq for r in log)
    assert log[0].op == "bank.create"
    assert mem.admin.audit_log("team", last=3) == log[-3:]
    about = mem.admin.audit_log("team", target=first.memory_ids[0])
    assert about
    assert {r.target for r in about} == {first.memory_ids[0]}
    assert mem.admin.audit_log("nowhere") == []


@pytest.mark.parametrize("last", [0, -1, True, 1.5])
def test_the_audit_log_refuses_a_count_that_is_not_a_positive_whole_number(mem, last):
    with pytest.raises(mneme.InvalidInput, match="last"):
        mem.admin.audit_log("team", last=last)


def test_a_namespace_hands_out_the_services_own_methods(mem):
    # One signature and one docstring, where the work is done (ADR 0043).
    assert mem.review.reject.__func__ is Review.reject
    assert mem.review.reject.__doc__ == Review.reject.__doc__
