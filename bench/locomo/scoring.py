"""Scoring per the LoCoMo README: fractional recall@k, hit@k, all@k, category means.

Pure functions over plain data so the unit tests can check the arithmetic by hand.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from bench.locomo.data import HEADLINE_CATEGORIES

KS = (1, 5, 10, 20)
CURVE_KS = tuple(range(1, 21))


def first_unique(ids: Iterable[str], limit: int | None = None) -> list[str]:
    """Ids in order with repeats removed (a turn counts once), cut to ``limit``."""
    out: list[str] = []
    seen: set[str] = set()
    for i in ids:
        if i in seen:
            continue
        seen.add(i)
        out.append(i)
        if limit is not None and len(out) >= limit:
            break
    return out


def recall_at(evidence: Sequence[str], ranked: Sequence[str], k: int) -> float:
    """|E ∩ R_k| / |E|; ``ranked`` must already be first-unique."""
    if not evidence:
        raise ValueError("recall of a question without evidence is undefined (skip it)")
    e = set(evidence)
    return len(e & set(ranked[:k])) / len(e)


def hit_at(evidence: Sequence[str], ranked: Sequence[str], k: int) -> float:
    return 1.0 if set(evidence) & set(ranked[:k]) else 0.0


def all_at(evidence: Sequence[str], ranked: Sequence[str], k: int) -> float:
    return 1.0 if set(evidence) <= set(ranked[:k]) else 0.0


@dataclass(frozen=True, slots=True)
class Scored:
    """One question's outcome for one system."""

    category: int
    recall: Mapping[int, float]  # k -> recall@k for every k in CURVE_KS
    hit10: float
    all10: float


def score_question(category: int, evidence: Sequence[str], ranked: Sequence[str]) -> Scored:
    ranked = first_unique(ranked)
    return Scored(
        category,
        {k: recall_at(evidence, ranked, k) for k in CURVE_KS},
        hit_at(evidence, ranked, 10),
        all_at(evidence, ranked, 10),
    )


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def summarize(rows: Sequence[Scored]) -> dict[str, object]:
    """Per-category means, the question-weighted headline (categories 1-4), category 5 apart.

    Keys: ``headline`` and ``category_<n>``, each {"n", "recall@k" for k in KS, "hit@10",
    "all@10"}; plus ``curve``: headline recall@k for k = 1..20.
    """
    groups: dict[str, list[Scored]] = {
        "headline": [r for r in rows if r.category in HEADLINE_CATEGORIES]
    }
    for cat in sorted({r.category for r in rows}):
        groups[f"category_{cat}"] = [r for r in rows if r.category == cat]
    out: dict[str, object] = {}
    for name, group in groups.items():
        stats: dict[str, float | int | None] = {"n": len(group)}
        for k in KS:
            stats[f"recall@{k}"] = _mean([r.recall[k] for r in group])
        stats["hit@10"] = _mean([r.hit10 for r in group])
        stats["all@10"] = _mean([r.all10 for r in group])
        out[name] = stats
    out["curve"] = {k: _mean([r.recall[k] for r in groups["headline"]]) for k in CURVE_KS}
    return out


def percentile(values: Sequence[float], pct: float) -> float:
    """Linear-interpolated percentile (numpy's default method) of a non-empty sample."""
    if not values:
        raise ValueError("percentile of an empty sample")
    xs = sorted(values)
    pos = (len(xs) - 1) * pct / 100.0
    lo = int(pos)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)
