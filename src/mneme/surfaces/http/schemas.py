"""Request bodies and constrained field types, shared by the routers.

Every string is bounded and free of NUL bytes and lone surrogates before it reaches ``Memory``
(which validates again): a request that fails here is a 422 and touches nothing. Unknown fields
are refused, so an agent id can never be smuggled in through a body, and types are strict: no
string stands in for a number, no boolean for an integer (ADR 0033).
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StringConstraints

from mneme.surfaces.literals import MemoryType, Scope

MAX_TEXT = 100_000
MAX_QUERY = 8_000
MAX_NOTE = 4_000
MAX_ID = 128
MAX_METADATA_CHARS = 20_000
ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.:@/+-]{0,127}$"


def _clean(value: str) -> str:
    if "\x00" in value:
        raise ValueError("must not contain a NUL byte")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ValueError("is not valid UTF-8 (it holds a lone surrogate)") from exc
    return value


def _small_json(value: dict[str, Any] | None) -> dict[str, Any] | None:
    if value is None:
        return None
    try:
        size = len(json.dumps(value, ensure_ascii=False))
    except (TypeError, ValueError) as exc:
        raise ValueError(f"is not plain JSON: {exc}") from exc
    if size > MAX_METADATA_CHARS:
        raise ValueError(f"is {size:,} characters of JSON, over {MAX_METADATA_CHARS:,}")
    _clean(json.dumps(value, ensure_ascii=False))
    return value


Ident = Annotated[
    str,
    StringConstraints(min_length=1, max_length=MAX_ID, pattern=ID_PATTERN),
    Field(description="An id: 1-128 letters, digits and _ . : @ / + -"),
]
Text = Annotated[
    str,
    StringConstraints(min_length=1, max_length=MAX_TEXT),
    AfterValidator(_clean),
    Field(description="What happened or was learned, as given (at most 100,000 characters)."),
]
Query = Annotated[
    str,
    StringConstraints(min_length=1, max_length=MAX_QUERY),
    AfterValidator(_clean),
    Field(description="A natural-language query (at most 8,000 characters)."),
]
Note = Annotated[
    str,
    StringConstraints(max_length=MAX_NOTE),
    AfterValidator(_clean),
    Field(description="A free-text note kept with the decision (at most 4,000 characters)."),
]
Time = Annotated[
    str,
    StringConstraints(min_length=1, max_length=64),
    AfterValidator(_clean),
    Field(description="An ISO-8601 time, e.g. 2024-03-05 or 2024-03-05T10:00:00Z."),
]
Short = Annotated[str, StringConstraints(min_length=1, max_length=200), AfterValidator(_clean)]
Metadata = Annotated[
    dict[str, Any] | None,
    AfterValidator(_small_json),
    Field(description="Free JSON kept with the source (at most 20,000 characters)."),
]
Host = Annotated[str, StringConstraints(min_length=1, max_length=255), AfterValidator(_clean)]


class Body(BaseModel):
    # Strict: a body says what it means. ``"k": "5"`` or ``"k": true`` for a number, ``1`` for
    # a flag, a number for a text are 422, never coerced (issue 16); an integer where a float
    # is asked for is still a number. Query parameters are strings by nature and stay lax.
    model_config = ConfigDict(extra="forbid", strict=True)


class RetainIn(Body):
    """Something to remember. The author is the token's agent."""

    text: Text
    session: Ident | None = Field(default=None, description="The conversation or session id.")
    occurred_at: Time | None = Field(default=None, description="When it happened.")
    mentioned_at: Time | None = Field(default=None, description="When it was said.")
    source_id: Ident | None = Field(
        default=None, description="Your own event id, kept as the evidence id (idempotent)."
    )
    source_kind: Short | None = Field(default=None, description="message, document, tool...")
    trust: float | None = Field(default=None, ge=0, le=1, description="Trust in the source.")
    supersedes: list[Ident] | None = Field(
        default=None, max_length=100, description="Source or memory ids this input corrects."
    )
    visibility: Literal["shared", "private"] = Field(
        default="shared", description='"private": no other agent ever sees it, in any scope.'
    )
    metadata: Metadata = None
    create_bank: bool = Field(
        default=False,
        description="Make the bank when it does not exist (a token for every bank; the "
        "token's own bank always exists). Without it an unknown bank is a 404.",
    )
    wait: float | None = Field(
        default=None,
        ge=0,
        le=30,
        description="Seconds to wait for the write to finish; when it takes longer the answer "
        "is status=accepted with a pending_id for the add-status route. Omitted: wait for it.",
    )


class BankIn(Body):
    """A bank to make."""

    id: Ident = Field(description="The bank's id.")
    name: Short | None = Field(default=None, description="A label for people (default: the id).")


class UpdateIn(Body):
    """A correction: the new text supersedes the memory (nothing is overwritten)."""

    text: Text
    reason: Note | None = None
    occurred_at: Time | None = None
    source_id: Ident | None = None


SCOPE_DOC = (
    "collective (default): the whole bank, less other agents' private memories; personal: "
    "what this agent stated."
)
SESSION_DOC = (
    "Only the memories said in this session (the retain's session): a bank shared by many "
    "conversations, asked about one of them."
)
Detail = Literal["compact", "full"]
DETAIL_DOC = (
    "compact (default): per hit id, text, relevance, occurred, source_ids and only the flags "
    "that are set (superseded_by, conflicts, flashback); full: every field of hit and unit."
)


class RecallIn(Body):
    """A recall query and its filters."""

    query: Query
    scope: Scope = Field(default="collective", description=SCOPE_DOC)
    detail: Detail = Field(default="compact", description=DETAIL_DOC)
    k: int = Field(default=10, ge=1, le=200, description="How many results.")
    time_from: Time | None = Field(default=None, description="Only what happened from then.")
    time_to: Time | None = Field(default=None, description="Only what happened until then.")
    as_of: Time | None = Field(default=None, description="What was believed at that time.")
    types: list[MemoryType] | None = Field(default=None, max_length=20)
    include_superseded: bool = Field(default=True, description="Also superseded memories.")
    min_relevance: float | None = Field(
        default=None,
        ge=0,
        le=1,
        description="Only hits at least this likely to be an answer (relevance, 0 to 1); "
        "fewer than k may come back.",
    )
    session: Ident | None = Field(default=None, description=SESSION_DOC)
    as_agent: Ident | None = Field(
        default=None,
        description="Reviewers and admins only: recall as this agent (default: the token's).",
    )


class ContextIn(Body):
    """A ready context block for a query, within a token budget."""

    query: Query
    max_tokens: int = Field(
        default=800,
        ge=16,
        le=100_000,
        description="The block's budget in tokens, counted as characters / 4.",
    )
    scope: Scope = Field(default="collective", description=SCOPE_DOC)
    k: int = Field(default=20, ge=1, le=200, description="How many hits to choose from.")
    as_of: Time | None = Field(default=None, description="What was believed at that time.")
    time_from: Time | None = Field(default=None, description="Only what happened from then.")
    time_to: Time | None = Field(default=None, description="Only what happened until then.")
    types: list[MemoryType] | None = Field(default=None, max_length=20)
    session: Ident | None = Field(default=None, description=SESSION_DOC)


class ContextQuery(ContextIn):
    """The context block's query as query parameters (lax, as ``RecallQuery``)."""

    model_config = ConfigDict(extra="forbid", strict=False)


class RecallQuery(RecallIn):
    """The same query and filters as query parameters: strings on the wire, read as their
    types (``?k=5``), so not strict."""

    model_config = ConfigDict(extra="forbid", strict=False)


class ChainIn(Body):
    """A reasoning chain from the best match of a query."""

    query: Query
    scope: Scope = "collective"
    direction: Literal["causal", "forward", "both"] = "both"
    depth: int = Field(default=3, ge=1, le=6)


class ConnectIn(Body):
    """Link two memories (ids, or queries whose best match is taken) with a typed edge."""

    a: Query
    b: Query
    type: str = Field(default="RELATES_TO", pattern=r"^[A-Za-z_]{1,40}$")
    weight: float = Field(default=1.0, gt=0, le=1)
    note: Note = ""


#: The belief a decision rests on (``because``), as the review decisions take it.
BECAUSE = (
    "The belief (a memory id of this bank) the decision rests on: if it changes, "
    "reconsolidation re-examines the decision. Only for a memory, not a claim; 404 when no "
    "such memory is in the bank (nothing is written)."
)


class DecideIn(Body):
    decision: Literal["approve", "reject", "supersede", "restore"]
    note: Note = ""
    because: Ident | None = Field(default=None, description=BECAUSE)


class ResolveIn(Body):
    resolution: Literal["supersede", "reject", "not_conflict", "scoped_exception"] = Field(
        description="supersede: the winner replaces the other; reject: the other is wrong; "
        "not_conflict: both hold; scoped_exception: both hold, each in its scope."
    )
    note: Note = ""
    winner: Ident | None = Field(
        default=None, description="For supersede and reject: the memory that stands."
    )
    scope_a: Short | None = Field(default=None, description="For scoped_exception.")
    scope_b: Short | None = Field(default=None, description="For scoped_exception.")


class RejectIn(Body):
    reason: Note = Field(
        default="", description="Why the value is wrong (required; kept on its tombstone)."
    )
    because: Ident | None = Field(default=None, description=BECAUSE)


class BulkIn(Body):
    """Approve or reject many worklist cards at once (claims and sweep proposals)."""

    ids: list[Ident] = Field(min_length=1, max_length=200, description="The cards' ids (1 to 200).")
    decision: Literal["approve", "reject"] = Field(
        description="approve (a proposal: accept) or reject (a proposal: dismiss)."
    )
    reason: Note = Field(
        default="", description="Why: required for reject, kept with each decision."
    )


class RestoreIn(Body):
    note: Note = ""


class ReflectIn(Body):
    """Overrides of the bank's reflect disposition, for this pass only (ADR 0051)."""

    skepticism: int | None = Field(
        default=None, ge=1, le=64, description="The fewest evidence units an observation rests on."
    )
    literalism: bool | None = Field(
        default=None, description="Statements verbatim (true) or compressed to their claims."
    )
    max_cited: int | None = Field(
        default=None, ge=1, le=64, description="The most evidence units one observation cites."
    )


class InsightsRunIn(Body):
    """One insight pass (ADR 0056)."""

    resume: bool = Field(
        default=False, description="Lift a pause the flood guard set on the bank, and run."
    )


class InsightsVerifyIn(Body):
    """A verification pass over the bank's insights, or one of them (ADR 0056)."""

    insight: Ident | None = Field(default=None, description="Only this insight (its id).")


class ContradictionIn(Body):
    """Answer a write's needs_clarification question."""

    from_id: Ident = Field(description="The new memory (the one the question was about).")
    to_id: Ident = Field(description="The existing memory it disputed.")
    decision: Literal["confirm", "retract", "preference"] = Field(
        description="confirm: the new one replaces the old; retract: the new one is wrong; "
        "preference: both hold."
    )
    note: Note = ""


class AdoptRuleIn(Body):
    kind: Annotated[str, StringConstraints(min_length=1, max_length=40, pattern=r"^[a-z_]+$")]
    attribute: Annotated[str, StringConstraints(max_length=200), AfterValidator(_clean)] = ""
    decision: Literal["confirm", "retract", "preference"]


class HeartbeatIn(Body):
    status: Literal["active", "idle", "busy", "departed"] = "active"


class EnrollIn(Body):
    host: Host | None = Field(
        default=None, description="Where the agent runs (default: the server's host)."
    )
