"""The review worklist through ``Memory`` (ADR 0048): only what waits for a decision, as
cards with the statement as said and the decisions that apply; refusals write nothing."""

from __future__ import annotations

import datetime as dt
import sqlite3

import pytest

import mneme
from mneme.errors import Conflict, InvalidInput, NotFound


def _rows(db_path: str) -> dict[str, int]:
    con = sqlite3.connect(db_path)
    try:
        return {
            t: int(con.execute(f"SELECT count(*) FROM {t}").fetchone()[0])
            for t in ("review_events", "tombstones", "claims", "audit_log")
        }
    finally:
        con.close()


def _claim(mem: mneme.Memory, bank: str, value: str) -> str:
    return next(i.id for i in mem.review.queue(bank=bank) if value in i.claim.value)


@pytest.fixture
def desk(mem: mneme.Memory) -> dict[str, str]:
    """A conflict (Paris/Berlin), a plain claim (tea), and a rejected value said again."""
    mem.retain("Alice lives in Paris.", bank="d", agent="scout", source_id="ev-1",
               occurred_at="2024-05-01")  # fmt: skip
    mem.retain("Alice lives in Berlin.", bank="d", agent="critic", source_id="ev-2",
               occurred_at="2025-02-03")  # fmt: skip
    mem.retain("Bob prefers tea over coffee.", bank="d", agent="scout")
    mem.retain("Dan's birthday is 3 March.", bank="d", agent="scout")
    dan = _claim(mem, "d", "3 march")
    mem.review.reject(dan, "wrong date", "rev0")
    mem.retain("Dan's birthday is 3 March.", bank="d", agent="critic", source_id="ev-3")
    return {"dan": dan, "tea": _claim(mem, "d", "tea"), "paris": _claim(mem, "d", "paris")}


def test_the_worklist_is_only_what_needs_a_decision_not_the_whole_bank(mem, desk):
    page = mem.review.worklist(bank="d")
    assert [(i.kind, i.id) for i in page.items][-1][0] == "question"
    assert {i.kind for i in page.items} == {"question", "reasserted"}
    assert page.counts == {"question": 1, "contested": 0, "reasserted": 1, "proposal": 0}
    assert page.total == 2
    assert desk["tea"] not in {i.id for i in page.items}  # pending, but nothing to decide
    assert len(mem.review.queue(bank="d")) > page.total  # what the old queue listed


def test_a_conflict_card_is_both_statements_as_said_with_sources_and_both_times(mem, desk):
    (card,) = mem.review.worklist(bank="d", kinds=["question"]).items
    assert card.said is not None
    assert card.other is not None
    assert (card.said.text, card.said.author, card.said.source_ids) == (
        "Alice lives in Berlin.", "critic", ("ev-2",)
    )  # fmt: skip
    assert (card.other.text, card.other.author, card.other.source_ids) == (
        "Alice lives in Paris.", "scout", ("ev-1",)
    )  # fmt: skip
    assert card.said.occurred_at == dt.datetime(2025, 2, 3, tzinfo=dt.UTC)
    assert card.said.recorded_at != card.said.occurred_at  # when stored, not when it happened
    assert card.actions == ("supersede", "reject", "not_conflict", "scoped_exception")
    assert card.conflict is not None
    assert card.question


def test_a_reasserted_card_offers_approve_or_reject_and_rejecting_again_keeps_one_tombstone(
    mem, db_path, desk
):
    (card,) = mem.review.worklist(bank="d", kinds="reasserted").items
    assert card.id == desk["dan"]
    assert card.actions == ("approve", "reject")
    assert card.rejection is not None
    assert card.rejection.reason == "wrong date"
    assert card.said is not None
    assert "ev-3" in card.said.source_ids
    stones = _rows(db_path)["tombstones"]
    mem.review.reject(desk["dan"], "still wrong", "rev1")
    assert _rows(db_path)["tombstones"] == stones
    assert mem.review.worklist(bank="d").counts["reasserted"] == 0
    claim = mem._store.trust.get_claim("d", desk["dan"])
    assert (claim.status.value, claim.review_status.value) == ("rejected", "rejected")


def test_superseded_and_settled_items_leave_the_worklist(mem, desk):
    (card,) = mem.review.worklist(bank="d", kinds=["question"]).items
    mem.conflicts.resolve(card.id, "supersede", actor="rev1", winner=card.conflict.b_unit)
    page = mem.review.worklist(bank="d")
    assert page.counts["question"] == 0
    assert page.counts["contested"] == 0  # settled by a person: no question any more


def test_supersede_with_nothing_to_supersede_is_refused_and_writes_nothing(mem, db_path, desk):
    before = _rows(db_path)
    with pytest.raises(Conflict, match="nothing supersedes it"):
        mem.review.decide(desk["tea"], "supersede", "rev1", "old")
    assert _rows(db_path) == before
    # With a live rival in its slot, supersede applies and names the successor.
    mem.review.decide(desk["paris"], "supersede", "rev1", "she moved")
    claim = mem._store.trust.get_claim("d", desk["paris"])
    assert claim.superseded_by == _claim(mem, "d", "berlin")


@pytest.mark.parametrize(
    "call",
    [
        lambda m, ids: m.review.reject(ids["tea"], "", "rev1"),
        lambda m, ids: m.review.decide(ids["tea"], "reject", "rev1", "   "),
        lambda m, ids: m.review.bulk([ids["tea"]], "reject", actor="rev1"),
        lambda m, ids: m.conflicts.resolve(
            m.conflicts.list(bank="d")[0].id, "reject", actor="rev1"
        ),
    ],
)
def test_a_rejection_without_a_reason_is_refused_and_writes_nothing(mem, db_path, desk, call):
    before = _rows(db_path)
    with pytest.raises(InvalidInput, match="reason"):
        call(mem, desk)
    assert _rows(db_path) == before


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"bank": "nowhere"}, NotFound, "no bank"),
        ({"bank": 7}, InvalidInput, "bank"),
        ({"bank": "d", "kinds": ["question", "gossip"]}, InvalidInput, "unknown kind"),
        ({"bank": "d", "kinds": 3}, InvalidInput, "kinds must be a list"),
        ({"bank": "d", "kinds": []}, InvalidInput, "empty"),
        ({"bank": "d", "sort": "loudest"}, InvalidInput, "unknown sort"),
        ({"bank": "d", "text": "x" * 201}, InvalidInput, "over the limit"),
        ({"bank": "d", "text": b"tea"}, InvalidInput, "must be a string"),
        ({"bank": "d", "author": "not an id!"}, InvalidInput, "author"),
        ({"bank": "d", "limit": 0}, InvalidInput, "limit"),
        ({"bank": "d", "limit": "5"}, InvalidInput, "limit"),
        ({"bank": "d", "offset": -1}, InvalidInput, "offset"),
        ({"bank": "d", "offset": True}, InvalidInput, "offset"),
    ],
)
def test_bad_worklist_arguments_are_clear_errors(mem, desk, kwargs, error, match):
    with pytest.raises(error, match=match):
        mem.review.worklist(**kwargs)


def test_bulk_answers_one_result_per_id_and_a_stale_one_fails_alone(mem, db_path, desk):
    mem.retain("Erin's birthday is 3 March.", bank="d", agent="scout")
    erin = (
        _claim(mem, "d", "3 march")
        if False
        else next(
            i.id for i in mem.review.queue(bank="d") if i.claim.subject.lower().startswith("erin")
        )
    )
    mem.review.reject(erin, "wrong", "rev0")
    mem.retain("Erin's birthday is 3 March.", bank="d", agent="critic")
    results = mem.review.bulk([desk["dan"], erin, desk["dan"], "clm_gone"], "approve",
                              actor="rev1", bank="d")  # fmt: skip
    assert [(r.id, r.ok, r.code) for r in results] == [
        (desk["dan"], True, ""), (erin, True, ""), ("clm_gone", False, "not_found")
    ]  # fmt: skip
    again = mem.review.bulk([desk["dan"]], "approve", actor="rev1")
    assert (again[0].ok, again[0].code) == (False, "conflict")  # already approved
    assert mem.review.worklist(bank="d").counts["reasserted"] == 0
    before = _rows(db_path)
    for bad in ([], "clm_x", [7], ["x"] * 201):
        with pytest.raises(InvalidInput):
            mem.review.bulk(bad, "approve", actor="rev1")
    with pytest.raises(InvalidInput, match="unknown decision"):
        mem.review.bulk([desk["tea"]], "supersede", actor="rev1")
    assert _rows(db_path) == before


def test_bulk_refuses_an_id_of_another_bank(mem, desk):
    other = mem.retain("Zed is tall.", bank="elsewhere", agent="a1").memory_ids[0]
    (result,) = mem.review.bulk([other], "approve", actor="rev1", bank="d")
    assert (result.ok, result.code) == (False, "not_found")
