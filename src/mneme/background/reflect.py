"""Reflect: consolidate a bank's evidence into observation units (issue 19, ADR 0051).

One pass reads the bank's live *shared* memories (the scope is a clause of the store's query:
an observation is bank-shared, so another agent's private memory is never its evidence),
composes the observations the evidence supports (``core.observations``), and writes only the
difference with what the bank already holds:

- an observation whose group and content key are unchanged: nothing is written (a second pass
  over unchanged evidence writes nothing, not even an audit record);
- a new group: a new observation unit (network ``observation``, embedded like any unit, so
  recall finds it) with a DERIVED_FROM edge to each evidence unit;
- a changed group: a new version that supersedes the old one (superseded, never edited; the
  chain and the ``history`` in its metadata keep every version);
- a group that no longer stands (its evidence rejected, superseded or purged below the bank's
  skepticism): the observation is retired (archived, ``retired_at`` set, the reason recorded).

With ``Config.reflect_llm`` and an LLM configured, the text of each observation about to be
written is composed by the model as claims checked against the evidence they cite
(``background.compose``, ADR 0058); what is written, revised or retired is decided as above.
A pass makes at most ``Config.reflect_llm_max_calls`` calls; a group beyond them is written with
its offline text, marked deferred, and revised by a later pass that composes it with the model.

Between passes, a decision that rejects or supersedes a memory retires at once the
observations derived from it (``note_change``, a listener of the review path, inside the
deciding transaction); the next pass re-derives them from what is left. A purge erases the
observations that cite what it erases (``trust.purge``): their text restates it.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

import numpy as np

from mneme import validate
from mneme.background.compose import Composed, compose
from mneme.core.model import (
    Edge,
    EdgeType,
    Network,
    Scope,
    Unit,
    UnitStatus,
    UnitType,
    Viewer,
    Visibility,
    derived_record,
)
from mneme.core.observations import (
    Disposition,
    Evidence,
    Observation,
    observe,
)
from mneme.embed.protocol import Embedder
from mneme.errors import InvalidInput, NotFound
from mneme.ids import new_id
from mneme.llm.protocol import LLM
from mneme.store.protocol import Audit, Banks, Filters, Graph, Memories, Transactions, UnitChanges


class ReflectStore(Transactions, Protocol):
    """The roles of the store this module uses (ADR 0044)."""

    banks: Banks
    memories: Memories
    graph: Graph
    audit: Audit


#: Who writes observations (``made_by`` of their edges; the audit actor is the caller).
REFLECT = "reflect"
#: Memories an observation may rest on: held by the system. A conflicted memory waits for a
#: person; a rejected, superseded or archived one is no evidence.
EVIDENCE_STATUSES = frozenset({UnitStatus.ACTIVE, UnitStatus.PROPOSED})
#: Observations a pass compares with: the live ones, and retired ones it may revise.
OBSERVATION_STATUSES = frozenset({UnitStatus.ACTIVE, UnitStatus.ARCHIVED})
#: Evidence statuses after which an observation derived from it is retired at once.
GONE = frozenset({UnitStatus.REJECTED, UnitStatus.SUPERSEDED, UnitStatus.ARCHIVED})
PAGE = 1000


@dataclass(frozen=True, slots=True)
class ReflectReport:
    """What one reflect pass did. Ids are observation unit ids; ``revised`` pairs are
    (old, new); ``skipped`` pairs are (group key, why); ``reason`` says why a pass wrote
    nothing when nothing could be written."""

    bank: str
    evidence: int = 0
    created: tuple[str, ...] = ()
    revised: tuple[tuple[str, str], ...] = ()
    retired: tuple[str, ...] = ()
    unchanged: int = 0
    skipped: tuple[tuple[str, str], ...] = ()
    seconds: float = 0.0
    reason: str | None = None
    disposition: Mapping[str, Any] = field(default_factory=dict)
    #: Group keys whose observation the LLM composed (ADR 0058); () when none was asked.
    llm: tuple[str, ...] = ()
    #: (group key, why) of the groups composed offline although an LLM was configured.
    fallbacks: tuple[tuple[str, str], ...] = ()
    #: (group key, "claim: why") of the LLM's claims dropped as unsupported.
    dropped: tuple[tuple[str, str], ...] = ()
    #: Group keys the pass's cap of LLM calls kept from the model: written (or left) with the
    #: offline text, for a later pass to compose.
    deferred: tuple[str, ...] = ()

    @property
    def changed(self) -> bool:
        return bool(self.created or self.revised or self.retired)


def observation_meta(unit: Unit) -> Mapping[str, Any]:
    """The ``observation`` record in an observation unit's metadata ({} for other units)."""
    return derived_record(unit, Network.OBSERVATION)


def _no_llm() -> LLM | None:
    return None


def _default_cap() -> int:
    return 50


class Reflector:
    def __init__(
        self,
        store: ReflectStore,
        embedder: Embedder,
        clock: Callable[[], dt.datetime],
        llm: Callable[[], LLM | None] = _no_llm,
        max_calls: Callable[[], int] = _default_cap,
    ) -> None:
        self.store = store
        self.embedder = embedder
        self.clock = clock
        #: The LLM a pass composes with, asked at the start of each pass (a reload may switch
        #: it on or off); None: offline (ADR 0058).
        self.llm = llm
        #: The most LLM calls a pass makes (``Config.reflect_llm_max_calls``), asked per pass.
        self.max_calls = max_calls
        # One pass at a time in this process: the background cadence and a caller's
        # ``reflect`` on one bank would both see a group unwritten and both write it.
        self._one_pass = threading.Lock()

    # -- a pass -----------------------------------------------------------------------

    def disposition(self, bank: str, overrides: Mapping[str, Any]) -> Disposition:
        """The bank's disposition (its config's ``reflect``), with this call's overrides."""
        found = self.store.banks.get_bank(bank)
        if found is None:
            raise NotFound(f"no bank {bank!r}")
        stored = found.config.get("reflect") or {}
        if not isinstance(stored, Mapping):
            raise InvalidInput(f"bank {bank!r}: config 'reflect' must be a mapping")
        given = {k: v for k, v in overrides.items() if v is not None}
        try:
            return Disposition.from_config({**stored, **given})
        except ValueError as exc:
            raise InvalidInput(f"bank {bank!r}: {exc}") from exc

    def reflect(
        self,
        bank: str,
        *,
        agent: str,
        skepticism: int | None = None,
        literalism: bool | None = None,
        max_cited: int | None = None,
    ) -> ReflectReport:
        """Consolidate the bank's shared evidence into observations; write the difference.

        ``skepticism``, ``literalism`` and ``max_cited`` override the bank's disposition
        (config ``reflect``) for this pass.

        Raises:
            NotFound: no such bank.
            InvalidInput: a bad id or disposition.
        """
        with self._one_pass:
            return self._pass(bank, agent, skepticism, literalism, max_cited)

    def set_disposition(
        self,
        bank: str,
        *,
        actor: str,
        reason: str = "",
        skepticism: int | None = None,
        literalism: bool | None = None,
        max_cited: int | None = None,
    ) -> Disposition:
        """Lay the given values over the bank's disposition (config ``reflect``); audited as
        a change of the bank's configuration. None leaves a value as it is.

        Raises:
            NotFound: no such bank.
            InvalidInput: a bad id or disposition (nothing is written).
        """
        bank = validate.ident(bank, "bank")
        actor = validate.ident(actor, "actor")
        given = {"skepticism": skepticism, "literalism": literalism, "max_cited": max_cited}
        with self.store.transaction():
            disposition = self.disposition(bank, given)
            found = self.store.banks.get_bank(bank)
            assert found is not None  # disposition() raised NotFound otherwise
            self.store.banks.set_bank_config(
                bank,
                {**found.config, "reflect": disposition.as_dict()},
                actor=actor,
                reason=reason or "reflect disposition set",
            )
        return disposition

    def _pass(
        self,
        bank: str,
        agent: str,
        skepticism: int | None,
        literalism: bool | None,
        max_cited: int | None,
    ) -> ReflectReport:
        started = time.perf_counter()
        bank = validate.ident(bank, "bank")
        agent = validate.ident(agent, "agent")
        disposition = self.disposition(
            bank, {"skepticism": skepticism, "literalism": literalism, "max_cited": max_cited}
        )
        report = ReflectReport(bank=bank, disposition=disposition.as_dict())
        units = self._read(bank)
        # An insight is a hypothesis (ADR 0056): never evidence for an observation.
        evidence = [u for u in units if u.network not in (Network.OBSERVATION, Network.INSIGHT)]
        held = [u for u in units if u.network == Network.OBSERVATION]
        # Every evidence unit's stored vector, one read: facets compare them (ADR 0051, fifth
        # sitting) and an observation's vector is their mean.
        owner = Viewer(bank, REFLECT, Scope.OWNER)
        stored = self.store.memories.unit_vectors(
            owner, [u.id for u in evidence], self.embedder.model_id
        )
        found = observe([_evidence(u, stored.get(u.id)) for u in evidence], disposition)
        skipped = tuple((s.key, s.reason) for s in found.skipped)
        current = _by_key(held)
        llm, cap = self.llm(), self.max_calls()
        # Deferred by an earlier pass's cap, evidence unchanged: asked first, oldest backlog
        # before new groups, so a growing bank cannot keep them offline.
        pending = frozenset(
            o.key
            for o in found.observations
            if llm is not None and cap > 0 and (c := current.get(o.key)) is not None
            and not _differs(c, o) and "deferred" in _composed(c)
        )  # fmt: skip
        todo = [o for o in found.observations if o.key in pending] + [
            o for o in found.observations if (c := current.get(o.key)) is None or _differs(c, o)
        ]
        unchanged = len(found.observations) - len(todo)
        stale = sorted(
            u.id
            for key, u in current.items()
            if u.status == UnitStatus.ACTIVE and key not in {o.key for o in found.observations}
        )
        if not todo and not stale:
            why = None
            if not evidence:
                why = "no evidence: the bank holds no live shared memory"
            elif not found.observations:
                why = "no group of evidence reaches the bank's skepticism"
            return _done(report, started, evidence=len(evidence), unchanged=unchanged,
                         skipped=skipped, reason=why)  # fmt: skip
        # The only model calls of a pass, before its transaction (ADR 0058).
        composed = compose(
            todo, {u.id: _evidence(u) for u in evidence}, disposition, llm,
            max_calls=cap, pending=pending,
        )  # fmt: skip
        deferred = tuple(c.observation.key for c in composed if c.deferred)
        # A pending group kept from the model again stays as it is.
        composed = [c for c in composed if not (c.deferred and c.observation.key in pending)]
        unchanged += len(todo) - len(composed)
        todo = [c.observation for c in composed]
        vectors = self._vectors(todo, stored)
        by_id = {u.id: u for u in evidence}
        created: list[str] = []
        revised: list[tuple[str, str]] = []
        retired: list[str] = []
        with self.store.transaction():
            now = self.clock()
            # Evidence may have changed since it was read (a purge, a rejection): only what is
            # still live is written on; the rest waits for the next pass, with the reason.
            live = self._still_live(bank, [uid for o in todo for uid in o.evidence_ids])
            for made, obs, vector in zip(composed, todo, vectors, strict=True):
                gone = [uid for uid in obs.evidence_ids if uid not in live]
                if gone:
                    skipped += ((obs.key, f"evidence changed during the pass: {gone}"),)
                    continue
                old = current.get(obs.key)
                unit = self._write(made, vector, by_id, old, agent, disposition, now)
                if old is None:
                    created.append(unit.id)
                else:
                    why = "its evidence changed"
                    if obs.key in pending:
                        why = "composed now, an earlier pass's cap of LLM calls deferred it"
                    self._supersede(old, unit, agent, now, why)
                    revised.append((old.id, unit.id))
            for uid in stale:
                self._retire(bank, uid, agent, "its evidence no longer supports it", now)
                retired.append(uid)
            if created or revised or retired:
                self.store.audit.append(
                    bank,
                    agent,
                    "reflect",
                    bank,
                    None,
                    {
                        "created": created,
                        "revised": [list(p) for p in revised],
                        "retired": retired,
                        "unchanged": unchanged,
                        "evidence": len(evidence),
                        "disposition": disposition.as_dict(),
                        **_llm_record(composed, deferred),
                    },
                    "reflect: observations consolidated from evidence",
                )
        return _done(
            report,
            started,
            evidence=len(evidence),
            created=tuple(created),
            revised=tuple(revised),
            retired=tuple(retired),
            unchanged=unchanged,
            skipped=skipped,
            llm=tuple(c.observation.key for c in composed if c.record["by"] == "llm"),
            fallbacks=tuple((c.observation.key, f) for c in composed if (f := c.fallback)),
            dropped=tuple(
                (c.observation.key, f"{d['text']!r}: {d['why']}")
                for c in composed
                for d in c.record.get("dropped", ())
            ),
            deferred=deferred,
        )

    def _vectors(self, todo: Sequence[Observation], stored: Mapping[str, Any]) -> list[Any]:
        """Each observation's vector: the normalized mean of its evidence's stored vectors.

        An observation's text is its evidence's statements (verbatim or compressed), so its
        meaning is theirs, and their vectors are already in the store: no model call. (Encoding
        the joined text instead cost 6.7 s per 1,000 units on LoCoMo, nearly all of reflect,
        and the model truncates a long text at 256 tokens anyway.) An observation any of whose
        evidence has no vector of this embedder's model is embedded from its text, outside the
        transaction, like the write path's embedding."""
        out: list[Any] = [None] * len(todo)
        missing: list[int] = []
        for i, obs in enumerate(todo):
            found = [stored[uid] for uid in obs.evidence_ids if uid in stored]
            if found and len(found) == len(obs.evidence_ids):
                mean = np.asarray(found, dtype=np.float32).mean(axis=0)
                norm = float(np.linalg.norm(mean))
                if norm > 0.0:
                    out[i] = mean / np.float32(norm)
                    continue
            missing.append(i)
        if missing:
            for i, vector in zip(
                missing, self.embedder.embed([todo[i].text for i in missing]), strict=True
            ):
                out[i] = vector
        return out

    def _read(self, bank: str) -> list[Unit]:
        """Every shared evidence unit and every observation of the bank, in pages. Scope and
        statuses are clauses of the store's query."""
        owner = Viewer(bank, REFLECT, Scope.OWNER)
        filters = Filters(
            statuses=EVIDENCE_STATUSES | OBSERVATION_STATUSES, visibility=Visibility.SHARED
        )
        out: list[Unit] = []
        while True:
            page = self.store.memories.list_units(owner, filters, PAGE, len(out))
            out.extend(page)
            if len(page) < PAGE:
                break
        return [u for u in out if u.network == Network.OBSERVATION or u.status in EVIDENCE_STATUSES]

    def _still_live(self, bank: str, ids: Sequence[str]) -> set[str]:
        owner = Viewer(bank, REFLECT, Scope.OWNER)
        found = self.store.memories.get_units(owner, list(dict.fromkeys(ids)), lean=True)
        return {
            uid
            for uid, u in found.items()
            if u.status in EVIDENCE_STATUSES and u.visibility == Visibility.SHARED
        }

    def _write(
        self,
        made: Composed,
        vector: Any,
        evidence: Mapping[str, Unit],
        old: Unit | None,
        agent: str,
        disposition: Disposition,
        now: dt.datetime,
    ) -> Unit:
        obs = made.observation
        members = [evidence[uid] for uid in obs.evidence_ids]
        before = observation_meta(old) if old is not None else {}
        history = [*before.get("history", ()), *([_version(old)] if old is not None else [])]
        unit_id = new_id("u_")
        unit = Unit(
            id=unit_id,
            bank_id=members[0].bank_id,
            text=obs.text,
            # Unique per version: a group whose evidence returns to an earlier state (a
            # rejected statement) composes an earlier content key again, and a bank holds one
            # unit per content key. The pass compares the ``basis`` below.
            content_key=_version_key(obs.content_key, unit_id),
            network=Network.OBSERVATION,
            type=UnitType(obs.type),
            status=UnitStatus.ACTIVE,
            confidence=round(sum(u.confidence for u in members) / len(members), 4),
            agent_id=agent,
            recorded_at=now,
            visibility=Visibility.SHARED,
            occurred_start=obs.first_at,
            occurred_end=obs.last_at,
            embedding_model=self.embedder.model_id,
            embedding_dim=len(vector),
            knowers=tuple(sorted({k for u in members for k in (u.knowers or (u.agent_id,))})),
            supersedes=(old.id,) if old is not None else (),
            evidence=obs.source_ids,
            metadata={
                "observation": {
                    "key": obs.key,
                    "basis": obs.content_key,
                    "label": obs.label,
                    "evidence_units": list(obs.evidence_ids),
                    "proof_count": obs.proof_count,
                    "first_evidence_at": obs.first_at.isoformat(),
                    "last_evidence_at": obs.last_at.isoformat(),
                    "disposition": disposition.as_dict(),
                    "revision": len(history) + 1,
                    "history": history,
                    "composed": dict(made.record),
                }
            },
        )
        self.store.memories.put_unit(unit, vector)
        self.store.graph.put_edges(
            [
                Edge(
                    id=new_id("e_"),
                    bank_id=unit.bank_id,
                    src=unit.id,
                    dst=uid,
                    type=EdgeType.DERIVED_FROM,
                    made_by=REFLECT,
                    created_at=now,
                )
                for uid in obs.evidence_ids
            ]
        )
        return unit

    def _supersede(self, old: Unit, new: Unit, actor: str, now: dt.datetime, why: str) -> None:
        self.store.memories.update_unit(
            old.bank_id,
            old.id,
            UnitChanges(
                status=UnitStatus.SUPERSEDED, superseded_by=new.id, valid_until=now, retired_at=now
            ),
            actor=actor,
            reason=f"reflect: revised as {new.id} ({why})",
        )
        self.store.graph.put_edge(
            Edge(
                id=new_id("e_"),
                bank_id=old.bank_id,
                src=new.id,
                dst=old.id,
                type=EdgeType.SUPERSEDES,
                made_by=REFLECT,
                created_at=now,
            )
        )

    def _retire(self, bank: str, unit_id: str, actor: str, why: str, now: dt.datetime) -> None:
        self.store.memories.update_unit(
            bank,
            unit_id,
            UnitChanges(
                status=UnitStatus.ARCHIVED, retired_at=now, metadata={"retired_because": why}
            ),
            actor=actor,
            reason=f"reflect: retired, {why}",
        )

    # -- between passes -------------------------------------------------------------

    def note_change(self, unit: Unit, why: str) -> None:
        """A memory was rejected or superseded: the observations derived from it are retired
        at once (inside the deciding transaction); the next pass re-derives what is left."""
        if unit.network == Network.OBSERVATION or unit.status not in GONE:
            return
        owner = Viewer(unit.bank_id, REFLECT, Scope.OWNER)
        derived = [
            e.src
            for e in self.store.graph.edges_of(owner, unit.id)
            if e.type == EdgeType.DERIVED_FROM and e.dst == unit.id
        ]
        found = self.store.memories.get_units(owner, derived, lean=True) if derived else {}
        for obs in found.values():
            if obs.network == Network.OBSERVATION and obs.status == UnitStatus.ACTIVE:
                self._retire(
                    unit.bank_id,
                    obs.id,
                    REFLECT,
                    f"evidence {unit.id} is {unit.status.value} ({why})",
                    self.clock(),
                )


def _evidence(u: Unit, vector: Any = None) -> Evidence:
    return Evidence(
        unit_id=u.id,
        text=u.text,
        when=u.occurred_start or u.mentioned_at or u.recorded_at,
        entities=u.entities,
        sources=u.evidence,
        type=u.type.value,
        vector=vector,
    )


def _llm_record(composed: Sequence[Composed], deferred: Sequence[str]) -> dict[str, Any]:
    """What the audit record of a pass says of the LLM: nothing when none was asked."""
    asked = [c for c in composed if c.record["by"] == "llm" or c.fallback]
    if not asked and not deferred:
        return {}
    return {
        "llm": [c.observation.key for c in asked if c.record["by"] == "llm"],
        "fallbacks": [[c.observation.key, c.fallback] for c in asked if c.fallback],
        "dropped": sum(len(c.record.get("dropped", ())) for c in asked),
        "deferred": list(deferred),
    }


def _composed(u: Unit) -> Mapping[str, Any]:
    """How an observation's text was made (``metadata.observation.composed``; {} if unknown)."""
    found = observation_meta(u).get("composed")
    return found if isinstance(found, Mapping) else {}


def _by_key(held: Sequence[Unit]) -> dict[str, Unit]:
    """Per group key, the observation a pass compares with: the newest one not superseded."""
    out: dict[str, Unit] = {}
    for u in sorted(held, key=lambda u: (u.recorded_at, u.id)):
        key = observation_meta(u).get("key")
        if isinstance(key, str) and u.status in OBSERVATION_STATUSES:
            out[key] = u
    return out


def _differs(current: Unit, obs: Observation) -> bool:
    """Whether the stored observation must be revised: its evidence composes other content
    (the offline composition's key, ``basis``; a unit written before it was recorded holds
    it as its content key), or it was retired."""
    basis = observation_meta(current).get("basis", current.content_key)
    return basis != obs.content_key or current.status != UnitStatus.ACTIVE


def _version_key(basis: str, unit_id: str) -> str:
    return hashlib.sha256(f"{basis}\x1f{unit_id}".encode()).hexdigest()[:32]


def _version(u: Unit) -> dict[str, Any]:
    meta = observation_meta(u)
    return {
        "id": u.id,
        "recorded_at": u.recorded_at.isoformat(),
        "proof_count": meta.get("proof_count"),
        "status": u.status.value,
    }


def _done(report: ReflectReport, started: float, **changes: Any) -> ReflectReport:
    return replace(report, seconds=round(time.perf_counter() - started, 4), **changes)
