"""The semantic channel's CSLS order (read.hubs.less_hubs and store.ranking.pool_density, ADR
0092): a candidate near every other candidate (a hub) gives way to one near the query for what
it alone says."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from tests.workloads import stores_per_setting

from mneme.core.model import Channel
from mneme.read.hubs import less_hubs
from mneme.store.ranking import pool_density


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


def test_the_density_is_the_mean_cosine_to_the_nearest_others() -> None:
    _, _, vectors = _pool()
    density = pool_density(vectors * 3.0, 3)  # any length: rows are compared as directions
    sims = vectors @ vectors.T
    np.fill_diagonal(sims, -np.inf)
    assert np.allclose(density, np.sort(sims, axis=1)[:, -3:].mean(axis=1), atol=1e-6)
    assert density[0] > density[1]  # the hub is crowded, the lone one is not


def test_a_hub_gives_way_to_a_candidate_near_the_query_alone() -> None:
    ids, cosines, vectors = _pool()
    density = dict(zip(ids, pool_density(vectors, 3), strict=True))
    order = less_hubs(ids, cosines, density, weight=0.5)
    assert order[0] == "lone"
    assert order.index("hub") > order.index("lone")
    assert sorted(order) == sorted(ids)  # nothing dropped, nothing added


def test_no_weight_or_no_density_keeps_the_cosine_order() -> None:
    ids, cosines, vectors = _pool()
    density = dict(zip(ids, pool_density(vectors, 3), strict=True))
    assert less_hubs(ids, cosines, density, weight=0.0) == ids
    assert less_hubs(ids, cosines, {}, weight=0.5) == ids
    assert less_hubs([], [], {}, weight=0.5) == []


def test_ties_keep_the_given_order_and_ids_without_a_density_come_last() -> None:
    same = {"a": 0.2, "b": 0.2, "c": 0.2}
    assert less_hubs(["a", "b", "c"], [0.5, 0.5, 0.5], same, weight=0.5) == ["a", "b", "c"]
    assert less_hubs(["x", "a", "b"], [0.9, 0.5, 0.4], {"a": 0.1, "b": 0.1}, 0.5) == [
        "a",
        "b",
        "x",
    ]


@pytest.mark.slow
def test_recall_ranks_the_semantic_channel_with_hubs_taken_down(db_path: Any, minilm: Any) -> None:
    """Through Memory.recall with the default embedder: generic turns near every question crowd
    the pottery class out of the semantic channel's first place; CSLS (the default) gives it
    back, and ``hub_weight=0`` is the plain cosine order (LoCoMo conv-26's case, ADR 0092)."""
    texts = [
        "Melanie: Anything interesting going on?",
        "Melanie: They had fun exploring and playing.",
        "Melanie: What was it about?",
        "Melanie: What inspired it?",
        "Melanie: That's great to hear!",
        "Melanie: How did it go?",
        "Melanie: Any plans for the weekend?",
        "Melanie: Sounds fun!",
        "Melanie: What did you think of it?",
        "Melanie: Tell me more about it.",
        "Melanie: That sounds amazing.",
        "Melanie: I just signed up for a pottery class yesterday.",
    ]
    question = "What activities does Melanie partake in?"
    ranks = {}
    for weight, mem in stores_per_setting(str(db_path), minilm, "hub_weight", (0.5, 0.0)):
        for text in texts:
            mem.retain(text, bank="chat", agent="a1")
        hits = mem.recall(question, bank="chat", agent="a1", k=20)
        pottery = next(h for h in hits if "pottery" in h.text)
        ranks[weight] = pottery.channels[Channel.SEMANTIC]
    assert ranks[0.5] < ranks[0.0], ranks
