"""A coarse quantizer for large banks: the semantic channel scans a few clusters, not every row.

Below ``IVF_MIN_ROWS`` the SQLite store's vector index scores every row (exact, and fast: a
100k x 384 float32 product is 12 ms on this machine, memory-bound). Past it the product grows
with the bank (about 120 ms at 1M rows), and the write path runs it for every new atom. So a
large index is partitioned (ADR 0018): spherical k-means over a sample gives ``nlist``
centroids (about 2 sqrt(n)); every row belongs to its nearest one; a search scores the
centroids and ranks only the rows of the ``nprobe`` nearest clusters.

The owning index keeps each cluster's rows contiguous (ADR 0021): after training it reorders
its rows by cluster, so probing a cluster reads a slice of the matrix in place instead of
copying scattered rows (at 1M rows a probe of 6% of the bank copied 64 MB per query). Rows
added later join their cluster's *tail*, gathered row by row, until the tails hold an eighth of
the rows and the index sorts again (no retraining).

Scope and filters are still applied before ranking, on the probed rows: when fewer than
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
#: The index sorts its rows by cluster again when the unsorted tails pass 1/TAIL_SHARE of it.
TAIL_SHARE = 8


def list_count(rows: int) -> int:
    return max(16, int(2 * math.sqrt(rows)))


def probe_count(lists: int) -> int:
    return min(lists, max(16, lists // 16))


class CoarseQuantizer:
    """Centroids, the cluster of every row, and where each cluster's rows lie in the index.

    Rows ``[0, sorted_rows)`` of the owning index are grouped by cluster (cluster ``c`` holds
    ``[offsets[c], offsets[c + 1])``); rows added after the last sort are listed per cluster in
    its tail.
    """

    def __init__(self, centroids: np.ndarray, trained_rows: int, assign: np.ndarray) -> None:
        self.centroids = centroids
        self.trained_rows = trained_rows
        self._assign = assign.astype(np.int32)  # cluster of each row, in the index's row order
        self.sorted_rows = 0
        self.offsets = np.zeros(len(centroids) + 1, dtype=np.int64)
        self._tail: list[list[int]] = [[] for _ in range(len(centroids))]
        self._tail_arrays: dict[int, np.ndarray] = {}
        self.tail_rows = len(assign)
        for row, c in enumerate(self._assign.tolist()):
            self._tail[c].append(row)

    @classmethod
    def train(cls, matrix: np.ndarray, lists: int | None = None) -> CoarseQuantizer:
        """Spherical k-means on a sample of ``matrix`` (unit rows), then every row assigned.

        The rows start unsorted (all in tails): the owning index calls ``sort_order`` and
        ``sorted_by`` to make each cluster contiguous."""
        n = len(matrix)
        k = min(lists or list_count(n), n)
        rng = np.random.default_rng(n)
        sample = matrix[rng.choice(n, size=min(n, TRAIN_SAMPLE), replace=False)]
        centroids = sample[rng.choice(len(sample), size=k, replace=False)].copy()
        for _ in range(TRAIN_ITERATIONS):
            nearest = _nearest(sample, centroids)
            counts = np.bincount(nearest, minlength=k)
            # Sum each cluster's rows: sort once, then add contiguous runs (np.add.at was the
            # slowest step of training).
            empty = counts == 0
            starts = np.concatenate([[0], np.cumsum(counts)[:-1]])[~empty]
            sums = np.zeros_like(centroids)
            ordered = sample[np.argsort(nearest, kind="stable")]
            sums[~empty] = np.add.reduceat(ordered, starts, axis=0)
            # An empty cluster restarts at a random sample row; the others move to their mean.
            sums[empty] = sample[rng.choice(len(sample), size=int(empty.sum()))]
            norms = np.linalg.norm(sums, axis=1, keepdims=True)
            centroids = (sums / np.maximum(norms, 1e-12)).astype(np.float32)
        return cls(centroids, n, _nearest(matrix, centroids))

    @classmethod
    def restore(
        cls, centroids: np.ndarray, trained_rows: int, assign: np.ndarray, sorted_rows: int
    ) -> CoarseQuantizer:
        """The quantizer as it was saved (ADR 0052): rows ``[0, sorted_rows)`` grouped by
        cluster, the rest in their clusters' tails."""
        ivf = cls(centroids, trained_rows, np.zeros(0, dtype=np.int32))
        ivf._assign = np.array(assign, dtype=np.int32)
        counts = np.bincount(ivf._assign[:sorted_rows], minlength=ivf.lists)
        ivf.offsets = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
        ivf.sorted_rows = sorted_rows
        for row, c in enumerate(ivf._assign[sorted_rows:].tolist(), start=sorted_rows):
            ivf._tail[c].append(row)
        ivf.tail_rows = len(ivf._assign) - sorted_rows
        return ivf

    def state(self, rows: int) -> dict[str, np.ndarray]:
        """What ``restore`` needs, for an index of ``rows`` rows."""
        return {
            "ivf_centroids": self.centroids,
            "ivf_assign": self._assign[:rows],
            "ivf_meta": np.array([self.trained_rows, self.sorted_rows], dtype=np.int64),
        }

    @property
    def lists(self) -> int:
        return len(self.centroids)

    def add(self, row: int, vector: np.ndarray) -> None:
        c = int(np.argmax(self.centroids @ vector))
        if row >= len(self._assign):
            grown = np.zeros(max(2 * len(self._assign), row + 1), dtype=np.int32)
            grown[: len(self._assign)] = self._assign
            self._assign = grown
        self._assign[row] = c
        self._tail[c].append(row)
        self._tail_arrays.pop(c, None)
        self.tail_rows += 1

    def needs_sort(self, rows: int) -> bool:
        return self.tail_rows * TAIL_SHARE > rows

    def sort_order(self, rows: int) -> np.ndarray:
        """The permutation of rows ``[0, rows)`` that groups them by cluster (stable)."""
        return np.argsort(self._assign[:rows], kind="stable")

    def sorted_by(self, order: np.ndarray) -> None:
        """The owning index moved its row ``order[i]`` to ``i``: every cluster is contiguous."""
        rows = len(order)
        self._assign[:rows] = self._assign[order]
        counts = np.bincount(self._assign[:rows], minlength=self.lists)
        self.offsets = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
        self.sorted_rows = rows
        self._tail = [[] for _ in range(self.lists)]
        self._tail_arrays = {}
        self.tail_rows = 0

    def nearest_lists(self, queries: np.ndarray, probes: int) -> np.ndarray:
        """The ``probes`` clusters nearest to each query (rows: queries), in no order."""
        scores = np.atleast_2d(queries) @ self.centroids.T
        probes = min(probes, self.lists)
        if probes >= self.lists:
            return np.tile(np.arange(self.lists), (len(scores), 1))
        return np.argpartition(-scores, probes - 1, axis=1)[:, :probes]

    def spans(self, clusters: np.ndarray) -> tuple[list[tuple[int, int]], np.ndarray]:
        """Where the rows of ``clusters`` lie: contiguous ``[start, stop)`` runs of the sorted
        rows (adjacent clusters merged) and the tail rows, ascending."""
        runs: list[tuple[int, int]] = []
        for c in np.sort(clusters).tolist():
            a, b = int(self.offsets[c]), int(self.offsets[c + 1])
            if a == b:
                continue
            if runs and runs[-1][1] == a:
                runs[-1] = (runs[-1][0], b)
            else:
                runs.append((a, b))
        tails = [self._tail_array(int(c)) for c in clusters if self._tail[int(c)]]
        tail = np.sort(np.concatenate(tails)) if tails else np.zeros(0, dtype=np.int64)
        return runs, tail

    def cluster(self, c: int) -> tuple[int, int, np.ndarray]:
        """Cluster ``c``'s sorted run ``[start, stop)`` and its tail rows."""
        tail = self._tail_array(c) if self._tail[c] else _NO_ROWS
        return int(self.offsets[c]), int(self.offsets[c + 1]), tail

    def _tail_array(self, c: int) -> np.ndarray:
        arr = self._tail_arrays.get(c)
        if arr is None:
            arr = self._tail_arrays[c] = np.asarray(self._tail[c], dtype=np.int64)
        return arr


_NO_ROWS = np.zeros(0, dtype=np.int64)


def _nearest(vectors: np.ndarray, centroids: np.ndarray) -> np.ndarray:
    out = np.empty(len(vectors), dtype=np.int64)
    for start in range(0, len(vectors), 8192):
        out[start : start + 8192] = np.argmax(vectors[start : start + 8192] @ centroids.T, axis=1)
    return out
