"""A store: one backend engine composed with one shared component per role (ADR 0044).

``store.banks``, ``store.memories``, ``store.graph``, ``store.channels``, ``store.queue``,
``store.trust``, ``store.sweeps``, ``store.erasure``, ``store.portable`` and ``store.audit``
are the roles of :mod:`mneme.store.protocol`; the store itself answers the lifecycle (schema,
transactions, closing, counts). Every component but the channels is shared SQL built on the
engine; the channels are the engine's own (FTS5 and an in-memory vector index on SQLite,
tsvector BM25 tables and pgvector on PostgreSQL).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any, Protocol

from mneme.store.protocol import Capabilities, StoreStats
from mneme.store.sql.audit import AuditLog
from mneme.store.sql.banks import Banks
from mneme.store.sql.channels import Channels, OwnChannels
from mneme.store.sql.claims import Claims
from mneme.store.sql.conflicts import Conflicts
from mneme.store.sql.graph import Graph
from mneme.store.sql.part import Engine
from mneme.store.sql.portable import Portable
from mneme.store.sql.purge import Erasure
from mneme.store.sql.queue import Queue
from mneme.store.sql.reviews import Reviews
from mneme.store.sql.rules import Rules
from mneme.store.sql.sources import Sources
from mneme.store.sql.sweeps import Sweeps
from mneme.store.sql.tombstones import Tombstones
from mneme.store.sql.units import Units


class Memories(Sources, Units):
    """The Memories role: sources, units and their embeddings."""


class Trust(Claims, Reviews, Tombstones, Conflicts, Rules):
    """The Trust role: claims, review events, tombstones, conflicts and adopted rules."""


class StoreEngine(Engine, OwnChannels, Protocol):
    """An engine that also answers the lifecycle and the recall channels."""

    capabilities: Capabilities

    @property
    def read_only(self) -> bool: ...

    def set_clock(self, clock: Callable[[], dt.datetime]) -> None: ...

    def schema_version(self) -> int: ...

    def migrate(self) -> list[int]: ...

    def close(self) -> None: ...

    def stats(self) -> StoreStats: ...


class SQLStore:
    """The composition root of a backend: its engine, and one component per role."""

    def __init__(self, engine: StoreEngine) -> None:
        self.engine = engine
        self.banks = Banks(engine)
        self.memories = Memories(engine)
        self.graph = Graph(engine)
        self.channels = Channels(engine, engine)
        self.queue = Queue(engine)
        self.trust = Trust(engine)
        self.sweeps = Sweeps(engine)
        self.erasure = Erasure(engine)
        self.portable = Portable(engine)
        self.audit = AuditLog(engine)

    # -- the lifecycle -------------------------------------------------------------------

    @property
    def capabilities(self) -> Capabilities:
        return self.engine.capabilities

    @property
    def read_only(self) -> bool:
        return self.engine.read_only

    def set_clock(self, clock: Callable[[], dt.datetime]) -> None:
        self.engine.set_clock(clock)

    def schema_version(self) -> int:
        return self.engine.schema_version()

    def migrate(self) -> list[int]:
        return self.engine.migrate()

    def transaction(self) -> AbstractContextManager[None]:
        return self.engine.transaction()

    def close(self) -> None:
        self.engine.close()

    def stats(self) -> StoreStats:
        return self.engine.stats()

    # -- what tests and benchmarks read underneath ----------------------------------------

    @property
    def db(self) -> Any:
        """The engine's database handle (white-box checks and benchmarks only)."""
        return self.engine.db  # type: ignore[attr-defined]

    @property
    def path(self) -> str:
        return str(self.engine.path)  # type: ignore[attr-defined]
