"""Settling a contradiction the write path surfaced, remembering it as a precedent, and rules.

``resolve_contradiction(from, to, confirm | retract | preference)``: the agent (or a person)
answers the question a write came back with. ``from`` is the new memory, ``to`` the one it
disputed. confirm: the new one holds and supersedes the old; retract: the new one was wrong and
is rejected (tombstoned); preference: both hold (a matter of taste or context, never flagged
again). Each settlement is a precedent. When the same kind of conflict on the same attribute
has been settled the same way ``threshold`` times, a rule is proposed; a person may adopt it,
and adopted rules (listed beside the charter, never inside it) settle such conflicts from then
on, with an audit record naming the rule.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Protocol

from mneme import validate
from mneme.core.claims import base_attribute
from mneme.core.model import ConflictRecord, Rule, RuleProposal, Settlement
from mneme.errors import Conflict, InvalidInput, NotFound
from mneme.ids import new_id
from mneme.store.protocol import Banks, Memories, Transactions, Trust
from mneme.trust.conflicts import Conflicts


class SettleStore(Transactions, Protocol):
    """The roles of the store this module uses (ADR 0044)."""

    banks: Banks
    memories: Memories
    trust: Trust


DECISIONS = {"confirm": "supersede", "retract": "reject", "preference": "not_conflict"}
PRECEDENT_THRESHOLD = 3


class Settler:
    def __init__(
        self,
        store: SettleStore,
        conflicts: Conflicts,
        clock: Callable[[], dt.datetime],
        threshold: int = PRECEDENT_THRESHOLD,
    ) -> None:
        self.store = store
        self.conflicts = conflicts
        self.clock = clock
        self.threshold = threshold

    def pattern(self, record: ConflictRecord) -> tuple[str, str]:
        """(kind, attribute) of a conflict: what makes two settlements "identical"."""
        claim_id = record.b_claim or record.a_claim
        claim = self.store.trust.get_claim(record.bank_id, claim_id) if claim_id else None
        return record.kind, base_attribute(claim.attribute) if claim else ""

    def resolve_contradiction(
        self, from_id: str, to_id: str, decision: str, *, actor: str, note: str = ""
    ) -> Settlement:
        """Answer a write's question: confirm the new memory, retract it, or keep both.

        ``from_id`` is the new memory, ``to_id`` the one it disputed. Each settlement is a
        precedent; enough identical ones come back with a rule proposal.

        Raises:
            NotFound: no open conflict between the two.
            InvalidInput: an unknown decision.
        """
        if decision not in DECISIONS:
            raise InvalidInput(f"decision must be one of {', '.join(DECISIONS)}, not {decision!r}")
        record = self.find(from_id, to_id)
        winner = from_id if decision == "confirm" else to_id
        settled = self.conflicts.resolve(
            record.id,
            DECISIONS[decision],
            actor=actor,
            note=note or f"resolve_contradiction: {decision}",
            winner=winner,
        )
        return Settlement(settled, decision, self.proposal(record.bank_id, record, decision))

    def find(self, a: str, b: str) -> ConflictRecord:
        validate.ident(a, "from id")
        validate.ident(b, "to id")
        bank = self.store.memories.locate(a)
        if bank is None:
            raise NotFound(f"no memory {a!r}")
        for c in self.store.trust.list_conflicts(bank, status="open", unit_id=a):
            if {c.a_unit, c.b_unit} == {a, b}:
                return c
        raise NotFound(f"no open conflict between {a} and {b}")

    def precedents(self, bank: str, kind: str, attribute: str, decision: str) -> int:
        resolution = DECISIONS[decision]
        return sum(
            1
            for c in self.store.trust.list_conflicts(bank, status="resolved", limit=10_000)
            if c.resolution is not None
            and c.resolution.value == resolution
            and self.pattern(c) == (kind, attribute)
        )

    def proposal(self, bank: str, record: ConflictRecord, decision: str) -> RuleProposal | None:
        kind, attribute = self.pattern(record)
        if any(
            r.kind == kind and r.attribute == attribute and r.retired_at is None
            for r in self.store.trust.list_rules(bank)
        ):
            return None
        n = self.precedents(bank, kind, attribute, decision)
        if n < self.threshold:
            return None
        return RuleProposal(
            kind=kind,
            attribute=attribute,
            decision=decision,
            precedents=n,
            text=_rule_text(kind, attribute, decision),
        )

    def adopt(self, bank: str, kind: str, attribute: str, decision: str, *, actor: str) -> Rule:
        """Adopt a proposed rule (it must have enough precedents)."""
        validate.ident(bank, "bank")
        actor = validate.ident(actor, "actor")
        if decision not in DECISIONS:
            raise InvalidInput(f"decision must be one of {', '.join(DECISIONS)}")
        n = self.precedents(bank, kind, attribute, decision)
        if n < self.threshold:
            raise Conflict(
                f"only {n} identical settlements of {kind}/{attribute or '-'} as "
                f"{decision}; a rule needs {self.threshold}"
            )
        if any(
            r.kind == kind and r.attribute == attribute and r.retired_at is None
            for r in self.store.trust.list_rules(bank)
        ):
            raise Conflict(f"a rule for {kind}/{attribute or '-'} is already adopted")
        rule = Rule(
            id=new_id("rule_"),
            bank_id=bank,
            kind=kind,
            attribute=attribute,
            decision=decision,
            text=_rule_text(kind, attribute, decision),
            precedents=n,
            adopted_by=actor,
            adopted_at=self.clock(),
        )
        with self.store.transaction():
            self.store.trust.put_rule(rule)
        return rule

    def adopted(self, bank: str | None = None) -> dict[str, list[Rule]]:
        """The rules each bank adopted (every bank's, or ``bank``'s)."""
        banks = [bank] if bank else [b.id for b in self.store.banks.list_banks()]
        return {b: self.store.trust.list_rules(b) for b in banks}

    def rule_for(self, bank: str, kind: str, attribute: str) -> Rule | None:
        for r in self.store.trust.list_rules(bank):
            if r.kind == kind and r.attribute == attribute and r.retired_at is None:
                return r
        return None


def _rule_text(kind: str, attribute: str, decision: str) -> str:
    what = {
        "confirm": "the newer statement replaces the older",
        "retract": "the newer statement is rejected",
        "preference": "both statements hold",
    }[decision]
    about = f"'{attribute}'" if attribute else "any attribute"
    return f"When a {kind} conflict arises about {about}, {what}."
