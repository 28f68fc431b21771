"""Judge-free scoring: normalized phrase match, forbidden phrases, F1 on citations and conflicts.

Per case, three components, each in [0, 1] and each scored only when the case asks for it:

- **answer** (when the case lists answer or forbidden phrases): 1 if every expected phrase
  appears in the normalized answer and no forbidden phrase does, else 0. A forbidden phrase
  present zeroes it whatever else the answer holds.
- **citations** (when ``expected.citations`` is not null): F1 of the cited event ids against the
  expected ones.
- **contradictions** (when ``expected.contradictions`` is not null): F1 on unordered pairs of
  event ids; a reported or expected group of n ids counts as its n·(n-1)/2 pairs.

F1 of an empty prediction against an empty expectation is 1 (nothing was to be found and
nothing was claimed); either side empty alone is 0. The case score is 100 × the mean of its
components; a prediction that reports an unsupported feature scores 0. A dimension is the mean
of its cases; overall is the mean of the dimensions (every dimension weighs the same).
"""

from __future__ import annotations

import itertools
import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from bench.behaviour.model import DIMENSIONS, Case, Prediction

_SPACE = re.compile(r"\s+")


def normalize(text: str) -> str:
    """NFKC, casefold, every punctuation or symbol character a space, whitespace folded."""
    text = unicodedata.normalize("NFKC", text).casefold()
    text = "".join(" " if unicodedata.category(ch)[0] in "PSZC" else ch for ch in text)
    return _SPACE.sub(" ", text).strip()


def contains(haystack: str, phrase: str) -> bool:
    """Whether the normalized phrase occurs in the normalized text on word boundaries."""
    needle = normalize(phrase)
    if not needle:
        return False
    return f" {needle} " in f" {normalize(haystack)} "


def f1(predicted: Iterable[object], expected: Iterable[object]) -> float:
    pred, exp = set(predicted), set(expected)
    if not pred and not exp:
        return 1.0
    hit = len(pred & exp)
    if hit == 0:
        return 0.0
    precision, recall = hit / len(pred), hit / len(exp)
    return 2 * precision * recall / (precision + recall)


def pairs(groups: Iterable[Iterable[str]]) -> set[frozenset[str]]:
    """Every unordered pair of distinct ids within each group."""
    out: set[frozenset[str]] = set()
    for group in groups:
        members = sorted(set(group))
        out.update(frozenset(p) for p in itertools.combinations(members, 2))
    return out


@dataclass(frozen=True, slots=True)
class CaseScore:
    case_id: str
    dimension: str
    score: float  # 0..100
    answer: float | None
    citations: float | None
    contradictions: float | None
    missing: tuple[str, ...]  # expected phrases not found
    forbidden_found: tuple[str, ...]
    unsupported: tuple[str, ...]


def score_case(case: Case, pred: Prediction) -> CaseScore:
    exp = case.expected
    missing = tuple(p for p in exp.answer if not contains(pred.answer, p))
    found = tuple(p for p in exp.forbidden if contains(pred.answer, p))
    answer: float | None = None
    if exp.answer or exp.forbidden:
        answer = 0.0 if missing or found else 1.0
    cites = None if exp.citations is None else f1(pred.citations, exp.citations)
    conflicts = (
        None
        if exp.contradictions is None
        else f1(pairs(pred.contradictions), pairs(exp.contradictions))
    )
    parts = [x for x in (answer, cites, conflicts) if x is not None]
    score = 100.0 * sum(parts) / len(parts) if parts else 0.0
    if pred.unsupported:
        score = 0.0
    return CaseScore(
        case_id=case.id,
        dimension=case.dimension,
        score=score,
        answer=answer,
        citations=cites,
        contradictions=conflicts,
        missing=missing,
        forbidden_found=found,
        unsupported=pred.unsupported,
    )


@dataclass(frozen=True, slots=True)
class Summary:
    """Per-dimension means (0..100), case counts, and the overall mean of dimensions."""

    dimensions: Mapping[str, float]
    counts: Mapping[str, int]
    perfect: Mapping[str, int]  # cases scoring 100 per dimension
    overall: float


def mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def summarize(scores: Iterable[CaseScore]) -> Summary:
    per: dict[str, list[float]] = {}
    for s in scores:
        per.setdefault(s.dimension, []).append(s.score)
    order = [d for d in DIMENSIONS if d in per] + sorted(set(per) - set(DIMENSIONS))
    dims = {d: mean(per[d]) for d in order}
    return Summary(
        dimensions=dims,
        counts={d: len(per[d]) for d in order},
        perfect={d: sum(1 for x in per[d] if x >= 100.0 - 1e-9) for d in order},
        overall=mean(list(dims.values())),
    )
