"""The Memory a Thinker runs in: the few of its methods FastThink uses, as a protocol.

Memory composes a Thinker (``mem.think``), and the Thinker reads and commits through Memory's
public methods, so that a committed conclusion passes the charter, dedup and the decisions like
any other input; the store's ``transaction`` (the store is Memory's own, ADR 0043) is handed to
the Thinker when Memory builds it. Typed on this protocol rather than on
``mneme.memory.Memory``, think depends on nothing above its layer (tests/repo/test_layers.py);
Memory satisfies it as it is.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from mneme.core.model import Edge, Hit, RetainResult, Source, Unit


class Host(Protocol):
    """What a Thinker calls on the Memory it belongs to."""

    @property
    def clock(self) -> Callable[[], dt.datetime]: ...

    def retain(
        self,
        text: str,
        *,
        bank: str,
        agent: str,
        session: str | None = ...,
        source_kind: str | None = ...,
        visibility: str = ...,
        metadata: Mapping[str, Any] | None = ...,
    ) -> RetainResult: ...

    def recall(
        self, query: str, *, bank: str, agent: str, scope: str = ..., k: int = ...
    ) -> list[Hit]: ...

    def get(
        self,
        memory_id: str,
        *,
        bank: str | None = ...,
        agent: str | None = ...,
        scope: str = ...,
    ) -> Unit: ...

    def source(
        self,
        source_id: str,
        *,
        bank: str | None = ...,
        agent: str | None = ...,
        scope: str = ...,
    ) -> Source: ...

    def list_memories(
        self, *, bank: str, agent: str | None = ..., scope: str = ..., limit: int = ...
    ) -> list[Unit]: ...

    def connect(
        self, a: str, b: str, *, bank: str, agent: str, type: str = ..., note: str = ...
    ) -> Edge: ...
