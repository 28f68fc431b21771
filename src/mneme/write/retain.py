"""The retain pipeline: validate, store the immutable source, atomize, classify, dedup, link.

Planning (validation, atomization, classification, time and entity extraction) is pure and
happens before any lock is taken; embedding happens in one batch per call, also outside the
write transaction; the transaction then writes the source, the units, their entities, knowers,
evidence and edges, and the audit records, all or nothing.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from mneme import validate
from mneme.config import Config
from mneme.core.atomize import split_atoms
from mneme.core.keys import content_hash, content_key
from mneme.core.language import EntityMention, classify, entity_key, extract_entities
from mneme.core.model import (
    Agent,
    Bank,
    Decision,
    Edge,
    EdgeType,
    Entity,
    Network,
    RetainResult,
    RetainStatus,
    Scope,
    Source,
    Unit,
    UnitStatus,
    UnitType,
    Verdict,
    Viewer,
)
from mneme.core.timeexpr import find_time_expressions
from mneme.embed.protocol import Embedder
from mneme.errors import Conflict, NotFound
from mneme.ids import new_id
from mneme.store.protocol import Store, UnitChanges

#: Confidence at write time by network (ADR 0004): experience is first-hand, world facts are
#: reported, opinions are held with less certainty by nature. Scaled by the source's trust.
BASE_CONFIDENCE: Mapping[Network, float] = {
    Network.EXPERIENCE: 0.85,
    Network.WORLD: 0.8,
    Network.OBSERVATION: 0.7,
    Network.OPINION: 0.6,
}


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


class Retainer:
    def __init__(
        self, store: Store, embedder: Embedder, config: Config, clock: Callable[[], dt.datetime]
    ) -> None:
        self.store = store
        self.embedder = embedder
        self.config = config
        self.clock = clock

    # -- planning (pure apart from reading the clock) -----------------------------------

    def plan(
        self,
        text: Any,
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
        bank_id = validate.ident(bank, "bank")
        agent_id = validate.ident(agent, "agent")
        now = self.clock()
        occurred = validate.when(occurred_at, "occurred_at")
        mentioned = validate.when(mentioned_at, "mentioned_at")
        vis = validate.visibility(visibility)
        anchor = occurred or mentioned or now
        source = Source(
            id=validate.optional_ident(source_id, "source_id") or new_id("src_"),
            bank_id=bank_id,
            text=body,
            content_hash=content_hash(body),
            agent_id=agent_id,
            recorded_at=now,
            kind=str(source_kind or "message"),
            session_id=validate.optional_ident(session, "session"),
            task_id=validate.optional_ident(task, "task"),
            occurred_at=occurred or mentioned,
            mentioned_at=mentioned or occurred or now,
            trust=validate.trust(trust),
            visibility=vis,
            metadata=validate.metadata(metadata),
        )
        sup = supersedes or ()
        if isinstance(sup, str):
            sup = (sup,)
        sup_ids = tuple(validate.ident(s, "supersedes id") for s in sup)
        atoms: list[Atom] = []
        seen: set[str] = set()
        for piece in split_atoms(body)[: self.config.max_atoms]:
            atom = self._atom(piece, anchor, source.trust)
            if atom.key not in seen:
                seen.add(atom.key)
                atoms.append(atom)
        return Plan(source=source, atoms=atoms, supersedes=sup_ids)

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

    # -- execution ----------------------------------------------------------------------

    def run(self, plans: Sequence[Plan]) -> list[RetainResult]:
        self.prepare(plans)
        return self.commit(plans)

    def commit(self, plans: Sequence[Plan]) -> list[RetainResult]:
        """Write prepared plans in one transaction (nested in the caller's, if any)."""
        with self.store.transaction():
            return [self._commit(plan) for plan in plans]

    def prepare(self, plans: Sequence[Plan]) -> None:
        """One batch for every atom not already stored (a repeat needs no new vector)."""
        todo: dict[str, str] = {}
        for plan in plans:
            src = plan.source
            for atom in plan.atoms:
                if atom.key in todo:
                    continue
                if (
                    self.store.find_by_content_key(
                        src.bank_id, atom.key, src.visibility, src.agent_id
                    )
                    is None
                ):
                    todo[atom.key] = atom.text
        if not todo:
            return
        vectors = self.embedder.embed(list(todo.values()))
        by_key = dict(zip(todo, vectors, strict=True))
        for plan in plans:
            plan.vectors = {a.key: by_key[a.key] for a in plan.atoms if a.key in by_key}

    def _commit(self, plan: Plan) -> RetainResult:
        src = plan.source
        store = self.store
        now = src.recorded_at
        if store.get_bank(src.bank_id) is None:
            if not self.config.create_banks:
                raise NotFound(f"no bank {src.bank_id!r} (create_banks is off)")
            store.ensure_bank(Bank(id=src.bank_id, name=src.bank_id, created_at=now))
        store.heartbeat(Agent(id=src.agent_id, bank_id=src.bank_id, first_seen=now, last_seen=now))
        admin = Viewer(src.bank_id, src.agent_id, Scope.COLLECTIVE)
        existing = store.get_source(admin, src.id)
        if existing is not None:
            return self._replay(plan, existing)
        if store.locate(src.id) is not None:
            raise Conflict(f"source id {src.id!r} is already used in another bank")
        store.put_source(src)
        decisions: list[Decision] = []
        new_ids: list[str] = []
        deduped: list[str] = []
        for atom in plan.atoms:
            found = store.find_by_content_key(src.bank_id, atom.key, src.visibility, src.agent_id)
            if found is not None:
                new_knower = store.add_evidence(src.bank_id, found.id, src.id, src.agent_id, now)
                verdict = (
                    Verdict.LINK_EXISTING
                    if new_knower and src.agent_id not in found.knowers
                    else Verdict.NOOP
                )
                reason = (
                    "another agent already knew this fact: one unit, one more knower"
                    if verdict is Verdict.LINK_EXISTING
                    else "an exact repeat: more evidence"
                )
                decisions.append(Decision(verdict, atom.text, found.id, found.id, reason))
                deduped.append(found.id)
                continue
            unit = self._new_unit(plan, atom)
            store.put_unit(unit, plan.vectors.get(atom.key) if unit.embedding_model else None)
            self._link(unit, atom, src)
            new_ids.append(unit.id)
            decisions.append(Decision(Verdict.ADD, atom.text, unit.id, None, "new claim"))
        if plan.supersedes and new_ids:
            self._supersede(plan, new_ids, decisions)
        return RetainResult(
            status=RetainStatus.OK,
            source_id=src.id,
            memory_ids=tuple(new_ids + deduped),
            decisions=tuple(decisions),
            deduped=tuple(deduped),
        )

    def _new_unit(self, plan: Plan, atom: Atom) -> Unit:
        src = plan.source
        vector = plan.vectors.get(atom.key)
        if vector is None:
            # Raced with a writer that stored (then lost) the same key: embed it now.
            vector = self.embedder.embed([atom.text])[0]
            plan.vectors[atom.key] = vector
        return Unit(
            id=new_id("u_"),
            bank_id=src.bank_id,
            text=atom.text,
            content_key=atom.key,
            network=atom.network,
            type=atom.type,
            status=UnitStatus.ACTIVE,
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
            metadata={"session_id": src.session_id} if src.session_id else {},
        )

    def _link(self, unit: Unit, atom: Atom, src: Source) -> None:
        ids = []
        for mention in atom.entities:
            entity = self.store.upsert_entity(
                Entity(
                    id=new_id("ent_"),
                    bank_id=src.bank_id,
                    name=mention.name,
                    key=entity_key(mention.name),
                    kind=mention.kind,
                    aliases=mention.aliases,
                )
            )
            ids.append(entity.id)
        if ids:
            self.store.add_mentions(src.bank_id, unit.id, ids)
        self.store.put_edge(
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

    def _supersede(self, plan: Plan, new_ids: list[str], decisions: list[Decision]) -> None:
        """The caller said this input corrects earlier sources or units: retire them."""
        src = plan.source
        viewer = Viewer(src.bank_id, src.agent_id, Scope.COLLECTIVE)
        targets: list[Unit] = []
        for ref in plan.supersedes:
            units = self.store.get_units(viewer, [ref])
            if units:
                targets.extend(units.values())
                continue
            by_source = self.store.units_of_source(viewer, ref)
            if not by_source and self.store.get_source(viewer, ref) is None:
                raise NotFound(
                    f"supersedes names {ref!r}, which is no unit or source "
                    f"visible to {src.agent_id} in bank {src.bank_id}"
                )
            targets.extend(by_source)
        successor = new_ids[0]
        for old in targets:
            if old.id in new_ids or old.status == UnitStatus.SUPERSEDED:
                continue
            self.store.update_unit(
                src.bank_id,
                old.id,
                UnitChanges(
                    status=UnitStatus.SUPERSEDED,
                    superseded_by=successor,
                    valid_until=max(
                        src.occurred_at or src.recorded_at, old.valid_from or src.recorded_at
                    ),
                    retired_at=src.recorded_at,
                ),
                actor=src.agent_id,
                reason=f"superseded by source {src.id} at the caller's request",
            )
            self.store.update_unit(
                src.bank_id,
                successor,
                UnitChanges(add_supersedes=(old.id,)),
                actor=src.agent_id,
                reason="supersedes",
            )
            self.store.put_edge(
                Edge(
                    id=new_id("e_"),
                    bank_id=src.bank_id,
                    src=successor,
                    dst=old.id,
                    type=EdgeType.SUPERSEDES,
                    made_by="caller",
                    created_at=src.recorded_at,
                )
            )
            decisions.append(
                Decision(
                    Verdict.SUPERSEDE,
                    old.text,
                    successor,
                    old.id,
                    "the caller named it as corrected",
                )
            )

    def _replay(self, plan: Plan, existing: Source) -> RetainResult:
        """The same source id again: idempotent when the content matches, an error if not."""
        src = plan.source
        if existing.content_hash != src.content_hash:
            raise Conflict(
                f"source id {src.id!r} already holds different text in bank {src.bank_id}; "
                "sources are immutable: use a new source id (and supersedes=) to correct it"
            )
        viewer = Viewer(src.bank_id, src.agent_id, Scope.COLLECTIVE)
        ids = []
        for atom in plan.atoms:
            found = self.store.find_by_content_key(
                src.bank_id, atom.key, src.visibility, src.agent_id
            )
            if found is not None and self.store.get_units(viewer, [found.id]):
                ids.append(found.id)
        return RetainResult(
            status=RetainStatus.OK,
            source_id=src.id,
            memory_ids=tuple(ids),
            decisions=tuple(
                Decision(Verdict.NOOP, a.text, None, None, "source already retained")
                for a in plan.atoms
            ),
            deduped=tuple(ids),
            metadata={"replayed": True},
        )
