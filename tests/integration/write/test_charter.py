"""The charter: human-editable Markdown with checked rules; a bad edit names its line and the
last good charter stays in force; settlements become precedents and adoptable rules."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

import mneme
from mneme.core.charter import CharterError, parse
from mneme.errors import Conflict, InvalidInput
from mneme.write.charter import default_text

T0 = dt.datetime(2025, 1, 6, 9, 0, tzinfo=dt.UTC)


def test_the_default_charter_parses_and_every_rule_is_checked():
    charter = parse(default_text())
    assert charter.no_delete
    assert charter.protect_immutable
    assert charter.sources_immutable
    assert {t.value for t in charter.ask_types} == {"preference", "goal", "opinion"}
    assert charter.escalate_below == 0.6


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        ("- rule: ask_before_rewrite types=preference,gossip", "unknown memory type"),
        ("- rule: escalate_below confidence=1.5", "between 0 and 1"),
        ("- rule: delete_everything", "unknown rule"),
        ("- rule: escalate_below", "takes"),
        ("- rule: ask_before_rewrite types", "key=value"),
    ],
)
def test_a_malformed_rule_names_its_line(line, problem):
    text = "# charter\n\nsome words\n" + line + "\n"
    with pytest.raises(CharterError, match=f"line 4: .*{problem}"):
        parse(text)


def test_a_bad_edit_keeps_the_last_good_charter_in_force(tmp_path):
    path = tmp_path / "charter.md"
    path.write_text("- rule: ask_before_rewrite types=preference\n")
    mem = mneme.Memory.open(str(tmp_path / "c.db"), embedder="hashing", charter=str(path))
    try:
        assert mem.charter().ask_types
        path.write_text("fine words\n- rule: ask_before_rewrite types=nonsense\n")
        with pytest.raises(InvalidInput, match="line 2"):
            mem.charter.reload()
        assert {t.value for t in mem.charter().ask_types} == {"preference"}
        assert "line 2" in (mem.admin.rules()["charter_error"] or "")
        # the write path still asks before rewriting a preference
        mem.retain("I prefer tea in the morning.", bank="p", agent="a1", occurred_at=T0)
        r = mem.retain(
            "I prefer coffee in the morning now.",
            bank="p",
            agent="a1",
            occurred_at=T0 + dt.timedelta(days=3),
        )
        assert r.status == mneme.RetainStatus.NEEDS_CLARIFICATION
    finally:
        mem.close()


def test_an_edited_charter_is_picked_up_without_a_restart(tmp_path):
    path = tmp_path / "charter.md"
    path.write_text("- rule: ask_before_rewrite types=preference\n")
    mem = mneme.Memory.open(str(tmp_path / "c.db"), embedder="hashing", charter=str(path))
    try:
        path.write_text("- rule: ask_before_rewrite types=preference,goal\n")
        import os

        os.utime(path, (1, 1))  # a different mtime than the first read
        assert {t.value for t in mem.charter().ask_types} == {"preference", "goal"}
    finally:
        mem.close()


def test_a_missing_charter_file_is_a_clear_error(tmp_path):
    with pytest.raises(InvalidInput, match="does not exist"):
        mneme.Memory.open(
            str(tmp_path / "c.db"), embedder="hashing", charter=str(tmp_path / "nope.md")
        )


def test_an_immutable_memory_is_never_overwritten(mem):
    # A password is a secret the default policy redacts (ADR 0034): two redacted passwords
    # read the same, and there would be no change to protect against.
    mem.admin.set_sensitive_policy("i", {"password": "store"}, actor="t")
    old = mem.retain(
        "The wifi password is Pelican-42.", bank="i", agent="a1", metadata={"immutable": True}
    )
    r = mem.update(old.memory_ids[0], "The wifi password is Heron-7.", agent="a1")
    assert r.status == mneme.RetainStatus.NEEDS_CLARIFICATION
    assert "immutable" in {q.conflict_type for q in r.questions}
    assert mem.get(old.memory_ids[0]).status != mneme.UnitStatus.SUPERSEDED


CONTEXTS = ("in the morning", "at lunch", "in the afternoon")


def _preference_change(mem: mneme.Memory, bank: str, n: int) -> tuple[str, str]:
    context = CONTEXTS[n]
    a = mem.retain(f"I prefer tea {context}.", bank=bank, agent="a1", occurred_at=T0)
    b = mem.retain(
        f"I prefer coffee {context}.", bank=bank, agent="a1", occurred_at=T0 + dt.timedelta(days=1)
    )
    assert b.questions, "a changed preference asks instead of overwriting"
    return b.memory_ids[0], a.memory_ids[0]


def test_settlements_become_precedents_then_a_rule_proposal_then_a_rule(mem):
    proposals = []
    for n in range(3):
        new, old = _preference_change(mem, f"pref{n}", n)
        settled = mem.conflicts.resolve_contradiction(new, old, "confirm", actor="owner")
        assert mem.get(old).status == mneme.UnitStatus.SUPERSEDED
        proposals.append(settled.proposal)
    assert proposals[:2] == [None, None]  # precedents are counted per bank
    with pytest.raises(Conflict, match="identical settlements"):
        mem.admin.adopt_rule(
            bank="pref0", kind="preference", attribute="prefers", decision="confirm", actor="owner"
        )


def test_an_adopted_rule_settles_the_next_conflict_of_its_kind(mem):
    bank = "habits"
    seen = None
    for n in range(3):
        new, old = _preference_change(mem, bank, n)
        seen = mem.conflicts.resolve_contradiction(new, old, "confirm", actor="owner")
    assert seen is not None
    assert seen.proposal is not None
    p = seen.proposal
    rule = mem.admin.adopt_rule(
        bank=bank, kind=p.kind, attribute=p.attribute, decision=p.decision, actor="owner"
    )
    assert rule.text in [r.text for r in mem.admin.rules(bank=bank)["adopted"][bank]]
    assert rule.text not in mem.admin.rules()["charter"]  # beside the charter, never inside it
    a = mem.retain("I prefer green tea in the evening.", bank=bank, agent="a1", occurred_at=T0)
    b = mem.retain(
        "I prefer chamomile in the evening.",
        bank=bank,
        agent="a1",
        occurred_at=T0 + dt.timedelta(days=1),
    )
    assert not b.questions
    assert "adopted rule" in b.decisions[0].reason
    assert mem.get(a.memory_ids[0]).status == mneme.UnitStatus.SUPERSEDED


def test_resolve_contradiction_refuses_what_is_not_an_open_conflict(mem):
    x = mem.retain("Zoe paints.", bank="z", agent="a1").memory_ids[0]
    y = mem.retain("Zoe sings.", bank="z", agent="a1").memory_ids[0]
    with pytest.raises(mneme.NotFound, match="no open conflict"):
        mem.conflicts.resolve_contradiction(x, y, "confirm", actor="owner")
    with pytest.raises(InvalidInput, match="decision"):
        mem.conflicts.resolve_contradiction(x, y, "maybe", actor="owner")


def test_without_own_updates_apply_a_new_value_without_a_cue_is_asked(tmp_path):
    """The charter says which is which: the default applies an author's new value later in
    the conversation; without the rule it is a question, and a cued correction still applies."""
    text = default_text()
    path = tmp_path / "charter.md"
    path.write_text(text.replace("- rule: own_updates_apply", ""), encoding="utf-8")
    t0 = dt.datetime(2024, 5, 1, tzinfo=dt.UTC)
    for charter, expected in ((None, "SUPERSEDE"), (str(path), "CONTRADICT")):
        args: dict[str, Any] = {"charter": charter} if charter else {}
        mem = mneme.Memory.open(str(tmp_path / f"{expected}.db"), embedder="hashing", **args)
        try:
            mem.retain(
                "The Atlas deadline is 1 August.", bank="b", agent="a", session="s", occurred_at=t0
            )
            r = mem.retain(
                "The Atlas deadline is 15 August.",
                bank="b",
                agent="a",
                session="s",
                occurred_at=t0 + dt.timedelta(minutes=1),
            )
            assert r.decisions[0].verdict.value == "SUPERSEDE"
            held = "not applied" in r.decisions[0].reason
            assert held == (expected == "CONTRADICT")
            cued = mem.retain(
                "Actually, the Atlas deadline is 1 September.",
                bank="b",
                agent="a",
                session="s",
                occurred_at=t0 + dt.timedelta(minutes=2),
            )
            assert "not applied" not in cued.decisions[0].reason
        finally:
            mem.close()
