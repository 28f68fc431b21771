"""Every shared entity class in one base, so each backend's store lists them once."""

from __future__ import annotations

from mneme.store.sql.audit import AuditReading
from mneme.store.sql.banks import Banks
from mneme.store.sql.claims import Claims
from mneme.store.sql.conflicts import Conflicts
from mneme.store.sql.graph import Graph
from mneme.store.sql.portable import Portable
from mneme.store.sql.purge import Erasure
from mneme.store.sql.queue import Queue
from mneme.store.sql.reviews import Reviews
from mneme.store.sql.rules import Rules
from mneme.store.sql.sources import Sources
from mneme.store.sql.sweeps import Sweeps
from mneme.store.sql.tombstones import Tombstones


class SharedEntities(
    Banks,
    Sources,
    Graph,
    Claims,
    Reviews,
    Tombstones,
    Conflicts,
    Rules,
    Sweeps,
    Queue,
    AuditReading,
    Portable,
    Erasure,
):
    """The statements both stores run alike (ADR 0041); a store adds what truly differs."""
