"""The ingest buffer's queue: persisted, claimed oldest first once, finished, recovered."""

from __future__ import annotations

import datetime as dt
from typing import Any

from mneme.store.protocol import QueueItem, Store


def test_queue_claims_oldest_first_once_and_recovers_processing(store: Store, make: Any) -> None:
    make.bank()
    assert not store.queue.has_pending()
    t = make.t0
    for i, at in enumerate((t + dt.timedelta(seconds=5), t)):
        with store.transaction():
            store.queue.enqueue(
                QueueItem(
                    id=f"q{i}",
                    bank_id="b1",
                    payload={"text": f"t{i}"},
                    status="pending",
                    attempts=0,
                    created_at=at,
                    updated_at=at,
                )
            )
    assert store.queue.has_pending()
    with store.transaction():
        first = store.queue.claim_queued(t)
        second = store.queue.claim_queued(t)
        assert store.queue.claim_queued(t) is None
    assert first is not None
    assert second is not None
    assert (first.id, second.id) == ("q1", "q0")
    assert (first.status, first.attempts, first.payload) == ("processing", 1, {"text": "t1"})
    assert not store.queue.has_pending()  # both claimed: nothing waits
    later = t + dt.timedelta(minutes=1)
    with store.transaction():
        store.queue.finish_queued("q1", "done", {"memory_ids": ["u1"]}, None, later)
        assert store.queue.requeue_processing(later) == 1
    assert store.queue.has_pending()  # the crashed claim waits again
    done = store.queue.get_queued("q1")
    assert done is not None
    assert (done.status, done.result, done.updated_at) == ("done", {"memory_ids": ["u1"]}, later)
    again = store.queue.get_queued("q0")
    assert again is not None
    assert again.status == "pending"
    assert again.attempts == 1
    assert store.queue.get_queued("nope") is None
