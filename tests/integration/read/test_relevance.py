"""Relevance: features of a hit to a calibrated probability (pure arithmetic, no store)."""

from __future__ import annotations

import itertools
import json
import math
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mneme.core.model import Channel
from mneme.read import relevance
from mneme.read.relevance import Features, coverage, features, lead, probability

RESULTS = Path(__file__).resolve().parents[3] / "bench" / "results"

unit_floats = st.floats(min_value=0.0, max_value=1.0, allow_nan=False)
leads = st.floats(min_value=relevance.LEAD_RANGE[0], max_value=relevance.LEAD_RANGE[1])


@given(leads, unit_floats, unit_floats, unit_floats)
def test_relevance_is_a_probability_for_any_features(
    lead_: float, lexical: float, semantic: float, cover: float
) -> None:
    p = probability(Features(lead_, lexical, semantic, cover))
    assert 0.0 <= p <= 1.0
    assert math.isfinite(p)


@given(st.floats(allow_nan=False, allow_infinity=False, min_value=-1e300, max_value=1e300))
def test_the_logistic_never_overflows(z: float) -> None:
    p = probability(
        Features(0.0, 0.0, 0.0, 0.0), weights=dict.fromkeys(relevance.WEIGHTS, 0.0), intercept=z
    )
    assert 0.0 <= p <= 1.0


@pytest.mark.parametrize("field", ["lead", "lexical", "semantic", "coverage"])
def test_relevance_rises_with_every_feature(field: str) -> None:
    low, high = relevance.LEAD_RANGE if field == "lead" else (0.0, 1.0)
    steps = [low + (high - low) * i / 20 for i in range(21)]
    base = {"lead": 0.0, "lexical": 0.5, "semantic": 0.5, "coverage": 0.5}
    ps = [probability(Features(**{**base, field: v})) for v in steps]
    assert all(a < b for a, b in itertools.pairwise(ps)), ps


def test_relevance_rises_with_the_score_against_the_same_rivals() -> None:
    top = (1.0, 0.8)
    ranks: dict[str, int] = {Channel.LEXICAL: 2, Channel.SEMANTIC: 3}
    ps = [
        probability(features(s, top, ranks, "Where is the spare badge?", "the spare badge"))
        for s in (0.1, 0.3, 0.5, 0.7, 0.8, 0.9, 1.0)
    ]
    assert all(a < b for a, b in itertools.pairwise(ps)), ps


def test_an_answer_outranks_a_near_distractor() -> None:
    q = "Where does Quentin keep the spare badge?"
    answer = features(
        1.0, (1.0, 0.9), {"lexical": 1, "semantic": 1}, q, "Quentin keeps the spare badge in D-41."
    )
    distractor = features(
        0.9, (1.0, 0.9), {"lexical": 2, "semantic": 2}, q, "Quentin keeps his bike in the shed."
    )
    assert probability(answer) > probability(distractor) + 0.1


def test_lead_is_the_margin_over_the_best_other_candidate() -> None:
    assert lead(1.0, (1.0, 0.5)) == pytest.approx(math.log(2.0))  # the top hit, over the runner-up
    assert lead(0.5, (1.0, 0.5)) == pytest.approx(math.log(0.5))  # behind the top hit
    assert lead(1.0, (1.0, 1.0)) == 0.0  # a tie for first
    assert lead(1e-9, (1.0, 0.5)) == relevance.LEAD_RANGE[0]  # clipped
    assert lead(1.0, (1.0, 0.0)) == relevance.LEAD_RANGE[1]  # the only candidate
    assert lead(0.0, (0.0, 0.0)) == relevance.LEAD_RANGE[0]


def test_coverage_compares_query_terms_on_their_stems() -> None:
    assert coverage("the support group", "Caroline went to a supporting group") == 1.0
    assert coverage("Caroline's support group", "Melanie paints") == 0.0
    assert coverage("When did Caroline paint?", "Caroline: I went") == pytest.approx(1 / 2)


def test_channel_ranks_count_by_their_reciprocal_and_absence_is_zero() -> None:
    f = features(1.0, (1.0, 0.5), {Channel.LEXICAL: 4, Channel.GRAPH: 1}, "badge", "badge")
    assert (f.lexical, f.semantic) == (0.25, 0.0)


def test_shipped_constants_give_these_probabilities() -> None:
    # Pinned so a change of constants is a deliberate act: re-run bench.locomo.calibration,
    # paste its constants, commit its results file, and update these numbers.
    answer = Features(lead=0.3, lexical=1.0, semantic=1.0, coverage=1.0)
    far = Features(lead=-2.0, lexical=0.0, semantic=0.05, coverage=0.25)
    nothing = Features(lead=0.0, lexical=0.0, semantic=0.0, coverage=0.0)
    assert probability(answer) == pytest.approx(0.74849, abs=1e-5)
    assert probability(far) == pytest.approx(0.00527, abs=1e-5)
    assert probability(nothing) == pytest.approx(0.05803, abs=1e-5)
    assert list(relevance.WEIGHTS) == ["lead", "lexical", "semantic", "coverage"]
    assert all(w > 0 for w in relevance.WEIGHTS.values())


def test_shipped_constants_are_those_of_the_latest_calibration_run() -> None:
    runs = sorted(RESULTS.glob("calibration-*.json"))
    assert runs, "no bench/results/calibration-*.json: run python -m bench.locomo.calibration"
    record = json.loads(runs[-1].read_text())
    shipped = record["shipped_constants"]
    assert shipped["intercept"] == relevance.INTERCEPT
    assert {k: v for k, v in shipped.items() if k != "intercept"} == dict(relevance.WEIGHTS)
    assert record["features"] == list(relevance.WEIGHTS)
    # The run those constants were measured in met the bar, held out and shipped.
    assert record["results"]["held out (5-fold by conversation)"]["ece"] <= 0.1
    assert record["results"]["shipped constants (in-sample)"]["ece"] <= 0.1
    # And a refit on the same hits lands close to them (nobody hand-tuned a weight).
    for name, w in zip(record["features"], record["refit"]["weights"], strict=True):
        assert relevance.WEIGHTS[name] == pytest.approx(w, abs=0.05)
