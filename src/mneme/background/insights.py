"""Insights: the generative pass over a bank, from categories to verified hypotheses (ADR 0056).

One pass (``Insighter.run``), bounded at every stage:

1. **Categorize** at most ``units_per_pass`` untagged memories (``background.categorize``).
2. **Stitch**: propose at most ``STITCH_LIMIT`` BECAUSE edges where a memory states a cause
   explicitly and another memory sharing an entity says it (``core.causal``); hypothesis-grade
   (``metadata.grade``), made by ``insights``, never twice for one pair; with an LLM
   configured, a bounded judge over pairs sharing an entity too (``background.stitching``).
3. **Threads** through the categories (``core.threads``: support, PMI, another session,
   coherence floor by the memories' stored vectors raised to the bank's own quantile of
   pairwise cosines, polysemy guard), at most ``max_steps``
   witnesses tried.
4. **Insights**: ranked and deduplicated (``core.insights``); those whose key the bank does
   not hold yet are written as insight units (network and type ``insight``, ``proposed``,
   embedded so recall finds them, evidence the witnesses' sources) with a SUPPORTS edge from
   each witness (``metadata.order`` its place in the chain). More new ones than ``max_new``:
   the best ``max_new`` are written and the stage pauses for the bank (bank config
   ``insights.paused``, audited) until a run with ``resume``.
5. **Verify** every proposed or verified insight against its witnesses (``core.insights.verdict``).

A second pass over unchanged memories writes nothing: tagged memories are not tagged again, an
edge or insight already held is not written again, and a verdict that changes nothing is not
written.
"""

from __future__ import annotations

import datetime as dt
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any, Protocol

import numpy as np

from mneme import validate
from mneme.background.categorize import (
    TAGGED_STATUSES,
    Categorizer,
    CategorizeReport,
    live_memories,
    unit_rows,
    when,
)
from mneme.background.stitching import HYPOTHESIS_CONFIDENCE, JUDGED, propose
from mneme.core import insights as rules
from mneme.core.categories import VocabularyPolicy
from mneme.core.causal import words
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
from mneme.core.threads import ThreadPolicy, threads
from mneme.embed.protocol import Embedder
from mneme.errors import InvalidInput, NotFound
from mneme.ids import new_id
from mneme.llm.protocol import LLM
from mneme.store.protocol import (
    Audit,
    Banks,
    Filters,
    Graph,
    Memories,
    Transactions,
    UnitChanges,
    Vocabulary,
)

INSIGHTS = "insights"
#: Statuses of a witness that retire its insights at once (``note_change``).
WITNESS_GONE = frozenset({UnitStatus.REJECTED, UnitStatus.SUPERSEDED, UnitStatus.ARCHIVED})
#: Memories sampled for the bank's pairwise-cosine quantile (the coherence floor).
QUANTILE_SAMPLE = 2000
STATUS_OF = {
    rules.PROPOSED: UnitStatus.PROPOSED,
    rules.VERIFIED: UnitStatus.ACTIVE,
    rules.RETIRED: UnitStatus.ARCHIVED,
}
_KEYS = {
    "min_hops", "max_hops", "min_pmi", "coherence_floor", "max_steps", "max_new",
    "min_support", "beam", "coherence_quantile",
    "retire_after_days", "match_floor", "cap", "per_memory", "units_per_pass", "paused",
}  # fmt: skip


THREAD_KEYS = (
    "min_hops", "max_hops", "min_pmi", "coherence_floor", "max_steps", "min_support", "beam",
    "coherence_quantile",
)  # fmt: skip


class InsightStore(Transactions, Protocol):
    banks: Banks
    memories: Memories
    graph: Graph
    vocabulary: Vocabulary
    audit: Audit


@dataclass(frozen=True, slots=True)
class Settings:
    """A bank's insight settings (config ``insights``), validated."""

    vocabulary: VocabularyPolicy = field(default_factory=VocabularyPolicy)
    threads: ThreadPolicy = field(default_factory=ThreadPolicy)
    insights: rules.InsightPolicy = field(default_factory=rules.InsightPolicy)
    units_per_pass: int = 2000
    paused: str | None = None

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> Settings:
        unknown = set(config) - _KEYS
        if unknown:
            raise ValueError(f"unknown insight settings: {sorted(unknown)}")

        def pick(kind: type, names: Sequence[str]) -> Any:
            return kind(**{k: config[k] for k in names if k in config})

        per_pass = config.get("units_per_pass", 2000)
        if not isinstance(per_pass, int) or isinstance(per_pass, bool) or per_pass < 1:
            raise ValueError("units_per_pass must be a whole number, 1 or more")
        paused = config.get("paused")
        return cls(
            pick(VocabularyPolicy, ("match_floor", "cap", "per_memory")),
            pick(ThreadPolicy, THREAD_KEYS),
            pick(rules.InsightPolicy, ("max_new", "retire_after_days")),
            per_pass,
            str(paused) if paused else None,
        )


@dataclass(frozen=True, slots=True)
class InsightReport:
    """What one pass did. ``reason`` says why it wrote nothing when nothing could be written."""

    bank: str
    memories: int = 0
    categorized: CategorizeReport = field(default_factory=CategorizeReport)
    because: int = 0
    #: Pairs the LLM judge was asked about, and why it stopped (ADR 0058).
    judged: int = 0
    judge_fallback: str | None = None
    coherence_floor: float = 0.0  # the effective floor: the bank's quantile or the absolute
    threads: int = 0
    steps: int = 0
    exhausted: bool = False
    candidates: int = 0
    created: tuple[str, ...] = ()
    verified: tuple[str, ...] = ()
    retired: tuple[tuple[str, str], ...] = ()
    unchanged: int = 0
    held_back: int = 0
    paused: str | None = None
    seconds: float = 0.0
    reason: str | None = None

    def as_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["categorized"]["misses"] = len(self.categorized.misses)
        return out


def insight_meta(unit: Unit) -> Mapping[str, Any]:
    """The ``insight`` record in an insight unit's metadata ({} for other units)."""
    return derived_record(unit, Network.INSIGHT)


def _no_llm() -> LLM | None:
    return None


class Insighter:
    def __init__(
        self,
        store: InsightStore,
        embedder: Embedder,
        clock: Callable[[], dt.datetime],
        llm: Callable[[], LLM | None] = _no_llm,
    ) -> None:
        self.store = store
        self.embedder = embedder
        self.clock = clock
        #: The LLM that names minted categories and judges causes, asked at the start of each
        #: pass (a reload may switch it); None: the offline rules only (ADR 0058).
        self.llm = llm
        self.categorizer = Categorizer(store, embedder, clock)
        self._one_pass = threading.Lock()

    def settings(self, bank: str) -> Settings:
        found = self.store.banks.get_bank(bank)
        if found is None:
            raise NotFound(f"no bank {bank!r}")
        stored = found.config.get("insights") or {}
        if not isinstance(stored, Mapping):
            raise InvalidInput(f"bank {bank!r}: config 'insights' must be a mapping")
        try:
            return Settings.from_config(stored)
        except (TypeError, ValueError) as exc:
            raise InvalidInput(f"bank {bank!r}: {exc}") from exc

    # -- a pass ---------------------------------------------------------------------------

    def run(self, bank: str, *, agent: str, resume: bool = False) -> InsightReport:
        """One insight pass over the bank (see the module's docstring); ``resume`` lifts a
        pause the flood guard set.

        Raises:
            NotFound: no such bank.
            InvalidInput: a bad id or bad settings in the bank's config ``insights``.
        """
        bank = validate.ident(bank, "bank")
        agent = validate.ident(agent, "agent")
        with self._one_pass:
            started = time.perf_counter()
            settings = self.settings(bank)
            if settings.paused and not resume:
                return _done(InsightReport(bank, paused=settings.paused), started,
                             reason=f"paused: {settings.paused}")  # fmt: skip
            if settings.paused:
                self._set_paused(bank, None, agent)
            return self._pass(bank, agent, settings, started)

    def _pass(self, bank: str, agent: str, settings: Settings, started: float) -> InsightReport:
        report = InsightReport(bank)
        units = live_memories(self.store.memories, bank)
        if not units:
            held = self._held(bank)
            verified, retired = self._verify(bank, agent, held, set(), settings)
            return _done(report, started, verified=verified, retired=retired,
                         reason="no memories: the bank holds no live shared memory")  # fmt: skip
        llm = self.llm()
        cat = self.categorizer.categorize(
            bank, units, settings.vocabulary, agent=agent, limit=settings.units_per_pass, llm=llm
        )
        if cat.tagged:
            units = live_memories(self.store.memories, bank)
        report = replace(report, memories=len(units), categorized=cat)
        because, judged = self._stitch(bank, agent, units, llm)
        tagged = [u for u in units if u.categories]
        members: dict[str, set[str]] = {}
        for u in tagged:
            for c in u.categories:
                members.setdefault(c, set()).add(u.id)
        order = {u.id: (when(u).isoformat(), u.id) for u in tagged}
        cosine, floor = self._coherence(bank, tagged, settings.threads)
        policy = replace(settings.threads, coherence_floor=floor)
        search = threads(
            {c: frozenset(m) for c, m in members.items()}, len(tagged), order, cosine,
            {u.id: frozenset(words(u.text)) for u in tagged}, policy, self._episodes(bank, tagged),
        )  # fmt: skip
        texts = {u.id: u.text for u in tagged}
        candidates = rules.rank(search.threads, order, texts)
        held = self._held(bank)
        held_keys = {insight_meta(u).get("key") for u in held}
        new = [c for c in candidates if c.key not in held_keys]
        flood = rules.flood_guard(new, settings.insights)
        by_id = {u.id: u for u in units}
        created = self._write(bank, agent, flood.write, by_id) if flood.write else []
        paused = None
        if flood.paused:
            paused = (
                f"flood guard: {len(new)} new insights in one pass, more than "
                f"{settings.insights.max_new}; resume with `mneme insights run --resume`"
            )
            self._set_paused(bank, paused, agent)
        verified, retired = self._verify(bank, agent, held, {c.key for c in candidates}, settings)
        why = None
        if not created and not search.threads:
            why = "no thread passes the gates (PMI, coherence floor, polysemy guard, min hops)"
        return _done(
            report,
            started,
            because=because,
            judged=judged.get("asked", 0),
            judge_fallback=judged.get("fallback"),
            coherence_floor=round(floor, 4),
            threads=len(search.threads),
            steps=search.steps,
            exhausted=search.exhausted,
            candidates=len(candidates),
            created=tuple(created),
            verified=verified,
            retired=retired,
            unchanged=len(candidates) - len(new),
            held_back=flood.held_back,
            paused=paused,
            reason=why,
        )

    # -- stages --------------------------------------------------------------------------

    def _stitch(
        self, bank: str, agent: str, units: Sequence[Unit], llm: LLM | None
    ) -> tuple[int, dict[str, Any]]:
        """Propose BECAUSE edges (``background.stitching``) and write the new ones, with the
        judge's marks, in one transaction; the count written and what the judge did."""
        now = self.clock()
        order = {u.id: (when(u).isoformat(), u.id) for u in units}
        found = propose(units, set(), llm, bank=bank, made_by=INSIGHTS, now=now, order=order)
        owner = Viewer(bank, INSIGHTS, Scope.OWNER)
        edges = []
        for edge in found.edges:
            held = self.store.graph.edges_of(owner, edge.src)
            if not any(
                e.type == EdgeType.BECAUSE and {e.src, e.dst} == {edge.src, edge.dst} for e in held
            ):
                edges.append(edge)
        record = dict(found.record)
        if edges or found.marks or record:
            with self.store.transaction():
                # A memory purged or retired since it was read (while the judge answered) is
                # no end of an edge and takes no mark.
                ends = {*found.marks, *(x for e in edges for x in (e.src, e.dst))}
                live = {
                    uid
                    for uid, u in self.store.memories.get_units(
                        owner, list(ends), lean=True
                    ).items()
                    if u.status in TAGGED_STATUSES
                }
                gone = [e for e in edges if not {e.src, e.dst} <= live]
                edges = [e for e in edges if e not in gone]
                if gone and record:
                    record["skipped"] = [
                        [e.src, e.dst, "a memory changed during the pass"] for e in gone
                    ]
                if edges:
                    self.store.graph.put_edges(edges)
                for uid, ids in found.marks.items():
                    if uid in live:
                        self.store.memories.update_unit(
                            bank,
                            uid,
                            UnitChanges(metadata={JUDGED: list(ids)}),
                            actor=agent,
                            reason="insights: pairs the causal judge was asked about",
                        )
                if record:
                    self.store.audit.append(
                        bank,
                        agent,
                        "causal.judge",
                        bank,
                        None,
                        record,
                        "insights: causal pairs judged by the LLM"
                        if "fallback" not in record
                        else "insights: the LLM judge stopped; offline stitching only",
                    )
        return len(edges), record

    def _episodes(self, bank: str, units: Sequence[Unit]) -> dict[str, str | None]:
        """The session each memory was said in (its first evidence source's), None unknown."""
        sessions: dict[tuple[str, str], str | None] = {}
        out: dict[str, str | None] = {}
        for u in units:
            if not u.evidence:
                out[u.id] = None
                continue
            # Read as the owner, the writer's own source of that id first (ADR 0107).
            key = (u.evidence[0], u.agent_id)
            if key not in sessions:
                source = self.store.memories.get_source(
                    Viewer(bank, u.agent_id, Scope.OWNER), key[0]
                )
                sessions[key] = source.session_id if source is not None else None
            out[u.id] = sessions[key]
        return out

    def _coherence(
        self, bank: str, units: Sequence[Unit], policy: ThreadPolicy
    ) -> tuple[Callable[[str, str], float], float]:
        """Cosine of two memories by their stored vectors (embedded now when missing), and
        the effective coherence floor: the policy's, raised to the bank's
        ``coherence_quantile`` of pairwise cosines (over at most ``QUANTILE_SAMPLE``
        memories, evenly spaced in time)."""
        owner = Viewer(bank, INSIGHTS, Scope.OWNER)
        model = self.embedder.model_id
        stored = self.store.memories.unit_vectors(owner, [u.id for u in units], model)
        vectors: dict[str, Any] = {}
        for uid, v in stored.items():
            norm = float(np.linalg.norm(v))
            vectors[uid] = v / norm if norm else v
        missing = [u for u in units if u.id not in vectors]
        if missing:
            rows = unit_rows(self.embedder, [u.text for u in missing])
            vectors.update({u.id: rows[u.text] for u in missing})
        cache: dict[tuple[str, str], float] = {}

        def cosine(a: str, b: str) -> float:
            key = (a, b) if a <= b else (b, a)
            if key not in cache:
                cache[key] = float(np.dot(vectors[a], vectors[b]))
            return cache[key]

        floor = policy.coherence_floor
        if policy.coherence_quantile > 0 and len(units) >= 2:
            step = max(1, len(units) // QUANTILE_SAMPLE)
            sample = np.asarray([vectors[u.id] for u in units[::step]], dtype=np.float32)
            pairs = (sample @ sample.T)[np.triu_indices(len(sample), 1)]
            floor = max(floor, float(np.quantile(pairs, policy.coherence_quantile)))
        return cosine, floor

    def _held(self, bank: str) -> list[Unit]:
        owner = Viewer(bank, INSIGHTS, Scope.OWNER)
        filters = Filters(types=frozenset({UnitType.INSIGHT}))
        out: list[Unit] = []
        while True:
            page = self.store.memories.list_units(owner, filters, 1000, len(out))
            out.extend(page)
            if len(page) < 1000:
                break
        return [u for u in out if u.network == Network.INSIGHT]

    def _write(
        self,
        bank: str,
        agent: str,
        todo: Sequence[rules.Candidate],
        by_id: Mapping[str, Unit],
    ) -> list[str]:
        vectors = list(self.embedder.embed([c.text for c in todo]))
        created: list[str] = []
        with self.store.transaction():
            now = self.clock()
            owner = Viewer(bank, INSIGHTS, Scope.OWNER)
            ids = [w for c in todo for w in c.thread.witnesses]
            live = {
                uid
                for uid, u in self.store.memories.get_units(owner, ids, lean=True).items()
                if u.status in STATUS_OF.values() and u.status != UnitStatus.ARCHIVED
            }
            for cand, vector in zip(todo, vectors, strict=True):
                witnesses = [by_id[w] for w in cand.thread.witnesses]
                if any(w.id not in live for w in witnesses):
                    continue  # a witness changed during the pass: the next pass sees it
                unit = Unit(
                    id=new_id("u_"),
                    bank_id=bank,
                    text=cand.text,
                    content_key=cand.key,
                    network=Network.INSIGHT,
                    type=UnitType.INSIGHT,
                    status=UnitStatus.PROPOSED,
                    confidence=HYPOTHESIS_CONFIDENCE,
                    agent_id=agent,
                    recorded_at=now,
                    visibility=Visibility.SHARED,
                    occurred_start=when(witnesses[0]),
                    occurred_end=when(witnesses[-1]),
                    embedding_model=self.embedder.model_id,
                    embedding_dim=len(vector),
                    knowers=tuple(
                        sorted({k for w in witnesses for k in (w.knowers or (w.agent_id,))})
                    ),
                    evidence=tuple(dict.fromkeys(s for w in witnesses for s in w.evidence)),
                    categories=cand.thread.categories,
                    metadata={"insight": _meta(cand, now)},
                )
                self.store.memories.put_unit(unit, vector)
                self.store.graph.put_edges(
                    [
                        Edge(
                            id=new_id("e_"),
                            bank_id=bank,
                            src=w,
                            dst=unit.id,
                            type=EdgeType.SUPPORTS,
                            made_by=INSIGHTS,
                            created_at=now,
                            confidence=HYPOTHESIS_CONFIDENCE,
                            metadata={"order": i, "grade": "hypothesis"},
                        )
                        for i, w in enumerate(cand.thread.witnesses, start=1)
                    ]
                )
                created.append(unit.id)
            if created:
                self.store.audit.append(
                    bank, agent, "insights", bank, None, {"created": created},
                    "insights: threads through the bank's categories proposed as hypotheses",
                )  # fmt: skip
        return created

    # -- verification ---------------------------------------------------------------------

    def _verify(
        self,
        bank: str,
        agent: str,
        held: Sequence[Unit],
        supported: set[str],
        settings: Settings,
        only: str | None = None,
    ) -> tuple[tuple[str, ...], tuple[tuple[str, str], ...]]:
        """Judge proposed and verified insights against their witnesses; write what changes.
        Answers the ids verified and the (id, why) retired."""
        verified: list[str] = []
        todo = [
            u
            for u in held
            if insight_meta(u).get("state") in (rules.PROPOSED, rules.VERIFIED)
            and (only is None or u.id == only)
        ]
        if not todo:
            return (), ()
        owner = Viewer(bank, INSIGHTS, Scope.OWNER)
        ids = [str(h["witness"]) for u in todo for h in insight_meta(u).get("hops", ())]
        retired: list[tuple[str, str]] = []
        with self.store.transaction():
            now = self.clock()
            found = self.store.memories.get_units(owner, ids, lean=True)
            for u in todo:
                meta = insight_meta(u)
                hops = list(meta.get("hops", ()))
                states = {
                    str(h["witness"]): (
                        rules.WitnessState(
                            w.status in (UnitStatus.ACTIVE, UnitStatus.PROPOSED),
                            w.status.value,
                            w.categories,
                        )
                        if (w := found.get(str(h["witness"]))) is not None
                        else None
                    )
                    for h in hops
                }
                verdict = rules.verdict(
                    hops, states, meta.get("key") in supported, str(meta.get("state")),
                    now - u.recorded_at, settings.insights,
                )  # fmt: skip
                if verdict.state == meta.get("state"):
                    continue
                self._judge(u, verdict, agent, now)
                if verdict.state == rules.RETIRED:
                    retired.append((u.id, verdict.reason))
                elif verdict.state == rules.VERIFIED:
                    verified.append(u.id)
        return tuple(verified), tuple(retired)

    def _judge(self, u: Unit, verdict: rules.Verdict, agent: str, now: dt.datetime) -> None:
        meta = dict(insight_meta(u))
        history = [*meta.get("history", ()), {"state": meta.get("state"), "at": now.isoformat()}]
        meta.update(state=verdict.state, reason=verdict.reason, history=history,
                    judged_at=now.isoformat())  # fmt: skip
        retire = verdict.state == rules.RETIRED
        self.store.memories.update_unit(
            u.bank_id,
            u.id,
            UnitChanges(
                status=STATUS_OF[verdict.state],
                retired_at=now if retire else None,
                metadata={"insight": meta},
            ),
            actor=agent,
            reason=f"insights: {verdict.state}, {verdict.reason}",
        )

    def note_change(self, unit: Unit, why: str) -> None:
        """A memory was rejected, superseded or archived on the review path: the insights it
        witnesses (SUPPORTS edges) are retired at once, inside the deciding transaction,
        not at the next pass."""
        if unit.network == Network.INSIGHT or unit.status not in WITNESS_GONE:
            return
        owner = Viewer(unit.bank_id, INSIGHTS, Scope.OWNER)
        supported = [
            e.dst
            for e in self.store.graph.edges_of(owner, unit.id)
            if e.type == EdgeType.SUPPORTS and e.src == unit.id
        ]
        found = self.store.memories.get_units(owner, supported, lean=False) if supported else {}
        now = self.clock()
        for u in found.values():
            if insight_meta(u).get("state") not in (rules.PROPOSED, rules.VERIFIED):
                continue
            verdict = rules.Verdict(
                rules.RETIRED, f"witness {unit.id} is {unit.status.value} ({why})"
            )
            self._judge(u, verdict, INSIGHTS, now)

    def verify(self, bank: str, *, agent: str, insight: str | None = None) -> InsightReport:
        """A verification pass: every proposed or verified insight of the bank (or one) judged
        against its witnesses now.

        Raises:
            NotFound: no such bank, or no such insight in it.
        """
        bank = validate.ident(bank, "bank")
        agent = validate.ident(agent, "agent")
        with self._one_pass:
            started = time.perf_counter()
            settings = self.settings(bank)
            held = self._held(bank)
            if insight is not None and insight not in {u.id for u in held}:
                raise NotFound(f"no insight {insight!r} in bank {bank!r}")
            supported = {insight_meta(u).get("key") for u in held} - {None}
            verified, retired = self._verify(
                bank, agent, held, {str(k) for k in supported}, settings, only=insight
            )
            return _done(InsightReport(bank), started, verified=verified, retired=retired)

    def list(self, bank: str, *, state: str | None = None, limit: int = 100) -> list[Unit]:
        """The bank's insights, best first (score), optionally in one state."""
        bank = validate.ident(bank, "bank")
        if state is not None and state not in rules.STATES:
            raise InvalidInput(f"state must be one of {', '.join(rules.STATES)}, not {state!r}")
        if self.store.banks.get_bank(bank) is None:
            raise NotFound(f"no bank {bank!r}")
        held = [
            u for u in self._held(bank) if state is None or insight_meta(u).get("state") == state
        ]
        held.sort(key=lambda u: (-float(insight_meta(u).get("score", 0.0)), u.id))
        return held[:limit]

    def _set_paused(self, bank: str, why: str | None, agent: str) -> None:
        with self.store.transaction():
            found = self.store.banks.get_bank(bank)
            assert found is not None
            stored = dict(found.config.get("insights") or {})
            if why is None:
                stored.pop("paused", None)
            else:
                stored["paused"] = why
            self.store.banks.set_bank_config(
                bank, {**found.config, "insights": stored}, actor=agent,
                reason=why or "insights resumed",
            )  # fmt: skip


def _meta(cand: rules.Candidate, now: dt.datetime) -> dict[str, Any]:
    t = cand.thread
    return {
        "key": cand.key,
        "state": rules.PROPOSED,
        "witnesses": list(t.witnesses),
        "categories": list(t.categories),
        "hops": [
            {"src": h.src, "dst": h.dst, "pmi": round(h.pmi, 4), "witness": h.witness}
            for h in t.hops
        ],
        "score": round(t.score, 4),
        "min_pmi": round(t.min_pmi, 4),
        "proposed_at": now.isoformat(),
        "history": [],
    }


def _done(report: InsightReport, started: float, **changes: Any) -> InsightReport:
    return replace(report, seconds=round(time.perf_counter() - started, 4), **changes)
