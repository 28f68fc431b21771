"""Who called, and how long it took: the write and recall events a metrics exporter counts.

A surface marks the calls it makes with its name (``with surface("http"): ...``, at the one
place it calls ``Memory``); a call with no mark is a Python caller's. ``Memory`` times its
writes and recalls and hands each event to its observers (``Memory.observers``); with none
attached it only reads a context variable (ADR 0055).
"""

from __future__ import annotations

import contextvars
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

#: The surfaces a call can come from (metrics label values).
SURFACES = ("python", "http", "mcp", "cli")

_SURFACE: contextvars.ContextVar[str] = contextvars.ContextVar("mneme_surface", default="python")


@contextmanager
def surface(name: str) -> Iterator[None]:
    """Mark the calls made inside as coming from surface ``name``."""
    if name not in SURFACES:
        raise ValueError(f"unknown surface {name!r}")
    token = _SURFACE.set(name)
    try:
        yield
    finally:
        _SURFACE.reset(token)


def current_surface() -> str:
    return _SURFACE.get()


@dataclass(frozen=True, slots=True)
class Event:
    op: str  # write | recall
    surface: str
    seconds: float
    ok: bool  # False: the call raised


Observer = Callable[[Event], None]


class Observers:
    """The listeners of one ``Memory``'s events."""

    def __init__(self) -> None:
        self._listeners: list[Observer] = []

    def add(self, listener: Observer) -> None:
        self._listeners.append(listener)

    def remove(self, listener: Observer) -> None:
        if listener in self._listeners:
            self._listeners.remove(listener)

    @contextmanager
    def timed(self, op: str) -> Iterator[None]:
        if not self._listeners:
            yield
            return
        start = time.perf_counter()
        ok = False
        try:
            yield
            ok = True
        finally:
            event = Event(op, _SURFACE.get(), time.perf_counter() - start, ok)
            for listener in list(self._listeners):
                listener(event)
