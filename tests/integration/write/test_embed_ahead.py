"""``retain_batches``: the next batch is embedded in a worker while the current one is
written (ADR 0024).

Pipelining must change nothing a caller can see: the same decisions in the same order and the
same units as ``retain_many`` batch after batch, and each batch all or nothing when something
fails half-way.
"""

from __future__ import annotations

import datetime as dt
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from tests.workloads import conversation, outcome

import mneme
from mneme.embed.hashing import HashingEmbedder
from mneme.errors import BackendUnavailable, InvalidInput

NOW = dt.datetime(2024, 7, 1, 12, 0, tzinfo=dt.UTC)
TABLES = ("units", "sources", "audit_log", "edges", "embeddings")


class Recording:
    """The hashing embedder, noting each call's thread and texts; fails on call ``fail_on``."""

    def __init__(self, fail_on: int | None = None) -> None:
        self.inner = HashingEmbedder()
        self.model_id = self.inner.model_id
        self.dim = self.inner.dim
        self.calls: list[tuple[str, list[str]]] = []
        self.fail_on = fail_on
        self._called = threading.Condition()

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        with self._called:
            self.calls.append((threading.current_thread().name, list(texts)))
            self._called.notify_all()
            if self.fail_on is not None and len(self.calls) == self.fail_on:
                raise BackendUnavailable("the embedding endpoint went away (scripted)")
        return self.inner.embed(texts)

    def wait_for(self, calls: int, timeout: float = 10.0) -> bool:
        """Whether ``calls`` embed calls have started within ``timeout`` seconds."""
        with self._called:
            return self._called.wait_for(lambda: len(self.calls) >= calls, timeout)


def batches(items: list[dict[str, Any]], size: int = 16) -> list[list[dict[str, Any]]]:
    return [items[i : i + size] for i in range(0, len(items), size)]


def open_memory(path: Path, embedder: Any) -> mneme.Memory:
    return mneme.Memory.open(str(path), embedder=embedder, clock=lambda: NOW)


def counts(path: Path) -> list[int]:
    with sqlite3.connect(path) as con:
        return [con.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in TABLES]


def drain(stream: Iterator[list[Any]], path: Path) -> tuple[list[Any], list[int], Exception]:
    """Consume a stream that must fail: the batches it committed, the store's row counts
    after the last of them, and what it raised."""
    committed: list[Any] = []
    after = [0] * len(TABLES)
    try:
        for done in stream:
            committed.append(done)
            after = counts(path)
    except Exception as exc:
        return committed, after, exc
    raise AssertionError("the stream was expected to fail")


def both_ways(tmp_path: Path, embedder: Any) -> dict[str, tuple[list[Any], list[Any]]]:
    items = conversation()
    out = {}
    for way in ("stream", "calls"):
        path = tmp_path / f"{way}.db"
        mem = open_memory(path, embedder)
        try:
            if way == "stream":
                results = [r for done in mem.retain_batches(batches(items)) for r in done]
            else:
                results = [r for batch in batches(items) for r in mem.retain_many(batch)]
        finally:
            mem.close()
        out[way] = outcome(path, results)
    return out


def test_streamed_batches_decide_as_retain_many_calls_do(tmp_path):
    out = both_ways(tmp_path, HashingEmbedder())
    assert out["stream"] == out["calls"]
    verdicts = {v.name for v, *_ in out["stream"][0]}
    assert {"ADD", "NOOP", "SUPERSEDE", "CONTRADICT", "LINK_EXISTING"} <= verdicts


@pytest.mark.slow
def test_streamed_batches_decide_alike_with_the_default_embedder(tmp_path, minilm):
    out = both_ways(tmp_path, minilm)
    assert out["stream"] == out["calls"]


def test_each_next_batch_is_embedded_in_the_worker_while_the_current_one_commits(tmp_path):
    embedder = Recording()
    items = conversation()
    mem = open_memory(tmp_path / "w.db", embedder)
    n = len(batches(items))
    # While the caller holds a batch's results (the generator paused), the next batch's
    # embedding runs in the worker: it was handed out before the batch committed. A
    # sequential writer would start it only when asked for the next batch, so the wait below
    # would time out. (Counting the calls started at the moment the results arrive raced with
    # the worker's scheduling on a loaded host.)
    handed_out = [
        embedder.wait_for(k + 2) if k + 1 < n else len(embedder.calls) == n
        for k, _ in enumerate(mem.retain_batches(batches(items)))
    ]
    mem.close()
    threads = [name for name, _ in embedder.calls]
    assert threads[0] == threading.current_thread().name
    assert all(t.startswith("mneme-embed-ahead") for t in threads[1:])
    assert len(threads) == n
    assert handed_out == [True] * n


@pytest.mark.parametrize("fail_on", [1, 2, 4])
def test_an_embedding_failure_keeps_the_batches_before_and_nothing_of_its_own(tmp_path, fail_on):
    path = tmp_path / "f.db"
    items = conversation()
    mem = open_memory(path, Recording(fail_on=fail_on))
    committed, after, exc = drain(mem.retain_batches(batches(items)), path)
    mem.close()
    assert isinstance(exc, BackendUnavailable)
    assert "went away" in str(exc)
    assert len(committed) == fail_on - 1
    assert counts(path) == after
    # The store is whole: the rest goes in afterwards.
    mem = open_memory(path, HashingEmbedder())
    rest = [r for done in mem.retain_batches(batches(items)[fail_on - 1 :]) for r in done]
    mem.close()
    assert len(rest) == len(items) - 16 * (fail_on - 1)


def test_a_bad_item_is_raised_after_the_batches_before_it_are_committed(tmp_path):
    path = tmp_path / "b.db"
    items = conversation()
    work = batches(items)
    work[2][5] = {**work[2][5], "text": "   "}
    mem = open_memory(path, HashingEmbedder())
    committed, after, exc = drain(mem.retain_batches(work), path)
    mem.close()
    assert isinstance(exc, InvalidInput)
    assert str(exc).startswith("item 5")
    assert exc.index == 5
    assert len(committed) == 2
    assert counts(path) == after


def test_an_error_from_the_batches_themselves_comes_after_the_batches_before_it(tmp_path):
    path = tmp_path / "e.db"
    items = conversation()

    def source() -> Iterator[list[dict[str, Any]]]:
        yield from batches(items)[:3]
        raise ValueError("the input file ended mid-record")

    mem = open_memory(path, HashingEmbedder())
    committed, _, exc = drain(mem.retain_batches(source()), path)
    mem.close()
    assert isinstance(exc, ValueError)
    assert "mid-record" in str(exc)
    assert len(committed) == 3
    with sqlite3.connect(path) as con:
        assert con.execute("SELECT count(*) FROM sources").fetchone()[0] == 48


def test_stopping_early_keeps_what_was_committed_and_leaves_no_worker(tmp_path):
    path = tmp_path / "s.db"
    items = conversation()
    mem = open_memory(path, HashingEmbedder())
    stream = mem.retain_batches(batches(items))
    first = next(stream)
    stream.close()
    assert not [t for t in threading.enumerate() if t.name.startswith("mneme-embed-ahead")]
    with sqlite3.connect(path) as con:
        assert con.execute("SELECT count(*) FROM sources").fetchone()[0] == len(first) == 16
    assert list(mem.retain_batches([])) == []
    mem.close()
