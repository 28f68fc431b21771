"""Batched semantic search (the write path's neighbour prefetch): the same hits as one search
per query, across row blocks, scopes and filters."""

from __future__ import annotations

import numpy as np
import pytest

from mneme.core.model import Scope, UnitStatus, UnitType, Viewer, Visibility
from mneme.store.protocol import Filters, Scored
from mneme.store.sqlite import vectors as vectors_mod
from mneme.store.sqlite.vectors import IndexRow, VectorIndex

DIM = 16


def _row(unit_id: str, vector: np.ndarray, author: str, **kw: object) -> IndexRow:
    fields: dict[str, object] = {
        "visibility": Visibility.SHARED,
        "status": UnitStatus.ACTIVE,
        "knowers": (author,),
    } | kw
    return IndexRow(
        unit_id=unit_id,
        vector=vector,
        author=author,
        type=UnitType.FACT,
        occurred_start=None,
        occurred_end=None,
        valid_from=None,
        valid_until=None,
        **fields,  # type: ignore[arg-type]
    )


def _index(n: int, seed: int = 5) -> tuple[VectorIndex, np.ndarray]:
    rng = np.random.default_rng(seed)
    vectors = rng.normal(size=(n, DIM)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    idx = VectorIndex("b1", "m", DIM, 0)
    for i, v in enumerate(vectors):
        idx.add(
            _row(
                f"u{i}",
                v,
                ("a1", "a2", "a3")[i % 3],
                visibility=Visibility.PRIVATE if i % 7 == 0 else Visibility.SHARED,
                status=UnitStatus.SUPERSEDED if i % 11 == 0 else UnitStatus.ACTIVE,
            )
        )
    return idx, vectors


@pytest.mark.parametrize("block", [7, 64, 65_536])
@pytest.mark.parametrize("scope", [Scope.COLLECTIVE, Scope.PERSONAL, Scope.OWNER])
def test_search_many_equals_one_search_per_query(
    monkeypatch: pytest.MonkeyPatch, block: int, scope: Scope
) -> None:
    monkeypatch.setattr(vectors_mod, "SEARCH_BLOCK_ROWS", block)
    idx, vectors = _index(300)
    queries = np.vstack([vectors[:20], vectors[0:1]])
    viewer = Viewer("b1", "a2", scope)
    for filters in (Filters(), Filters(statuses=frozenset({UnitStatus.ACTIVE}))):
        for limit in (1, 12, 500):
            batch = idx.search_many(viewer, queries, filters, limit)
            single = [idx.search(viewer, q, filters, limit) for q in queries]
            # The same ids in the same order; scores equal up to the product's rounding
            # (a matrix product and a vector product may differ in the last bit).
            assert [[h.unit_id for h in hits] for hits in batch] == [
                [h.unit_id for h in hits] for hits in single
            ]
            for got, want in zip(batch, single, strict=True):
                assert np.allclose([h.score for h in got], [h.score for h in want], atol=1e-6)


def test_search_many_never_returns_what_the_viewer_cannot_see() -> None:
    idx, vectors = _index(200)
    viewer = Viewer("b1", "a1", Scope.COLLECTIVE)
    hidden = {f"u{i}" for i in range(200) if i % 7 == 0 and i % 3 != 0}
    for hits in idx.search_many(viewer, vectors, Filters(), 200):
        assert hidden.isdisjoint(h.unit_id for h in hits)


def test_search_many_on_empty_or_mismatched_input() -> None:
    idx, _ = _index(10)
    viewer = Viewer("b1", "a1", Scope.COLLECTIVE)
    assert idx.search_many(viewer, np.zeros((0, DIM), np.float32), Filters(), 5) == []
    assert idx.search_many(viewer, np.zeros((2, DIM + 1), np.float32), Filters(), 5) == [[], []]
    empty = VectorIndex("b1", "m", DIM, 0)
    assert empty.search_many(viewer, np.ones((2, DIM), np.float32), Filters(), 5) == [[], []]


def _same(a: list[list[Scored]], b: list[list[Scored]]) -> None:
    """Equal hits; scores equal to float32 rounding (a matrix product and one per query may
    round the last bit differently)."""
    assert [[h.unit_id for h in hits] for hits in a] == [[h.unit_id for h in hits] for hits in b]
    for x, y in zip(a, b, strict=True):
        assert [h.score for h in x] == pytest.approx([h.score for h in y], abs=1e-5)


@pytest.mark.parametrize("n_queries", [3, 80])
@pytest.mark.parametrize("scope", [Scope.COLLECTIVE, Scope.PERSONAL])
def test_on_a_large_bank_search_many_probes_as_one_search_per_query(
    monkeypatch: pytest.MonkeyPatch, n_queries: int, scope: Scope
) -> None:
    monkeypatch.setattr(vectors_mod, "IVF_MIN_ROWS", 100)
    idx, vectors = _index(1200)
    viewer = Viewer("b1", "a1", scope)
    queries = vectors[:n_queries]
    live = Filters(statuses=frozenset({UnitStatus.ACTIVE}))
    for filters in (Filters(), live):
        _same(
            idx.search_many(viewer, queries, filters, 7),
            [idx.search(viewer, q, filters, 7) for q in queries],
        )
    assert idx._ivf is not None  # the partitioned path ran


def test_personal_scope_follows_knowers_added_after_a_search(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The known-rows column of an agent is cached: later knowers, growth, a reorder by
    cluster and more agents than the cache holds must all still be seen."""
    monkeypatch.setattr(vectors_mod, "IVF_MIN_ROWS", 500)
    monkeypatch.setattr(vectors_mod, "KNOWN_COLUMNS", 2)
    idx, vectors = _index(300)
    mine = Viewer("b1", "a1", Scope.PERSONAL)
    everything = Filters()

    def known(viewer: Viewer) -> set[str]:
        return {h.unit_id for h in idx.search(viewer, vectors[1], everything, 2000)}

    first = known(mine)
    assert first == {f"u{i}" for i in range(300) if i % 3 == 0}
    idx.add_knower("u1", "a1")  # learned after the column was built
    assert known(mine) == first | {"u1"}
    for agent in ("a2", "a3", "a4"):  # more agents than the cache holds: a1's column goes
        known(Viewer("b1", agent, Scope.PERSONAL))
    idx.add_knower("u2", "a1")
    assert known(mine) == first | {"u1", "u2"}
    rng = np.random.default_rng(2)
    extra = rng.normal(size=(900, DIM)).astype(np.float32)
    extra /= np.linalg.norm(extra, axis=1, keepdims=True)
    for i, v in enumerate(extra):  # the matrix grows and, past 500 rows, sorts by cluster
        idx.add(_row(f"x{i}", v, "a2", knowers=("a1",) if i % 2 else ("a2",)))
    assert idx._ivf is None or idx._ivf.sorted_rows in (0, 1200)
    got = known(mine)
    assert idx._ivf is not None  # the search trained and sorted
    assert got == first | {"u1", "u2"} | {f"x{i}" for i in range(900) if i % 2}
    idx.set_knowers({"u5": ["a1"]})
    assert known(mine) == {"u5"}
