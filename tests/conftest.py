"""Shared fixtures: real SQLite files in tmp dirs, a fixed clock, the fast hashing embedder.

The real default embedder is used by the tests marked ``slow`` (integration of the whole
stack); everything else uses the deterministic hashing embedder so the suite stays fast.
"""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import mneme
from mneme.embed.hashing import HashingEmbedder

T0 = dt.datetime(2024, 3, 5, 10, 0, tzinfo=dt.UTC)


class Clock:
    """A clock the test moves by hand: no sleeps, no flaky time."""

    def __init__(self, now: dt.datetime) -> None:
        self.now = now

    def __call__(self) -> dt.datetime:
        return self.now

    def advance(self, **delta: float) -> None:
        self.now += dt.timedelta(**delta)


@pytest.fixture
def clock() -> Clock:
    return Clock(dt.datetime(2024, 7, 1, 12, 0, tzinfo=dt.UTC))


@pytest.fixture
def db_path(tmp_path: Path) -> str:
    return str(tmp_path / "mneme.db")


@pytest.fixture
def mem(db_path: str, clock: Clock) -> Iterator[mneme.Memory]:
    m = mneme.Memory.open(db_path, embedder=HashingEmbedder(), clock=clock)
    yield m
    m.close()


_MINILM: list[object] = []


@pytest.fixture(scope="session")
def minilm() -> object:
    """The real default embedder, loaded once per test session."""
    from mneme.embed.minilm import MiniLMEmbedder

    if not _MINILM:
        _MINILM.append(MiniLMEmbedder())
    return _MINILM[0]
