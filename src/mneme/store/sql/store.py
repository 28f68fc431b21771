"""A store: one backend engine composed with one shared component per role (ADR 0044).

``store.banks``, ``store.memories``, ``store.graph``, ``store.channels``, ``store.queue``,
``store.trust``, ``store.sweeps``, ``store.erasure``, ``store.portable``, ``store.audit`` and
``store.vocabulary`` are the roles of :mod:`mneme.store.protocol`; the store itself answers
the lifecycle (schema, transactions, closing, counts). Every component but the channels is
shared SQL built on the engine; the channels are the engine's own (FTS5 and an in-memory
vector index on SQLite, tsvector BM25 tables and pgvector on PostgreSQL).
"""

from __future__ import annotations

from typing import Any, Protocol

from mneme.store import protocol as role
from mneme.store.protocol import Lifecycle, Searches
from mneme.store.sql.audit import AuditLog
from mneme.store.sql.banks import Banks
from mneme.store.sql.categories import Categories
from mneme.store.sql.channels import Channels
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
from mneme.store.sql.worklist import Worklist


class Memories(Sources, Units):
    """The Memories role: sources, units and their embeddings."""


class Trust(Claims, Reviews, Tombstones, Conflicts, Rules, Worklist):
    """The Trust role: claims, review events, tombstones, conflicts, adopted rules, and the
    review worklist over them (and the sweep proposals)."""


class StoreEngine(Engine, Searches, Lifecycle, Protocol):
    """An engine that also answers the lifecycle and its own recall channels."""


class SQLStore:
    """The composition root of a backend: its engine, and one component per role."""

    def __init__(self, engine: StoreEngine) -> None:
        self.engine = engine
        # Typed as the roles (a role attribute of the Store protocol is exactly its role).
        self.banks: role.Banks = Banks(engine)
        self.memories: role.Memories = Memories(engine)
        self.graph: role.Graph = Graph(engine)
        self.channels: role.Channels = Channels(engine, engine)
        self.queue: role.Queue = Queue(engine)
        self.trust: role.Trust = Trust(engine)
        self.sweeps: role.Sweeps = Sweeps(engine)
        self.erasure: role.Erasure = Erasure(engine)
        self.portable: role.Portable = Portable(engine)
        self.audit: role.Audit = AuditLog(engine)
        self.vocabulary: role.Vocabulary = Categories(engine)
        # The lifecycle is the engine's.
        self.capabilities = engine.capabilities
        self.set_clock = engine.set_clock
        self.schema_version = engine.schema_version
        self.migrate = engine.migrate
        self.transaction = engine.transaction
        self.close = engine.close
        self.stats = engine.stats

    @property
    def read_only(self) -> bool:
        return self.engine.read_only

    # -- what tests and benchmarks read underneath ----------------------------------------

    @property
    def db(self) -> Any:
        """The engine's database handle (white-box checks and benchmarks only)."""
        return self.engine.db  # type: ignore[attr-defined]

    @property
    def path(self) -> str:
        return str(self.engine.path)  # type: ignore[attr-defined]
