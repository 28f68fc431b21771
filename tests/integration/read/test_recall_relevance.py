"""recall(): every hit's relevance, and min_relevance dropping the hits below a bar."""

from __future__ import annotations

import datetime as dt
import math

import pytest

import mneme
from mneme.errors import InvalidInput

T0 = dt.datetime(2024, 3, 5, 10, 0, tzinfo=dt.UTC)
QUESTION = "Where does Quentin keep the spare badge?"


@pytest.fixture
def office(mem: mneme.Memory) -> mneme.Memory:
    for i, text in enumerate(
        [
            "Quentin keeps the spare badge in drawer D-41.",
            "Quentin keeps his bike in the shed.",
            "The spare keys are with the front desk.",
            "Rosa painted the badge office blue.",
            "The drawer in the kitchen sticks.",
            "Bob drinks green tea every morning.",
        ]
    ):
        mem.retain(text, bank="b1", agent="a1", source_id=f"ev-{i}", occurred_at=T0)
    return mem


def test_every_hit_has_a_relevance_and_the_answer_has_the_highest(office: mneme.Memory) -> None:
    hits = office.recall(QUESTION, bank="b1", agent="a1", k=10)
    assert len(hits) >= 3
    assert all(0.0 <= h.relevance <= 1.0 for h in hits)
    best = max(hits, key=lambda h: h.relevance)
    assert best.evidence_source_ids == ("ev-0",)
    others = [h.relevance for h in hits if h is not best]
    assert best.relevance > max(others) + 0.1  # an answer, not a near distractor


def test_min_relevance_drops_the_hits_below_it_and_keeps_the_rest_in_order(
    office: mneme.Memory,
) -> None:
    every = office.recall(QUESTION, bank="b1", agent="a1", k=10)
    ranked = sorted({h.relevance for h in every}, reverse=True)
    bar = (ranked[0] + ranked[1]) / 2  # between the answer and the best distractor
    kept = office.recall(QUESTION, bank="b1", agent="a1", k=10, min_relevance=bar)
    assert [h.id for h in kept] == [h.id for h in every if h.relevance >= bar]
    assert [h.evidence_source_ids for h in kept] == [("ev-0",)]
    # k stays an upper bound; a bar of 0 keeps everything, one above every hit keeps nothing.
    assert office.recall(QUESTION, bank="b1", agent="a1", k=10, min_relevance=0) == every
    assert office.recall(QUESTION, bank="b1", agent="a1", k=10, min_relevance=1.0) == []
    assert len(office.recall(QUESTION, bank="b1", agent="a1", k=2, min_relevance=0.0)) == 2


def test_relevance_of_a_hit_does_not_depend_on_k(office: mneme.Memory) -> None:
    wide = {h.id: h.relevance for h in office.recall(QUESTION, bank="b1", agent="a1", k=10)}
    for h in office.recall(QUESTION, bank="b1", agent="a1", k=2):
        assert h.relevance == wide[h.id]


@pytest.mark.parametrize("bad", [-0.1, 1.5, "high", True, math.nan, math.inf, [0.5]])
def test_a_bad_min_relevance_is_refused_by_name(office: mneme.Memory, bad: object) -> None:
    with pytest.raises(InvalidInput, match="min_relevance"):
        office.recall(QUESTION, bank="b1", agent="a1", min_relevance=bad)  # type: ignore[arg-type]


def test_a_newer_value_is_at_least_as_relevant_as_the_one_it_replaced(
    mem: mneme.Memory,
) -> None:
    """The current value shares fewer words with the question than the stale one it replaced;
    a relevance bar must never keep the stale value and drop the current one."""
    mem.retain("Alice lives in Berlin.", bank="b1", agent="a1", occurred_at=T0)
    moved = mem.retain(
        "Alice moved from Berlin to Munich.",
        bank="b1",
        agent="a1",
        occurred_at=T0 + dt.timedelta(days=1),
    )
    assert [d.verdict.value for d in moved.decisions] == ["SUPERSEDE"]
    hits = mem.recall("Where does Alice live?", bank="b1", agent="a1", k=5)
    stale = next(h for h in hits if h.superseded)
    current = next(h for h in hits if h.id == stale.successor)
    assert current.relevance >= stale.relevance
    kept = mem.recall(
        "Where does Alice live?", bank="b1", agent="a1", k=5, min_relevance=stale.relevance
    )
    assert current.id in [h.id for h in kept]
