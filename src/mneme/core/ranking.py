"""Fusion and ranking for recall: reciprocal rank fusion, spreading activation, the rerank blend.

Pure functions over ids and numbers; the read path feeds them what the store's channels found.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass


def rrf(
    rankings: Mapping[str, Sequence[str]], weights: Mapping[str, float], k: float = 60.0
) -> dict[str, float]:
    """Weighted reciprocal rank fusion: sum over channels of ``w / (k + rank)``, rank 1-based."""
    fused: dict[str, float] = {}
    for channel, ids in rankings.items():
        w = weights.get(channel, 1.0)
        if w <= 0:
            continue
        for rank, uid in enumerate(ids, start=1):
            fused[uid] = fused.get(uid, 0.0) + w / (k + rank)
    return fused


def ranks(ids: Sequence[str]) -> dict[str, int]:
    """1-based rank of each id in a channel's ordered result."""
    return {uid: i for i, uid in enumerate(ids, start=1)}


@dataclass(frozen=True, slots=True)
class Step:
    """One graph step as the ranking sees it (a store ``Link`` without the store)."""

    src: str
    dst: str
    type: str
    weight: float


@dataclass(frozen=True, slots=True)
class Activation:
    mass: float
    parent: str
    via: str


def spread(
    seeds: Mapping[str, float],
    steps: Iterable[Step],
    type_weights: Mapping[str, float],
    decay: float = 0.5,
) -> dict[str, Activation]:
    """One hop of spreading activation from scored seeds over weighted, typed steps.

    A neighbour's mass is the sum over incoming steps of ``seed * weight * type_weight * decay``;
    its parent is the seed that gave it the most. Seeds themselves receive mass too, so a seed
    that is also well connected to other seeds gains (graph mass for the rerank).
    """
    mass: dict[str, float] = {}
    best: dict[str, tuple[float, str, str]] = {}
    for step in steps:
        source_mass = seeds.get(step.src)
        if source_mass is None or step.dst == step.src:
            continue
        gain = source_mass * step.weight * type_weights.get(step.type, 0.3) * decay
        if gain <= 0:
            continue
        mass[step.dst] = mass.get(step.dst, 0.0) + gain
        if step.dst not in best or gain > best[step.dst][0]:
            best[step.dst] = (gain, step.src, step.type)
    return {uid: Activation(m, best[uid][1], best[uid][2]) for uid, m in mass.items()}


def freshness(age_days: float, half_life_days: float) -> float:
    """Exponential recency in [0, 1]: attention only, it never decides reachability."""
    if half_life_days <= 0:
        return 0.0
    return math.exp(-math.log(2) * max(age_days, 0.0) / half_life_days)


def normalize(scores: Mapping[str, float]) -> dict[str, float]:
    """Scale scores to [0, 1] by the maximum (0 stays 0)."""
    top = max(scores.values(), default=0.0)
    if top <= 0:
        return dict.fromkeys(scores, 0.0)
    return {k: v / top for k, v in scores.items()}


@dataclass(frozen=True, slots=True)
class BlendWeights:
    fused: float = 1.0
    similarity: float = 0.25
    graph: float = 0.15
    freshness: float = 0.05
    consensus: float = 0.05
    superseded_penalty: float = 0.5


def blend(
    fused: float,
    similarity: float,
    graph_mass: float,
    fresh: float,
    knowers: int,
    superseded: bool,
    w: BlendWeights,
) -> float:
    """The rerank: fused rank evidence, cosine similarity, graph mass, freshness, consensus.

    All inputs are already in [0, 1] except ``knowers``; consensus grows with the log of the
    number of agents that stated the fact. A superseded unit keeps a fraction of its score.
    """
    consensus = math.log1p(max(knowers - 1, 0)) / math.log(10)
    score = (
        w.fused * fused
        + w.similarity * max(similarity, 0.0)
        + w.graph * graph_mass
        + w.freshness * fresh
        + w.consensus * min(consensus, 1.0)
    )
    return score * (w.superseded_penalty if superseded else 1.0)


def group_match(
    cited: Mapping[str, Sequence[str]], similarity: Mapping[str, float]
) -> dict[str, tuple[float, str]]:
    """Cluster smoothing's group feature (``read/smoothing.py``): per cited unit, the best
    match to the query among the groups citing it, and that group (ties: the smaller id).
    ``cited``: group (an observation) -> the units it cites; ``similarity``: group -> its
    match to the query (a group at or below 0 lends nothing)."""
    out: dict[str, tuple[float, str]] = {}
    for obs in sorted(cited):
        sim = similarity.get(obs, 0.0)
        if sim <= 0.0:
            continue
        for uid in cited[obs]:
            if uid == obs:
                continue
            best = out.get(uid)
            if best is None or sim > best[0]:
                out[uid] = (sim, obs)
    return out
