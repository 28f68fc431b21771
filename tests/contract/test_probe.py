"""What the health watchdog reads and repairs underneath (the Probe role and the queue's
stats and single requeue), on both backends (ADR 0054)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from tests.contract.conftest import EMBEDDER

from mneme.core.model import Scope, Viewer
from mneme.store.protocol import Filters, QueueItem, Store


def test_the_probe_reports_a_live_store_its_size_and_its_indexes(store: Store, make: Any) -> None:
    make.bank()
    for text in ("alpha beta", "gamma delta", "epsilon zeta"):
        make.unit(text)
    make.unit("eta theta")
    viewer = Viewer("b1", "a1", Scope.OWNER)
    query = EMBEDDER.embed(["alpha beta"])[0]
    # The index is loaded (SQLite) or was built with the first vector (pgvector).
    assert store.channels.search_semantic(viewer, query, make.model, Filters(), 5)
    assert store.probe.integrity() is None
    files = store.probe.files()
    assert files.db_bytes is not None
    assert files.db_bytes > 0
    indexes = [i for i in store.probe.indexes() if i.model == make.model]
    # SQLite's in-memory index is loaded now; PostgreSQL has an HNSW index unless the store
    # ranks exactly (pg_vector_index = "exact", as on hosts whose pgvector cannot build one).
    assert indexes or store.capabilities.name == "postgres"
    for idx in indexes:
        assert idx.valid
        assert idx.stored == 4
        assert idx.indexed in (None, 4)
        assert store.probe.rebuild_index(idx.bank, idx.model) >= 1
    assert isinstance(store.probe.checkpoint(), str)


def test_queue_stats_count_pending_and_name_the_claimed_and_requeue_one(
    store: Store, make: Any
) -> None:
    make.bank()
    t = make.t0
    with store.transaction():
        for i in range(3):
            store.queue.enqueue(
                QueueItem(f"q{i}", "b1", {"text": f"t{i}"}, "pending", 0, t + dt.timedelta(i), t)
            )
    assert store.queue.queue_stats().pending == 3
    assert store.queue.queue_stats().oldest_pending == t
    claimed_at = t + dt.timedelta(hours=1)
    with store.transaction():
        item = store.queue.claim_queued(claimed_at)
    assert item is not None
    stats = store.queue.queue_stats()
    assert stats.pending == 2
    assert [(p.id, p.bank, p.since) for p in stats.processing] == [("q0", "b1", claimed_at)]
    with store.transaction():
        assert store.queue.requeue("q0", claimed_at) is True
        assert store.queue.requeue("q0", claimed_at) is False  # no longer processing
        assert store.queue.requeue("q1", claimed_at) is False  # pending, not claimed
    assert store.queue.queue_stats().pending == 3
    assert store.queue.queue_stats().processing == ()
