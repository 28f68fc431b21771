"""The semantic channel's CSLS order (read.hubs.less_hubs, ADR 0092): a candidate near
every other candidate (a hub) gives way to one near the query for what it alone says."""

from __future__ import annotations

import numpy as np

from mneme.read.hubs import less_hubs


def _unit(*xs: float) -> np.ndarray:
    v = np.asarray(xs, dtype=np.float32)
    return v / np.linalg.norm(v)


def _pool() -> tuple[list[str], list[float], np.ndarray]:
    # "hub" sits in the middle of a crowd of near-copies ("c1".."c4"); "lone" points its own way.
    ids = ["hub", "lone", "c1", "c2", "c3", "c4"]
    vectors = np.stack(
        [
            _unit(1, 1, 1, 0.0),
            _unit(0, 0, 0.2, 1),
            _unit(1, 1, 0.9, 0.1),
            _unit(1, 0.9, 1, 0.1),
            _unit(0.9, 1, 1, 0.1),
            _unit(1, 1, 1.1, 0.1),
        ]
    )
    cosines = [0.62, 0.60, 0.50, 0.49, 0.48, 0.47]
    return ids, cosines, vectors


def test_a_hub_gives_way_to_a_candidate_near_the_query_alone() -> None:
    ids, cosines, vectors = _pool()
    order = less_hubs(ids, cosines, vectors, neighbours=3, weight=0.5)
    assert order[0] == "lone"
    assert order.index("hub") > order.index("lone")
    assert sorted(order) == sorted(ids)  # nothing dropped, nothing added


def test_no_weight_or_too_few_candidates_keep_the_cosine_order() -> None:
    ids, cosines, vectors = _pool()
    assert less_hubs(ids, cosines, vectors, neighbours=3, weight=0.0) == ids
    assert less_hubs(ids[:1], cosines[:1], vectors[:1], neighbours=3, weight=0.5) == ids[:1]
    assert less_hubs([], [], np.zeros((0, 4), dtype=np.float32), neighbours=3, weight=0.5) == []


def test_equal_adjusted_scores_keep_the_given_order() -> None:
    vectors = np.stack([_unit(1, 0), _unit(1, 0), _unit(1, 0)])
    assert less_hubs(["a", "b", "c"], [0.5, 0.5, 0.5], vectors, neighbours=2, weight=0.5) == [
        "a",
        "b",
        "c",
    ]


def test_a_pool_no_larger_than_the_neighbours_keeps_its_order() -> None:
    ids, cosines, vectors = _pool()
    assert less_hubs(ids, cosines, vectors, neighbours=6, weight=0.5) == ids
    assert less_hubs(ids, cosines, vectors, neighbours=5, weight=0.5)[0] == "lone"
