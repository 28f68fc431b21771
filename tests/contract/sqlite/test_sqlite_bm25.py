"""The in-memory BM25 of large SQLite banks (ADR 0021) ranks exactly as FTS5's bm25() does.

The threshold is lowered so a small bank takes the in-memory path; each query is answered both
ways (threshold out of reach: FTS5 itself) and must agree row for row and score for score,
after new rows, after a purge, after another connection's writes, and within scope.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from mneme.core.model import Scope, Viewer, Visibility
from mneme.store.protocol import Filters, Scored
from mneme.store.sqlite import SQLiteStore
from mneme.store.sqlite import lexicon as lexicon_mod

pytestmark = pytest.mark.parametrize("store", ["sqlite"], indirect=True)

WORDS = [
    "live",
    "lives",
    "living",
    "lived",
    "Lisbon",
    "Porto",
    "café",
    "Zoë",
    "naïve",
    "budget",
    "budgets",
    "approved",
    "project",
    "Heron",
    "Osprey",
    "sync",
    "meeting",
    "Tuesday",
    "deadline",
    "moved",
    "ticket",
    "fix",
    "promised",
    "allergic",
    "peanuts",
    "mentoring",
    "hiring",
    "incident",
    "deploy",
    "minutes",
    "rollout",
    "owns",
    "studio",
    "tablet",
    "bought",
    "42",
    "7",
    "2024",
]
QUERIES = [
    ["live", "lisbon"],
    ["budget", "heron"],
    ["cafe", "zoe"],
    ["naive"],
    ["ticket", "fix", "promised", "42"],
    ["living", "lives", "live"],  # three phrases with one stem: each counts, as in FTS5
    ["incident", "deploy", "minutes", "7"],
    ["nothingmatches"],
    ["nothingmatches", "owns"],
    ["studio", "tablet", "bought", "2024", "approved", "sync", "tuesday"],
]


def _texts(n: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        words = rng.choices(WORDS, k=rng.randrange(3, 14))
        if rng.random() < 0.2:
            words += [words[0]] * rng.randrange(1, 4)  # a term several times in one row
        out.append(" ".join(words) + ".")
    return out


def _both(
    store: Any, monkeypatch: pytest.MonkeyPatch, viewer: Viewer, terms: list[str], limit: int
) -> tuple[list[Scored], list[Scored]]:
    """(FTS5's answer, the in-memory index's answer) to one query."""
    with monkeypatch.context() as fts_only:
        fts_only.setattr(store.engine, "_lexical_ranked", lambda *_: None)
        fts = store.channels.search_lexical(viewer, terms, Filters(), limit)
    monkeypatch.setattr(lexicon_mod, "LEXICAL_MIN_ROWS", 1)
    mem = store.channels.search_lexical(viewer, terms, Filters(), limit)
    return fts, mem


def _agree(store: Any, monkeypatch: pytest.MonkeyPatch, viewer: Viewer) -> None:
    for terms in QUERIES:
        for limit in (1, 5, 40):
            fts, mem = _both(store, monkeypatch, viewer, terms, limit)
            assert [h.unit_id for h in mem] == [h.unit_id for h in fts], terms
            assert [h.score for h in mem] == pytest.approx([h.score for h in fts], rel=1e-12)


def _fill(make: Any, texts: list[str], private_every: int = 0, prefix: str = "") -> list[Any]:
    return [
        make.unit(
            t,
            id=f"{prefix}{i}" if prefix else None,
            agent="a2" if private_every and i % private_every == 0 else "a1",
            visibility=(
                Visibility.PRIVATE
                if private_every and i % private_every == 0
                else Visibility.SHARED
            ),
        )
        for i, t in enumerate(texts)
    ]


def test_the_in_memory_ranking_is_fts5s(
    store: Any, make: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    make.bank()
    units = _fill(make, _texts(240, seed=1), private_every=9)
    viewer = Viewer("b1", "a1", Scope.COLLECTIVE)
    _agree(store, monkeypatch, viewer)
    assert store.engine._lexicals
    assert "b1" in store.engine._lexicals
    # scope still applies: a2's private rows never reach a1, and reach a2
    _, mem = _both(store, monkeypatch, viewer, ["live", "budget"], 200)
    private = {u.id for i, u in enumerate(units) if i % 9 == 0}
    assert mem
    assert not private & {h.unit_id for h in mem}
    _, own = _both(store, monkeypatch, Viewer("b1", "a2", Scope.COLLECTIVE), ["live"], 200)
    assert private & {h.unit_id for h in own}


def test_new_rows_are_appended_and_a_purge_rebuilds(
    store: Any, make: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    make.bank()
    units = _fill(make, _texts(150, seed=2))
    viewer = Viewer("b1", "a1", Scope.COLLECTIVE)
    _agree(store, monkeypatch, viewer)
    index = store.engine._lexicals["b1"]
    _fill(make, _texts(60, seed=3))
    _agree(store, monkeypatch, viewer)
    assert store.engine._lexicals["b1"] is index
    assert len(index) == 210
    with store.transaction():
        store.erasure.purge(
            "b1", [u.id for u in units[:30]], [], actor="test", reason="tidy", target="t"
        )
    _agree(store, monkeypatch, viewer)
    assert len(store.engine._lexicals["b1"]) == 180


def test_another_connections_writes_are_seen(
    store: Any, make: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    make.bank()
    _fill(make, _texts(120, seed=4))
    viewer = Viewer("b1", "a1", Scope.COLLECTIVE)
    _agree(store, monkeypatch, viewer)
    other = SQLiteStore(store.path)
    try:
        _fill(
            type(make)(other),
            ["budget heron approved live lisbon " * 2 + f"row {i}" for i in range(25)],
            prefix="other-",
        )
    finally:
        other.close()
    _agree(store, monkeypatch, viewer)
    assert len(store.engine._lexicals["b1"]) == 145


def test_fts5_answers_for_phrases_and_inside_a_write(
    store: Any, make: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    make.bank()
    _fill(make, [*_texts(80, seed=5), "don't panic about the budget"])
    monkeypatch.setattr(lexicon_mod, "LEXICAL_MIN_ROWS", 1)
    table = store.engine._fts("b1")
    assert store.engine._lexical_ranked("b1", table, ["budget"], 10) is not None
    # "don't" is two tokens to FTS5: a phrase, which only FTS5 matches
    assert store.engine._lexical_ranked("b1", table, ["don't", "budget"], 10) is None
    viewer = Viewer("b1", "a1", Scope.COLLECTIVE)
    fts, mem = _both(store, monkeypatch, viewer, ["don't", "budget"], 10)
    assert [h.unit_id for h in mem] == [h.unit_id for h in fts]
    with store.transaction():
        assert store.engine._lexical_ranked("b1", table, ["budget"], 10) is None
