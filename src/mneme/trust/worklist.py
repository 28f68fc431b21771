"""The review worklist (ADR 0048): only what waits for a person's decision, as cards.

The store finds the rows (``Trust.review_worklist``: kind, order, page and every filter in
its query); this module turns each into a card a person can judge: the statement as said,
its author, sources and both times, the other side, and the decisions that apply to its
state, asked of the same rules ``decide`` and ``resolve`` enforce. ``bulk`` decides many
claims or proposals at once, each in its own transaction, and answers one result per id.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any, Protocol

from mneme import validate
from mneme.core.model import (
    ConflictRecord,
    Scope,
    SweepProposal,
    Unit,
    UnitStatus,
    Viewer,
)
from mneme.core.policy import may_retire
from mneme.core.worklist import (
    BULK_DECISIONS,
    KINDS,
    SORTS,
    BulkResult,
    Statement,
    WorkItem,
    Worklist,
)
from mneme.errors import InvalidInput, MnemeError, NotFound
from mneme.store.protocol import Banks, Memories, Sweeps, Trust, WorkFilter, WorkRow
from mneme.trust.review import Review, Target, _note, required_reason

MAX_TEXT = 200
MAX_LIMIT = 200
MAX_OFFSET = 100_000
MAX_BULK = 200
#: The decisions of a claim card (``restore`` undoes a past decision: not a queue's).
CLAIM_ACTIONS = ("approve", "reject", "supersede")
CONFLICT_ACTIONS = ("supersede", "reject", "not_conflict", "scoped_exception")
PROPOSAL_ACTIONS = ("accept", "dismiss")


class WorklistStore(Protocol):
    """The roles of the store this module uses (ADR 0044)."""

    banks: Banks
    memories: Memories
    trust: Trust
    sweeps: Sweeps


#: Accept (True) or dismiss (False) a sweep proposal, as ``actor``: the reconsolidator's.
DecideProposal = Callable[..., SweepProposal]


class Work:
    """``mem.review.worklist`` and ``mem.review.bulk``."""

    def __init__(
        self, store: WorklistStore, review: Review, decide_proposal: DecideProposal
    ) -> None:
        self.store = store
        self.review = review
        self.decide_proposal = decide_proposal

    def worklist(
        self,
        *,
        bank: str,
        kinds: Sequence[str] | str | None = None,
        author: str | None = None,
        text: str | None = None,
        sort: str = "newest",
        limit: int = 50,
        offset: int = 0,
    ) -> Worklist:
        """What waits for a decision in a bank, newest (or most contested) first.

        Only open conflicts (``question``), pending claims with a live rival in their slot
        (``contested``), rejected values said again (``reasserted``) and sweep verdicts below
        the auto-apply bar (``proposal``); never what is superseded or settled. ``kinds``
        keeps some of them, ``author`` what one agent said, ``text`` what contains the text
        (case-insensitive). ``counts`` are per kind under the author and text filters.

        Raises:
            InvalidInput: an unknown kind or sort, a bad id, a text too long, a bad page.
            NotFound: no such bank.
        """
        bank = validate.ident(bank, "bank")
        wanted = WorkFilter(
            kinds=_kinds(kinds),
            author=validate.optional_ident(author, "author"),
            text=_text(text),
            sort=_choice(sort, SORTS, "sort"),
            limit=validate.positive_int(limit, "limit", high=MAX_LIMIT),
            offset=_offset(offset),
        )
        if self.store.banks.get_bank(bank) is None:
            raise NotFound(f"no bank {bank!r}")
        rows = self.store.trust.review_worklist(bank, wanted)
        counts = self.store.trust.review_counts(
            bank, WorkFilter(author=wanted.author, text=wanted.text)
        )
        cards = _Cards(self.store, self.review, bank)
        items = tuple(card for row in rows if (card := cards.card(row)) is not None)
        return Worklist(
            bank=bank,
            items=items,
            counts=counts,
            total=sum(counts[k] for k in wanted.kinds),
            sort=wanted.sort,
            limit=wanted.limit,
            offset=wanted.offset,
        )

    def bulk(
        self,
        ids: Sequence[str],
        decision: str,
        *,
        actor: str,
        reason: str = "",
        bank: str | None = None,
    ) -> list[BulkResult]:
        """Approve or reject many claims (or accept or dismiss sweep proposals) at once.

        Each id is decided in its own transaction and answers its own result: a stale id
        (decided meanwhile, or one whose card has no such action) fails alone and leaves
        the others done. A rejection needs its ``reason`` (kept with each decision). With
        ``bank``, an id of another bank is not found.

        Raises:
            InvalidInput: an unknown decision, no ids, too many, a bad id, a rejection
                without a reason (nothing is decided then).
        """
        decision = _choice(decision, BULK_DECISIONS, "decision")
        actor = validate.ident(actor, "actor")
        bank = validate.optional_ident(bank, "bank")
        if isinstance(ids, str) or not isinstance(ids, Sequence):
            raise InvalidInput(f"ids must be a list of ids, not {type(ids).__name__}")
        if not 1 <= len(ids) <= MAX_BULK:
            raise InvalidInput(f"a bulk decision takes 1 to {MAX_BULK} ids, not {len(ids)}")
        unique = list(dict.fromkeys(validate.ident(i, "id") for i in ids))
        if decision == "reject":
            reason = required_reason(reason, "a rejection")
        reason = _note(reason)
        results = []
        for target_id in unique:
            try:
                if bank is not None and self.store.memories.locate(target_id) != bank:
                    raise NotFound(f"no card {target_id!r} in bank {bank!r}")
                self._one(target_id, decision, actor, reason)
            except MnemeError as exc:
                results.append(BulkResult(target_id, False, exc.code, str(exc)))
            else:
                results.append(BulkResult(target_id, True))
        return results

    def _one(self, target_id: str, decision: str, actor: str, reason: str) -> None:
        if target_id.startswith("prop_"):  # a sweep proposal's id (``new_id("prop_")``)
            self.decide_proposal(target_id, decision == "approve", actor=actor)
            return
        target = self.review.target(target_id)
        if target.claim is None:
            raise InvalidInput(
                f"{target_id} is a memory, not a card of the worklist: decide it on its own"
            )
        self.review.decide(target_id, decision, actor, note=reason)


class _Cards:
    """Cards for one page of rows, reading each memory and source once."""

    def __init__(self, store: WorklistStore, review: Review, bank: str) -> None:
        self.store = store
        self.review = review
        self.bank = bank
        self.owner = Viewer(bank, "owner", Scope.OWNER)
        self._proposals: dict[str, SweepProposal] | None = None

    def card(self, row: WorkRow) -> WorkItem | None:
        build = {
            "question": self._question,
            "contested": self._claim,
            "reasserted": self._claim,
            "proposal": self._proposal,
        }[row.kind]
        return build(row)

    # -- statements ------------------------------------------------------------------------

    def units(self, ids: Sequence[str]) -> dict[str, Unit]:
        return self.store.memories.get_units(self.owner, list(ids)) if ids else {}

    def statement(self, unit: Unit | None) -> Statement | None:
        if unit is None:
            return None
        occurred = unit.occurred_start
        if occurred is None and unit.evidence:
            # As the owner, the writer's own source of that id first (ADR 0107).
            writer = replace(self.owner, agent_id=unit.agent_id)
            source = self.store.memories.get_source(writer, unit.evidence[0])
            occurred = source.occurred_at if source is not None else None
        return Statement(
            unit_id=unit.id,
            text=unit.text,
            author=unit.agent_id,
            source_ids=unit.evidence,
            occurred_at=occurred,
            recorded_at=unit.recorded_at,
            status=unit.status.value,
        )

    def stating(self, claim_id: str, *, newest: bool = False) -> Unit | None:
        """The memory that said a claim first (or last: a value said again)."""
        units = self.units(self.store.trust.claim_unit_ids(self.bank, claim_id))
        if not units:
            return None
        pick = max if newest else min
        return pick(units.values(), key=lambda u: (u.recorded_at, u.id))

    # -- the four kinds --------------------------------------------------------------------

    def _question(self, row: WorkRow) -> WorkItem | None:
        conflict = self.store.trust.get_conflict(self.bank, row.id)
        if conflict is None:
            return None
        units = self.units([conflict.a_unit, conflict.b_unit])
        a, b = units.get(conflict.a_unit), units.get(conflict.b_unit)
        return WorkItem(
            kind=row.kind,
            id=row.id,
            at=row.at,
            contest=row.contest,
            actions=_conflict_actions(conflict, a, b),
            said=self.statement(b),
            other=self.statement(a),
            question=conflict.question,
            conflict=conflict,
        )

    def _claim(self, row: WorkRow) -> WorkItem | None:
        claim = self.store.trust.get_claim(self.bank, row.id)
        if claim is None:
            return None
        target = Target("claim", self.bank, claim=claim)
        actions = tuple(a for a in self.review.actions(target) if a in CLAIM_ACTIONS)
        reasserted = row.kind == "reasserted"
        said = self.stating(claim.id, newest=reasserted)
        other: Unit | None = None
        rejection = None
        if reasserted:
            first = self.stating(claim.id)
            other = (
                first if first is not None and said is not None and first.id != said.id else None
            )
            stones = self.store.trust.find_tombstones(self.bank, claim_key=claim.claim_key)
            rejection = stones[-1] if stones else None
            question = (
                f"This value was rejected{f' ({rejection.reason})' if rejection else ''} and "
                "has been said again. Keep it rejected, or approve it?"
            )
        else:
            rival = self.review.successor(target)
            other = self.stating(rival) if rival is not None else None
            question = "Another value is held for the same thing. Which one stands?"
        return WorkItem(
            kind=row.kind,
            id=row.id,
            at=row.at,
            contest=row.contest,
            actions=actions,
            said=self.statement(said),
            other=self.statement(other),
            question=question,
            claim=claim,
            rejection=rejection,
        )

    def _proposal(self, row: WorkRow) -> WorkItem | None:
        if self._proposals is None:
            self._proposals = {
                p.id: p for p in self.store.sweeps.list_proposals(self.bank, "open", 10_000)
            }
        proposal = self._proposals.get(row.id)
        if proposal is None:
            return None
        units = self.units([proposal.unit_id, proposal.belief_id])
        return WorkItem(
            kind=row.kind,
            id=row.id,
            at=row.at,
            contest=row.contest,
            actions=PROPOSAL_ACTIONS,
            said=self.statement(units.get(proposal.unit_id)),
            other=self.statement(units.get(proposal.belief_id)),
            question=(
                f"A sweep suggests '{proposal.verdict}' (confidence {proposal.confidence:.2f}, "
                f"below the bar): {proposal.reason}"
            ),
            proposal=proposal,
        )


def _conflict_actions(conflict: ConflictRecord, a: Unit | None, b: Unit | None) -> tuple[str, ...]:
    """An open conflict's resolutions; supersede only where one side may retire the other."""
    if a is None or b is None:
        return tuple(r for r in CONFLICT_ACTIONS if r != "supersede")
    retirable = may_retire(b, a) or may_retire(a, b)
    live = {UnitStatus.ACTIVE, UnitStatus.CONFLICTED}
    return tuple(
        r
        for r in CONFLICT_ACTIONS
        if r != "supersede" or (retirable and a.status in live and b.status in live)
    )


def _kinds(value: Sequence[str] | str | None) -> tuple[str, ...]:
    if value is None:
        return KINDS
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, Sequence):
        raise InvalidInput(f"kinds must be a list of kinds, not {type(value).__name__}")
    for kind in value:
        _choice(kind, KINDS, "kind")
    if not value:
        raise InvalidInput(f"kinds is empty; give one or more of {', '.join(KINDS)}")
    return tuple(k for k in KINDS if k in value)


def _choice(value: Any, allowed: Sequence[str], what: str) -> str:
    if not isinstance(value, str) or value not in allowed:
        raise InvalidInput(f"unknown {what} {value!r}; use one of {', '.join(allowed)}")
    return value


def _text(value: Any) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise InvalidInput(f"text must be a string, not {type(value).__name__}")
    if len(value) > MAX_TEXT:
        raise InvalidInput(f"text is {len(value)} characters, over the limit of {MAX_TEXT}")
    if "\x00" in value:
        raise InvalidInput("text contains a NUL byte")
    return value.strip() or None


def _offset(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_OFFSET:
        raise InvalidInput(f"offset must be a whole number from 0 to {MAX_OFFSET}, not {value!r}")
    return value
