"""The MCP server's hold on one ``Memory``: opened when the first connection starts, closed
after the last one ends (when the server opened it), shared by every connection in between.

Built per server by ``build_server``; nothing lives at module level. A ``Memory`` handed in
ready-made belongs to the caller (the HTTP app shares its own) and is never closed here.
"""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import anyio.to_thread

from mneme.errors import BackendUnavailable
from mneme.memory import Memory
from mneme.observe import surface

MemorySource = Memory | Callable[[], Memory]


class Runtime:
    def __init__(self, source: MemorySource) -> None:
        self._owned = not isinstance(source, Memory)
        self._factory: Callable[[], Memory] | None = None if isinstance(source, Memory) else source
        self._memory: Memory | None = source if isinstance(source, Memory) else None
        self._users = 0
        # A thread lock, not an anyio one: connections may come from different event loops
        # (tests), and opening or closing a Memory is blocking work done in a worker thread.
        self._lock = threading.Lock()

    @property
    def memory(self) -> Memory:
        if self._memory is None:
            raise BackendUnavailable("the MCP server is not running (no store is open)")
        return self._memory

    @asynccontextmanager
    async def running(self) -> AsyncIterator[Runtime]:
        """One connection's (or the HTTP session manager's) use of the store."""
        await anyio.to_thread.run_sync(self._enter)
        try:
            yield self
        finally:
            with anyio.CancelScope(shield=True):
                await anyio.to_thread.run_sync(self._exit)

    async def call(self, work: Callable[[Memory], Any]) -> Any:
        """Run blocking core work in a worker thread: the core is synchronous."""
        memory = self.memory

        def marked(m: Memory) -> Any:
            with surface("mcp"):  # metrics count the call as MCP's (ADR 0055)
                return work(m)

        return await anyio.to_thread.run_sync(marked, memory)

    def _enter(self) -> None:
        with self._lock:
            if self._memory is None:
                assert self._factory is not None
                self._memory = self._factory()
            self._users += 1

    def _exit(self) -> None:
        with self._lock:
            self._users -= 1
            if self._users == 0 and self._owned and self._memory is not None:
                memory, self._memory = self._memory, None
                memory.close()
