"""Channel scoring that both backends share, so the same rows rank the same everywhere."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

import numpy as np

from mneme.store.protocol import Scored


def best_rows(scores: np.ndarray, k: int, age: np.ndarray | None = None) -> np.ndarray:
    """The positions of the ``k`` highest scores, best first; a tie goes to the lower ``age``
    (default: the earlier position), so a vector search ranks the same rows the same way
    every time."""
    k = min(k, len(scores))
    if k <= 0:
        return np.zeros(0, dtype=np.int64)
    top = np.argpartition(-scores, k - 1)[:k]
    return top[np.lexsort((top if age is None else age[top], -scores[top]))]


def pool_density(vectors: np.ndarray, neighbours: int) -> np.ndarray:
    """Each row's mean cosine to its ``neighbours`` nearest other rows (rows need not be unit
    length): how crowded the pool is around it, the hub measure of CSLS (ADR 0092). The
    caller passes more rows than ``neighbours``."""
    m = np.asarray(vectors, dtype=np.float32)
    m = m / np.maximum(np.linalg.norm(m, axis=1, keepdims=True), 1e-12)
    n = len(m)
    sims = m @ m.T
    np.fill_diagonal(sims, -np.inf)
    nearest = np.partition(sims, n - neighbours, axis=1)[:, n - neighbours :]
    return np.asarray(nearest.mean(axis=1), dtype=np.float64)


def temporal_order(
    rows: Sequence[tuple[str, dt.datetime, dt.datetime | None]],
    start: dt.datetime,
    end: dt.datetime,
    limit: int,
) -> list[Scored]:
    """Rank units whose occurred window overlaps [start, end).

    A unit whose window fits inside the asked range comes before one that only spans it
    ("in 2024" is weak evidence for "in June 2024"); then the closer to the range's middle,
    the better. The score is higher-is-better like every channel's.
    """
    width = max((end - start).total_seconds(), 1.0)
    mid = start + (end - start) / 2
    keyed = []
    for uid, s, e in rows:
        e = e or s
        span = max((e - s).total_seconds(), 0.0)
        wider = span > width
        distance = abs((s - mid).total_seconds())
        keyed.append((wider, distance, uid, span))
    keyed.sort()
    out = []
    for wider, distance, uid, span in keyed[:limit]:
        tightness = 1.0 / (1.0 + span / 86400.0)
        closeness = 1.0 / (1.0 + distance / width)
        out.append(Scored(uid, round((0.5 if wider else 1.0) * (tightness + closeness) / 2, 6)))
    return out
