"""A periodic background worker: wakes up, does pending work in batches, sleeps. Bounded."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

log = logging.getLogger("mneme.worker")


class Worker:
    """Runs ``step`` every ``interval`` seconds (and when woken) until stopped.

    ``step`` returns whether it found work; with work left it runs again at once.
    """

    def __init__(self, name: str, step: Callable[[], bool], interval: float) -> None:
        self.name = name
        self.step = step
        self.interval = interval
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.runs = 0
        #: Passes that found work (``step`` returned True): what per-pass rates divide by.
        self.busy = 0
        self.errors = 0
        #: Passes skipped while paused (the watchdog pauses a flooding stage, ADR 0054).
        self.skipped = 0
        #: Why the worker is paused (None: it runs).
        self.paused: str | None = None

    def pause(self, reason: str) -> None:
        """Skip passes until ``resume``: the work stays where it waits (pending sweeps stay
        pending), nothing is dropped."""
        self.paused = reason

    def resume(self) -> None:
        self.paused = None
        self._wake.set()

    def start(self) -> None:
        if self.interval <= 0 or (self._thread is not None and self._thread.is_alive()):
            return
        self._thread = threading.Thread(target=self._run, name=f"mneme-{self.name}", daemon=True)
        self._thread.start()

    def retime(self, interval: float, *, start: bool = True) -> None:
        """Run every ``interval`` seconds from now on (a configuration reload, ADR 0057):
        0 stops the worker after its current step; a positive interval starts it when
        ``start`` and it was not running."""
        if interval <= 0:
            self.stop()
            self._stop.clear()
            self._thread = None
            self.interval = interval
            return
        self.interval = interval
        self._wake.set()  # a worker asleep on the old interval wakes to the new one
        if start:
            self.start()

    def wake(self) -> None:
        self._wake.set()

    def stop(self, timeout: float = 30.0) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout)

    def _run(self) -> None:
        while not self._stop.is_set():
            if self.paused is not None:
                self.skipped += 1
                self._wake.wait(self.interval)
                self._wake.clear()
                continue
            try:
                busy = self.step()
                self.runs += 1
                self.busy += bool(busy)
            except Exception:  # the worker survives one bad batch; the error is logged
                self.errors += 1
                log.exception("%s worker failed a step", self.name)
                busy = False
            if not busy:
                self._wake.wait(self.interval)
                self._wake.clear()
