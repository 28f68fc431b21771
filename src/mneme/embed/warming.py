"""Loading an embedder ahead of its first use, on a background thread.

A server answers at once while its embedder's model loads and compiles (seconds for MiniLM),
so the first write or recall does not wait for it. An embedder with nothing to load (hashing,
a remote API) has no ``warm`` and is left alone.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any


def warm_in_background(embedder: Any, say: Callable[[str], None]) -> threading.Thread | None:
    """Start loading ``embedder`` on a daemon thread; ``say`` hears how it went: "ready (2.3
    s)", or "not loaded ahead: <why>" (then the first call loads it, and fails there if it
    must). The thread, or None when the embedder has nothing to load."""
    warm = getattr(embedder, "warm", None)
    if not callable(warm):
        return None

    def run() -> None:
        started = time.perf_counter()
        try:
            warm()
        except Exception as exc:
            say(f"not loaded ahead: {exc}")
            return
        say(f"ready ({time.perf_counter() - started:.1f} s)")

    thread = threading.Thread(target=run, name="mneme-warm", daemon=True)
    thread.start()
    return thread
