"""Reconsolidation: when a belief changes, re-examine what it held back and what held it up.

A belief is a unit of type belief or opinion, or any memory a why-edge points at (a fact such
as "the vendor failed the audit" is a belief by its role once a decision rests on it). Why-edges
record what hangs on it: a memory CONTESTED_BECAUSE a belief was rejected, conflicted or
superseded (held back) because of it; a memory that SUPPORTS a belief is evidence for it; a
memory BECAUSE a belief was concluded from it (a correction made because of the belief). When
a belief is superseded, rejected, restored, or loses confidence, a pending sweep is recorded
(inside the same transaction as the change). The sweep works both ways:

(a) memories CONTESTED_BECAUSE the old belief: with the belief gone and no other live reason
    contesting them, they become candidates for re-acceptance (a rejected or conflicted one is
    approved, a superseded one holds again); with the belief back (restored), memories an
    earlier sweep re-accepted are contested again (superseded again by their old successor);
(b) memories that SUPPORTS the old belief: checked against its successor they may now
    contradict it (a conflict is opened); with no successor they stand unsupported (flagged);
(c) memories BECAUSE the old belief: with the belief refuted they lose their ground and are
    withdrawn (rejected by the sweep, restorable); with the belief back, what an earlier sweep
    withdrew is reinstated.

Verdicts are validated before anything moves: a verdict must cite the evidence it rests on (the
record of the belief's change) and its unit must have no other live contesting reason. A valid
verdict at or above the confidence bar is applied through the review path, with a review event
whose actor is the sweep (so it can be restored); one below the bar waits for a person as a
proposal. Nothing moves silently.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from mneme import validate
from mneme.core.claims import extract_claim
from mneme.core.judgement import Candidate, JudgeConfig, Neighbour, judge
from mneme.core.model import (
    Edge,
    EdgeType,
    PendingSweep,
    Scope,
    SweepProposal,
    SweepReport,
    Unit,
    UnitStatus,
    UnitType,
    Verdict,
    Viewer,
)
from mneme.errors import Conflict, InvalidInput, NotFound
from mneme.ids import new_id
from mneme.llm.protocol import LLMError
from mneme.llm.sweep import LLMSweepJudge
from mneme.store.protocol import Audit, Graph, Memories, Sweeps, Transactions, Trust
from mneme.trust.conflicts import Conflicts, retire
from mneme.trust.review import Review


class ReconsolidateStore(Transactions, Protocol):
    """The roles of the store this module uses (ADR 0044)."""

    memories: Memories
    graph: Graph
    trust: Trust
    sweeps: Sweeps
    audit: Audit


BELIEF_TYPES = frozenset({UnitType.BELIEF, UnitType.OPINION})
#: Edges that say a memory hangs on another one (the other is then a belief by its role).
WHY_EDGES = frozenset({EdgeType.CONTESTED_BECAUSE, EdgeType.SUPPORTS, EdgeType.BECAUSE})
LIVE = frozenset({UnitStatus.ACTIVE, UnitStatus.PROPOSED, UnitStatus.CONFLICTED})
SWEEP_ACTOR = "sweep:reconsolidate"


@dataclass(frozen=True, slots=True)
class SweepVerdict:
    """What the sweep found for one memory that hangs on a changed belief, before validation
    routes it (applied, queued as a :class:`~mneme.core.model.SweepProposal`, or refused)."""

    unit: Unit
    belief_id: str
    verdict: str  # reaccept | recontest | withdraw | reinstate | contradicts | unsupported
    reason: str
    evidence: tuple[str, ...]
    confidence: float


@dataclass(slots=True)
class _Tally:
    examined: int = 0
    reaccepted: list[str] = field(default_factory=list)
    flagged: list[str] = field(default_factory=list)
    queued: list[str] = field(default_factory=list)
    left_alone: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)


class Reconsolidator:
    def __init__(
        self,
        store: ReconsolidateStore,
        review: Review,
        conflicts: Conflicts,
        clock: Callable[[], dt.datetime],
        *,
        bar: float = 0.7,
        batch: int = 16,
        llm_judge: LLMSweepJudge | None = None,
    ) -> None:
        self.llm_judge = llm_judge
        self.store = store
        self.review = review
        self.conflicts = conflicts
        self.clock = clock
        self.bar = bar
        self.batch = batch
        #: Verdicts reached so far by this process (the watchdog's flood detector reads it).
        self.produced = 0
        review.on_change.append(self.note_change)

    def retune(self, bar: float, batch: int, llm_judge: LLMSweepJudge | None) -> None:
        """Take a reloaded configuration's settings (ADR 0057); the next pass reads them."""
        self.bar, self.batch, self.llm_judge = bar, batch, llm_judge

    # -- recording pending work (inside the changing transaction) -----------------------

    def note_change(self, unit: Unit, why: str) -> None:
        if unit.type not in BELIEF_TYPES and not self._is_reason(unit):
            return
        if any(
            p.belief_id == unit.id for p in self.store.sweeps.pending_sweeps(unit.bank_id, 10_000)
        ):
            return  # one pending sweep per belief: it reads the belief's state when it runs
        self.store.sweeps.add_pending_sweep(
            PendingSweep(
                id=new_id("swp_"),
                bank_id=unit.bank_id,
                belief_id=unit.id,
                reason=why,
                status="pending",
                created_at=self.clock(),
            )
        )

    def _is_reason(self, unit: Unit) -> bool:
        """Whether a why-edge points at the unit: something rests on it, whatever its type."""
        owner = Viewer(unit.bank_id, "owner", Scope.OWNER)
        return any(
            e.dst == unit.id and e.type in WHY_EDGES
            for e in self.store.graph.edges_of(owner, unit.id)
        )

    def has_pending(self, bank: str | None = None) -> bool:
        """Whether a belief change waits for its sweep (in ``bank``, or in any bank)."""
        return self.store.sweeps.has_pending_sweep(bank)

    def step(self) -> bool:
        """The background worker's step: sweep a batch if one is pending; whether it did."""
        if not self.has_pending():
            return False
        return bool(self.run_pending())

    def reconsolidate(
        self, belief_id: str | None = None, *, bank: str | None = None
    ) -> list[SweepReport]:
        """Re-examine what hangs on changed beliefs: one belief, or every pending change."""
        if belief_id is not None:
            return [self.sweep(validate.ident(belief_id, "belief_id"))]
        return self.run_pending(bank)

    def contest(self, memory_id: str, *, because: str, actor: str) -> Edge:
        """Record that a memory is held back because of a belief (CONTESTED_BECAUSE)."""
        return self.link(
            memory_id, because, EdgeType.CONTESTED_BECAUSE, actor=validate.ident(actor, "actor")
        )

    def support(self, memory_id: str, *, belief: str, actor: str) -> Edge:
        """Record that a memory is evidence for a belief (SUPPORTS)."""
        return self.link(memory_id, belief, EdgeType.SUPPORTS, actor=validate.ident(actor, "actor"))

    # -- why-edges made through the API -------------------------------------------------

    def link(self, unit_id: str, belief_id: str, edge_type: str, *, actor: str) -> Edge:
        """Record that a memory is contested because of, supports, or rests on a belief.

        The belief may be any memory: pointing a why-edge at it makes it one by its role.
        """
        if edge_type not in WHY_EDGES:
            raise InvalidInput("a why-edge is CONTESTED_BECAUSE, SUPPORTS or BECAUSE")
        if unit_id == belief_id:
            raise InvalidInput("a memory cannot rest on itself")
        bank = self.store.memories.locate(unit_id)
        owner = Viewer(bank or "", "owner", Scope.OWNER)
        found = self.store.memories.get_units(owner, [unit_id, belief_id]) if bank else {}
        if unit_id not in found or belief_id not in found:
            raise NotFound(f"no memories {unit_id!r} and {belief_id!r} in one bank")
        edge = Edge(
            id=new_id("e_"),
            bank_id=found[unit_id].bank_id,
            src=unit_id,
            dst=belief_id,
            type=edge_type,
            made_by=actor,
            created_at=self.clock(),
        )
        with self.store.transaction():
            self.store.graph.put_edge(edge)
        return edge

    # -- running sweeps ---------------------------------------------------------------

    def run_pending(self, bank: str | None = None, limit: int | None = None) -> list[SweepReport]:
        """Sweep pending belief changes, oldest first, ``batch`` at a time (ADR 0009)."""
        reports = []
        for item in self.store.sweeps.pending_sweeps(bank, limit or self.batch):
            report = self.sweep(item.belief_id)
            with self.store.transaction():
                self.store.sweeps.finish_sweep(
                    item.bank_id, item.id, _summary(report), self.clock()
                )
            reports.append(report)
        return reports

    def sweep(self, belief_id: str) -> SweepReport:
        """Re-examine, both ways, the memories hanging on one belief."""
        bank = self.store.memories.locate(belief_id)
        owner = Viewer(bank or "", "owner", Scope.OWNER)
        belief = self.store.memories.get_units(owner, [belief_id]).get(belief_id) if bank else None
        if belief is None:
            raise NotFound(f"no belief {belief_id!r}")
        tally = _Tally()
        evidence = self._evidence(belief)
        edges = self.store.graph.edges_of(owner, belief.id)
        contested = [
            e.src for e in edges if e.type == EdgeType.CONTESTED_BECAUSE and e.dst == belief.id
        ]
        supporters = [e.src for e in edges if e.type == EdgeType.SUPPORTS and e.dst == belief.id]
        dependents = [e.src for e in edges if e.type == EdgeType.BECAUSE and e.dst == belief.id]
        units = self.store.memories.get_units(owner, contested + supporters + dependents)
        with self.store.transaction():
            # What rests on the belief first: a withdrawn (or reinstated) conclusion is what a
            # memory it had superseded is judged against below.
            for uid in dict.fromkeys(dependents):
                if uid in units:
                    tally.examined += 1
                    self._route(self._dependent(belief, units[uid], evidence), tally)
            for uid in contested:
                if uid in units:
                    tally.examined += 1
                    offline = self._contested(belief, units[uid], evidence)
                    self._route(
                        self._ask(belief, units[uid], "contested", offline, evidence), tally
                    )
            for uid in supporters:
                if uid in units:
                    tally.examined += 1
                    offline = self._supporter(belief, units[uid], evidence)
                    self._route(self._ask(belief, units[uid], "supports", offline, evidence), tally)
            report = SweepReport(
                belief.id,
                tally.examined,
                tuple(tally.reaccepted),
                tuple(tally.flagged),
                tuple(tally.queued),
                tuple(tally.left_alone),
                tuple(tally.refused),
            )
            self.store.audit.append(
                belief.bank_id,
                SWEEP_ACTOR,
                "reconsolidation.sweep",
                belief.id,
                None,
                _summary(report),
                f"belief is {belief.status.value}",
            )
        self.produced += tally.examined
        return report

    def _evidence(self, belief: Unit) -> tuple[str, ...]:
        """The record of the belief's latest change: what every verdict must cite."""
        events = self.store.trust.review_events(belief.bank_id, belief.id)
        if events:
            return (f"review:{events[-1].id}", f"belief:{belief.id}")
        records = [
            r
            for r in self.store.audit.records(belief.bank_id, target=belief.id)
            if r.op == "unit.update"
        ]
        return (f"audit:{records[-1].seq}", f"belief:{belief.id}") if records else ()

    def _ask(
        self,
        belief: Unit,
        unit: Unit,
        relation: str,
        offline: SweepVerdict | None,
        evidence: tuple[str, ...],
    ) -> SweepVerdict | None:
        """The LLM's verdict when one is configured and answers validly; else the rules'."""
        if self.llm_judge is None or not evidence:
            return offline
        successor = None
        if belief.superseded_by:
            owner = Viewer(belief.bank_id, "owner", Scope.OWNER)
            found = self.store.memories.get_units(owner, [belief.superseded_by])
            successor = found[belief.superseded_by].text if found else None
        try:
            v = self.llm_judge.verdict(
                relation=relation,
                memory=unit.text,
                belief=belief.text,
                belief_status=belief.status.value,
                successor=successor,
                evidence=list(evidence),
            )
        except LLMError:
            return offline  # unreachable or unusable: the offline rules decide
        if v.verdict == "keep":
            return None
        if v.verdict == "contradicts" and belief.superseded_by:
            cited = (*v.evidence, f"successor:{belief.superseded_by}")
        else:
            cited = v.evidence
        return SweepVerdict(
            unit, belief.id, v.verdict, f"llm ({v.provider}): {v.reason}", cited, v.confidence
        )

    def _contested(
        self, belief: Unit, unit: Unit, evidence: tuple[str, ...]
    ) -> SweepVerdict | None:
        if belief.status in LIVE:
            # The belief holds (again): what an earlier sweep re-accepted is contested again.
            events = self.store.trust.review_events(unit.bank_id, unit.id)
            if (
                unit.status in LIVE
                and events
                and events[-1].actor == SWEEP_ACTOR
                and events[-1].decision == "approve"
            ):
                return SweepVerdict(
                    unit,
                    belief.id,
                    "recontest",
                    f"the belief {belief.id} holds again",
                    evidence,
                    0.9,
                )
            return None
        if unit.status not in (UnitStatus.REJECTED, UnitStatus.CONFLICTED, UnitStatus.SUPERSEDED):
            return None
        rejected_by_person = belief.status == UnitStatus.REJECTED
        # A refuted belief frees what it held back; a refined one (superseded) may still hold it
        # back through its successor, which the offline rules cannot tell: a person decides.
        confidence = 0.9 if rejected_by_person else 0.55
        return SweepVerdict(
            unit,
            belief.id,
            "reaccept",
            f"it was held back because of {belief.id}, which is now {belief.status.value}",
            evidence,
            confidence,
        )

    def _dependent(
        self, belief: Unit, unit: Unit, evidence: tuple[str, ...]
    ) -> SweepVerdict | None:
        """A memory concluded because of the belief: withdrawn with it, back when it holds."""
        last = self.store.trust.review_events(unit.bank_id, unit.id)[-1:]
        if belief.status in LIVE:
            if (
                unit.status == UnitStatus.REJECTED
                and last
                and last[0].actor == SWEEP_ACTOR
                and last[0].decision == "reject"
            ):
                return SweepVerdict(
                    unit,
                    belief.id,
                    "reinstate",
                    f"the belief {belief.id} holds again",
                    evidence,
                    0.9,
                )
            return None
        if unit.status not in LIVE:
            return None
        rejected_by_person = belief.status == UnitStatus.REJECTED
        return SweepVerdict(
            unit,
            belief.id,
            "withdraw",
            f"it was concluded because of {belief.id}, which is now {belief.status.value}",
            evidence,
            0.9 if rejected_by_person else 0.55,
        )

    def _supporter(
        self, belief: Unit, unit: Unit, evidence: tuple[str, ...]
    ) -> SweepVerdict | None:
        if belief.status in LIVE or unit.status not in LIVE:
            return None
        successor = None
        if belief.superseded_by:
            owner = Viewer(belief.bank_id, "owner", Scope.OWNER)
            successor = self.store.memories.get_units(owner, [belief.superseded_by]).get(
                belief.superseded_by
            )
        if successor is None:
            return SweepVerdict(
                unit,
                belief.id,
                "unsupported",
                f"it supported {belief.id}, which is now {belief.status.value}",
                evidence,
                0.6,
            )
        content = believed(successor.text)
        verdict = judge(
            Candidate(unit.text, unit.type, unit.agent_id, extract_claim(unit.text)),
            [
                Neighbour(
                    successor.id,
                    content,
                    successor.type,
                    successor.agent_id,
                    successor.status.value,
                    0.0,
                    extract_claim(content),
                )
            ],
            JudgeConfig(),
        )
        if verdict.verdict != Verdict.CONTRADICT:
            return None
        return SweepVerdict(
            unit,
            belief.id,
            "contradicts",
            f"it supported {belief.id}; it contradicts its successor {successor.id}",
            (*evidence, f"successor:{successor.id}"),
            verdict.confidence,
        )

    # -- validation and application ----------------------------------------------------

    def _route(self, v: SweepVerdict | None, tally: _Tally) -> None:
        """Validate a verdict and route it: refused (it cites nothing), left alone (another live
        reason still contests the memory), queued for a person (below the bar, or unsupported),
        or applied."""
        if v is None:
            return
        unit = v.unit
        if not v.evidence:
            tally.refused.append(unit.id)  # a verdict that cites nothing is never applied
            return
        if v.verdict in ("reaccept", "reinstate") and self._other_live_reasons(unit, v):
            tally.left_alone.append(unit.id)  # another live belief still contests it
            return
        if v.verdict in ("unsupported", "contradicts"):
            tally.flagged.append(unit.id)
        if v.confidence < self.bar or v.verdict == "unsupported":
            proposal = SweepProposal(
                id=new_id("prop_"),
                bank_id=unit.bank_id,
                unit_id=unit.id,
                belief_id=v.belief_id,
                verdict=v.verdict,
                reason=v.reason,
                evidence=v.evidence,
                confidence=v.confidence,
                status="open",
                created_at=self.clock(),
            )
            self.store.sweeps.put_proposal(proposal)
            tally.queued.append(proposal.id)
            return
        self._apply(v)
        if v.verdict in ("reaccept", "reinstate"):
            tally.reaccepted.append(unit.id)
        elif v.verdict in ("recontest", "withdraw"):
            tally.flagged.append(unit.id)

    def _other_live_reasons(self, unit: Unit, v: SweepVerdict) -> bool:
        owner = Viewer(unit.bank_id, "owner", Scope.OWNER)
        belief_ids = [
            e.dst
            for e in self.store.graph.edges_of(owner, unit.id)
            if e.type == EdgeType.CONTESTED_BECAUSE
            and e.src == unit.id
            and f"belief:{e.dst}" not in v.evidence
        ]
        beliefs = self.store.memories.get_units(owner, belief_ids)
        return any(b.status in LIVE for b in beliefs.values())

    def _apply(self, v: SweepVerdict) -> None:
        target = self.review.target(v.unit.id)
        note = f"{v.reason} (evidence: {', '.join(v.evidence)})"
        if v.verdict in ("reaccept", "recontest", "withdraw", "reinstate"):
            # Pushed as a new decision (approve / reject), never by popping a person's: a
            # person's `restore` then undoes exactly what the sweep did.
            decision = "approve" if v.verdict in ("reaccept", "reinstate") else "reject"
            metadata: dict[str, object] = {"evidence": list(v.evidence)}
            if v.verdict == "reaccept" and v.unit.superseded_by:
                metadata["superseded_by"] = v.unit.superseded_by  # what a recontest brings back
            former = self._former_successor(v.unit) if v.verdict == "recontest" else None
            if former is not None:
                # It was superseded, not rejected, before the sweep freed it: superseded again.
                retire(
                    self.store,
                    former,
                    v.unit,
                    actor=SWEEP_ACTOR,
                    made_by=SWEEP_ACTOR,
                    reason=note,
                    now=self.clock(),
                    on_change=self.review.on_change,
                )
                return
            self.review._apply(target, decision, SWEEP_ACTOR, note, cause=None, metadata=metadata)
        elif v.verdict == "contradicts":
            successor = next(e.split(":", 1)[1] for e in v.evidence if e.startswith("successor:"))
            owner = Viewer(v.unit.bank_id, "owner", Scope.OWNER)
            other = self.store.memories.get_units(owner, [successor])[successor]
            self.conflicts.open(
                other,
                v.unit,
                kind="reconsolidation",
                question=(
                    f'"{v.unit.text}" supported a belief that changed; it now contradicts '
                    f'"{other.text}". Which holds?'
                ),
                made_by=SWEEP_ACTOR,
            )

    def _former_successor(self, unit: Unit) -> Unit | None:
        """The live unit that superseded this one before a sweep re-accepted it, if any."""
        events = self.store.trust.review_events(unit.bank_id, unit.id)
        if not events or events[-1].actor != SWEEP_ACTOR or events[-1].decision != "approve":
            return None
        succ_id = events[-1].metadata.get("superseded_by")
        if not isinstance(succ_id, str):
            return None
        owner = Viewer(unit.bank_id, "owner", Scope.OWNER)
        succ = self.store.memories.get_units(owner, [succ_id]).get(succ_id)
        return succ if succ is not None and succ.status in LIVE else None

    # -- proposals waiting for a person -----------------------------------------------

    def proposals(self, *, bank: str) -> list[SweepProposal]:
        """Sweep verdicts below the confidence bar, waiting for a person."""
        return self.store.sweeps.list_proposals(validate.ident(bank, "bank"), "open")

    def decide(self, proposal_id: str, accept: bool, *, actor: str) -> SweepProposal:
        """Accept (apply the verdict) or dismiss a sweep proposal.

        Raises:
            NotFound: no such proposal.
            Conflict: it is already decided.
        """
        validate.ident(proposal_id, "proposal_id")
        accept = bool(accept)
        actor = validate.ident(actor, "actor")
        bank = self.store.memories.locate(proposal_id)
        found = (
            [
                p
                for p in self.store.sweeps.list_proposals(bank or "", None, 10_000)
                if p.id == proposal_id
            ]
            if bank
            else []
        )
        if not found:
            raise NotFound(f"no sweep proposal {proposal_id!r}")
        proposal = found[0]
        if proposal.status != "open":
            raise Conflict(f"proposal {proposal_id} is already {proposal.status}")
        with self.store.transaction():
            if accept and proposal.verdict in ("reaccept", "recontest", "withdraw", "reinstate"):
                unit = self.store.memories.get_units(
                    Viewer(proposal.bank_id, "owner", Scope.OWNER), [proposal.unit_id]
                )[proposal.unit_id]
                self._apply(
                    SweepVerdict(
                        unit,
                        proposal.belief_id,
                        proposal.verdict,
                        proposal.reason,
                        proposal.evidence,
                        1.0,
                    )
                )
            return self.store.sweeps.decide_proposal(
                proposal.bank_id,
                proposal_id,
                "accepted" if accept else "dismissed",
                actor,
                self.clock(),
            )


_HEDGE = re.compile(
    r"^\s*(?:i|we)\s+(?:believe|think|feel|suspect|reckon|guess)\s+(?:that\s+)?", re.I
)


def believed(text: str) -> str:
    """What a belief says is so: "I believe the launch is 3 May." -> "The launch is 3 May."."""
    rest = _HEDGE.sub("", text, count=1)
    return rest[:1].upper() + rest[1:] if rest != text else text


def _summary(report: SweepReport) -> dict[str, object]:
    return {
        "belief": report.belief_id,
        "examined": report.examined,
        "reaccepted": list(report.reaccepted),
        "flagged": list(report.flagged),
        "queued": list(report.queued),
        "left_alone": list(report.left_alone),
        "refused": list(report.refused),
    }
