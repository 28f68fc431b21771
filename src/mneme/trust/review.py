"""Review: a person's decisions on claims and units, recorded as append-only events.

Every decision writes its review event *before* the state changes, so the store's guard (a
rejected unit or claim becomes live only when its newest event says so) lets exactly the
reviewed transition through. Rejecting a value writes a tombstone and carries the rejection to
the other units and claims of the same value; restoring undoes the decision and everything it
carried.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any, Protocol

from mneme import validate
from mneme.core import review_rules as rules
from mneme.core.model import (
    ClaimRecord,
    ClaimStatus,
    Edge,
    EdgeType,
    ReviewEvent,
    ReviewItem,
    ReviewStatus,
    Scope,
    Tombstone,
    Unit,
    UnitStatus,
    Viewer,
)
from mneme.errors import Conflict, InvalidInput, NotFound
from mneme.ids import new_id
from mneme.store.protocol import ClaimChanges, Graph, Memories, Transactions, Trust, UnitChanges


class ReviewStore(Transactions, Protocol):
    """The roles of the store this module uses (ADR 0044)."""

    memories: Memories
    graph: Graph
    trust: Trust


MAX_NOTE = 4_000
#: How many claims one queue call reads at most while it skips claims the viewer may not see.
MAX_SCAN = 5_000


@dataclass(frozen=True, slots=True)
class Target:
    kind: str  # claim | unit
    bank_id: str
    claim: ClaimRecord | None = None
    unit: Unit | None = None

    @property
    def id(self) -> str:
        return self.claim.id if self.claim else self.unit.id  # type: ignore[union-attr]

    @property
    def state(self) -> rules.State:
        if self.claim is not None:
            return rules.State(self.claim.status.value, self.claim.review_status.value)
        assert self.unit is not None
        return rules.State(self.unit.status.value, None)


class Review:
    """The review queue and decisions (``mem.review``)."""

    def __init__(self, store: ReviewStore, clock: Callable[[], dt.datetime]) -> None:
        self.store = store
        self.clock = clock
        #: Called (inside the transaction) with each unit whose status a decision changed;
        #: reconsolidation listens here for beliefs that changed.
        self.on_change: list[Callable[[Unit, str], None]] = []

    def changed(self, bank_id: str, unit_ids: list[str], why: str) -> None:
        if not self.on_change or not unit_ids:
            return
        units = self.store.memories.get_units(Viewer(bank_id, "owner", Scope.OWNER), unit_ids)
        for unit in units.values():
            for listener in self.on_change:
                listener(unit, why)

    # -- the queue ----------------------------------------------------------------------

    def queue(
        self,
        *,
        bank: str,
        status: str = "pending_review",
        limit: int = 50,
        agent: str | None = None,
        scope: str = "collective",
    ) -> list[ReviewItem]:
        """Claims by review status, newest first, each with the statement that said it.

        Without ``agent`` the caller is the bank's owner (a reviewer): every claim. With it,
        only what that agent may see in ``scope``: a claim that no memory visible to it states
        is left out, so another agent's private memory lends neither its text nor its claim.
        """
        validate.ident(bank, "bank")
        try:
            wanted = [ReviewStatus(status)]
        except ValueError as exc:
            raise InvalidInput(
                f"unknown review status {status!r}; use one of "
                f"{', '.join(s.value for s in ReviewStatus)}"
            ) from exc
        limit = validate.positive_int(limit, "limit", high=1000)
        viewer = (
            Viewer(bank, "owner", Scope.OWNER)
            if agent is None
            else Viewer(bank, validate.ident(agent, "agent"), validate.scope(scope))
        )
        fetch = limit
        while True:  # the index serves the page; a scoped viewer may need a longer one
            claims = self.store.trust.review_queue(bank, wanted, fetch)
            items = self._items(viewer, claims)
            if len(items) >= limit or len(claims) < fetch or fetch >= MAX_SCAN:
                return items[:limit]
            fetch = min(MAX_SCAN, fetch * 4)

    def _items(self, viewer: Viewer, claims: list[ClaimRecord]) -> list[ReviewItem]:
        """Each claim with the first unit of its evidence the viewer may see (scoped reads)."""
        refs = dict.fromkeys(r for c in claims for r in c.evidence_refs if r.startswith("u_"))
        units = self.store.memories.get_units(viewer, list(refs)) if refs else {}
        items = []
        for claim in claims:
            # evidence_refs are kept in the order the evidence came: the first unit said it.
            unit = next((units[r] for r in claim.evidence_refs if r in units), None)
            if unit is None:
                if viewer.scope == Scope.OWNER:
                    items.append(ReviewItem(claim))
                continue
            if viewer.scope != Scope.OWNER:
                # The claim's own refs name every unit and source behind it: keep those the
                # viewer may see (visible units and their evidence), not another's private ones.
                seen = {r for r in claim.evidence_refs if r in units}
                seen |= {s for r in seen for s in units[r].evidence}
                claim = replace(
                    claim, evidence_refs=tuple(r for r in claim.evidence_refs if r in seen)
                )
            source_id = unit.evidence[0] if unit.evidence else None
            said = unit.occurred_start
            if said is None and source_id is not None:
                source = self.store.memories.get_source(viewer, source_id)
                if source is not None:
                    said = source.occurred_at or source.mentioned_at
            items.append(
                ReviewItem(
                    claim,
                    statement=unit.text,
                    unit_id=unit.id,
                    source_id=source_id,
                    author=unit.agent_id,
                    said_at=said or unit.mentioned_at,
                )
            )
        return items

    # -- decisions ----------------------------------------------------------------------

    def decide(
        self,
        target_id: str,
        decision: str,
        actor: str,
        note: str = "",
        *,
        reason: str | None = None,
        because: str | None = None,
    ) -> ReviewEvent:
        """Approve, reject, supersede or restore a claim or a unit.

        ``because`` names the belief behind a rejection: the unit is then CONTESTED_BECAUSE
        that belief, and if the belief is later retracted, reconsolidation re-examines it.

        A rejection needs its reason (``note``, or ``reason``); ``supersede`` needs something
        that supersedes it (a live claim of another value in the claim's slot), which becomes
        its successor.

        Raises:
            NotFound: no claim or unit has this id.
            InvalidInput: an unknown decision, or a rejection without a reason.
            Conflict: the decision does not apply to its current state (nothing is written).
        """
        if decision not in rules.DECISIONS:
            raise InvalidInput(
                f"unknown decision {decision!r}; use one of {', '.join(rules.DECISIONS)}"
            )
        target = self.target(target_id)
        actor = validate.ident(actor, "actor")
        note = _note(note if note else (reason or ""))
        belief = self._belief(target, because) if because is not None else None
        if decision == "reject":
            note = required_reason(note, "a rejection")
        with self.store.transaction():
            event = self._apply(
                target,
                decision,
                actor,
                note,
                cause=None,
                metadata={"because": because} if because else None,
            )
            if belief is not None:
                self.store.graph.put_edge(
                    Edge(
                        id=new_id("e_"),
                        bank_id=target.bank_id,
                        src=target.id,
                        dst=belief.id,
                        type=EdgeType.CONTESTED_BECAUSE,
                        made_by=f"person:{actor}",
                        created_at=event.at,
                    )
                )
            return event

    def reject(
        self, target_id: str, reason: str, actor: str, because: str | None = None
    ) -> Tombstone:
        """Reject a claim or unit (``decide(..., "reject")``) and answer its tombstone: its
        value never comes back by itself.

        ``because`` names the belief (a memory of the same bank) the rejection rests on, as
        ``decide`` takes it: the unit is then CONTESTED_BECAUSE that belief, and
        reconsolidation re-examines the rejection when the belief changes.

        Raises:
            NotFound: no claim or unit has this id, or ``because`` names no memory of its bank.
            Conflict: it is already rejected (nothing is written).
        """
        event = self.decide(target_id, "reject", actor, note=reason, because=because)
        claim = self.store.trust.get_claim(event.bank_id, target_id)
        stones = self.store.trust.find_tombstones(
            event.bank_id,
            unit_id=None if claim else target_id,
            claim_key=claim.claim_key if claim else None,
        )
        return stones[-1]

    def restore(self, target_id: str, actor: str, note: str = "") -> ReviewEvent:
        """Undo the latest decision in force on a claim or unit.

        Raises:
            Conflict: there is nothing to restore.
        """
        return self.decide(target_id, "restore", actor, note=note)

    def _belief(self, target: Target, because: str) -> Unit:
        validate.ident(because, "because")
        if target.unit is None:
            raise InvalidInput("a belief can be named behind a decision on a memory, not a claim")
        belief = self.store.memories.get_units(
            Viewer(target.bank_id, "owner", Scope.OWNER), [because]
        ).get(because)
        if belief is None:
            raise NotFound(f"no belief {because!r} in bank {target.bank_id}")
        if belief.id == target.id:
            raise InvalidInput("a memory cannot be held back because of itself")
        # Any memory a decision rests on is a belief by its role ("Kestrel Print failed the
        # audit" is a fact by grammar and the reason for a rejection): reconsolidation
        # re-examines the decision when that memory changes.
        return belief

    def actions(self, target: Target) -> tuple[str, ...]:
        """The decisions that apply to the target's state now (what ``decide`` accepts)."""
        steps = self._steps(target)
        found = []
        for decision in rules.DECISIONS:
            try:
                rules.decide(decision, target.state, steps)
            except rules.NotApplicable:
                continue
            if decision == "supersede" and self.successor(target) is None:
                continue
            found.append(decision)
        return tuple(found)

    def successor(self, target: Target) -> str | None:
        """What would supersede the target: the newest live claim of another value in its
        slot (for a memory: in the slot of one of its claims). None: nothing does."""
        bank = target.bank_id
        claims = self._claims_of(target)
        rivals = [
            r
            for c in claims
            for r in self.store.trust.find_claims(bank, slot_key=c.slot_key)
            if r.claim_key != c.claim_key and r.status == ClaimStatus.ACTIVE
        ]
        if not rivals:
            return None
        newest = max(rivals, key=lambda r: (r.last_evidence_at, r.id))
        if target.claim is not None:
            return newest.id
        owner = Viewer(bank, "owner", Scope.OWNER)
        units = self.store.memories.get_units(
            owner, self.store.trust.claim_unit_ids(bank, newest.id)
        )
        live = [u for u in units.values() if u.status in (UnitStatus.ACTIVE, UnitStatus.CONFLICTED)]
        return max(live, key=lambda u: (u.recorded_at, u.id)).id if live else None

    def target(self, target_id: str) -> Target:
        validate.ident(target_id, "id")
        bank = self.store.memories.locate(target_id)
        if bank is None:
            raise NotFound(f"no claim or memory {target_id!r}")
        claim = self.store.trust.get_claim(bank, target_id)
        if claim is not None:
            return Target("claim", bank, claim=claim)
        unit = self.store.memories.get_units(Viewer(bank, "owner", Scope.OWNER), [target_id]).get(
            target_id
        )
        if unit is None:
            raise NotFound(f"{target_id!r} is not a claim or a memory unit")
        return Target("unit", bank, unit=unit)

    def _steps(self, target: Target) -> list[rules.Step]:
        return [
            rules.Step(
                e.decision,
                rules.State(e.prior_status or "", e.prior_review_status),
                rules.State(e.new_status or "", e.new_review_status),
            )
            for e in self.store.trust.review_events(target.bank_id, target.id)
        ]

    def _apply(
        self,
        target: Target,
        decision: str,
        actor: str,
        note: str,
        cause: str | None,
        metadata: Mapping[str, Any] | None = None,
    ) -> ReviewEvent:
        events = self.store.trust.review_events(target.bank_id, target.id)
        try:
            new = rules.decide(decision, target.state, self._steps(target))
        except rules.NotApplicable as exc:
            raise Conflict(f"cannot {decision} {target.kind} {target.id}: {exc}") from exc
        successor = self.successor(target) if decision == "supersede" else None
        if decision == "supersede" and successor is None:
            # Refused, not recorded: a supersession names what replaces the value.
            raise Conflict(
                f"cannot supersede {target.kind} {target.id}: nothing supersedes it (no live "
                "claim of another value in its slot); reject it, or retain the correction "
                "with supersedes=[...]"
            )
        now = self.clock()
        event = ReviewEvent(
            id=new_id("rev_"),
            bank_id=target.bank_id,
            target_kind=target.kind,
            target_id=target.id,
            decision=decision,
            actor=actor,
            at=now,
            note=note,
            prior_status=target.state.status,
            prior_review_status=target.state.review_status,
            new_status=new.status,
            new_review_status=new.review_status,
            metadata={**(metadata or {}), **({"cause": cause} if cause else {})},
        )
        self.store.trust.put_review_event(event)
        self._set_state(target, new, actor, note, now, successor)
        if decision == "reject" and target.state.status != "rejected":
            # (a rejected value said again and rejected again keeps its tombstone: no new one)
            self._carry_rejection(target, event, actor, note)
        elif decision == "approve" and target.state.status == "rejected":
            self._lift_tombstones(target, actor)  # accepted after all: the value may return
            self._readmit_held_back(target, actor, note, event.id)
        elif (
            decision == "approve"
            and target.unit is not None
            and target.state.status == (UnitStatus.SUPERSEDED.value)
        ):
            self._lift_supersession(target.unit, actor, note)
        elif decision == "restore":
            undone = rules.in_force(self._steps_of(events))[-1]
            if undone.prior.status != "rejected":
                self._carry_restore(target, events, undone, actor, note)
            if undone.decision == "supersede" and target.unit is not None:
                # A reverted supersession: the unit holds again, with no end and no successor.
                self.store.memories.update_unit(
                    target.bank_id,
                    target.id,
                    UnitChanges(clear=frozenset({"valid_until", "retired_at", "superseded_by"})),
                    actor=actor,
                    reason=note or "supersession reverted",
                )
        return event

    def _lift_supersession(self, unit: Unit, actor: str, note: str) -> None:
        """A superseded memory approved again holds again: no end, no successor, and its
        claims are live again (the successor keeps its own state; a caller retires it)."""
        self.store.memories.update_unit(
            unit.bank_id,
            unit.id,
            UnitChanges(clear=frozenset({"valid_until", "retired_at", "superseded_by"})),
            actor=actor,
            reason=note or "supersession lifted",
        )
        for claim in self.store.trust.find_claims(unit.bank_id, unit_id=unit.id):
            if claim.status == ClaimStatus.SUPERSEDED:
                self.store.trust.update_claim(
                    unit.bank_id,
                    claim.id,
                    ClaimChanges(status=ClaimStatus.ACTIVE),
                    actor=actor,
                    reason=note or "supersession lifted",
                    now=self.clock(),
                )

    @staticmethod
    def _steps_of(events: list[ReviewEvent]) -> list[rules.Step]:
        return [
            rules.Step(
                e.decision,
                rules.State(e.prior_status or "", e.prior_review_status),
                rules.State(e.new_status or "", e.new_review_status),
            )
            for e in events
        ]

    def _set_state(
        self,
        target: Target,
        new: rules.State,
        actor: str,
        note: str,
        now: dt.datetime,
        successor: str | None = None,
    ) -> None:
        if target.claim is not None:
            self.store.trust.update_claim(
                target.bank_id,
                target.id,
                ClaimChanges(
                    status=ClaimStatus(new.status),
                    review_status=ReviewStatus(new.review_status or "pending_review"),
                    reviewed_at=now,
                    reviewed_by=actor,
                    review_note=note,
                    superseded_by=successor,
                ),
                actor=actor,
                reason=note or "review decision",
                now=now,
            )
        else:
            self.store.memories.update_unit(
                target.bank_id,
                target.id,
                UnitChanges(
                    status=UnitStatus(new.status),
                    retired_at=now if new.status != "active" else None,
                    superseded_by=successor,
                ),
                actor=actor,
                reason=note or "review decision",
            )
        units = (
            [target.id]
            if target.claim is None
            else self.store.trust.claim_unit_ids(target.bank_id, target.id)
        )
        self.changed(target.bank_id, units, f"review: {new.status}")

    # -- what a rejection carries, and what a restore takes back ------------------------

    def _carry_rejection(self, target: Target, event: ReviewEvent, actor: str, note: str) -> None:
        """A rejected value stays rejected: tombstone it and reject its other carriers."""
        bank = target.bank_id
        claims = self._claims_of(target)
        unit_ids = [target.id] if target.unit is not None else []
        for claim in claims:
            unit_ids += self.store.trust.claim_unit_ids(bank, claim.id)
        units = self.store.memories.get_units(Viewer(bank, "owner", Scope.OWNER), unit_ids)
        text = (
            target.unit.text
            if target.unit is not None
            else (target.claim.text if target.claim else "")
        )
        self.store.trust.put_tombstone(
            Tombstone(
                id=new_id("tomb_"),
                bank_id=bank,
                text=text,
                reason=note or "rejected in review",
                actor=actor,
                at=event.at,
                content_key=target.unit.content_key if target.unit is not None else None,
                claim_key=claims[0].claim_key if claims else None,
                unit_id=target.id if target.unit is not None else None,
            )
        )
        for claim in claims:
            if claim.id != target.id and claim.status != ClaimStatus.REJECTED:
                self._apply(
                    Target("claim", bank, claim=self.store.trust.get_claim(bank, claim.id)),
                    "reject",
                    actor,
                    note,
                    cause=event.id,
                )
        for unit in units.values():
            if unit.id != target.id and unit.status != UnitStatus.REJECTED:
                self._apply(Target("unit", bank, unit=unit), "reject", actor, note, cause=event.id)

    def _carry_restore(
        self, target: Target, events: list[ReviewEvent], undone: rules.Step, actor: str, note: str
    ) -> None:
        if undone.decision != "reject":
            return
        bank = target.bank_id
        root = next(e for e in reversed(events) if e.decision == "reject")
        self._lift_tombstones(target, actor)
        self._readmit_held_back(target, actor, note, root.id)
        for other in self._caused_by(bank, root.id):
            current = self.target(other)
            if current.state.status == "rejected":
                self._apply(current, "restore", actor, note, cause=root.id)

    def _claims_of(self, target: Target) -> list[ClaimRecord]:
        """The target's claims: the claim itself, or the claims its memory states."""
        if target.claim is not None:
            return [target.claim]
        return list(self.store.trust.find_claims(target.bank_id, unit_id=target.id))

    def _readmit_held_back(self, target: Target, actor: str, note: str, cause: str) -> None:
        """The value's statements the write path held back against its tombstone (said again
        after the rejection, in any words: rejected when written, never by a decision of
        their own) return with it, approved by the same decision: the tombstone that held
        them is lifted. One a person rejected stays rejected."""
        bank = target.bank_id
        claims = self._claims_of(target)
        ids = {u for c in claims for u in self.store.trust.claim_unit_ids(bank, c.id)}
        ids.discard(target.id)
        units = self.store.memories.get_units(Viewer(bank, "owner", Scope.OWNER), sorted(ids))
        for unit in units.values():
            if unit.status != UnitStatus.REJECTED or self.store.trust.review_events(bank, unit.id):
                continue
            why = note or "the tombstone that held it back was lifted"
            self._apply(Target("unit", bank, unit=unit), "approve", actor, why, cause=cause)

    def _lift_tombstones(self, target: Target, actor: str) -> None:
        for tomb in self.store.trust.find_tombstones(
            target.bank_id,
            unit_id=target.id if target.unit is not None else None,
            claim_key=target.claim.claim_key if target.claim is not None else None,
        ):
            self.store.trust.update_tombstone(
                target.bank_id, tomb.id, lifted_at=self.clock(), lifted_by=actor
            )

    def _caused_by(self, bank: str, event_id: str) -> list[str]:
        """Targets whose rejection was carried by the given decision."""
        return list(
            dict.fromkeys(
                e.target_id
                for e in self.store.trust.review_events_caused_by(bank, event_id)
                if e.decision == "reject"
            )
        )


def required_reason(reason: Any, what: str) -> str:
    """A reason that must be given (a rejection, a purge): a string with visible text.

    Raises:
        InvalidInput: none given, or not a string.
    """
    if not isinstance(reason, str) or not reason.strip():
        raise InvalidInput(f"{what} needs a reason: say why (it is kept with the decision)")
    return reason


def _note(note: Any) -> str:
    if not isinstance(note, str):
        raise InvalidInput(f"note must be a string, not {type(note).__name__}")
    if len(note) > MAX_NOTE:
        raise InvalidInput(f"note is {len(note)} characters, over the limit of {MAX_NOTE}")
    if "\x00" in note:
        raise InvalidInput("note contains a NUL byte")
    return note
