"""Conflicts: an open disagreement between two units, and how a person settles it.

Opening a conflict keeps both units (status conflicted), links them with a CONTRADICTS edge and
each other's contradiction refs. A person resolves it as ``supersede`` (the winner replaces the
other), ``reject`` (the other is wrong: rejected and tombstoned through review),
``not_conflict`` (both hold; this pair is never flagged again) or ``scoped_exception`` (both
hold, each in its stated scope, and recall honours the scope).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Sequence
from typing import Protocol

from mneme import validate
from mneme.core.model import (
    ClaimStatus,
    ConflictRecord,
    Edge,
    EdgeType,
    Resolution,
    ReviewEvent,
    Scope,
    Unit,
    UnitStatus,
    Viewer,
)
from mneme.core.policy import REFUSAL as RETIRE_REFUSAL
from mneme.core.policy import may_retire
from mneme.core.succession import ALSO_SUPERSEDED_BY, successors
from mneme.errors import Conflict, InvalidInput, NotFound
from mneme.ids import new_id
from mneme.store.protocol import (
    ClaimChanges,
    ConflictChanges,
    Graph,
    Memories,
    Transactions,
    Trust,
    UnitChanges,
)
from mneme.trust.review import Review, _note, required_reason


class ConflictsStore(Transactions, Protocol):
    """The roles of the store this module uses (ADR 0044)."""

    memories: Memories
    graph: Graph
    trust: Trust


MAX_SCOPE = 200


def pair_key(a: Unit, b: Unit) -> str:
    """Order-free identity of a pair of values (content keys), so a dismissal sticks."""
    return ":".join(sorted((a.content_key, b.content_key)))


class Conflicts:
    def __init__(
        self, store: ConflictsStore, review: Review, clock: Callable[[], dt.datetime]
    ) -> None:
        self.store = store
        self.review = review
        self.clock = clock

    def open(
        self,
        a: Unit,
        b: Unit,
        *,
        kind: str,
        question: str,
        a_claim: str | None = None,
        b_claim: str | None = None,
        made_by: str = "rule",
    ) -> ConflictRecord | None:
        """Record a disagreement between units a (older) and b (newer); inside a transaction.

        Returns None when a person already said this pair is not a conflict.
        """
        bank = a.bank_id
        key = pair_key(a, b)
        known = self.store.trust.list_conflicts(bank, status=None, pair_key=key)
        if any(c.resolution == Resolution.NOT_CONFLICT for c in known):
            return None
        for c in known:
            if c.status == "open":
                return c
        now = self.clock()
        record = ConflictRecord(
            id=new_id("cfl_"),
            bank_id=bank,
            kind=kind,
            pair_key=key,
            a_unit=a.id,
            b_unit=b.id,
            a_claim=a_claim,
            b_claim=b_claim,
            status="open",
            created_at=now,
            question=question,
        )
        self.store.trust.put_conflict(record)
        for unit, other in ((a, b), (b, a)):
            changes = UnitChanges(
                add_contradictions=(other.id,),
                status=UnitStatus.CONFLICTED if unit.status == UnitStatus.ACTIVE else None,
            )
            self.store.memories.update_unit(
                bank, unit.id, changes, actor="system", reason=f"conflict {record.id}: {kind}"
            )
        self.store.graph.put_edge(
            Edge(
                id=new_id("e_"),
                bank_id=bank,
                src=b.id,
                dst=a.id,
                type=EdgeType.CONTRADICTS,
                made_by=made_by,
                created_at=now,
                metadata={"conflict_id": record.id, "kind": kind},
            )
        )
        return record

    def list(
        self, *, bank: str, status: str | None = "open", limit: int = 100
    ) -> list[ConflictRecord]:
        """Disagreements between memories of a bank; open ones by default (``"resolved"``,
        or ``"all"`` / None for both, as on the HTTP API)."""
        validate.ident(bank, "bank")
        if status not in (None, "open", "resolved", "all"):
            raise InvalidInput(f"status must be 'open', 'resolved', 'all' or None, not {status!r}")
        status = None if status == "all" else status
        return self.store.trust.list_conflicts(
            bank, status=status, limit=validate.positive_int(limit, "limit", high=1000)
        )

    def resolve(
        self,
        conflict_id: str,
        resolution: str,
        *,
        actor: str,
        note: str = "",
        winner: str | None = None,
        scope_a: str | None = None,
        scope_b: str | None = None,
    ) -> ConflictRecord:
        """Settle an open conflict: supersede, reject, not_conflict or scoped_exception.

        Raises:
            NotFound: no such conflict.
            Conflict: it is already resolved.
            InvalidInput: an unknown resolution, a winner that is not a party, a scoped
                exception without both scopes, or a rejection without a reason (``note``).
        """
        validate.ident(conflict_id, "conflict_id")
        bank = self.store.memories.locate(conflict_id)
        record = self.store.trust.get_conflict(bank, conflict_id) if bank else None
        if record is None:
            raise NotFound(f"no conflict {conflict_id!r}")
        try:
            how = Resolution(resolution)
        except ValueError as exc:
            raise InvalidInput(
                f"unknown resolution {resolution!r}; use one of "
                f"{', '.join(r.value for r in Resolution)}"
            ) from exc
        actor = validate.ident(actor, "actor")
        note = _note(note)
        if record.status != "open":
            raise Conflict(
                f"conflict {conflict_id} is already resolved "
                f"({record.resolution.value if record.resolution else '?'})"
            )
        if how == Resolution.REJECT:
            note = required_reason(note, "rejecting a side of a conflict")
        if winner is not None and winner not in (record.a_unit, record.b_unit):
            raise InvalidInput(f"winner {winner!r} is not a party to conflict {conflict_id}")
        if how == Resolution.SCOPED_EXCEPTION:
            scope_a, scope_b = _scope(scope_a, "scope_a"), _scope(scope_b, "scope_b")
        with self.store.transaction():
            return self._settle(record, how, actor, note, winner or record.b_unit, scope_a, scope_b)

    def _settle(
        self,
        record: ConflictRecord,
        how: Resolution,
        actor: str,
        note: str,
        winner: str,
        scope_a: str | None,
        scope_b: str | None,
    ) -> ConflictRecord:
        bank = record.bank_id
        now = self.clock()
        loser = record.a_unit if winner == record.b_unit else record.b_unit
        units = self.store.memories.get_units(
            Viewer(bank, "owner", Scope.OWNER), [record.a_unit, record.b_unit]
        )
        if how == Resolution.SUPERSEDE and not may_retire(units[winner], units[loser]):
            # Refused before anything is written: settlement is no way around the write path.
            raise Conflict(
                f"{winner} cannot supersede {loser}: {RETIRE_REFUSAL}; share it first, or "
                "settle the conflict another way"
            )
        self.store.trust.put_review_event(
            ReviewEvent(
                id=new_id("rev_"),
                bank_id=bank,
                target_kind="conflict",
                target_id=record.id,
                decision=how.value,
                actor=actor,
                at=now,
                note=note,
                prior_status="open",
                new_status="resolved",
                metadata={"winner": winner, "loser": loser, "scope_a": scope_a, "scope_b": scope_b},
            )
        )
        if how == Resolution.SUPERSEDE:
            self._supersede(bank, units[winner], units[loser], actor, note, now)
        elif how == Resolution.REJECT:
            self._calm(units[winner], actor, record)
            target = self.review.target(loser)
            if target.state.status != "rejected":
                self.review._apply(
                    target,
                    "reject",
                    actor,
                    note or "lost a conflict",
                    cause=None,
                    metadata={"conflict": record.id},
                )
        else:
            for uid, scope in ((record.a_unit, scope_a), (record.b_unit, scope_b)):
                self._calm(units[uid], actor, record, {"scope": scope} if scope else None)
        return self.store.trust.update_conflict(
            bank,
            record.id,
            ConflictChanges(
                status="resolved",
                resolution=how,
                winner=winner,
                scope_a=scope_a,
                scope_b=scope_b,
                resolved_at=now,
                resolved_by=actor,
                note=note,
            ),
            actor=actor,
            reason=note or how.value,
        )

    def _calm(
        self, unit: Unit, actor: str, record: ConflictRecord, metadata: dict[str, str] | None = None
    ) -> None:
        """A party that stands: back to active once no other open conflict holds it."""
        still = [
            c
            for c in self.store.trust.list_conflicts(unit.bank_id, status="open", unit_id=unit.id)
            if c.id != record.id
        ]
        status = UnitStatus.ACTIVE if unit.status == UnitStatus.CONFLICTED and not still else None
        self.store.memories.update_unit(
            unit.bank_id,
            unit.id,
            UnitChanges(status=status, metadata=metadata),
            actor=actor,
            reason=f"conflict {record.id} resolved",
        )

    def _supersede(
        self, bank: str, winner: Unit, loser: Unit, actor: str, note: str, now: dt.datetime
    ) -> None:
        retire(
            self.store,
            winner,
            loser,
            actor=actor,
            made_by="person",
            reason=note or "superseded in conflict resolution",
            now=now,
            on_change=self.review.on_change,
            settle_conflicts=False,
        )


def _retire_held(
    store: ConflictsStore,
    winner: Unit,
    loser: Unit,
    *,
    actor: str,
    made_by: str,
    reason: str,
    now: dt.datetime,
) -> None:
    """The winner changes a value the loser, already superseded for another one, still held
    (ADR 0076): the loser keeps its status, its first successor and its validity (its record
    of retirement stands, and ``restore`` still undoes that one) and names the winner among
    the later changes of what it held (``succession.ALSO_SUPERSEDED_BY``); the winner names
    it among what it supersedes; both changes audited, and a SUPERSEDES edge links them."""
    later = [u for u in successors(loser)[1:] if u != winner.id]
    store.memories.update_unit(
        loser.bank_id,
        loser.id,
        UnitChanges(metadata={ALSO_SUPERSEDED_BY: [*later, winner.id]}),
        actor=actor,
        reason=f"a value it still held changed: superseded by {winner.id} for it too",
    )
    store.memories.update_unit(
        winner.bank_id,
        winner.id,
        UnitChanges(add_supersedes=(loser.id,)),
        actor=actor,
        reason=f"supersedes {loser.id}, already retired for another value: {reason}",
    )
    _link(store, winner, loser, made_by, now)


def _link(store: ConflictsStore, winner: Unit, loser: Unit, made_by: str, now: dt.datetime) -> None:
    """The SUPERSEDES edge from the winner to the loser."""
    store.graph.put_edge(
        Edge(
            id=new_id("e_"),
            bank_id=winner.bank_id,
            src=winner.id,
            dst=loser.id,
            type=EdgeType.SUPERSEDES,
            made_by=made_by,
            created_at=now,
        )
    )


def retire(
    store: ConflictsStore,
    winner: Unit,
    loser: Unit,
    *,
    actor: str,
    made_by: str,
    reason: str,
    now: dt.datetime,
    on_change: Sequence[Callable[[Unit, str], None]] = (),
    settle_conflicts: bool = True,
) -> None:
    """The winner supersedes the loser: flagged, valid until the winner's start, linked.

    Shared by every path that supersedes (the write path's judgement, a caller's explicit
    ``supersedes=``, a person resolving a conflict), so all of them leave the same trace. An
    open conflict between the two is settled by the supersession (``settle_conflicts``; a
    person resolving that very conflict settles it themselves). A loser already superseded
    keeps that retirement and names the winner as a later change (``_retire_held``).
    """
    if not may_retire(winner, loser):
        raise Conflict(f"{winner.id} cannot supersede {loser.id}: {RETIRE_REFUSAL}")
    if loser.status == UnitStatus.SUPERSEDED:
        # Already retired for another value: retired for the one the winner changes too.
        _retire_held(store, winner, loser, actor=actor, made_by=made_by, reason=reason, now=now)
        return
    bank = winner.bank_id
    until = winner.valid_from or now
    if loser.valid_from is not None and until < loser.valid_from:
        until = loser.valid_from  # validity never ends before it began
    # A supersession is a decision like a person's: recorded as a review event on the loser,
    # so `restore` can revert it and history shows who (or which rule) made it.
    store.trust.put_review_event(
        ReviewEvent(
            id=new_id("rev_"),
            bank_id=bank,
            target_kind="unit",
            target_id=loser.id,
            decision="supersede",
            actor=actor,
            at=now,
            note=reason,
            prior_status=loser.status.value,
            new_status=UnitStatus.SUPERSEDED.value,
            metadata={"by": winner.id, "made_by": made_by},
        )
    )
    store.memories.update_unit(
        bank,
        loser.id,
        UnitChanges(
            status=UnitStatus.SUPERSEDED,
            superseded_by=winner.id,
            valid_until=until,
            retired_at=now,
        ),
        actor=actor,
        reason=reason,
    )
    store.memories.update_unit(
        bank,
        winner.id,
        UnitChanges(
            add_supersedes=(loser.id,),
            status=UnitStatus.ACTIVE if winner.status == UnitStatus.CONFLICTED else None,
        ),
        actor=actor,
        reason="supersedes " + loser.id,
    )
    _link(store, winner, loser, made_by, now)
    winners = {c.id for c in store.trust.find_claims(bank, unit_id=winner.id)}
    for claim in store.trust.find_claims(bank, unit_id=loser.id):
        if claim.status == ClaimStatus.ACTIVE and claim.id not in winners:
            successor = min(winners) if winners else None
            changes = ClaimChanges(status=ClaimStatus.SUPERSEDED, superseded_by=successor)
            store.trust.update_claim(bank, claim.id, changes, actor=actor, reason=reason, now=now)
    if settle_conflicts:
        _settled_by_supersession(store, winner, loser, actor=actor, reason=reason, now=now)
    if on_change:
        retired = store.memories.get_units(Viewer(bank, "owner", Scope.OWNER), [loser.id])[loser.id]
        for listener in on_change:
            listener(retired, f"superseded by {winner.id}")


def _settled_by_supersession(
    store: ConflictsStore, winner: Unit, loser: Unit, *, actor: str, reason: str, now: dt.datetime
) -> None:
    """An open conflict is over when a supersession decides it: between a memory and the one
    that supersedes it, or once both of its parties are superseded. The supersession is its
    resolution (recorded like a person's, with the same review event)."""
    bank = winner.bank_id
    owner = Viewer(bank, "owner", Scope.OWNER)
    for c in store.trust.list_conflicts(bank, status="open", unit_id=loser.id, limit=1000):
        other_id = c.b_unit if c.a_unit == loser.id else c.a_unit
        if other_id != winner.id:
            other = store.memories.get_units(owner, [other_id]).get(other_id)
            if other is None or other.status != UnitStatus.SUPERSEDED:
                continue
        store.trust.put_review_event(
            ReviewEvent(
                id=new_id("rev_"),
                bank_id=bank,
                target_kind="conflict",
                target_id=c.id,
                decision=Resolution.SUPERSEDE.value,
                actor=actor,
                at=now,
                note=reason,
                prior_status="open",
                new_status="resolved",
                metadata={"winner": winner.id, "superseded": loser.id, "by": "supersession"},
            )
        )
        store.trust.update_conflict(
            bank,
            c.id,
            ConflictChanges(
                status="resolved",
                resolution=Resolution.SUPERSEDE,
                winner=winner.id if other_id == winner.id else None,
                resolved_at=now,
                resolved_by=actor,
                note=reason,
            ),
            actor=actor,
            reason=reason or "settled by a supersession",
        )


def _scope(value: str | None, what: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise InvalidInput(f"a scoped exception needs {what} (e.g. 'at work' / 'at home')")
    if len(value) > MAX_SCOPE or "\x00" in value:
        raise InvalidInput(f"{what} must be under {MAX_SCOPE} characters without NUL bytes")
    return value.strip()
