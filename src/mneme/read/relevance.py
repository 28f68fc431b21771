"""Relevance: how likely a recall hit is an answer, as a calibrated probability in [0, 1].

A hit's score orders one query's hits; it says nothing across queries (the best hit of a
question nothing answers still scores high). Relevance does: it is a logistic model over four
things recall already knows about a hit, fitted to LoCoMo dev evidence labels (a hit is
relevant when it cites a turn the question's annotators marked as evidence) by
``python -m bench.locomo.calibration``, which also reports its held-out calibration
(bench/results/calibration-<date>.md). No model call: it is arithmetic on the read path.

The features, each one a reason a hit is the answer rather than a near distractor:

- ``lead``: the log of the hit's final score over the best score of any *other* candidate of
  the query, clipped to [-4, 2]. Positive only for the top hit, by its margin over the
  runner-up; a near distractor just behind the answer is near 0, a weak hit far below.
- ``lexical`` and ``semantic``: the reciprocal of the hit's rank in the BM25 and the embedding
  channel (0 when that channel did not find it): agreement of two independent channels.
- ``coverage``: the share of the query's terms that the hit's text contains (compared on
  their first five letters, a crude stem): a distractor on the same topic misses the asked
  detail.

Left out after measuring: the cosine similarity and the graph mass (no gain once the channel
ranks are in), and the number of sibling atoms among the hits and the length of the text (they
lift ROC AUC on LoCoMo, but they depend on k or on how LoCoMo's turns are written, not on
whether a hit answers the question).

The constants are calibrated for the default recall configuration and for the ranking recall
does when they were fitted: ``lead`` reads the final score, after every re-ordering (present
questions, successors, aliases), so a change there or to the rerank blend weights calls for a
new fit.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

from mneme.core.language import query_terms, tokens

#: ``lead`` is clipped to this range: beyond it the data holds too few hits to say more.
LEAD_RANGE = (-4.0, 2.0)
#: Terms are compared on this many first letters ("support" / "supporting").
STEM = 5

#: Fitted by ``python -m bench.locomo.calibration`` on all five LoCoMo dev conversations
#: (categories 1-4, k=20; bench/results/calibration-2026-12-07.md, refit after the focus
#: channel joined the fusion, ADR 0103: the lead says more, the semantic rank less). Paste a
#: new fit here when recall's scoring changes, and commit its results file with it.
WEIGHTS: Mapping[str, float] = {
    "lead": 1.4033,
    "lexical": 1.2137,
    "semantic": 1.0409,
    "coverage": 1.2020,
}
INTERCEPT = -2.7870


@dataclass(frozen=True, slots=True)
class Features:
    """What relevance is computed from (see the module docstring)."""

    lead: float
    lexical: float
    semantic: float
    coverage: float

    def as_dict(self) -> dict[str, float]:
        return {
            "lead": self.lead,
            "lexical": self.lexical,
            "semantic": self.semantic,
            "coverage": self.coverage,
        }


def features(
    score: float,
    top: tuple[float, float],
    channels: Mapping[str, int],
    query: str,
    text: str,
) -> Features:
    """The features of one hit: its final ``score``, the best two candidate scores of the
    query (``top``), its per-channel ranks (1-based), the query text and the hit's text."""
    return Features(
        lead=lead(score, top),
        lexical=_reciprocal(channels.get("lexical")),
        semantic=_reciprocal(channels.get("semantic")),
        coverage=coverage(query, text),
    )


def lead(score: float, top: tuple[float, float]) -> float:
    """log(score / the best score of any other candidate), clipped to ``LEAD_RANGE``."""
    low, high = LEAD_RANGE
    best, runner_up = top
    other = runner_up if score >= best else best
    if score <= 0:
        return low
    if other <= 0:
        return high
    return min(high, max(low, math.log(score / other)))


def coverage(query: str, text: str) -> float:
    """The share of the query's terms found in ``text``, compared on their first letters."""
    terms = {t[:STEM] for t in query_terms(query)}
    if not terms:
        return 0.0
    words = {t[:STEM] for t in tokens(text)}
    return len(terms & words) / len(terms)


def probability(
    f: Features, weights: Mapping[str, float] = WEIGHTS, intercept: float = INTERCEPT
) -> float:
    """The calibrated probability that a hit with these features is relevant, in [0, 1]."""
    z = intercept + sum(weights[name] * value for name, value in f.as_dict().items())
    # A logistic written so neither branch overflows for a large |z|.
    if z >= 0:
        return 1.0 / (1.0 + math.exp(-z))
    e = math.exp(z)
    return e / (1.0 + e)


def _reciprocal(rank: int | None) -> float:
    return 1.0 / rank if rank else 0.0
