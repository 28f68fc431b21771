"""A coarse quantizer for large banks: the semantic channel scans a few clusters, not every row.

Below ``IVF_MIN_ROWS`` the SQLite store's vector index scores every row (exact, and fast: a
100k x 384 float32 product is 12 ms on this machine, memory-bound). Past it the product grows
with the bank (about 120 ms at 1M rows), and the write path runs it for every new atom. So a
large index is partitioned (ADR 0018): spherical k-means over a sample gives ``nlist``
centroids (about 2 sqrt(n)); every row belongs to its nearest one; a search scores the
centroids, gathers the rows of the ``nprobe`` nearest clusters and ranks only those.

Scope and filters are still applied before ranking, on the gathered rows: when fewer than
``limit`` of them are visible, the search probes four times as many clusters, up to all of them
(then it is exact), so a selective filter costs time, never results. Training is deterministic
(seeded by the row count), and the quantizer is retrained when the rows double.
"""

from __future__ import annotations

import math

import numpy as np

#: Banks with fewer rows are searched exactly.
IVF_MIN_ROWS = 50_000
#: Rows sampled to train the centroids, and Lloyd iterations.
TRAIN_SAMPLE = 32_768
TRAIN_ITERATIONS = 6


def list_count(rows: int) -> int:
    return max(16, int(2 * math.sqrt(rows)))


def probe_count(lists: int) -> int:
    return min(lists, max(16, lists // 16))


class CoarseQuantizer:
    """Centroids, and the rows of each cluster (row numbers of the owning index's matrix)."""

    def __init__(self, centroids: np.ndarray, trained_rows: int) -> None:
        self.centroids = centroids
        self.trained_rows = trained_rows
        self._members: list[list[int]] = [[] for _ in range(len(centroids))]
        self._arrays: list[np.ndarray | None] = [None] * len(centroids)

    @classmethod
    def train(cls, matrix: np.ndarray, lists: int | None = None) -> CoarseQuantizer:
        """Spherical k-means on a sample of ``matrix`` (unit rows), then every row assigned."""
        n = len(matrix)
        k = min(lists or list_count(n), n)
        rng = np.random.default_rng(n)
        sample = matrix[rng.choice(n, size=min(n, TRAIN_SAMPLE), replace=False)]
        centroids = sample[rng.choice(len(sample), size=k, replace=False)].copy()
        for _ in range(TRAIN_ITERATIONS):
            nearest = _nearest(sample, centroids)
            sums = np.zeros_like(centroids)
            np.add.at(sums, nearest, sample)
            counts = np.bincount(nearest, minlength=k)
            empty = counts == 0
            # An empty cluster restarts at a random sample row; the others move to their mean.
            sums[empty] = sample[rng.choice(len(sample), size=int(empty.sum()))]
            norms = np.linalg.norm(sums, axis=1, keepdims=True)
            centroids = (sums / np.maximum(norms, 1e-12)).astype(np.float32)
        quantizer = cls(centroids, n)
        for start in range(0, n, 65_536):
            block = matrix[start : start + 65_536]
            for offset, c in enumerate(_nearest(block, centroids)):
                quantizer._members[int(c)].append(start + offset)
        return quantizer

    def add(self, row: int, vector: np.ndarray) -> None:
        c = int(np.argmax(self.centroids @ vector))
        self._members[c].append(row)
        self._arrays[c] = None

    def candidates(self, query: np.ndarray, probes: int) -> np.ndarray:
        """Rows of the ``probes`` clusters nearest to the query, ascending."""
        scores = self.centroids @ query
        probes = min(probes, len(scores))
        nearest = np.argpartition(-scores, probes - 1)[:probes]
        parts = [self._array(int(c)) for c in nearest]
        rows = np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)
        rows.sort()
        return rows

    @property
    def lists(self) -> int:
        return len(self.centroids)

    def _array(self, c: int) -> np.ndarray:
        arr = self._arrays[c]
        if arr is None:
            arr = self._arrays[c] = np.asarray(self._members[c], dtype=np.int64)
        return arr


def _nearest(vectors: np.ndarray, centroids: np.ndarray) -> np.ndarray:
    out = np.empty(len(vectors), dtype=np.int64)
    for start in range(0, len(vectors), 8192):
        out[start : start + 8192] = np.argmax(vectors[start : start + 8192] @ centroids.T, axis=1)
    return out
