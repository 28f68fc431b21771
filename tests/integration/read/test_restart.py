"""A restarted Memory answers recall from the index files its last run saved (ADR 0052), the
same hits as before the restart, and a deleted index file only costs a rebuild."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import mneme
from mneme.embed.hashing import HashingEmbedder
from mneme.store.sqlite import lexicon

QUESTIONS = ("Where does Kai live?", "Who restores boats?", "What did Lena buy?")


def _open(db_path: str) -> mneme.Memory:
    mem = mneme.Memory.open(db_path, embedder=HashingEmbedder())
    mem._store.engine.index_files.min_rows = 1  # type: ignore[attr-defined]
    return mem


def _recall(mem: mneme.Memory) -> list[list[tuple[str, float]]]:
    return [
        [(h.unit.id, round(h.score, 6)) for h in mem.recall(q, bank="b1", agent="a1", k=5)]
        for q in QUESTIONS
    ]


def test_a_restart_recalls_from_the_saved_files(
    db_path: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(lexicon, "LEXICAL_MIN_ROWS", 1)  # the in-memory BM25 at this size
    mem = _open(db_path)
    mem.retain_many(
        [
            {"text": t, "bank": "b1", "agent": "a1"}
            for t in (
                "Kai lives in Lisbon and restores old boats.",
                "Lena bought a tablet for the studio.",
                "Mara moved to Porto in May.",
                "Kai's sister Lena sails on weekends.",
            )
        ]
    )
    before = _recall(mem)
    mem.close()
    assert len(list(Path(db_path + ".index").glob("*.mnx"))) == 2

    again = _open(db_path)
    try:
        assert _recall(again) == before
        stats = again._store.engine.index_files.stats  # type: ignore[attr-defined]
        assert (stats.loaded, stats.built) == (2, 0)
    finally:
        again.close()

    shutil.rmtree(db_path + ".index")
    rebuilt = _open(db_path)
    try:
        assert _recall(rebuilt) == before
        stats = rebuilt._store.engine.index_files.stats  # type: ignore[attr-defined]
        assert (stats.loaded, stats.built) == (0, 2)
    finally:
        rebuilt.close()
