"""The domain vocabulary: sources, memory units, entities, edges, claims, events and hits.

Plain frozen dataclasses and string enums, shared by every layer. Nothing here does I/O; a value
built here is what a store persists and what the public API returns.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

JSON = Mapping[str, Any]


class Network(StrEnum):
    """The epistemic network of a unit: what kind of knowing it is."""

    WORLD = "world"  # objective facts about the world and other people
    EXPERIENCE = "experience"  # what the speaker did or underwent (first person, past)
    OPINION = "opinion"  # a judgement or belief held with some confidence
    OBSERVATION = "observation"  # a synthesised summary about an entity (written by reflect)
    INSIGHT = "insight"  # a generated hypothesis linking memories (written by insights)


class UnitType(StrEnum):
    FACT = "fact"
    PREFERENCE = "preference"
    SKILL = "skill"
    GOAL = "goal"
    OPINION = "opinion"
    EXPERIENCE = "experience"
    ACHIEVEMENT = "achievement"
    ACTION = "action"
    BELIEF = "belief"
    INSIGHT = "insight"
    RULE = "rule"


class UnitStatus(StrEnum):
    PROPOSED = "proposed"
    ACTIVE = "active"
    ARCHIVED = "archived"
    REJECTED = "rejected"
    CONFLICTED = "conflicted"
    SUPERSEDED = "superseded"


#: Statuses recall returns by default. Rejected and archived units stay in the store (and in
#: history) but are never offered as memory.
LIVE_STATUSES: frozenset[UnitStatus] = frozenset(
    {UnitStatus.ACTIVE, UnitStatus.PROPOSED, UnitStatus.CONFLICTED, UnitStatus.SUPERSEDED}
)


class Visibility(StrEnum):
    SHARED = "shared"  # every agent of the bank may see it in collective scope
    PRIVATE = "private"  # only its author ever sees it, in any scope and channel


class Scope(StrEnum):
    PERSONAL = "personal"  # units the agent itself stated (it is among the knowers)
    COLLECTIVE = "collective"  # the whole bank, less other agents' private units
    # The store's owner (a local caller of the Python API or CLI, or an admin token): the whole
    # bank, private units included. Never offered to agents; recall() refuses it.
    OWNER = "owner"


class EdgeType(StrEnum):
    """Known edge types. Edges store the type as text, so a new type needs no schema change."""

    SUPPORTS = "SUPPORTS"
    CONTRADICTS = "CONTRADICTS"
    CONTESTED_BECAUSE = "CONTESTED_BECAUSE"
    CAUSES = "CAUSES"
    BECAUSE = "BECAUSE"
    IMPLIES = "IMPLIES"
    DERIVED_FROM = "DERIVED_FROM"
    SUPERSEDES = "SUPERSEDES"
    RELATES_TO = "RELATES_TO"
    PART_OF = "PART_OF"
    IS_A = "IS_A"
    MENTIONS = "MENTIONS"


class Channel(StrEnum):
    SEMANTIC = "semantic"
    LEXICAL = "lexical"
    GRAPH = "graph"
    TEMPORAL = "temporal"
    FOCUS = "focus"  # the semantic channel asked without the names, among their mentions


class Verdict(StrEnum):
    """What the write path decided for one atom against what was already known."""

    ADD = "ADD"
    UPDATE = "UPDATE"
    SUPERSEDE = "SUPERSEDE"
    NOOP = "NOOP"
    CONTRADICT = "CONTRADICT"
    LINK_EXISTING = "LINK_EXISTING"


class RetainStatus(StrEnum):
    OK = "ok"
    ACCEPTED = "accepted"
    NEEDS_CLARIFICATION = "needs_clarification"


@dataclass(frozen=True, slots=True)
class Viewer:
    """Who is asking, and how widely: every store query is scoped by this, inside the query."""

    bank_id: str
    agent_id: str
    scope: Scope = Scope.PERSONAL


@dataclass(frozen=True, slots=True)
class Bank:
    id: str
    name: str
    created_at: dt.datetime
    config: JSON = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Source:
    """The raw input as given: immutable once stored. Its id is the evidence id answers cite."""

    id: str
    bank_id: str
    text: str
    content_hash: str
    agent_id: str
    recorded_at: dt.datetime
    kind: str = "message"
    session_id: str | None = None
    task_id: str | None = None
    occurred_at: dt.datetime | None = None
    mentioned_at: dt.datetime | None = None
    trust: float | None = None
    visibility: Visibility = Visibility.SHARED
    metadata: JSON = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Unit:
    """One atomic claim, with both time axes.

    Valid time: ``occurred_start``/``occurred_end`` is when the described event happened;
    ``valid_from``/``valid_until`` is when the claim holds true. Transaction time:
    ``recorded_at`` is when mneme stored it, ``retired_at`` when mneme stopped holding it.

    Confidence rule (ADR 0004): set once at write time from the source's trust and the
    extraction's certainty; it changes only through corroboration by another source or agent,
    a review decision, or a reconsolidation verdict. Usage never changes confidence.
    """

    id: str
    bank_id: str
    text: str
    content_key: str
    network: Network
    type: UnitType
    status: UnitStatus
    confidence: float
    agent_id: str
    recorded_at: dt.datetime
    visibility: Visibility = Visibility.SHARED
    occurred_start: dt.datetime | None = None
    occurred_end: dt.datetime | None = None
    valid_from: dt.datetime | None = None
    valid_until: dt.datetime | None = None
    retired_at: dt.datetime | None = None
    mentioned_at: dt.datetime | None = None
    embedding_model: str | None = None
    embedding_dim: int | None = None
    knowers: tuple[str, ...] = ()
    supersedes: tuple[str, ...] = ()
    superseded_by: str | None = None
    evidence: tuple[str, ...] = ()  # source ids this unit rests on, oldest first
    contradictions: tuple[str, ...] = ()  # unit ids that contradict it
    categories: tuple[str, ...] = ()
    entities: tuple[str, ...] = ()  # entity names mentioned, for display
    metadata: JSON = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Entity:
    id: str
    bank_id: str
    name: str
    key: str  # normalized name: the lookup key
    kind: str = "thing"  # person | place | organization | thing | time
    aliases: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Category:
    """One category of a bank's vocabulary (ADR 0056): a name, the near-synonyms folded into
    it, and the memory whose phrase minted it."""

    id: str
    bank_id: str
    name: str
    made_by: str  # rule | llm | person
    created_at: dt.datetime
    aliases: tuple[str, ...] = ()
    minted_from: str | None = None


@dataclass(frozen=True, slots=True)
class Edge:
    id: str
    bank_id: str
    src: str
    dst: str
    type: str  # an EdgeType value, or any new type
    made_by: str  # rule | nli | llm | person | a sweep name
    created_at: dt.datetime
    weight: float = 1.0
    confidence: float = 1.0
    metadata: JSON = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Agent:
    id: str
    bank_id: str
    first_seen: dt.datetime
    last_seen: dt.datetime
    host: str | None = None
    status: str = "active"


@dataclass(frozen=True, slots=True)
class Decision:
    """One verdict of the write path for one atom."""

    verdict: Verdict
    text: str
    unit_id: str | None
    target_id: str | None = None  # the existing unit it was judged against
    reason: str = ""


@dataclass(frozen=True, slots=True)
class Question:
    """A charter question for a person: the write was kept but nothing was overwritten."""

    conflict_type: str
    new_content: str
    new_memory_id: str | None
    existing_memory_id: str | None
    existing_content: str | None
    question: str
    decision: str
    confidence: float


@dataclass(frozen=True, slots=True)
class RetainResult:
    status: RetainStatus
    source_id: str | None
    memory_ids: tuple[str, ...] = ()
    decisions: tuple[Decision, ...] = ()
    deduped: tuple[str, ...] = ()  # ids of existing units this input repeated
    questions: tuple[Question, ...] = ()
    pending_id: str | None = None
    metadata: JSON = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class AddStatus:
    """Where an accepted write stands: pending, processing, done (with its result) or failed."""

    pending_id: str
    status: str
    result: RetainResult | None = None
    error: str | None = None
    attempts: int = 0


@dataclass(frozen=True, slots=True)
class ConflictRef:
    conflict_id: str | None
    unit_id: str
    source_ids: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Hit:
    """One recall result with its provenance."""

    unit: Unit
    score: float
    channels: Mapping[str, int]  # channel name -> 1-based rank in that channel
    origin: str = "seed"  # seed | graph
    via_edge: str | None = None  # the edge type that brought a graph hit
    parent: str | None = None  # the seed unit a graph hit was reached from
    superseded: bool = False
    successor: str | None = None
    flashback: bool = False
    evidence_source_ids: tuple[str, ...] = ()
    conflicts: tuple[ConflictRef, ...] = ()
    family: tuple[str, ...] = ()  # the other hits that are atoms of the same source
    #: How likely this hit is an answer, in [0, 1]: calibrated on LoCoMo dev evidence labels
    #: (mneme.read.relevance), comparable across queries, unlike ``score``.
    relevance: float = 0.0

    @property
    def text(self) -> str:
        return self.unit.text

    @property
    def id(self) -> str:
        return self.unit.id


@dataclass(frozen=True, slots=True)
class HistoryEvent:
    at: dt.datetime
    kind: str  # recorded | evidence | knower | superseded | status | edge | review | ...
    actor: str
    detail: JSON = field(default_factory=dict)


class ClaimStatus(StrEnum):
    """The system's position on a claim."""

    ACTIVE = "active"
    SUPERSEDED = "superseded"
    REJECTED = "rejected"


class ReviewStatus(StrEnum):
    """A person's decision on a claim."""

    PENDING_REVIEW = "pending_review"
    APPROVED = "approved"
    REJECTED = "rejected"
    SUPERSEDED = "superseded"


class ReviewDecision(StrEnum):
    APPROVE = "approve"
    REJECT = "reject"
    SUPERSEDE = "supersede"
    RESTORE = "restore"


class Resolution(StrEnum):
    """How a person settles a conflict."""

    SUPERSEDE = "supersede"  # the winner replaces the other
    REJECT = "reject"  # the loser is wrong: rejected and tombstoned
    NOT_CONFLICT = "not_conflict"  # both hold; this pair is never flagged again
    SCOPED_EXCEPTION = "scoped_exception"  # both hold, each in its own stated scope


@dataclass(frozen=True, slots=True)
class ClaimRecord:
    """The subject-attribute-value layer (the user model): one row per distinct value."""

    id: str
    bank_id: str
    claim_key: str
    slot_key: str
    subject: str
    attribute: str
    value: str
    negated: bool
    status: ClaimStatus
    review_status: ReviewStatus
    evidence_count: int
    evidence_refs: tuple[str, ...]  # source ids and unit ids the claim rests on
    contradiction_refs: tuple[str, ...]  # claim ids with another value in the same slot
    first_evidence_at: dt.datetime
    last_evidence_at: dt.datetime
    created_at: dt.datetime
    updated_at: dt.datetime
    supersedes: str | None = None
    superseded_by: str | None = None
    reviewed_at: dt.datetime | None = None
    reviewed_by: str | None = None
    review_note: str | None = None

    @property
    def text(self) -> str:
        neg = "not " if self.negated else ""
        return f"{self.subject} {self.attribute} {neg}{self.value}"


@dataclass(frozen=True, slots=True)
class ReviewEvent:
    """An append-only record of a decision, with the state on both axes before and after."""

    id: str
    bank_id: str
    target_kind: str  # claim | unit | conflict
    target_id: str
    decision: str
    actor: str
    at: dt.datetime
    note: str = ""
    prior_status: str | None = None
    prior_review_status: str | None = None
    new_status: str | None = None
    new_review_status: str | None = None
    metadata: JSON = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Tombstone:
    """A rejected value: the same content or claim retained again does not come back live."""

    id: str
    bank_id: str
    text: str
    reason: str
    actor: str
    at: dt.datetime
    content_key: str | None = None
    claim_key: str | None = None
    unit_id: str | None = None
    lifted_at: dt.datetime | None = None
    lifted_by: str | None = None
    evidence: tuple[str, ...] = ()  # sources that re-asserted the rejected value


@dataclass(frozen=True, slots=True)
class ConflictRecord:
    """An open (or settled) disagreement between two units, and its claims if any."""

    id: str
    bank_id: str
    kind: str  # value | negation | numbers | cross_agent | preference
    pair_key: str
    a_unit: str
    b_unit: str
    status: str  # open | resolved
    created_at: dt.datetime
    a_claim: str | None = None
    b_claim: str | None = None
    resolution: Resolution | None = None
    winner: str | None = None
    scope_a: str | None = None
    scope_b: str | None = None
    question: str = ""
    resolved_at: dt.datetime | None = None
    resolved_by: str | None = None
    note: str | None = None


@dataclass(frozen=True, slots=True)
class Rule:
    """A rule a person adopted from repeated, identical settlements of one kind of conflict."""

    id: str
    bank_id: str
    kind: str  # the conflict kind: value | negation | numbers | preference | cross_agent
    attribute: str  # the claim attribute the conflicts were about ("" when none)
    decision: str  # confirm | retract | preference
    text: str
    precedents: int
    adopted_by: str
    adopted_at: dt.datetime
    retired_at: dt.datetime | None = None


@dataclass(frozen=True, slots=True)
class RuleProposal:
    """N identical settlements suggest a rule; a person may adopt it."""

    kind: str
    attribute: str
    decision: str
    precedents: int
    text: str


@dataclass(frozen=True, slots=True)
class Settlement:
    """The outcome of resolve_contradiction: the conflict settled, and a rule proposal if due."""

    conflict: ConflictRecord
    decision: str
    proposal: RuleProposal | None = None


@dataclass(frozen=True, slots=True)
class PendingSweep:
    """A belief changed: the memories hanging on it wait to be re-examined."""

    id: str
    bank_id: str
    belief_id: str
    reason: str
    status: str  # pending | done
    created_at: dt.datetime
    done_at: dt.datetime | None = None
    report: JSON | None = None


@dataclass(frozen=True, slots=True)
class SweepProposal:
    """A sweep verdict below the confidence bar: it waits for a person, applied never."""

    id: str
    bank_id: str
    unit_id: str
    belief_id: str
    verdict: str  # reaccept | contradicts | unsupported | recontest
    reason: str
    evidence: tuple[str, ...]
    confidence: float
    status: str  # open | accepted | dismissed
    created_at: dt.datetime
    decided_at: dt.datetime | None = None
    decided_by: str | None = None


@dataclass(frozen=True, slots=True)
class SweepReport:
    """What one reconsolidation sweep did, in both directions."""

    belief_id: str
    examined: int = 0
    reaccepted: tuple[str, ...] = ()
    flagged: tuple[str, ...] = ()
    queued: tuple[str, ...] = ()  # proposal ids waiting for a person
    left_alone: tuple[str, ...] = ()
    refused: tuple[str, ...] = ()  # verdicts that failed validation (not applied)


@dataclass(frozen=True, slots=True)
class ReviewItem:
    """A review-queue entry: the claim, and the statement that first said it, as said.

    A claim's subject/attribute/value is a normal form ("henry works not remotely"); a person
    judges what was said. ``statement`` is the text of the first memory unit among the claim's
    evidence that the viewer may see, ``source_id`` that unit's first evidence source,
    ``author`` its agent and ``said_at`` when it was said (the unit's occurred_start, else the
    source's occurred_at or mentioned_at). They are None when no stating unit is visible.
    """

    claim: ClaimRecord
    statement: str | None = None
    unit_id: str | None = None
    source_id: str | None = None
    author: str | None = None
    said_at: dt.datetime | None = None

    @property
    def id(self) -> str:
        return self.claim.id

    @property
    def text(self) -> str:
        """What a person reads: the statement as said, else the claim's normal form."""
        return self.statement if self.statement is not None else self.claim.text


def derived_record(unit: Unit, network: Network) -> Mapping[str, Any]:
    """The record a derived unit keeps in its metadata under its network's name (an
    observation's ``observation``, an insight's ``insight``); {} for any other unit."""
    meta = unit.metadata.get(network.value) if unit.network == network else None
    return meta if isinstance(meta, Mapping) else {}
