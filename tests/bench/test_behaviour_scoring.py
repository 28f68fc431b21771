"""The behaviour suite's judge-free scoring, on hand-made cases and predictions."""

from __future__ import annotations

import copy
import sys
from pathlib import Path
from typing import Any

import pytest

# The benchmark package lives at the repository root, next to src/ (python -m pytest adds it;
# a bare `pytest` only adds tests/).
_ROOT = str(Path(__file__).resolve().parents[2])
if _ROOT not in sys.path:
    sys.path.insert(0, _ROOT)

from bench.behaviour.model import Action, Prediction, parse_case, validate_case  # noqa: E402
from bench.behaviour.score import (  # noqa: E402
    contains,
    f1,
    normalize,
    pairs,
    score_case,
    summarize,
)


def raw_case(**expected: Any) -> dict[str, Any]:
    exp: dict[str, Any] = {"answer": ["drawer D-41"], "forbidden": ["D-14"]}
    exp.update(expected)
    return {
        "id": "t-01",
        "dimension": "long_horizon",
        "description": "hand-made",
        "events": [
            {
                "event_id": "e1",
                "session_id": "s1",
                "time": "2024-01-01T10:00:00+00:00",
                "kind": "remember",
                "content": "The spare keys are in drawer D-41.",
                "source": {"kind": "note", "trust": 0.9},
            },
            {
                "event_id": "e2",
                "session_id": "s2",
                "time": "2024-02-01T10:00:00+00:00",
                "kind": "remember",
                "content": "The other keys are in drawer D-14.",
                "source": {"kind": "note", "trust": 0.9},
            },
        ],
        "query": {"session": "s3", "time": "2024-09-01T10:00:00+00:00", "text": "Where?"},
        "expected": exp,
    }


def case(**expected: Any) -> Any:
    obj = raw_case(**expected)
    assert validate_case(obj) == []
    return parse_case(obj)


def test_normalize_folds_case_width_punctuation_and_space() -> None:
    assert normalize("  Drawer\u00a0D-41!\n") == "drawer d 41"
    assert normalize("ＺＥＰＨＹＲ–７") == "zephyr 7"  # fullwidth letters, en dash
    assert normalize("Straße") == "strasse"


def test_phrase_match_respects_word_boundaries() -> None:
    assert contains("keys in drawer d41? no: Drawer D-41.", "drawer D-41")
    assert not contains("drawer D-414", "drawer D-41")
    assert not contains("xD-41", "D-41")
    assert not contains("anything", "!!")


def test_f1_conventions() -> None:
    assert f1([], []) == 1.0
    assert f1(["e1"], []) == 0.0
    assert f1([], ["e1"]) == 0.0
    assert f1(["e1", "e2"], ["e1"]) == pytest.approx(2 / 3)
    assert f1(["e1"], ["e1"]) == 1.0


def test_groups_count_as_all_their_pairs() -> None:
    assert pairs([["e1", "e2", "e3"]]) == {
        frozenset({"e1", "e2"}),
        frozenset({"e1", "e3"}),
        frozenset({"e2", "e3"}),
    }
    assert pairs([["e2", "e1"], ["e1", "e2"]]) == {frozenset({"e1", "e2"})}


def test_a_right_answer_with_right_citations_scores_100() -> None:
    s = score_case(case(citations=["e1"]), Prediction("Drawer D-41.", citations=("e1",)))
    assert (s.score, s.answer, s.citations, s.contradictions) == (100.0, 1.0, 1.0, None)


def test_a_forbidden_phrase_zeroes_the_answer_whatever_else_it_holds() -> None:
    s = score_case(case(citations=["e1"]), Prediction("drawer D-41 or D-14", citations=("e1",)))
    assert s.answer == 0.0
    assert s.forbidden_found == ("D-14",)
    assert s.score == pytest.approx(50.0)


def test_every_expected_phrase_must_appear() -> None:
    c = case(answer=["drawer D-41", "spare keys"])
    assert score_case(c, Prediction("drawer D-41")).answer == 0.0
    assert score_case(c, Prediction("the spare keys: drawer D-41")).answer == 1.0


def test_the_case_score_is_the_mean_of_the_applicable_components() -> None:
    c = case(citations=["e1"], contradictions=[["e1", "e2"]])
    s = score_case(c, Prediction("drawer D-41", citations=("e1", "e2"), contradictions=()))
    assert s.answer == 1.0
    assert s.citations == pytest.approx(2 / 3)
    assert s.contradictions == 0.0
    assert s.score == pytest.approx(100 * (1 + 2 / 3 + 0) / 3)


def test_an_empty_contradiction_list_rewards_reporting_nothing() -> None:
    c = case(answer=[], forbidden=[], contradictions=[])
    assert score_case(c, Prediction("")).score == 100.0
    assert score_case(c, Prediction("", contradictions=(("e1", "e2"),))).score == 0.0


def test_an_unsupported_feature_scores_zero_even_with_a_right_answer() -> None:
    s = score_case(case(), Prediction("drawer D-41", unsupported=("retract_belief",)))
    assert s.answer == 1.0
    assert s.score == 0.0


def test_overall_is_the_mean_of_dimensions_not_of_cases() -> None:
    a = score_case(case(), Prediction("drawer D-41"))
    b = score_case(case(), Prediction("nothing"))
    other = parse_case({**raw_case(), "id": "t-02", "dimension": "temporal"})
    c = score_case(other, Prediction("drawer D-41"))
    summary = summarize([a, b, c])
    assert summary.dimensions == {"long_horizon": 50.0, "temporal": 100.0}
    assert summary.overall == 75.0
    assert summary.perfect == {"long_horizon": 1, "temporal": 1}


def test_validation_reports_schema_and_reference_errors() -> None:
    bad = copy.deepcopy(raw_case(citations=["e9"]))
    bad["events"][1]["supersedes"] = ["e1"]  # a remember event may not supersede
    bad["query"]["time"] = "2023-01-01T00:00:00+00:00"  # before the events
    errors = validate_case(bad)
    assert any("only a correct event supersedes" in e for e in errors)
    assert any("asked before the last event" in e for e in errors)
    assert any("unknown event e9" in e for e in errors)
    schema_bad = raw_case()
    schema_bad["events"][0]["source"]["trust"] = 1.5
    schema_bad["events"][0]["kind"] = "forget"
    errors = validate_case(schema_bad)
    assert len(errors) == 2
    assert all(e.startswith("events/0/") for e in errors)


def test_timed_actions_take_their_place_among_events() -> None:
    obj = raw_case()
    obj["actions"] = [
        {"do": "reject", "event": "e1", "time": "2024-01-15T00:00:00+00:00"},
        {"do": "restore", "event": "e1"},
    ]
    assert validate_case(obj) == []
    steps = [s.do if isinstance(s, Action) else s.event_id for _, s in parse_case(obj).timeline()]
    assert steps == ["e1", "reject", "e2", "restore"]
