"""Planning a retain: validation, the immutable source, atomization, classification, times.

Pure apart from reading the clock once; runs before any lock is taken. Every bad input fails
here with a clear error, so nothing is written for it.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from mneme import validate
from mneme.config import Config
from mneme.core.atomize import split_atoms
from mneme.core.keys import content_hash, content_key
from mneme.core.language import EntityMention, classify, extract_entities
from mneme.core.model import Network, Source, UnitType
from mneme.core.sensitive import Screening
from mneme.core.timeexpr import find_time_expressions
from mneme.errors import InvalidInput
from mneme.ids import new_id

#: Confidence at write time by network (ADR 0004): experience is first-hand, world facts are
#: reported, opinions are held with less certainty by nature. Scaled by the source's trust.
BASE_CONFIDENCE: Mapping[Network, float] = {
    Network.EXPERIENCE: 0.85,
    Network.WORLD: 0.8,
    Network.OBSERVATION: 0.7,
    Network.OPINION: 0.6,
}


#: "User:", "Note: ": a speaker or a label and nothing else.
_ONLY_LABEL = re.compile(r"\s*[^:\n]{1,60}:\s*")


def _iso(value: str | None) -> dt.datetime | None:
    if not value:
        return None
    try:
        return validate.when(value, "time")
    except Exception:  # the extractor validated it; a bad one simply falls back
        return None


def confidence(network: Network, trust: float | None) -> float:
    t = 1.0 if trust is None else trust
    return round(BASE_CONFIDENCE[network] * (0.5 + 0.5 * t), 4)


@dataclass(frozen=True, slots=True)
class Atom:
    text: str
    network: Network
    type: UnitType
    key: str
    occurred_start: dt.datetime
    occurred_end: dt.datetime
    valid_from: dt.datetime
    entities: tuple[EntityMention, ...]
    confidence: float


@dataclass(slots=True)
class Plan:
    source: Source
    atoms: list[Atom]
    supersedes: tuple[str, ...]
    vectors: dict[str, np.ndarray] = field(default_factory=dict)  # content key -> vector
    #: Relations between atoms (from the LLM extractor): (index, index, type), "A type B".
    relations: list[tuple[int, int, str]] = field(default_factory=list)
    extracted_by: str = "rules"
    llm_errors: list[str] = field(default_factory=list)
    #: What the write-time defence found and did (ADR 0034); None when nothing screened it.
    screening: Screening | None = None


#: Screens one input: (bank, agent, source id, text) -> the text to store and the decision.
Screen = Callable[[str, str, str, str], Screening]


class Planner:
    def __init__(self, config: Config, clock: Callable[[], dt.datetime]) -> None:
        self.config = config
        self.clock = clock

    def plan(
        self,
        text: Any,
        screen: Screen | None = None,
        /,
        *,
        bank: Any,
        agent: Any,
        session: Any = None,
        occurred_at: Any = None,
        mentioned_at: Any = None,
        source_id: Any = None,
        source_kind: Any = None,
        trust: Any = None,
        supersedes: Any = None,
        visibility: Any = "shared",
        metadata: Any = None,
        task: Any = None,
    ) -> Plan:
        body = validate.text(text, max_chars=self.config.max_text_chars)
        if _ONLY_LABEL.fullmatch(body):
            raise InvalidInput(
                f"the text {body.strip()!r} is only a speaker or a label: nothing is said after it"
            )
        bank_id = validate.ident(bank, "bank")
        agent_id = validate.ident(agent, "agent")
        now = self.clock()
        occurred = validate.when(occurred_at, "occurred_at")
        mentioned = validate.when(mentioned_at, "mentioned_at")
        vis = validate.visibility(visibility)
        anchor = occurred or mentioned or now
        sid = validate.optional_ident(source_id, "source_id") or new_id("src_")
        sup = supersedes or ()
        if isinstance(sup, str):
            sup = (sup,)
        sup_ids = tuple(validate.ident(s, "supersedes id") for s in sup)
        meta = validate.metadata(metadata)
        trust_value = validate.trust(trust)
        session_id = validate.optional_ident(session, "session")
        task_id = validate.optional_ident(task, "task")
        # Last, once every argument is known good: what it finds may refuse the write, and
        # what it redacts is gone before the source, its atoms or their vectors exist.
        screening = screen(bank_id, agent_id, sid, body) if screen is not None else None
        if screening is not None:
            body = screening.text
        source = Source(
            id=sid,
            bank_id=bank_id,
            text=body,
            content_hash=content_hash(body),
            agent_id=agent_id,
            recorded_at=now,
            kind=str(source_kind or "message"),
            session_id=session_id,
            task_id=task_id,
            occurred_at=occurred or mentioned,
            mentioned_at=mentioned or occurred or now,
            trust=trust_value,
            visibility=vis,
            metadata=meta,
        )
        atoms: list[Atom] = []
        seen: set[str] = set()
        for piece in split_atoms(body)[: self.config.max_atoms]:
            atom = self._atom(piece, anchor, source.trust)
            if atom.key not in seen:
                seen.add(atom.key)
                atoms.append(atom)
        return Plan(source=source, atoms=atoms, supersedes=sup_ids, screening=screening)

    def anchor(self, plan: Plan) -> dt.datetime:
        src = plan.source
        return src.occurred_at or src.mentioned_at or src.recorded_at

    def from_facts(self, plan: Plan, facts: list[Any]) -> None:
        """Replace a plan's rule-made atoms with an LLM's facts (validated by the extractor).

        Type and network come from the model; times from the model when it gave them, else
        from the offline parser; entities are the model's names plus the offline ones.
        """
        anchor = self.anchor(plan)
        atoms: list[Atom] = []
        index: dict[int, int] = {}
        for i, fact in enumerate(facts[: self.config.max_atoms]):
            base = self._atom(fact.text, anchor, plan.source.trust)
            start = _iso(fact.occurred_start) or base.occurred_start
            end = _iso(fact.occurred_end) or (start if fact.occurred_start else base.occurred_end)
            names = {e.name for e in base.entities}
            extra = tuple(EntityMention(n, "thing", ()) for n in fact.entities if n not in names)
            atom = Atom(
                text=fact.text,
                network=fact.network,
                type=fact.type,
                key=content_key(fact.text, fact.type.value),
                occurred_start=start,
                occurred_end=max(end, start),
                valid_from=min(start, anchor),
                entities=base.entities + extra,
                confidence=confidence(fact.network, plan.source.trust),
            )
            if atom.key in {a.key for a in atoms}:
                continue
            index[i] = len(atoms)
            atoms.append(atom)
        if not atoms:
            return
        plan.atoms = atoms
        plan.extracted_by = "llm"
        plan.relations = [
            (index[i], index[r.target_index], str(r.type))
            for i, fact in enumerate(facts)
            if i in index
            for r in fact.relations
            if r.target_index in index
        ]

    def _atom(self, piece: str, anchor: dt.datetime, trust: float | None) -> Atom:
        network, utype = classify(piece)
        times = find_time_expressions(piece, anchor)
        if times:
            start = min(t.start for t in times)
            end = max(t.end for t in times)
        else:
            start = end = anchor
        return Atom(
            text=piece,
            network=network,
            type=utype,
            key=content_key(piece, utype.value),
            occurred_start=start,
            occurred_end=end,
            valid_from=min(start, anchor),
            entities=tuple(extract_entities(piece)),
            confidence=confidence(network, trust),
        )
