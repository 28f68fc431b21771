"""Writing one atom: a repeat, a rejected value, a merge, or a new unit and what the judge says.

Runs inside the retain transaction. The order matters and is the anti-gaslight contract:
1. an exact repeat (same content key) is evidence for the unit that holds it; a repeat of a
   rejected unit stays rejected and is recorded against its tombstone;
2. otherwise the judge looks at the neighbours: a paraphrase or a cross-agent repeat merges as
   evidence (one more knower), never as a copy;
3. otherwise a new unit is stored (rejected from the start when its value is tombstoned), its
   claim recorded, and a destructive verdict is applied only when the charter allows it;
   anything the charter holds back is kept side by side, linked as contradicting, opened as a
   conflict and returned as a question. Nothing already held is overwritten silently.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from mneme.core import charter as charter_rules
from mneme.core.charter import Charter, Ruling
from mneme.core.judgement import Judgement, suggest_question
from mneme.core.language import entity_key
from mneme.core.model import (
    ClaimRecord,
    ConflictRecord,
    Decision,
    Edge,
    EdgeType,
    Entity,
    Question,
    ReviewStatus,
    Rule,
    Unit,
    UnitStatus,
    UnitType,
    Verdict,
    Visibility,
)
from mneme.core.policy import KEPT_APART, may_retire, may_touch
from mneme.core.policy import REFUSAL as RETIRE_REFUSAL
from mneme.core.slots import said_alike
from mneme.embed.protocol import Embedder
from mneme.ids import new_id
from mneme.store.protocol import ClaimChanges, Graph, Memories, Trust
from mneme.trust import claims as claim_layer
from mneme.trust.conflicts import Conflicts, ConflictsStore, retire
from mneme.trust.settle import DECISIONS, Settler
from mneme.write.decide import LIVE, Assessment, Judge, is_merge
from mneme.write.plan import Atom, Plan

#: Reported with a change of a value a statement still held after it was retired for another.
HELD_ONLY = "it was already retired for another value; now for this one too"


class AtomsStore(ConflictsStore, Protocol):
    """The roles of the store this module uses, and those of the conflicts it retires through
    (ADR 0044)."""

    memories: Memories
    graph: Graph
    trust: Trust


@dataclass(slots=True)
class Outcome:
    decisions: list[Decision] = field(default_factory=list)
    new_ids: list[str] = field(default_factory=list)
    deduped: list[str] = field(default_factory=list)
    questions: list[Question] = field(default_factory=list)
    llm_errors: list[str] = field(default_factory=list)


class AtomWriter:
    def __init__(
        self,
        store: AtomsStore,
        embedder: Embedder,
        judge: Judge,
        conflicts: Conflicts,
        charter: Callable[[], Charter],
        settler: Settler | None = None,
    ) -> None:
        self.settler = settler
        self.store = store
        self.embedder = embedder
        self.judge = judge
        self.conflicts = conflicts
        self.charter = charter
        #: The new unit's rule-made edges (PART_OF its source, RELATES_TO its topic
        #: neighbours), written together when the atom is done: one insert, one audit entry.
        self._edges: list[Edge] = []

    def write(
        self, plan: Plan, atom: Atom, out: Outcome, corrected: frozenset[str] = frozenset()
    ) -> str:
        """Write one atom; the id of the unit that now holds it (new or existing).

        ``corrected``: the units the input supersedes (``supersedes=``). A correction is never
        merged into what it corrects as more evidence: it is judged again without them.
        """
        self._edges = []
        held = self._write(plan, atom, out, corrected)
        edges, self._edges = self._edges, []
        self.store.graph.put_edges(edges)
        return held

    def _write(self, plan: Plan, atom: Atom, out: Outcome, corrected: frozenset[str]) -> str:
        src = plan.source
        found = self.store.memories.find_by_content_key(
            src.bank_id, atom.key, src.visibility, src.agent_id
        )
        if found is not None:
            self._repeat(plan, atom, found, out)
            return found.id
        vector = self._vector(plan, atom)
        charter = self.charter()
        said = src.mentioned_at or src.recorded_at
        a = self.judge.assess(
            atom.text,
            atom.type,
            src.agent_id,
            src.bank_id,
            vector,
            charter,
            key=atom.key,
            session=src.session_id,
            when=said,
            turn=src.text,
            source_id=src.id,
            visibility=src.visibility,
        )
        again = None
        if is_merge(a) and a.target is not None and a.target.id in corrected:
            again = corrected
        elif (
            a.judgement.verdict == Verdict.CONTRADICT
            and a.target is not None
            and a.target.id in out.new_ids
            and not said_alike(atom.text, a.target.text)
        ):
            # Two sentences of one input dispute each other only when they say the same thing
            # of two values ("Dan lives in Berlin. Dan lives in Munich."): "I have 4 flights
            # for you. There is one flight at 4:20 pm." says two things (SGD every-turn run: 3
            # of 26 conflicts in 600 dialogues were such siblings). The atom is judged again
            # without its siblings.
            again = frozenset(out.new_ids)
        if again is not None:
            out.llm_errors.extend(a.errors)
            a = self.judge.assess(
                atom.text,
                atom.type,
                src.agent_id,
                src.bank_id,
                vector,
                charter,
                again,
                key=atom.key,
                session=src.session_id,
                when=said,
                turn=src.text,
                source_id=src.id,
                visibility=src.visibility,
            )
        out.llm_errors.extend(a.errors)
        owner = src.agent_id if src.visibility == Visibility.PRIVATE else ""
        apart = False
        if is_merge(a) and a.target is not None:
            if a.target.visibility == src.visibility and may_touch(
                src.visibility, src.agent_id, a.target
            ):
                self._evidence(plan, atom, a.target, a.judgement.verdict, a.judgement.reason, out)
                if a.claim is not None:
                    claim_layer.record(
                        self.store, src.bank_id, a.target.id, src.id, a.claim, src.recorded_at,
                        owner,
                    )  # fmt: skip
                return a.target.id
            apart = True  # a private copy of a shared memory (or the reverse): a unit of its own
        claim_key = claim_layer.keys_of(a.claim)[0] if a.claim is not None else None
        stones = self.store.trust.find_tombstones(
            src.bank_id, content_key=atom.key, claim_key=claim_key
        )
        said_before = a.rejected
        if not stones and said_before is not None:
            # The rejected value in other words: its tombstone holds this atom back too.
            stones = self.store.trust.find_tombstones(
                src.bank_id, content_key=said_before.content_key, unit_id=said_before.id
            )
            rejected_claim = next(
                iter(self.store.trust.find_claims(src.bank_id, unit_id=said_before.id)), None
            )
            if rejected_claim is not None:
                claim_key = rejected_claim.claim_key
        else:
            said_before = None
        unit = self._new_unit(
            plan, atom, vector, UnitStatus.REJECTED if stones else UnitStatus.ACTIVE, a.answers
        )
        out.new_ids.append(unit.id)
        if stones:
            self._against_tombstone(plan, atom, unit, stones[0].id, claim_key, out, said_before)
            return unit.id
        rivals: tuple[ClaimRecord, ...] = ()
        if a.claim is not None:
            rivals = claim_layer.record(
                self.store, src.bank_id, unit.id, src.id, a.claim, src.recorded_at, owner
            ).rivals
        if apart:
            out.decisions.append(Decision(Verdict.ADD, unit.text, unit.id, None, KEPT_APART))
            return unit.id
        self._apply(plan, unit, a, out)
        if a.judgement.verdict == Verdict.CONTRADICT and a.target is not None and rivals:
            self._slot_rivals(unit, a, rivals, out, vector)
        return unit.id

    # -- the three outcomes ---------------------------------------------------------------

    def _repeat(self, plan: Plan, atom: Atom, found: Unit, out: Outcome) -> None:
        src = plan.source
        if found.status == UnitStatus.REJECTED:
            self.store.memories.add_evidence(
                src.bank_id, found.id, src.id, src.agent_id, src.recorded_at
            )
            stones = self.store.trust.find_tombstones(
                src.bank_id, content_key=found.content_key, unit_id=found.id
            )
            claim = next(iter(self.store.trust.find_claims(src.bank_id, unit_id=found.id)), None)
            self._against_tombstone(
                plan,
                atom,
                found,
                stones[0].id if stones else None,
                claim.claim_key if claim else None,
                out,
                existing=True,
            )
            return
        new_knower = src.agent_id not in found.knowers
        verdict = Verdict.LINK_EXISTING if new_knower else Verdict.NOOP
        reason = (
            "another agent already knew this fact: one unit, one more knower"
            if new_knower
            else "an exact repeat: more evidence"
        )
        self._evidence(plan, atom, found, verdict, reason, out)

    def _evidence(
        self, plan: Plan, atom: Atom, target: Unit, verdict: Verdict, reason: str, out: Outcome
    ) -> None:
        src = plan.source
        self.store.memories.add_evidence(
            src.bank_id, target.id, src.id, src.agent_id, src.recorded_at
        )
        out.decisions.append(Decision(verdict, atom.text, target.id, target.id, reason))
        out.deduped.append(target.id)

    def _against_tombstone(
        self,
        plan: Plan,
        atom: Atom,
        unit: Unit,
        tombstone_id: str | None,
        claim_key: str | None,
        out: Outcome,
        rejected: Unit | None = None,
        existing: bool = False,
    ) -> None:
        """A rejected value asserted again: more evidence against its tombstone, for review.
        ``rejected``: the rejected unit it restates in other words, if not word for word."""
        src = plan.source
        now = src.recorded_at
        if src.visibility == Visibility.PRIVATE:
            # Held back all the same, but the bank's tombstone and claims stay as they were.
            tombstone_id, claim_key = None, None
        if tombstone_id is not None:
            self.store.trust.update_tombstone(
                src.bank_id, tombstone_id, lifted_at=None, lifted_by=None, add_evidence=(src.id,)
            )
        for claim in (
            self.store.trust.find_claims(src.bank_id, claim_key=claim_key) if claim_key else []
        ):
            self.store.trust.link_claim_unit(src.bank_id, claim.id, unit.id)
            self.store.trust.update_claim(
                src.bank_id,
                claim.id,
                # Back in front of a person: the rejected value was asserted again.
                ClaimChanges(
                    add_evidence_refs=(src.id, unit.id),
                    last_evidence_at=now,
                    review_status=ReviewStatus.PENDING_REVIEW,
                ),
                actor="system",
                reason="a rejected value asserted again",
                now=now,
            )
        reason = (
            "a rejected value was asserted again: kept as rejected, recorded against its "
            "tombstone and surfaced for review"
        )
        (out.deduped if existing else []).append(unit.id)
        out.decisions.append(
            Decision(
                Verdict.NOOP if existing else Verdict.ADD,
                atom.text,
                unit.id,
                unit.id if existing else None,
                reason,
            )
        )
        before = rejected or unit
        said = (
            f'"{atom.text}"' if rejected is None else f'"{atom.text}" says "{rejected.text}", which'
        )
        out.questions.append(
            Question(
                conflict_type="tombstoned",
                new_content=atom.text,
                new_memory_id=unit.id,
                existing_memory_id=before.id if existing or rejected else None,
                existing_content=before.text,
                question=f"{said} was rejected before. Restore it, or keep it rejected?",
                decision="kept as rejected; not admitted as active",
                confidence=1.0,
            )
        )

    def _apply(self, plan: Plan, unit: Unit, a: Assessment, out: Outcome) -> None:
        j, target = a.judgement, a.target
        text = unit.text
        if j.conflict_type == "escalated":
            out.questions.append(
                Question(
                    conflict_type="escalated",
                    new_content=text,
                    new_memory_id=unit.id,
                    existing_memory_id=None,
                    existing_content=None,
                    question=f'Could not judge "{text}" against what is known. Is it new?',
                    decision="kept as a new memory; nothing was changed",
                    confidence=0.0,
                )
            )
        if j.verdict == Verdict.ADD or target is None:
            # Atoms of one source are already linked through it; relate only to other sources.
            self._relate(unit, tuple(r for r in j.relates_to if r not in out.new_ids))
            supported = None
            if target is not None and j.verdict == Verdict.ADD:
                supported = self._support(plan, unit, target)
            out.decisions.append(Decision(Verdict.ADD, text, unit.id, supported, j.reason))
            if supported is None:
                return
            # The other statements it says back count it as evidence too, each reported.
            self._support_also(plan, unit, a, out, f"{j.reason}; says this one back too")
            return
        if j.verdict in charter_rules.REWRITES and not may_retire(unit, target):
            # A private memory may not retire what everyone else sees: both stand.
            out.decisions.append(
                Decision(
                    j.verdict,
                    text,
                    unit.id,
                    target.id,
                    f"{j.reason}; not applied: {RETIRE_REFUSAL}",
                )
            )
            return
        if j.verdict in charter_rules.REWRITES and not a.ruling.ask:
            self._retire(plan, unit, target, j.verdict, j.reason, out)
            self._retire_also(plan, unit, a, out)
            self._support_also(plan, unit, a, out, "says this one back")
            return
        # CONTRADICT, or a rewrite the charter holds back: both stand, a person decides.
        self._dispute(unit, target, j, a.ruling, out)

    def _support_also(self, plan: Plan, unit: Unit, a: Assessment, out: Outcome, why: str) -> None:
        """The other live statements the new unit says back count it as evidence, each
        reported (a confirmation restates several; a correction's confirmation restates the
        correction while it retires what it corrects)."""
        for other in a.supported:
            if other.status in LIVE and other.id not in out.new_ids:
                also = self._support(plan, unit, other)
                if also is not None:
                    out.decisions.append(Decision(Verdict.ADD, unit.text, unit.id, also, why))

    def _retire_also(self, plan: Plan, unit: Unit, a: Assessment, out: Outcome) -> None:
        """The other statements of the value that changed, in the same conversation, go with
        the target (each with its own record, each restorable); one the new unit may not
        retire stays. So does the author's own statement already retired for another value
        that still held this one: the judgement pairs a retired statement only then (ADR 0076),
        and the newer echo it outranks by recency must not leave it answering for the value."""
        j = a.judgement
        why = f"{j.reason}; the same value said earlier in the conversation"
        for other in a.also:
            held = other.status == UnitStatus.SUPERSEDED
            if not (other.status in LIVE or held) or other.id in out.new_ids:
                continue
            if not may_retire(unit, other) or self._ruling(unit, other, j).ask:
                continue
            self._retire(plan, unit, other, j.verdict, why, out)

    def _retire(
        self, plan: Plan, unit: Unit, loser: Unit, verdict: Verdict, why: str, out: Outcome
    ) -> None:
        """The rule's retirement of ``loser`` by ``unit``, recorded and reported."""
        held = loser.status == UnitStatus.SUPERSEDED  # retired for another value already
        retire(
            self.store,
            unit,
            loser,
            actor=plan.source.agent_id,
            made_by="rule",
            reason=f"{verdict.value.lower()}: {why}",
            now=plan.source.recorded_at,
            on_change=self.conflicts.review.on_change,
        )
        reason = f"{why}; {HELD_ONLY}" if held else why
        out.decisions.append(Decision(verdict, unit.text, unit.id, loser.id, reason))

    def _support(self, plan: Plan, unit: Unit, target: Unit) -> str | None:
        """The new unit restates a value of ``target`` and says more: both stay, the new
        source counts as evidence for ``target`` and a SUPPORTS edge links them. A private
        unit leaves no trace on a shared one."""
        if unit.visibility == Visibility.PRIVATE and target.visibility != Visibility.PRIVATE:
            return None
        src = plan.source
        self.store.memories.add_evidence(
            src.bank_id, target.id, src.id, src.agent_id, src.recorded_at
        )
        self._edges.append(_rule_edge(unit, target.id, EdgeType.SUPPORTS))
        return target.id

    def _slot_rivals(
        self,
        unit: Unit,
        a: Assessment,
        rivals: tuple[ClaimRecord, ...],
        out: Outcome,
        vector: np.ndarray | None = None,
    ) -> None:
        """The other live values of a one-valued slot the new value contradicts: one conflict
        with each (bounded), not only with the unit the verdict named. Nothing is overwritten."""
        assert a.claim is not None
        assert a.target is not None
        skip = frozenset({a.target.id, *out.new_ids})
        for other, j in self.judge.slot_rivals(unit, a.claim, rivals, skip, vector=vector):
            self._dispute(unit, other, j, self._ruling(unit, other, j), out)

    def _ruling(self, unit: Unit, other: Unit, j: Judgement) -> Ruling:
        """What the charter says of this verdict of ``unit`` against ``other``."""
        return charter_rules.evaluate(
            self.charter(),
            j.verdict,
            j.confidence,
            new_type=unit.type,
            old_type=other.type,
            old_immutable=bool(other.metadata.get("immutable")),
            conflict_type=j.conflict_type,
        )

    def _dispute(
        self,
        unit: Unit,
        target: Unit,
        j: Judgement,
        ruling: Ruling,
        out: Outcome,
    ) -> None:
        """Both stand and a conflict is opened between them (or settled by an adopted rule).
        A private memory that disputes one others see opens nothing: only its author is told."""
        text = unit.text
        if not may_touch(unit.visibility, unit.agent_id, target):
            out.decisions.append(
                Decision(j.verdict, text, unit.id, target.id, f"{j.reason}; {KEPT_APART}")
            )
            return
        question = suggest_question(j, text, target.text)
        kind = j.conflict_type or ("rewrite" if j.verdict != Verdict.CONTRADICT else "value")
        older_claim = next(
            iter(self.store.trust.find_claims(target.bank_id, unit_id=target.id)), None
        )
        newer_claim = next(iter(self.store.trust.find_claims(unit.bank_id, unit_id=unit.id)), None)
        record = self.conflicts.open(
            target,
            unit,
            kind=kind,
            question=question,
            a_claim=older_claim.id if older_claim else None,
            b_claim=newer_claim.id if newer_claim else None,
        )
        if target.type in (UnitType.BELIEF, UnitType.OPINION):
            # Held back because of a belief: if the belief goes, reconsolidation looks again.
            self.store.graph.put_edge(_rule_edge(unit, target.id, EdgeType.CONTESTED_BECAUSE))
        held = ruling.reason if ruling.ask else "a contradiction is recorded, not resolved"
        verdict = Verdict.CONTRADICT if j.verdict == Verdict.CONTRADICT else j.verdict
        rule = self._rule_for(record, unit.bank_id)
        if record is not None and rule is not None and self.settler is not None:
            self.settler.conflicts.resolve(
                record.id,
                DECISIONS[rule.decision],
                actor=f"rule:{rule.id}",
                note=f"settled by the adopted rule: {rule.text}",
                winner=unit.id if rule.decision == "confirm" else target.id,
            )
            out.decisions.append(
                Decision(
                    verdict,
                    text,
                    unit.id,
                    target.id,
                    f"{j.reason}; settled by the adopted rule {rule.id}",
                )
            )
            return
        out.decisions.append(
            Decision(verdict, text, unit.id, target.id, f"{j.reason}; not applied: {held}")
        )
        if record is None:
            return  # a person said this pair is not a conflict
        if j.verdict == Verdict.CONTRADICT or ruling.ask:
            out.questions.append(
                Question(
                    conflict_type=kind,
                    new_content=text,
                    new_memory_id=unit.id,
                    existing_memory_id=target.id,
                    existing_content=target.text,
                    question=question,
                    decision="kept both; nothing was overwritten; conflict " + record.id,
                    confidence=j.confidence,
                )
            )

    def _rule_for(self, record: ConflictRecord | None, bank: str) -> Rule | None:
        if record is None or self.settler is None:
            return None
        kind, attribute = self.settler.pattern(record)
        return self.settler.rule_for(bank, kind, attribute)

    # -- building blocks ------------------------------------------------------------------

    def _vector(self, plan: Plan, atom: Atom) -> np.ndarray:
        vector = plan.vectors.get(atom.key)
        if vector is None:
            # A writer stored (then lost) the same key between prepare and commit: embed now.
            vector = self.embedder.embed([atom.text])[0]
            plan.vectors[atom.key] = vector
        return vector

    def _new_unit(
        self,
        plan: Plan,
        atom: Atom,
        vector: np.ndarray,
        status: UnitStatus,
        answers: Unit | None = None,
    ) -> Unit:
        src = plan.source
        unit = Unit(
            id=new_id("u_"),
            bank_id=src.bank_id,
            text=atom.text,
            content_key=atom.key,
            network=atom.network,
            type=atom.type,
            status=status,
            confidence=atom.confidence,
            agent_id=src.agent_id,
            recorded_at=src.recorded_at,
            visibility=src.visibility,
            occurred_start=atom.occurred_start,
            occurred_end=atom.occurred_end,
            valid_from=atom.valid_from,
            mentioned_at=src.mentioned_at,
            embedding_model=self.embedder.model_id,
            embedding_dim=self.embedder.dim,
            knowers=(src.agent_id,),
            evidence=(src.id,),
            entities=tuple(e.name for e in atom.entities),
            metadata=_unit_metadata(plan, answers),
        )
        self.store.memories.put_unit(unit, vector)
        self.judge.note_written(unit.bank_id, unit.id, vector)
        self._link(unit, atom, plan)
        return unit

    def _link(self, unit: Unit, atom: Atom, plan: Plan) -> None:
        src = plan.source
        ids = [
            self.store.graph.upsert_entity(
                Entity(
                    id=new_id("ent_"),
                    bank_id=src.bank_id,
                    name=m.name,
                    key=entity_key(m.name),
                    kind=m.kind,
                    aliases=m.aliases,
                )
            ).id
            for m in atom.entities
        ]
        if ids:
            self.store.graph.add_mentions(src.bank_id, unit.id, ids)
        self._edges.append(
            Edge(
                id=new_id("e_"),
                bank_id=src.bank_id,
                src=unit.id,
                dst=src.id,
                type=EdgeType.PART_OF,
                made_by="rule",
                created_at=src.recorded_at,
            )
        )

    def _relate(self, unit: Unit, others: tuple[str, ...]) -> None:
        self._edges.extend(_rule_edge(unit, other, EdgeType.RELATES_TO, 0.5) for other in others)


def _rule_edge(unit: Unit, dst: str, kind: EdgeType, weight: float = 1.0) -> Edge:
    """An edge the write path's rules draw from a new unit."""
    return Edge(
        id=new_id("e_"),
        bank_id=unit.bank_id,
        src=unit.id,
        dst=dst,
        type=kind,
        made_by="rule",
        created_at=unit.recorded_at,
        weight=weight,
    )


def _unit_metadata(plan: Plan, answers: Unit | None = None) -> dict[str, object]:
    src = plan.source
    meta: dict[str, object] = {}
    if src.session_id:
        meta["session_id"] = src.session_id
    if answers is not None:
        meta["answers"] = answers.id  # the question a bare answer answers
    if src.metadata.get("immutable") is True:
        meta["immutable"] = True
    return meta
