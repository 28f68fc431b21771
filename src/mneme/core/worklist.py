"""The review worklist's values (ADR 0048): what waits for a person's decision, as a card.

A card is one thing to decide, of four kinds (``question``: an open conflict; ``contested``: a
claim with a live rival in its slot; ``reasserted``: a rejected value said again;
``proposal``: a sweep verdict below the auto-apply bar). Each shows the statement as it was
said (a memory's own text, never the claim's subject-attribute-value paraphrase), who said
it, in which sources, when it happened and when it was recorded, the other side where there
is one, and ``actions``: only the decisions that apply to the card's state.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

from mneme.core.model import ClaimRecord, ConflictRecord, SweepProposal, Tombstone

KINDS = ("question", "contested", "reasserted", "proposal")
SORTS = ("newest", "most_contested")
#: The decisions a bulk call may make (on the cards whose actions hold them).
BULK_DECISIONS = ("approve", "reject")


@dataclass(frozen=True, slots=True)
class Statement:
    """One memory as it was said: its text, author, sources, and both times."""

    unit_id: str
    text: str
    author: str
    source_ids: tuple[str, ...]
    occurred_at: dt.datetime | None  # when it happened (the memory's, else its source's)
    recorded_at: dt.datetime  # when mneme stored it
    status: str


@dataclass(frozen=True, slots=True)
class WorkItem:
    """One card of the worklist.

    ``id`` is what a decision names: the conflict (question), the claim (contested,
    reasserted) or the proposal. ``said`` is the statement to judge; ``other`` the other side
    (the older memory of a conflict, the live rival of a contested claim, the belief a
    proposal rests on). ``at`` orders the newest first; ``contest`` the most contested.
    """

    kind: str
    id: str
    at: dt.datetime
    contest: int
    actions: tuple[str, ...]
    said: Statement | None
    other: Statement | None = None
    question: str = ""
    claim: ClaimRecord | None = None
    conflict: ConflictRecord | None = None
    proposal: SweepProposal | None = None
    rejection: Tombstone | None = None  # for a reasserted value: the rejection it meets


@dataclass(frozen=True, slots=True)
class Worklist:
    """A page of the worklist, the counts by kind under the same filters, and the total."""

    bank: str
    items: tuple[WorkItem, ...]
    counts: dict[str, int] = field(default_factory=dict)
    total: int = 0
    sort: str = "newest"
    limit: int = 50
    offset: int = 0


@dataclass(frozen=True, slots=True)
class BulkResult:
    """One id of a bulk decision: done (``ok``), or why not (``code``, ``message``)."""

    id: str
    ok: bool
    code: str = ""
    message: str = ""
