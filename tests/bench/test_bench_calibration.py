"""The relevance calibration benchmark's numbers: logistic fit, ECE, AUC, bars (numpy only)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

_ROOT = str(Path(__file__).resolve().parents[2])
if _ROOT not in sys.path:
    sys.path.insert(0, _ROOT)

from bench.locomo.calibration import (  # noqa: E402
    Row,
    at_bar,
    auc,
    ece,
    fit_logistic,
    predict,
    reliability,
    within_question,
)


def test_the_logistic_fit_recovers_known_coefficients() -> None:
    rng = np.random.default_rng(7)
    x = rng.normal(size=(20_000, 2))
    y = (rng.random(20_000) < 1 / (1 + np.exp(-(-1.0 + 2.0 * x[:, 0] - 0.5 * x[:, 1])))).astype(
        float
    )
    b, w = fit_logistic(x, y)
    assert b == pytest.approx(-1.0, abs=0.1)
    assert w == pytest.approx([2.0, -0.5], abs=0.1)
    # Probabilities of a well-specified fit are calibrated on the data they came from.
    assert ece(predict(b, w, x), y) < 0.02


def test_ece_is_the_hit_weighted_gap_between_predicted_and_observed() -> None:
    p = np.array([0.05, 0.05, 0.95, 0.95])
    assert ece(p, np.array([0.0, 0.0, 1.0, 1.0])) == pytest.approx(0.05)
    assert ece(p, np.array([1.0, 1.0, 0.0, 0.0])) == pytest.approx(0.95)
    bins = reliability(np.array([0.0, 0.1, 1.0]), np.array([0.0, 1.0, 1.0]))
    assert [b["hits"] for b in bins] == [1, 1, 0, 0, 0, 0, 0, 0, 0, 1]  # 1.0 is in the last bin


def test_auc_counts_ties_half_and_needs_both_classes() -> None:
    assert auc(np.array([0.1, 0.2, 0.8, 0.9]), np.array([0, 0, 1, 1])) == 1.0
    assert auc(np.array([0.5, 0.5]), np.array([0, 1])) == 0.5
    assert auc(np.array([0.9, 0.1]), np.array([0, 1])) == 0.0
    assert auc(np.array([0.3, 0.4]), np.array([1, 1])) is None


def test_within_question_compares_hits_of_the_same_question_only() -> None:
    p = np.array([0.9, 0.1, 0.2, 0.8])
    y = np.array([1, 0, 1, 0])
    groups = [("c", 1), ("c", 1), ("c", 2), ("c", 2)]
    assert within_question(p, y, groups) == 0.5  # question 1 right, question 2 wrong


def test_a_bar_reports_what_it_keeps_and_the_evidence_it_still_cites() -> None:
    rows = [
        Row("c", 1, 4, 1, (0.0,), 0.8, 1, ("c:D1:1",)),
        Row("c", 1, 4, 2, (0.0,), 0.2, 0, ("c:D1:2",)),
        Row("c", 2, 4, 1, (0.0,), 0.6, 0, ("c:D2:1",)),
        Row("c", 2, 4, 2, (0.0,), 0.4, 1, ("c:D2:2",)),
    ]
    evidence = {("c", 1): {"c:D1:1"}, ("c", 2): {"c:D2:2", "c:D2:9"}}
    p = np.array([r.shipped for r in rows])
    out = at_bar(p, rows, evidence, 0.5)
    assert out["hits"] == 2
    assert out["precision"] == 0.5
    assert out["evidence_recall"] == pytest.approx((1.0 + 0.0) / 2)
    assert out["relevant_hits_kept"] == 0.5
    everything = at_bar(p, rows, evidence, 0.0)
    assert everything["evidence_recall"] == pytest.approx((1.0 + 0.5) / 2)
    assert at_bar(p, rows, evidence, 0.9)["precision"] is None
