"""The write path's judgement: find what an atom is judged against, and ask the charter.

For each new atom the write path gathers its neighbours in the writer's collective view (the
nearest by embedding, plus every live unit whose claim fills the same slot), hands them to the
judge (offline rules, or the LLM judge when configured, validated and falling back), and asks
the charter whether a rewrite may be applied or must become a question for a person.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from mneme.core import charter as charter_rules
from mneme.core.claims import Claim
from mneme.core.claims import extract_claim as _extract_claim
from mneme.core.judgement import (
    JUDGED_STATUSES,
    Candidate,
    JudgeConfig,
    Judgement,
    Neighbour,
    judge,
)
from mneme.core.model import (
    ClaimRecord,
    Scope,
    Unit,
    UnitStatus,
    UnitType,
    Verdict,
    Viewer,
)
from mneme.llm.judge import LLMJudge
from mneme.llm.protocol import LLMError, LLMInvalid
from mneme.store.protocol import Filters, Store
from mneme.trust.claims import keys_of

#: Claims of texts already stored are read again for every new atom they neighbour: cache them
#: (extract_claim is pure).
extract_claim = functools.lru_cache(maxsize=65_536)(_extract_claim)

LIVE = frozenset(UnitStatus(s) for s in JUDGED_STATUSES)
NEIGHBOURS = 8
#: At most this many further conflicts are opened for one atom with the other values of its
#: one-valued slot (besides the unit its verdict names).
MAX_SLOT_RIVALS = 5


@dataclass(frozen=True, slots=True)
class Assessment:
    judgement: Judgement
    claim: Claim | None
    target: Unit | None
    ruling: charter_rules.Ruling
    errors: tuple[str, ...] = ()  # the LLM's error trail, when one was asked


class Judge:
    def __init__(
        self, store: Store, config: JudgeConfig, model_id: str, llm_judge: LLMJudge | None = None
    ) -> None:
        self.store = store
        self.config = config
        self.model_id = model_id
        self.llm_judge = llm_judge

    def neighbours(
        self,
        bank_id: str,
        agent_id: str,
        claim: Claim | None,
        vector: np.ndarray | None,
        exclude: frozenset[str] = frozenset(),
    ) -> list[tuple[Unit, float]]:
        viewer = Viewer(bank_id, agent_id, Scope.COLLECTIVE)
        live = Filters(statuses=LIVE)
        found: dict[str, float] = {}
        if vector is not None:
            for s in self.store.search_semantic(viewer, vector, self.model_id, live, NEIGHBOURS):
                found[s.unit_id] = s.score
        if claim is not None:
            # Same-slot units are judged even when the embedder finds them far apart
            # ("I live in Paris" / "I moved to Berlin last month").
            slot_units: list[str] = []
            for c in self.store.find_claims(bank_id, slot_key=keys_of(claim)[1]):
                slot_units += self.store.claim_unit_ids(bank_id, c.id)
            missing = frozenset(u for u in slot_units if u not in found)
            if missing and vector is not None:
                for s in self.store.search_semantic(
                    viewer,
                    vector,
                    self.model_id,
                    Filters(statuses=LIVE, include_ids=missing),
                    len(missing),
                ):
                    found[s.unit_id] = s.score
            for uid in missing:
                found.setdefault(uid, 0.0)
        for uid in exclude:
            found.pop(uid, None)
        units = self.store.get_units(viewer, list(found), lean=True)
        return [(units[u], found[u]) for u in found if u in units and units[u].status in LIVE]

    def assess(
        self,
        text: str,
        unit_type: UnitType,
        agent_id: str,
        bank_id: str,
        vector: np.ndarray | None,
        charter: charter_rules.Charter,
        exclude: frozenset[str] = frozenset(),
    ) -> Assessment:
        """The verdict on a new atom; units in ``exclude`` are not judged against."""
        claim = extract_claim(text)
        near = self.neighbours(bank_id, agent_id, claim, vector, exclude)
        candidate = Candidate(
            text=text,
            type=unit_type,
            agent_id=agent_id,
            claim=claim,
        )
        nbs = [
            Neighbour(
                unit_id=u.id,
                text=u.text,
                type=u.type,
                agent_id=u.agent_id,
                status=u.status.value,
                similarity=sim,
                claim=extract_claim(u.text),
                knowers=u.knowers,
            )
            for u, sim in near
        ]
        errors: tuple[str, ...] = ()
        verdict = None
        if self.llm_judge is not None and near:
            verdict, errors = self._llm(text, near)
        if verdict is None:
            verdict = judge(candidate, nbs, self.config)
        target = None
        if verdict.target_id is not None:
            # The neighbours were read lean; what is done to the target needs all of it.
            viewer = Viewer(bank_id, agent_id, Scope.COLLECTIVE)
            target = self.store.get_units(viewer, [verdict.target_id]).get(verdict.target_id)
        ruling = charter_rules.evaluate(
            charter,
            verdict.verdict,
            verdict.confidence,
            new_type=candidate.type,
            old_type=target.type if target else None,
            old_immutable=bool(target and target.metadata.get("immutable")),
            conflict_type=verdict.conflict_type,
        )
        return Assessment(verdict, claim, target, ruling, errors)

    def slot_rivals(
        self,
        unit: Unit,
        claim: Claim,
        rivals: Sequence[ClaimRecord],
        skip: frozenset[str],
        limit: int = MAX_SLOT_RIVALS,
    ) -> list[tuple[Unit, Judgement]]:
        """Live units holding another value of the new unit's one-valued slot that the rules
        also judge as contradicting it (at most ``limit``; units in ``skip`` left out).

        The verdict of an atom names one unit; a slot may hold several rival values ("Maple",
        "Birch" and now "Cedar"), and each is a disagreement a person should see.
        """
        viewer = Viewer(unit.bank_id, unit.agent_id, Scope.COLLECTIVE)
        ids = [
            uid
            for c in rivals
            for uid in self.store.claim_unit_ids(unit.bank_id, c.id)
            if uid not in skip and uid != unit.id
        ]
        units = self.store.get_units(viewer, list(dict.fromkeys(ids)), lean=True)
        candidate = Candidate(text=unit.text, type=unit.type, agent_id=unit.agent_id, claim=claim)
        found: list[tuple[Unit, Judgement]] = []
        for uid, other in units.items():
            if len(found) >= limit:
                break
            if other.status not in LIVE:
                continue
            nb = Neighbour(
                unit_id=uid,
                text=other.text,
                type=other.type,
                agent_id=other.agent_id,
                status=other.status.value,
                similarity=0.0,
                claim=extract_claim(other.text),
                knowers=other.knowers,
            )
            verdict = judge(candidate, [nb], self.config)
            if verdict.verdict == Verdict.CONTRADICT:
                full = self.store.get_units(viewer, [uid]).get(uid)
                if full is not None:
                    found.append((full, verdict))
        return found

    def _llm(
        self, text: str, near: list[tuple[Unit, float]]
    ) -> tuple[Judgement | None, tuple[str, ...]]:
        """The LLM's verdict, validated; unusable -> ADD and escalate; unreachable -> rules."""
        assert self.llm_judge is not None
        try:
            v = self.llm_judge.judge(text, [(u.id, u.text) for u, _ in near])
        except LLMInvalid as exc:
            return (
                Judgement(
                    Verdict.ADD,
                    None,
                    f"the LLM judge gave an unusable verdict ({exc.message}); kept "
                    "as new and escalated to a person",
                    0.0,
                    "escalated",
                ),
                (*exc.trail, exc.describe()),
            )
        except LLMError as exc:
            return None, (*exc.trail, exc.describe())  # unreachable: the offline rules judge
        kind = {Verdict.CONTRADICT: "value"}.get(v.verdict)
        return (
            Judgement(
                v.verdict, v.target_id, f"llm ({v.provider}): {v.reason}", v.confidence, kind
            ),
            v.errors,
        )


def is_merge(a: Assessment) -> bool:
    return a.judgement.verdict in (Verdict.NOOP, Verdict.LINK_EXISTING) and a.target is not None


def describe(verdicts: Sequence[Verdict]) -> str:
    return ", ".join(v.value for v in verdicts)
