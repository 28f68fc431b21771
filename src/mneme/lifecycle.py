"""Closing at interpreter exit what its owner left open.

Exit hooks run last-registered first. An object that registers its closer when it opens is
therefore closed before every hook registered before it (a test server's stop, the store a
Memory opened first), and after every hook registered after it. The object is held weakly:
one nobody refers to any more is not kept alive for the sake of closing it.
"""

from __future__ import annotations

import atexit
import weakref
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def close_at_exit(owner: T, close: Callable[[T], object]) -> Callable[[], None]:
    """Register ``close(owner)`` to run at interpreter exit while ``owner`` lives; the hook
    returned is what :func:`forget_at_exit` takes when the owner is closed by hand."""
    ref = weakref.ref(owner)

    def hook() -> None:
        alive = ref()
        if alive is not None:
            close(alive)

    atexit.register(hook)
    return hook


def forget_at_exit(hook: Callable[[], None] | None) -> None:
    """The owner was closed: its exit hook has nothing left to do."""
    if hook is not None:
        atexit.unregister(hook)
