"""read.present.order: what answers a question about now, recency and closeness fused by rank."""

from __future__ import annotations

from mneme.read.present import order

NEWEST_FIRST = ["chatter", "answer", "older", "oldest"]


def test_weight_zero_keeps_newest_first():
    sims = {"chatter": 0.1, "answer": 0.9, "older": 0.8, "oldest": 0.7}
    assert order(NEWEST_FIRST, sims, set(), 0.0) == NEWEST_FIRST


def test_a_newer_statement_far_from_the_question_gives_way_to_one_place_older_and_closest():
    # chatter: place 0 + closeness place 3; answer: 1 + 0.
    sims = {"chatter": 0.1, "answer": 0.9, "older": 0.8, "oldest": 0.7}
    assert order(NEWEST_FIRST, sims, set(), 1.0)[0] == "answer"


def test_of_two_the_newer_wins_at_weight_one():
    assert order(["new", "old"], {"new": 0.1, "old": 0.9}, set(), 1.0) == ["new", "old"]
    # A heavier weight lets closeness win even then.
    assert order(["new", "old"], {"new": 0.1, "old": 0.9}, set(), 1.5) == ["old", "new"]


def test_a_statement_counted_closest_wins_what_its_cosine_alone_would_not():
    # The answer reads less like the question than two older statements (a terse correction,
    # or one that says the question's word): counted closest it still comes first.
    sims = {"chatter": 0.5, "answer": 0.2, "older": 0.8, "oldest": 0.7}
    assert order(NEWEST_FIRST, sims, set(), 1.0)[0] == "chatter"
    assert order(NEWEST_FIRST, sims, {"answer"}, 1.0)[0] == "answer"


def test_every_id_is_kept_once():
    sims = {"chatter": 0.3, "answer": 0.2, "older": 0.9, "oldest": 0.1}
    out = order(NEWEST_FIRST, sims, {"oldest"}, 1.0)
    assert sorted(out) == sorted(NEWEST_FIRST)
