"""The ingest buffer (confirm-or-promise): retain(wait=...) answers fast, the work happens behind.

An accepted write is validated, then persisted in the store's ingest queue *before* it is
acknowledged. One worker thread per process claims items oldest first, embeds outside any lock,
and stores the memories and marks the item done in one transaction, after checking inside that
transaction that nobody marked it done already. A crash at any point therefore leaves an item
pending (retried on the next open) or done, and never processed twice.
"""

from __future__ import annotations

import datetime as dt
import logging
import threading
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from mneme.core.model import AddStatus, RetainResult, RetainStatus
from mneme.core.sensitive import Screening
from mneme.errors import Conflict, InvalidInput, MnemeError, NotFound
from mneme.ids import new_id
from mneme.serialize import retain_result_from_json, to_jsonable
from mneme.store.protocol import Queue, QueueItem, Transactions
from mneme.write.retain import Retainer


class BufferStore(Transactions, Protocol):
    """The roles of the store this module uses (ADR 0044)."""

    queue: Queue


log = logging.getLogger("mneme.buffer")

#: How long the worker sleeps when the queue looks empty before looking again (other processes
#: may enqueue into a shared store without waking this one).
IDLE_POLL_SECONDS = 0.5
#: The longest a caller may wait for a buffered write (``retain(..., wait=)``).
MAX_WAIT_SECONDS = 3600
#: Errors a failed item re-raises as themselves to a caller that waited for it.
#: The payload key of an accepted write's screening (not a retain argument).
_SCREENED = "_screened"
_KINDS: dict[str, type[MnemeError]] = {e.__name__: e for e in (InvalidInput, NotFound, Conflict)}


class IngestBuffer:
    def __init__(
        self, store: BufferStore, retainer: Retainer, clock: Callable[[], dt.datetime]
    ) -> None:
        self.store = store
        self.retainer = retainer
        self.clock = clock
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._done: dict[str, threading.Event] = {}
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    # -- the caller's side --------------------------------------------------------------

    def submit(self, args: Mapping[str, Any], wait: float) -> RetainResult:
        """Validate, persist, acknowledge; return the finished result if it is done in time
        (``wait`` seconds, at most ``MAX_WAIT_SECONDS``)."""
        if (
            isinstance(wait, bool)
            or not isinstance(wait, int | float)
            or not 0 <= wait <= MAX_WAIT_SECONDS
        ):
            raise InvalidInput(
                f"wait must be a number of seconds from 0 to {MAX_WAIT_SECONDS}, not {wait!r}"
            )
        wait = float(wait)
        rest = dict(args)
        # Every bad input fails here, before anything is kept, and so does a refused secret.
        retainer = self.retainer  # one reading: a configuration reload may swap it (ADR 0057)
        plan = retainer.plan(rest.pop("text"), **rest)
        retainer.corrected(plan)  # and so does a supersedes= naming nothing that exists
        payload = {k: to_jsonable(v) for k, v in args.items() if v is not None}
        payload["source_id"] = plan.source.id  # the promise names the evidence id it will use
        # The queue keeps the screened text, never what the policy redacted (ADR 0034), and
        # the decision, for the audit record the write makes when it is stored.
        payload["text"] = plan.source.text
        payload[_SCREENED] = plan.screening.summary() if plan.screening is not None else {}
        item_id = new_id("pend_")
        done = threading.Event()
        with self._lock:
            self._done[item_id] = done
        now = self.clock()
        with self.store.transaction():
            self.store.queue.enqueue(
                QueueItem(
                    id=item_id,
                    bank_id=plan.source.bank_id,
                    payload=payload,
                    status="pending",
                    attempts=0,
                    created_at=now,
                    updated_at=now,
                )
            )
        self.start()
        self._wake.set()
        if wait > 0 and done.wait(wait):
            status = self.status(item_id)
            if status.result is not None:
                return status.result
            if status.error:
                # The worker kept the error's kind in front of its text: raise the same kind
                # (a reference gone since acceptance is still NotFound, not a server error).
                kind, _, message = status.error.partition(": ")
                error = _KINDS.get(kind)
                if error is None:
                    raise MnemeError(f"the accepted write {item_id} failed: {status.error}")
                raise error(f"the accepted write {item_id} failed: {message}")
        return RetainResult(
            status=RetainStatus.ACCEPTED, source_id=plan.source.id, pending_id=item_id
        )

    def status(self, item_id: str, bank: str | None = None, agent: str | None = None) -> AddStatus:
        """Where an accepted write stands. With ``bank``, only a write into that bank; with
        ``agent`` too, not another agent's private write: either is not found, in the words
        an absent id gets."""
        item = self.store.queue.get_queued(item_id)
        hidden = item is not None and (
            (bank is not None and item.bank_id != bank)
            or (
                agent is not None
                and item.payload.get("visibility") == "private"
                and item.payload.get("agent") != agent
            )
        )
        if item is None or hidden:
            raise NotFound(f"no accepted write {item_id!r}")
        result = retain_result_from_json(item.result) if item.result else None
        return AddStatus(
            pending_id=item.id,
            status=item.status,
            result=result,
            error=item.error,
            attempts=item.attempts,
        )

    # -- the worker ---------------------------------------------------------------------

    def start(self) -> None:
        with self._lock:
            if self._thread is not None and self._thread.is_alive():
                return
            self._stop.clear()
            self._thread = threading.Thread(target=self._run, name="mneme-ingest", daemon=True)
            self._thread.start()

    def recover(self) -> int:
        """Put items a dead process left half-done back in line, and start working on them."""
        with self.store.transaction():
            n = self.store.queue.requeue_processing(self.clock())
        self.start()
        return n

    def close(self, timeout: float = 30.0) -> None:
        self._stop.set()
        self._wake.set()
        thread = self._thread
        if thread is not None:
            thread.join(timeout)

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                worked = self._one()
            except Exception:  # the worker must survive anything one item does
                log.exception("ingest worker error")
                worked = False
            if not worked:
                self._wake.wait(IDLE_POLL_SECONDS)
                self._wake.clear()

    def _one(self) -> bool:
        # Looked at first with a read: an idle worker polls without taking the write lock
        # from the writers it shares the file with (every half second, each process).
        if not self.store.queue.has_pending():
            return False
        with self.store.transaction():
            item = self.store.queue.claim_queued(self.clock())
        if item is None:
            return False
        try:
            args = dict(item.payload)
            text = args.pop("text")
            summary = args.pop(_SCREENED, None)
            # An item queued before screening existed has no summary: it is screened now.
            screened = None if summary is None else Screening.from_summary(text, summary)
            retainer = self.retainer  # one reading: a reload may swap it (ADR 0057)
            plan = retainer.plan(text, screened, **args)
            retainer.prepare([plan])
            with self.store.transaction():
                current = self.store.queue.get_queued(item.id)
                if current is not None and current.status == "done":
                    return True  # another process finished it first: exactly once
                result = retainer.commit([plan])[0]
                self.store.queue.finish_queued(
                    item.id, "done", to_jsonable(result), None, self.clock()
                )
        except Exception as exc:
            with self.store.transaction():
                self.store.queue.finish_queued(
                    item.id, "failed", None, f"{type(exc).__name__}: {exc}", self.clock()
                )
        self._signal(item.id)
        return True

    def _signal(self, item_id: str) -> None:
        with self._lock:
            done = self._done.pop(item_id, None)
        if done is not None:
            done.set()
