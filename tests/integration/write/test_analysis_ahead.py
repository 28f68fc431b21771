"""Statement analysis ahead, in a worker process (ADR 0095).

The worker computes what the writing thread would (the same functions of the same texts), so
bulk writes must decide exactly alike with it and without it; a worker that cannot answer is
dropped and the writes go on; nothing waits for it.
"""

from __future__ import annotations

import datetime as dt
import logging
import os
import sys
import uuid
from collections.abc import Iterator
from concurrent.futures import Future
from pathlib import Path
from typing import Any

import pytest
from tests.workloads import conversation, outcome

import mneme
from mneme.core.claims.extraction import extract_claim
from mneme.core.statements import analyze, prime
from mneme.embed.hashing import HashingEmbedder
from mneme.write import analysis_ahead
from mneme.write.analysis_ahead import MIN_TEXTS, AnalysisWorker, Pending, answer

NOW = dt.datetime(2024, 7, 1, 12, 0, tzinfo=dt.UTC)


def fresh_texts(n: int) -> list[str]:
    """Texts of the sample conversation no memo holds yet (a tag of this run appended)."""
    tag = uuid.uuid4().hex[:8]
    said = [item["text"] for item in conversation()][:n]
    return [f"{text} Ref {tag}-{i}." for i, text in enumerate(said)]


@pytest.fixture
def worker() -> Iterator[AnalysisWorker]:
    w = AnalysisWorker()
    yield w
    w.close()


def test_the_worker_answers_what_the_writing_thread_would_and_seeds_the_memos(
    worker: AnalysisWorker,
) -> None:
    texts = fresh_texts(MIN_TEXTS + 4)
    pending = worker.submit(texts)
    assert pending is not None
    answers = pending.future.result(timeout=60)
    assert worker.answered == 1
    # Equal to the in-process reference, computed here after the worker's answers came back.
    assert answers == answer(texts)
    analyze.cache_clear()
    extract_claim.cache_clear()
    assert pending.seed() == len(texts)
    for text, got in zip(texts, answers, strict=True):
        assert got is not None
        assert analyze(text) is got[0]  # the memo holds the worker's statement
        assert extract_claim(text) is got[1] or extract_claim(text) == got[1]


def test_a_second_request_goes_to_the_same_worker(worker: AnalysisWorker) -> None:
    for _ in range(2):
        pending = worker.submit(fresh_texts(MIN_TEXTS))
        assert pending is not None
        pending.future.result(timeout=60)
    assert worker.answered == 2


def test_a_few_texts_are_left_to_the_writing_thread(worker: AnalysisWorker) -> None:
    texts = fresh_texts(MIN_TEXTS - 1)
    assert worker.submit(texts) is None
    assert worker.submit(texts + texts) is None  # distinct texts are what count
    assert worker.answered == 0


def test_seeding_never_waits_for_an_answer_not_yet_back() -> None:
    # A worker that reads its request and never answers: the answer is not back, so nothing
    # is seeded and the writing thread analyzes as before.
    slow = AnalysisWorker([sys.executable, "-c", "import sys, time; time.sleep(30)"])
    try:
        pending = slow.submit(fresh_texts(MIN_TEXTS))
        assert pending is not None
        assert pending.seed() == 0
    finally:
        slow.close()
    assert slow.submit(fresh_texts(MIN_TEXTS)) is None


def test_a_worker_that_cannot_answer_is_dropped_and_writes_go_on(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    dead = AnalysisWorker([sys.executable, "-c", "pass"])  # exits without a word
    pending = dead.submit(fresh_texts(MIN_TEXTS))
    assert pending is not None
    with (
        caplog.at_level(logging.WARNING, logger="mneme.write.analysis_ahead"),
        pytest.raises(EOFError),
    ):
        pending.future.result(timeout=60)
    assert dead.broken
    assert "statement analysis ahead is off" in caplog.text
    assert pending.seed() == 0
    assert dead.submit(fresh_texts(MIN_TEXTS)) is None

    # A Memory whose worker is gone writes as one without a worker.
    items = conversation()
    with_dead = mneme.Memory.open(
        str(tmp_path / "dead.db"), embedder=HashingEmbedder(), clock=lambda: NOW
    )
    with_dead._retainer.ahead = dead  # white-box: the worker this test broke
    without = mneme.Memory.open(
        str(tmp_path / "none.db"),
        embedder=HashingEmbedder(),
        clock=lambda: NOW,
        analysis_ahead=False,
    )
    try:
        assert without._retainer.ahead is None
        a = outcome(tmp_path / "dead.db", streamed(with_dead, items))
        b = outcome(tmp_path / "none.db", streamed(without, items))
    finally:
        with_dead.close()
        without.close()
    assert a == b


def batches(items: list[dict[str, Any]], size: int = 24) -> list[list[dict[str, Any]]]:
    return [items[i : i + size] for i in range(0, len(items), size)]


def streamed(mem: mneme.Memory, items: list[dict[str, Any]]) -> list[Any]:
    """Every result of ``retain_batches`` over the items, in order."""
    return [r for results in mem.retain_batches(batches(items)) for r in results]


@pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="no worker on a single CPU")
def test_bulk_writes_decide_alike_with_the_worker_and_without(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seeded: list[str] = []
    real_seed = Pending.seed

    def counting(text: str, statement: Any) -> None:
        seeded.append(text)
        prime(text, statement)

    def waiting(self: Pending) -> int:
        # Writes never wait for the worker; here they do, so that every batch's answers are
        # used whatever this host's load, and the comparison below covers all of them.
        self.future.result(timeout=60)
        return real_seed(self)

    monkeypatch.setattr(analysis_ahead, "prime_statement", counting)
    monkeypatch.setattr(Pending, "seed", waiting)
    items = conversation()
    more = [dict(item, bank="other") for item in items[:40]]
    outcomes = {}
    for on in (True, False):
        analyze.cache_clear()  # each run analyzes from nothing, as a fresh process would
        extract_claim.cache_clear()
        path = tmp_path / f"ahead-{on}.db"
        mem = mneme.Memory.open(
            str(path), embedder=HashingEmbedder(), clock=lambda: NOW, analysis_ahead=on
        )
        try:
            assert (mem._retainer.ahead is not None) == on
            wrote = outcome(path, streamed(mem, items))
            # retain_many too: its batch is analyzed while it is embedded.
            outcomes[on] = (wrote, outcome(path, mem.retain_many(more)))
        finally:
            mem.close()
    assert outcomes[True] == outcomes[False]
    # Every atom of every batch was analyzed by the worker (the repeats of the second bank's
    # batch are texts the memo already held, and are seeded all the same).
    judged = {d[1] for part in outcomes[True] for d in part[0]}
    assert judged <= set(seeded)


def test_answers_that_are_not_of_the_texts_asked_are_not_seeded() -> None:
    # What goes into the memos is only what the writing thread would have computed: a
    # statement of the very text asked about (a worker running other code, or answering out
    # of turn, is not trusted).
    texts = fresh_texts(2)
    swapped: Future[list[Any]] = Future()
    swapped.set_result(list(reversed(answer(texts))))
    assert Pending(texts, swapped).seed() == 0
    junk: Future[list[Any]] = Future()
    junk.set_result([("not a statement", None), None])
    assert Pending(texts, junk).seed() == 0
    right: Future[list[Any]] = Future()
    right.set_result(answer(texts))
    assert Pending(texts, right).seed() == 2
