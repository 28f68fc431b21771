"""Cadence: the background reflect pass, bounded and round-robin over the store's banks.

A pass (``ReflectCadence.step``, run by a ``Worker`` every ``Config.reflect_every`` seconds)
reflects at most ``Config.reflect_banks_per_pass`` banks: the ones after the bank the last
pass ended on, in bank-id order, wrapping around. A bank made or dropped meanwhile changes
nothing for the others, and every bank is reached within ceil(banks / per_pass) passes.
Reflect itself is idempotent (ADR 0051): a pass over unchanged evidence writes nothing, not
even an audit record, so a pass every few minutes costs reads only.
"""

from __future__ import annotations

import bisect
import logging
import threading
from collections.abc import Callable, Sequence
from typing import Any

from mneme.background.reflect import REFLECT, Reflector
from mneme.errors import MnemeError

log = logging.getLogger("mneme.reflect")


class ReflectPassFailed(RuntimeError):
    """One or more banks of a background pass failed; the others were reflected. Raised to
    the worker only (it logs and counts it), never to a caller."""


class ReflectCadence:
    """What one background reflect pass does; ``step`` is the ``Worker``'s step. ``run``
    replaces reflect with another bank stage of the same shape (the insight pass, ADR 0056):
    it takes a bank and answers what the pass did, by name."""

    def __init__(
        self,
        reflector: Reflector | None,
        banks: Callable[[], Sequence[str]],
        per_pass: int,
        run: Callable[[str], dict[str, Any]] | None = None,
    ) -> None:
        self._reflector = reflector
        self._run = run
        self._banks = banks
        self.per_pass = per_pass
        #: The bank the last pass ended on: the next pass starts after it.
        self.after: str | None = None
        self.passes = 0
        #: Per bank, what its latest background pass did (for health and the tests).
        self.last: dict[str, dict[str, Any]] = {}
        self._halt = threading.Event()

    def halt(self) -> None:
        """Stop between banks: a closing Memory does not wait for a whole pass."""
        self._halt.set()

    def next_banks(self) -> list[str]:
        """The banks the next pass takes, in order."""
        banks = sorted(set(self._banks()))
        if not banks:
            return []
        start = bisect.bisect_right(banks, self.after) if self.after is not None else 0
        return [banks[(start + i) % len(banks)] for i in range(min(self.per_pass, len(banks)))]

    def step(self) -> bool:
        """Reflect the next banks. Always False: a pass is bounded, the next one waits for
        the interval (or a wake).

        Raises:
            ReflectPassFailed: a bank failed (a bad disposition in its config, say); the
                others of the pass were reflected, and the worker counts the error.
        """
        failed: list[str] = []
        for bank in self.next_banks():
            if self._halt.is_set():
                break
            self.after = bank
            try:
                self.last[bank] = self._one(bank)
            except MnemeError as exc:
                # One bank's bad config must not starve the banks after it.
                log.warning("background pass over bank %r failed: %s", bank, exc)
                failed.append(f"{bank}: {exc}")
                continue
        self.passes += 1
        if failed:
            raise ReflectPassFailed("; ".join(failed))
        return False

    def _one(self, bank: str) -> dict[str, Any]:
        if self._run is not None:
            return self._run(bank)
        assert self._reflector is not None
        report = self._reflector.reflect(bank, agent=REFLECT)
        return {
            "created": len(report.created),
            "revised": len(report.revised),
            "retired": len(report.retired),
            "unchanged": report.unchanged,
            "seconds": report.seconds,
        }
