"""The storage contract every backend implements (SQLite, PostgreSQL), as role protocols.

Entity-level methods only, no query strings. Every read takes a :class:`Viewer` and applies bank
and agent scope inside the backend's own query, never by filtering afterwards. Every write runs
inside :meth:`Store.transaction` and appends to the hash-chained audit log in that same
transaction, so a change and its audit record land together or not at all.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np
import numpy.typing as npt

from mneme.core.erasure import Redactions
from mneme.core.model import (
    Agent,
    Bank,
    Category,
    ClaimRecord,
    ClaimStatus,
    ConflictRecord,
    Edge,
    Entity,
    Network,
    PendingSweep,
    Resolution,
    ReviewEvent,
    ReviewStatus,
    Rule,
    Source,
    SweepProposal,
    Tombstone,
    Unit,
    UnitStatus,
    UnitType,
    Viewer,
    Visibility,
)
from mneme.core.watchdog import IndexState, QueuedItem

if TYPE_CHECKING:
    from mneme.store.audit_key import KeyRing

#: A vector as callers hold it: a numpy row or any sequence of floats.
Vector = Sequence[float] | npt.NDArray[np.float32]


@dataclass(frozen=True, slots=True)
class Capabilities:
    """What a backend can do natively; the contract suite checks each declared field."""

    name: str
    native_vector_index: bool  # an on-disk ANN index (pgvector HNSW) vs a rebuildable in-RAM one
    concurrent_writers: bool  # many processes may write at once without a queue in front
    row_level_security: bool


@dataclass(frozen=True, slots=True)
class Filters:
    """Hard filters applied inside every channel's query."""

    statuses: frozenset[UnitStatus] | None = None  # None: every status
    types: frozenset[UnitType] | None = None
    occurred_from: dt.datetime | None = None  # occurred window overlaps [from, to]
    occurred_to: dt.datetime | None = None
    valid_at: dt.datetime | None = None  # as_of: valid_from <= t < valid_until
    exclude_ids: frozenset[str] = frozenset()
    include_ids: frozenset[str] | None = None  # only these units (None: no restriction)
    session: str | None = None  # only units written in this session
    visibility: Visibility | None = None  # only shared (or only private) units; list_units


@dataclass(frozen=True, slots=True)
class UnitChanges:
    """The mutable part of a unit. ``None`` leaves a field as it is."""

    status: UnitStatus | None = None
    confidence: float | None = None
    valid_from: dt.datetime | None = None
    valid_until: dt.datetime | None = None
    retired_at: dt.datetime | None = None
    superseded_by: str | None = None
    add_supersedes: tuple[str, ...] = ()
    add_contradictions: tuple[str, ...] = ()
    add_categories: tuple[str, ...] = ()
    metadata: Mapping[str, Any] | None = None  # merged into the stored metadata
    #: Nullable fields to set back to NULL (a reverted supersession clears its traces).
    clear: frozenset[str] = frozenset()


CLEARABLE_UNIT_FIELDS = frozenset({"valid_until", "retired_at", "superseded_by"})


@dataclass(frozen=True, slots=True)
class UnitBrief:
    """What ranking needs of a candidate, without its text, lists or JSON: recall reads this for
    every candidate and hydrates whole units only for the hits it returns."""

    id: str
    status: UnitStatus
    occurred_start: dt.datetime | None
    occurred_end: dt.datetime | None
    recorded_at: dt.datetime
    valid_until: dt.datetime | None
    superseded_by: str | None
    knowers: int
    family: str  # the first evidence source (atoms of one source are one family)
    scope: str | None  # a scoped exception's scope ("at work"), if any
    network: Network = Network.WORLD  # observations rank below their evidence (ADR 0051)


@dataclass(frozen=True, slots=True)
class Link:
    """One step of graph expansion: from a unit to a visible neighbour unit."""

    src: str
    dst: str
    type: str  # an edge type, or "ENTITY" (a shared entity) or "SOURCE" (a sibling atom)
    weight: float
    via: str | None = None  # the edge id, entity name or source id that links them


#: What graph expansion may follow: typed edges between units, shared entities, sibling atoms.
LINK_KINDS: frozenset[str] = frozenset({"EDGE", "ENTITY", "SOURCE"})


@dataclass(frozen=True, slots=True)
class AuditRecord:
    seq: int
    bank_id: str
    at: dt.datetime
    actor: str
    op: str
    target: str
    before: Mapping[str, Any] | None
    after: Mapping[str, Any] | None
    reason: str
    prev_hash: str
    hash: str
    hashed: Mapping[str, Any]  # the exact stored fields the hash covers, for verification


@dataclass(frozen=True, slots=True)
class AuditAnchors:
    """What the chain of a store is anchored to, for ``audit verify`` (ADR 0035)."""

    keyring: KeyRing | None  # the audit keys the store was opened with (kept outside it)
    registered: Mapping[str, str]  # key id -> check value: the keys that sealed the database
    head_macs: Mapping[str, str | None]  # bank -> keyed seal of its chain head
    problem: str | None = None  # why the store cannot write to its chain, if it cannot


@dataclass(frozen=True, slots=True)
class Scored:
    unit_id: str
    score: float


@dataclass(frozen=True, slots=True)
class EmbeddingRow:
    unit_id: str
    text: str
    model: str | None


@dataclass(frozen=True, slots=True)
class ClaimChanges:
    """The mutable part of a claim. ``None`` leaves a field as it is."""

    status: ClaimStatus | None = None
    review_status: ReviewStatus | None = None
    add_evidence_refs: tuple[str, ...] = ()
    add_contradiction_refs: tuple[str, ...] = ()
    last_evidence_at: dt.datetime | None = None
    supersedes: str | None = None
    superseded_by: str | None = None
    reviewed_at: dt.datetime | None = None
    reviewed_by: str | None = None
    review_note: str | None = None


@dataclass(frozen=True, slots=True)
class ConflictChanges:
    status: str | None = None
    resolution: Resolution | None = None
    winner: str | None = None
    scope_a: str | None = None
    scope_b: str | None = None
    resolved_at: dt.datetime | None = None
    resolved_by: str | None = None
    note: str | None = None


#: The kinds of item the review worklist holds: an open conflict (a question), a pending claim
#: with a live rival in its slot (contested), a rejected value asserted again (reasserted), a
#: sweep verdict below the auto-apply bar (proposal).
WORK_KINDS = ("question", "contested", "reasserted", "proposal")


@dataclass(frozen=True, slots=True)
class WorkFilter:
    """What the review worklist asks the store for (ADR 0048): every filter is a clause of
    the storage query, never a filter applied to what came back."""

    kinds: tuple[str, ...] = WORK_KINDS
    author: str | None = None  # the agent that said it (either side of a conflict)
    text: str | None = None  # a case-insensitive substring of what was said
    sort: str = "newest"  # newest | most_contested
    limit: int = 50
    offset: int = 0


@dataclass(frozen=True, slots=True)
class WorkRow:
    """One item of the worklist as the store finds it: which record, when, how contested."""

    kind: str
    id: str
    at: dt.datetime
    contest: int


@dataclass(frozen=True, slots=True)
class QueueItem:
    """One accepted write waiting in the ingest buffer."""

    id: str
    bank_id: str
    payload: Mapping[str, Any]
    status: str  # pending | processing | done | failed
    attempts: int
    created_at: dt.datetime
    updated_at: dt.datetime
    result: Mapping[str, Any] | None = None
    error: str | None = None


@dataclass(frozen=True, slots=True)
class QueueStats:
    """The ingest buffer at a glance (the health watchdog's view)."""

    pending: int
    oldest_pending: dt.datetime | None  # when the oldest pending item was accepted
    processing: tuple[QueuedItem, ...]  # claimed items, with when they were claimed


@dataclass(frozen=True, slots=True)
class FileSizes:
    """Where a store's bytes are, for the watchdog; None where the backend cannot say."""

    directory: str | None  # the directory holding the files (disk free is read there)
    db_bytes: int | None
    wal_bytes: int | None


@dataclass(frozen=True, slots=True)
class PurgeCounts:
    units: int
    sources: int
    claims: int


@dataclass(frozen=True, slots=True)
class CompactReport:
    """What ``Store.compact`` rewrote, and each step it could not take (with why)."""

    done: tuple[str, ...]
    skipped: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class StoreStats:
    banks: int
    sources: int
    units: int
    entities: int
    edges: int
    embeddings_by_model: Mapping[str, int] = field(default_factory=dict)


class Lifecycle(Protocol):
    """Opening, schema, transactions and closing: what every caller of a store needs."""

    @property
    def capabilities(self) -> Capabilities: ...

    def set_clock(self, clock: Callable[[], dt.datetime]) -> None: ...  # record time of audit
    def schema_version(self) -> int: ...
    def migrate(self) -> list[int]: ...
    @property
    def read_only(self) -> bool: ...  # writes are refused (asked for, or the file is read-only)
    def transaction(self) -> AbstractContextManager[None]: ...
    def close(self) -> None: ...
    def stats(self) -> StoreStats: ...


class Banks(Protocol):
    """Banks and the agents that write to them (presence)."""

    def ensure_bank(
        self, bank: Bank, *, actor: str = "system", reason: str = "first write to the bank"
    ) -> Bank: ...
    def get_bank(self, bank_id: str) -> Bank | None: ...
    def list_banks(self) -> list[Bank]: ...
    def set_bank_config(  # replaces the bank's configuration; audited (bank.configure)
        self, bank_id: str, config: Mapping[str, Any], *, actor: str, reason: str
    ) -> Bank: ...
    def heartbeat(self, agent: Agent) -> None: ...
    def list_agents(self, bank_id: str) -> list[Agent]: ...


class Memories(Protocol):
    """Sources (immutable once written), units and their embeddings."""

    # sources
    def put_source(self, source: Source) -> None: ...
    def get_source(self, viewer: Viewer, source_id: str) -> Source | None: ...
    # the texts of the sources each unit rests on, oldest first, that the viewer may see
    def evidence_texts(self, viewer: Viewer, unit_ids: Sequence[str]) -> dict[str, list[str]]: ...
    def locate(self, object_id: str) -> str | None: ...  # the bank of any object id
    def source_banks(self, source_id: str) -> list[str]: ...  # banks with the id (at most 2)
    # who wrote the sources of that id the viewer may see (an id is its writer's, ADR 0107)
    def source_writers(self, viewer: Viewer, source_id: str) -> list[str]: ...

    # units
    def put_unit(self, unit: Unit, vector: Vector | None) -> None: ...
    def find_by_content_key(
        self, bank_id: str, content_key: str, visibility: Visibility, agent_id: str
    ) -> Unit | None: ...
    def held_content_keys(
        self, bank_id: str, content_keys: Sequence[str], visibility: Visibility, agent_id: str
    ) -> set[str]: ...  # those find_by_content_key would find a unit for, in one statement
    def add_evidence(
        self, bank_id: str, unit_id: str, source_id: str, agent_id: str, at: dt.datetime
    ) -> bool: ...  # True when the agent is a new knower
    def update_unit(
        self, bank_id: str, unit_id: str, changes: UnitChanges, *, actor: str, reason: str
    ) -> Unit: ...
    def get_units(
        self, viewer: Viewer, ids: Sequence[str], *, lean: bool = False
    ) -> dict[str, Unit]:
        """Visible units by id. ``lean`` leaves ``evidence`` and ``entities`` empty (two
        queries fewer: the write path's judge reads only text, type, author and knowers)."""
        ...

    def units_of_source(self, viewer: Viewer, source_id: str) -> list[Unit]: ...
    def unit_briefs(self, viewer: Viewer, ids: Sequence[str]) -> dict[str, UnitBrief]: ...
    def list_units(  # newest first; lean: without evidence and entity names
        self, viewer: Viewer, filters: Filters, limit: int, offset: int = 0, *, lean: bool = False
    ) -> list[Unit]: ...

    # embeddings (stored with their model identity; the vector index derives from them)
    def put_embedding(self, bank_id: str, unit_id: str, model: str, vector: Vector) -> None: ...
    def unit_vectors(  # the stored vectors of visible units (none for a unit without one)
        self, viewer: Viewer, ids: Sequence[str], model: str
    ) -> dict[str, npt.NDArray[np.float32]]: ...
    def iter_for_embedding(
        self, bank_id: str | None, model: str, batch: int
    ) -> Iterator[list[EmbeddingRow]]: ...


class Graph(Protocol):
    """Entities, the units that mention them, and typed edges."""

    def upsert_entity(self, entity: Entity) -> Entity: ...
    def add_mentions(self, bank_id: str, unit_id: str, entity_ids: Sequence[str]) -> None: ...

    # edges
    def put_edge(self, edge: Edge) -> None: ...
    def put_edges(self, edges: Sequence[Edge]) -> None:
        """Insert edges in one statement and one audit entry (edges a rule made together)."""
        ...

    def edges_of(self, viewer: Viewer, unit_id: str) -> list[Edge]: ...


class Vocabulary(Protocol):
    """A bank's category vocabulary (ADR 0056): names, and near-synonyms folded as aliases."""

    def put_categories(self, categories: Sequence[Category], *, actor: str) -> None: ...
    def add_category_aliases(
        self, bank_id: str, category_id: str, aliases: Sequence[str], *, actor: str
    ) -> Category: ...
    def list_categories(self, bank_id: str) -> list[Category]: ...  # oldest first


class Searches(Protocol):
    """The recall channels an engine answers itself (lexical, semantic, temporal)."""

    def search_lexical(
        self, viewer: Viewer, terms: Sequence[str], filters: Filters, limit: int
    ) -> list[Scored]: ...
    def search_semantic(
        self, viewer: Viewer, vector: Vector, model: str, filters: Filters, limit: int
    ) -> list[Scored]: ...
    def search_semantic_many(
        self, viewer: Viewer, vectors: Sequence[Vector], model: str, filters: Filters, limit: int
    ) -> list[list[Scored]]: ...  # search_semantic for each vector, in order
    def search_temporal(
        self, viewer: Viewer, start: dt.datetime, end: dt.datetime, filters: Filters, limit: int
    ) -> list[Scored]: ...
    def semantic_density(  # each visible unit's mean cosine to its nearest others among ids
        self, viewer: Viewer, ids: Sequence[str], model: str, neighbours: int
    ) -> dict[str, float]: ...  # {} when no more than `neighbours` of them are visible


class Channels(Searches, Protocol):
    """The recall channels: scope and filters applied inside each query."""

    def search_entities(
        self, viewer: Viewer, keys: Sequence[str], filters: Filters, limit: int
    ) -> list[Scored]: ...  # units mentioning named entities
    def entity_mentions(
        self, viewer: Viewer, keys: Sequence[str], filters: Filters, limit: int
    ) -> dict[str, list[str]]: ...  # per known key, the visible units mentioning it, newest first
    def graph_links(
        self,
        viewer: Viewer,
        unit_ids: Sequence[str],
        filters: Filters,
        limit: int,
        kinds: frozenset[str] = LINK_KINDS,
    ) -> list[Link]: ...


class Queue(Protocol):
    """The ingest buffer: persisted before acknowledged, done in the write's own transaction."""

    def enqueue(self, item: QueueItem) -> None: ...
    def has_pending(self) -> bool: ...  # a read: no write lock when the queue is empty
    def claim_queued(self, now: dt.datetime) -> QueueItem | None: ...  # oldest pending
    def finish_queued(
        self,
        item_id: str,
        status: str,
        result: Mapping[str, Any] | None,
        error: str | None,
        now: dt.datetime,
    ) -> None: ...
    def get_queued(self, item_id: str) -> QueueItem | None: ...
    def requeue_processing(self, now: dt.datetime) -> int: ...  # crash recovery
    def queue_stats(self) -> QueueStats: ...
    def requeue(self, item_id: str, now: dt.datetime) -> bool: ...  # one stuck item, if still so


class Probe(Protocol):
    """What the health watchdog reads and repairs underneath the roles (ADR 0054)."""

    def integrity(self) -> str | None: ...  # None: answered and intact; else the problem
    def files(self) -> FileSizes: ...
    def checkpoint(self) -> str: ...  # fold the WAL into the database; says what it did
    def indexes(self) -> list[IndexState]: ...  # each vector index beside its embeddings
    def rebuild_index(self, bank_id: str, model: str) -> int: ...  # rows it now holds


class Trust(Protocol):
    """Claims (two status axes), review events, tombstones, conflicts and adopted rules."""

    def put_claim(self, claim: ClaimRecord) -> None: ...
    def get_claim(self, bank_id: str, claim_id: str) -> ClaimRecord | None: ...
    def find_claims(
        self,
        bank_id: str,
        *,
        claim_key: str | None = None,
        slot_key: str | None = None,
        unit_id: str | None = None,
    ) -> list[ClaimRecord]: ...
    def update_claim(
        self,
        bank_id: str,
        claim_id: str,
        changes: ClaimChanges,
        *,
        actor: str,
        reason: str,
        now: dt.datetime,
    ) -> ClaimRecord: ...
    def link_claim_unit(self, bank_id: str, claim_id: str, unit_id: str) -> None: ...
    def claim_unit_ids(self, bank_id: str, claim_id: str) -> list[str]: ...
    def slot_unit_ids(self, bank_id: str, slot_key: str) -> list[str]: ...
    def review_queue(
        self, bank_id: str, review_statuses: Sequence[ReviewStatus], limit: int
    ) -> list[ClaimRecord]: ...  # newest first
    def put_review_event(self, event: ReviewEvent) -> None: ...
    def review_events(self, bank_id: str, target_id: str) -> list[ReviewEvent]: ...
    def review_events_caused_by(self, bank_id: str, event_id: str) -> list[ReviewEvent]: ...
    def put_tombstone(self, tombstone: Tombstone) -> None: ...
    def has_tombstones(self, bank_id: str) -> bool: ...  # any tombstone at all (lifted too)
    def find_tombstones(
        self,
        bank_id: str,
        *,
        content_key: str | None = None,
        claim_key: str | None = None,
        unit_id: str | None = None,
        live_only: bool = True,
    ) -> list[Tombstone]: ...
    def update_tombstone(
        self,
        bank_id: str,
        tombstone_id: str,
        *,
        lifted_at: dt.datetime | None,
        lifted_by: str | None,
        add_evidence: tuple[str, ...] = (),
    ) -> None: ...
    def put_conflict(self, conflict: ConflictRecord) -> None: ...
    def get_conflict(self, bank_id: str, conflict_id: str) -> ConflictRecord | None: ...
    def list_conflicts(
        self,
        bank_id: str,
        *,
        status: str | None,
        unit_id: str | None = None,
        pair_key: str | None = None,
        limit: int = 100,
    ) -> list[ConflictRecord]: ...
    def update_conflict(
        self, bank_id: str, conflict_id: str, changes: ConflictChanges, *, actor: str, reason: str
    ) -> ConflictRecord: ...

    # the review worklist (ADR 0048): what waits for a person's decision, and counts by kind
    def review_worklist(self, bank_id: str, wanted: WorkFilter) -> list[WorkRow]: ...
    def review_counts(self, bank_id: str, wanted: WorkFilter) -> dict[str, int]: ...

    # rules adopted from precedents (listed beside the charter)
    def put_rule(self, rule: Rule) -> None: ...
    def list_rules(self, bank_id: str) -> list[Rule]: ...


class Sweeps(Protocol):
    """Reconsolidation: pending belief changes and the sweep's queued verdicts."""

    def add_pending_sweep(self, item: PendingSweep) -> None: ...
    def has_pending_sweep(self, bank_id: str | None = None) -> bool: ...
    def pending_sweeps(self, bank_id: str | None, limit: int) -> list[PendingSweep]: ...
    def done_sweeps(self, bank_id: str | None, limit: int) -> list[PendingSweep]: ...
    def finish_sweep(
        self, bank_id: str, sweep_id: str, report: Mapping[str, Any], now: dt.datetime
    ) -> None: ...
    def put_proposal(self, proposal: SweepProposal) -> None: ...
    def list_proposals(
        self, bank_id: str, status: str | None = "open", limit: int = 100
    ) -> list[SweepProposal]: ...
    def decide_proposal(
        self, bank_id: str, proposal_id: str, status: str, actor: str, now: dt.datetime
    ) -> SweepProposal: ...


class Erasure(Protocol):
    """Legal erasure: the only deletion; audited, content of past audit records erased."""

    def purge(
        self,
        bank_id: str,
        unit_ids: Sequence[str],
        source_ids: Sequence[str],
        *,
        actor: str,
        reason: str,
        target: str,
        redact: Redactions | None = None,
    ) -> PurgeCounts: ...
    # rewrite the files so that erased rows leave no bytes behind (outside any transaction)
    def compact(self) -> CompactReport: ...


class Portable(Protocol):
    """Whole-store copy, row for row."""

    # whole-store copy (``mneme db copy``): every row of every table in ``tables.TABLES``, in
    # the portable form of ``tables.SPECS``, copied verbatim (audit records keep their seq and
    # hashes; no audit record is written for an import). Export pages by the table's key.
    def export_rows(self, table: str, batch: int = 1000) -> Iterator[list[dict[str, Any]]]: ...
    def import_rows(self, table: str, rows: Sequence[Mapping[str, Any]]) -> None: ...


#: ``append(bank_id, actor, op, target, before, after, reason)``: add a record to the bank's
#: chain in the current write transaction (``before``/``after``: what changed, as mappings).
AuditAppend = Callable[
    [str, str, str, str, Mapping[str, Any] | None, Mapping[str, Any] | None, str], None
]


class Audit(Protocol):
    """The audit log: append-only, hash-chained, keyed."""

    @property
    def append(self) -> AuditAppend: ...
    def records(
        self, bank_id: str | None = None, target: str | None = None
    ) -> Iterator[AuditRecord]: ...
    def head(self, bank_id: str) -> tuple[int, str, int] | None: ...  # seq, hash, count
    def anchors(self) -> AuditAnchors: ...


class Transactions(Protocol):
    """A store as a service that writes sees it: one transaction at a time."""

    def transaction(self) -> AbstractContextManager[None]: ...


class Store(Lifecycle, Protocol):
    """A whole backend: the lifecycle, and one component per role (ADR 0044). A service
    declares the roles it uses in a protocol of its own (``class DecideStore(Protocol):
    memories: Memories ...``) and is typed on that."""

    banks: Banks
    memories: Memories
    graph: Graph
    channels: Channels
    queue: Queue
    trust: Trust
    sweeps: Sweeps
    erasure: Erasure
    portable: Portable
    audit: Audit
    probe: Probe
    vocabulary: Vocabulary
