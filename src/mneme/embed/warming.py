"""Loading an embedder ahead of its first use, on a background thread.

A server answers at once while its embedder's model loads and compiles (seconds for MiniLM),
so the first write or recall does not wait for it. An embedder with nothing to load (hashing,
a remote API) has no ``warm`` and is left alone.

Interpreter exit stops a warm-up still running and waits for it. The thread is a daemon (a
warm-up never keeps a process alive by itself), but a daemon thread that comes back from
native code once interpreter shutdown has begun is ended by ``pthread_exit``, which unwinds
through OpenVINO's (or ONNX Runtime's) C++ frames and aborts the process: "terminate called
without an active exception", SIGABRT. ``mneme mcp`` whose client hung up right after its
first recall died so while OpenVINO compiled the warm-up's second graph. An exit hook
therefore asks the warm-up to stop before its next load (an embedder whose ``warm`` takes
``stop``) and joins the thread, so the exit waits for one load at most.
"""

from __future__ import annotations

import inspect
import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from mneme.lifecycle import close_at_exit

log = logging.getLogger(__name__)

#: How long interpreter exit waits for a warm-up's load in progress (a whole MiniLM warm-up
#: takes 3-7 s on 2 CPUs); past it the process exits anyway, and may abort as described above.
EXIT_WAIT_S = 60.0


class _Warming(threading.Thread):
    def __init__(self, warm: Callable[..., Any], say: Callable[[str], None]) -> None:
        super().__init__(name="mneme-warm", daemon=True)
        self._warm = warm
        self._say = say
        self.stopping = threading.Event()

    def run(self) -> None:
        started = time.perf_counter()
        try:
            if _takes_stop(self._warm):
                done = self._warm(stop=self.stopping.is_set) is not False
            else:
                done = self._warm() is not False
        except Exception as exc:
            self._say(f"not loaded ahead: {exc}")
            return
        if done:
            self._say(f"ready ({time.perf_counter() - started:.1f} s)")
        else:
            self._say("not loaded ahead: stopped at exit")


def warm_in_background(embedder: Any, say: Callable[[str], None]) -> threading.Thread | None:
    """Start loading ``embedder`` on a daemon thread; ``say`` hears how it went: "ready (2.3
    s)", or "not loaded ahead: <why>" (then the first call loads it, and fails there if it
    must). Interpreter exit stops the thread and waits for it (see the module docstring).
    The thread, or None when the embedder has nothing to load."""
    warm = getattr(embedder, "warm", None)
    if not callable(warm):
        return None
    thread = _Warming(warm, say)
    thread.start()
    # Registered after the hook of the Memory whose embedder this is, so it runs first: the
    # store is still open while the warm-up ends. Never forgotten: a finished thread is free.
    close_at_exit(thread, _stop_and_wait)
    return thread


def _stop_and_wait(thread: _Warming) -> None:
    thread.stopping.set()
    if not thread.is_alive():
        return
    log.info("waiting for the embedder's load in progress before exit")
    thread.join(EXIT_WAIT_S)
    if thread.is_alive():
        log.warning("the embedder was still loading after %.0f s; exiting anyway", EXIT_WAIT_S)


def _takes_stop(warm: Callable[..., Any]) -> bool:
    try:
        return "stop" in inspect.signature(warm).parameters
    except (TypeError, ValueError):
        return False
