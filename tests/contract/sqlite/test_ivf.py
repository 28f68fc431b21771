"""The coarse quantizer of large SQLite banks: close to exact, scope before ranking, widening."""

from __future__ import annotations

import numpy as np
import pytest

from mneme.core.model import Scope, UnitStatus, UnitType, Viewer, Visibility
from mneme.store.protocol import Filters
from mneme.store.sqlite import ivf as ivf_mod
from mneme.store.sqlite import vectors as vectors_mod
from mneme.store.sqlite.ivf import CoarseQuantizer
from mneme.store.sqlite.vectors import IndexRow, VectorIndex

DIM = 32
N = 6000


def _clustered(n: int, seed: int = 3) -> np.ndarray:
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(60, DIM))
    points = centres[rng.integers(0, 60, n)] + 0.35 * rng.normal(size=(n, DIM))
    points /= np.linalg.norm(points, axis=1, keepdims=True)
    return points.astype(np.float32)


def _row(unit_id: str, vector: np.ndarray, private: bool = False) -> IndexRow:
    author = "a2" if private else "a1"
    return IndexRow(
        unit_id=unit_id,
        vector=vector,
        author=author,
        visibility=Visibility.PRIVATE if private else Visibility.SHARED,
        status=UnitStatus.ACTIVE,
        type=UnitType.FACT,
        occurred_start=None,
        occurred_end=None,
        valid_from=None,
        valid_until=None,
        knowers=(author,),
    )


def _index(vectors: np.ndarray, private_every: int = 0) -> VectorIndex:
    idx = VectorIndex("b1", "m", DIM, 0)
    for i, v in enumerate(vectors):
        idx.add(_row(f"u{i}", v, bool(private_every) and i % private_every == 0))
    return idx


@pytest.fixture
def small_threshold(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(vectors_mod, "IVF_MIN_ROWS", 1000)


def test_every_row_belongs_to_exactly_one_cluster() -> None:
    vectors = _clustered(3000)
    q = CoarseQuantizer.train(vectors, lists=40)
    runs, tail = q.spans(np.arange(q.lists))  # untrained order: every row still in a tail
    assert runs == []
    assert tail.tolist() == list(range(3000))
    assert q.trained_rows == 3000


@pytest.mark.usefixtures("small_threshold")
def test_partitioned_search_finds_what_the_exact_scan_finds() -> None:
    vectors = _clustered(N)
    idx = _index(vectors)
    viewer = Viewer("b1", "a1", Scope.COLLECTIVE)
    queries = _clustered(50, seed=9)
    overlap = []
    for q in queries:
        got = {s.unit_id for s in idx.search(viewer, q, Filters(), 10)}
        scores = vectors @ q
        truth = {f"u{i}" for i in np.argsort(-scores)[:10]}
        overlap.append(len(got & truth) / 10)
    assert idx._ivf is not None  # the partitioned path ran
    assert float(np.mean(overlap)) >= 0.9


@pytest.mark.usefixtures("small_threshold")
def test_scope_is_applied_before_ranking_and_a_selective_scope_widens_the_probe() -> None:
    vectors = _clustered(N)
    idx = _index(vectors, private_every=3)
    other = Viewer("b1", "a1", Scope.COLLECTIVE)
    owner = Viewer("b1", "a2", Scope.PERSONAL)  # sees only its own private third
    for q in _clustered(20, seed=5):
        hits = idx.search(other, q, Filters(), 10)
        assert len(hits) == 10
        assert all(int(h.unit_id[1:]) % 3 != 0 for h in hits)  # never another's private row
        mine = idx.search(owner, q, Filters(), 10)
        assert len(mine) == 10
        assert all(int(h.unit_id[1:]) % 3 == 0 for h in mine)
    # a filter that only a handful of rows pass still returns them all (the probe widens)
    few = Filters(exclude_ids=frozenset(f"u{i}" for i in range(N - 5)))
    assert {h.unit_id for h in idx.search(other, vectors[0], few, 10)} == {
        f"u{i}" for i in range(N - 5, N) if i % 3 != 0
    }


@pytest.mark.usefixtures("small_threshold")
def test_rows_added_after_training_are_found_and_doubling_retrains() -> None:
    vectors = _clustered(2 * N, seed=4)
    idx = _index(vectors[:N])
    viewer = Viewer("b1", "a1", Scope.COLLECTIVE)
    idx.search(viewer, vectors[0], Filters(), 5)
    first = idx._ivf
    assert first is not None
    assert first.trained_rows == N
    idx.add(_row("late", vectors[N]))  # one more row, added to the trained index
    assert idx.search(viewer, vectors[N], Filters(), 1)[0].unit_id == "late"
    for i in range(N + 1, 2 * N):
        idx.add(_row(f"v{i}", vectors[i]))
    idx.search(viewer, vectors[0], Filters(), 5)
    assert idx._ivf is not first
    assert idx._ivf is not None
    assert idx._ivf.trained_rows == 2 * N


def test_the_exact_scan_stays_below_the_threshold() -> None:
    idx = _index(_clustered(500))
    idx.search(Viewer("b1", "a1", Scope.COLLECTIVE), _clustered(1)[0], Filters(), 5)
    assert idx._ivf is None
    assert ivf_mod.list_count(1_000_000) == 2000
    assert ivf_mod.probe_count(2000) == 125


@pytest.mark.usefixtures("small_threshold")
def test_rows_are_sorted_by_cluster_and_keep_their_ids_state_and_knowers() -> None:
    vectors = _clustered(N)
    idx = _index(vectors, private_every=3)
    idx.set_state("u7", UnitStatus.SUPERSEDED, None, None)
    owner = Viewer("b1", "a2", Scope.PERSONAL)
    before = {h.unit_id for h in idx.search(owner, vectors[3], Filters(), 10)}  # trains, sorts
    ivf = idx._ivf
    assert ivf is not None
    assert ivf.sorted_rows == N
    assert ivf.tail_rows == 0
    # each cluster is one contiguous run of rows, and holds the rows nearest its centroid
    for c in range(ivf.lists):
        a, b = int(ivf.offsets[c]), int(ivf.offsets[c + 1])
        if a < b:
            nearest = np.argmax(idx._mat[a:b] @ ivf.centroids.T, axis=1)
            assert (nearest == c).all()
    # every id still names its own vector, and state and knowers moved with their rows
    for i in (0, 7, 999, N - 1):
        row = idx._row[f"u{i}"]
        assert np.array_equal(idx._mat[row], vectors[i])
        assert idx._ids[row] == f"u{i}"
    assert idx._status[idx._row["u7"]] == list(UnitStatus).index(UnitStatus.SUPERSEDED)
    live = Filters(statuses=frozenset({UnitStatus.ACTIVE}))
    assert "u7" not in {h.unit_id for h in idx.search(owner, vectors[7], live, 50)}
    mine = idx.search(owner, vectors[3], Filters(), 10)
    assert {h.unit_id for h in mine} == before
    assert all(int(h.unit_id[1:]) % 3 == 0 for h in mine)  # a2 knows only its own rows


@pytest.mark.usefixtures("small_threshold")
def test_tails_are_sorted_again_without_retraining() -> None:
    vectors = _clustered(N + N // 4, seed=8)
    idx = _index(vectors[:N])
    viewer = Viewer("b1", "a1", Scope.COLLECTIVE)
    idx.search(viewer, vectors[0], Filters(), 5)
    ivf = idx._ivf
    assert ivf is not None
    centroids = ivf.centroids.copy()
    for i in range(N, N + N // 4):
        idx.add(_row(f"u{i}", vectors[i]))
    assert ivf.tail_rows == N // 4  # the new rows wait in their clusters' tails
    hits = idx.search(viewer, vectors[N + 5], Filters(), 1)  # past 1/8 in tails: sorted again
    assert hits[0].unit_id == f"u{N + 5}"
    assert idx._ivf is ivf
    assert np.array_equal(ivf.centroids, centroids)
    assert ivf.tail_rows == 0
    assert ivf.sorted_rows == N + N // 4


@pytest.mark.usefixtures("small_threshold")
def test_equal_scores_rank_the_older_row_first_after_sorting() -> None:
    vectors = _clustered(N)
    idx = _index(vectors)
    twin = vectors[10]
    idx.add(_row("late-twin", twin))
    viewer = Viewer("b1", "a1", Scope.COLLECTIVE)
    hits = idx.search(viewer, twin, Filters(), 2)
    assert [h.unit_id for h in hits] == ["u10", "late-twin"]
    batch = idx.search_many(viewer, np.stack([twin] * 40), Filters(), 2)
    assert all([h.unit_id for h in b] == ["u10", "late-twin"] for b in batch)
