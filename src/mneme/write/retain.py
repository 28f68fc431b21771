"""The retain pipeline: plan, embed, then judge and write every atom in one transaction.

Planning (validation, atomization, classification, time and entity extraction) happens before
any lock is taken; embedding happens in one batch per call, also outside the write transaction;
the transaction then writes the source, judges and writes each atom (see ``atoms.py``), applies
the caller's explicit corrections, and the audit records, all or nothing.

A stream of batches (``stream``, ADR 0024) embeds the next batch in a worker thread while the
current one is judged and written: the model computes without the GIL, so it and the engine
use both cores instead of taking turns. Each batch is still its own transaction. Meanwhile a
worker process reads the statements of the batch's atoms (``analysis_ahead``, ADR 0095), which
the writing thread would otherwise compute itself before judging them.
"""

from __future__ import annotations

import datetime as dt
import socket
from collections.abc import Callable, Generator, Iterable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, Protocol

from mneme.config import Config
from mneme.core.charter import Charter
from mneme.core.model import (
    Agent,
    Bank,
    Decision,
    Edge,
    Question,
    RetainResult,
    RetainStatus,
    Scope,
    Source,
    Unit,
    UnitStatus,
    Verdict,
    Viewer,
    Visibility,
)
from mneme.core.policy import REFUSAL as RETIRE_REFUSAL
from mneme.core.policy import may_retire
from mneme.core.sensitive import Screening
from mneme.core.speakers import speaker_of
from mneme.embed.protocol import Embedder
from mneme.errors import Conflict, InvalidInput, NotFound
from mneme.ids import new_id
from mneme.llm.extract import LLMExtractor
from mneme.llm.protocol import LLMError
from mneme.store.protocol import Banks, Graph, Memories
from mneme.trust.conflicts import Conflicts, retire
from mneme.trust.settle import Settler
from mneme.write import analysis_ahead
from mneme.write.analysis_ahead import AnalysisWorker, Pending
from mneme.write.atoms import AtomsStore, AtomWriter, Outcome
from mneme.write.decide import Judge
from mneme.write.defence import Defence, DefenceStore, audit_screening
from mneme.write.plan import Plan, Planner


class RetainStore(AtomsStore, DefenceStore, Protocol):
    """The roles of the store this module uses, and those of the atom writer and the defence
    it hands the store to (ADR 0044)."""

    banks: Banks
    memories: Memories
    graph: Graph


#: One refusal for a source id already used in the bank, whoever used it.
_SOURCE_ID_TAKEN = (
    "source id {id!r} is already used in bank {bank} for other content; sources are "
    "immutable: use a new source id (and supersedes=) to correct one"
)


class Retainer:
    def __init__(
        self,
        store: RetainStore,
        embedder: Embedder,
        config: Config,
        clock: Callable[[], dt.datetime],
        judge: Judge,
        conflicts: Conflicts,
        charter: Callable[[], Charter],
        settler: Settler | None = None,
        extractor: LLMExtractor | None = None,
    ) -> None:
        self.extractor = extractor
        self.store = store
        self.embedder = embedder
        self.config = config
        self.clock = clock
        self.planner = Planner(config, clock)
        # The roster says where each agent runs: every write heartbeats its agent from here.
        self.host = socket.gethostname()
        self.atoms = AtomWriter(store, embedder, judge, conflicts, charter, settler)
        self.defence = Defence(store, config)
        #: Analyzes a batch's texts in another process meanwhile (ADR 0095); None: not used.
        self.ahead: AnalysisWorker | None = (
            analysis_ahead.shared() if config.analysis_ahead else None
        )

    def plan(self, text: Any, screened: Screening | None = None, /, **args: Any) -> Plan:
        """Validate, screen and plan one input (raises InvalidInput before anything is
        written, and when the bank's sensitive-data policy refuses it).

        ``screened``: the screening an accepted write already had (the ingest buffer keeps
        it with the text it left); the text is then not screened again. Positional only,
        so no caller's keyword argument can skip the screening.
        """
        if screened is None:
            return self.planner.plan(text, self.defence.screen, **args)
        plan = self.planner.plan(text, None, **args)
        plan.screening = screened
        return plan

    def plans(self, items: Iterable[Mapping[str, Any]]) -> list[Plan]:
        """Plan every item (a mapping of ``retain``'s arguments by name) before anything is
        written: the first bad one raises InvalidInput naming it (``index`` is its place)."""
        plans = []
        for i, item in enumerate(items):
            if not isinstance(item, Mapping) or "text" not in item:
                raise InvalidInput(f"item {i} must be a mapping with a 'text' key")
            args = dict(item)
            try:
                plans.append(self.plan(args.pop("text"), **args))
            except (TypeError, InvalidInput) as exc:
                err = InvalidInput(f"item {i}: {exc}")
                err.index = i
                raise err from exc
        return plans

    def run(self, plans: Sequence[Plan]) -> list[RetainResult]:
        self.prepare(plans)
        return self.commit(plans)

    def prepare(self, plans: Sequence[Plan]) -> None:
        """LLM extraction when configured, then one embedding batch for every atom not
        already stored (a repeat needs no vector), while the worker process analyzes the
        atoms' texts. All of it runs outside any write lock."""
        todo = self._todo(plans)
        analyzed = self._analyze_ahead(plans)
        self._attach(plans, todo, self.embedder.embed(list(todo.values())) if todo else None)
        if analyzed is not None:
            analyzed.seed()

    def _analyze_ahead(self, plans: Sequence[Plan]) -> Pending | None:
        """Ask the worker process for the statements of the batch's atoms (ADR 0095)."""
        if self.ahead is None:
            return None
        return self.ahead.submit(atom.text for plan in plans for atom in plan.atoms)

    def stream(
        self, batches: Iterable[Sequence[Plan]]
    ) -> Generator[list[RetainResult], None, None]:
        """Commit batch after batch, each in its own transaction, while a worker thread embeds
        the next one; yields each batch's results once it is committed.

        The next batch is taken from ``batches`` (planned, then its repeats looked up) before
        the current one commits, so its atoms that repeat the current batch's are embedded
        needlessly; the write path finds them repeats all the same. Anything raised while
        taking the next batch is raised after the current one is committed and yielded:
        batches before a bad one are kept, as separate ``retain_many`` calls would keep them.
        """
        batches = iter(batches)
        current = next(batches, None)
        if current is None:
            return
        self.prepare(current)
        # The worker embeds beside this thread, which writes meanwhile: on one CPU fewer when
        # the embedder can (``MiniLMEmbedder.embed_beside``), so the two do not take turns.
        embed_ahead = getattr(self.embedder, "embed_beside", self.embedder.embed)
        with ThreadPoolExecutor(1, thread_name_prefix="mneme-embed-ahead") as worker:
            while current is not None:
                upcoming: Sequence[Plan] | None = None
                todo: dict[str, str] = {}
                ahead: Future[Any] | None = None
                failure: Exception | None = None
                analyzed: Pending | None = None
                try:
                    upcoming = next(batches, None)
                    if upcoming is not None:
                        todo = self._todo(upcoming)
                        if todo:
                            ahead = worker.submit(embed_ahead, list(todo.values()))
                        analyzed = self._analyze_ahead(upcoming)
                except Exception as exc:  # raised in order, after the current batch
                    failure, upcoming = exc, None
                try:
                    results = self.commit(current)
                except BaseException:
                    if ahead is not None:
                        ahead.cancel()
                    raise
                yield results
                if failure is not None:
                    raise failure
                if upcoming is not None:
                    self._attach(upcoming, todo, None if ahead is None else ahead.result())
                    if analyzed is not None:
                        analyzed.seed()
                current = upcoming

    def _todo(self, plans: Sequence[Plan]) -> dict[str, str]:
        """LLM extraction when configured, then the atoms to embed by content key: each key
        once, none a unit already holds."""
        if self.extractor is not None:
            for plan in plans:
                self._extract(plan)
        held = self._held_keys(plans)
        todo: dict[str, str] = {}
        for plan in plans:
            src = plan.source
            where = (src.bank_id, src.visibility, src.agent_id)
            for atom in plan.atoms:
                if atom.key not in todo and atom.key not in held[where]:
                    todo[atom.key] = atom.text
        return todo

    @staticmethod
    def _attach(plans: Sequence[Plan], todo: dict[str, str], vectors: Any) -> None:
        if not todo:
            return
        by_key = dict(zip(todo, vectors, strict=True))
        for plan in plans:
            plan.vectors = {a.key: by_key[a.key] for a in plan.atoms if a.key in by_key}

    def _held_keys(self, plans: Sequence[Plan]) -> dict[tuple[str, Visibility, str], set[str]]:
        """The atoms' content keys a unit already holds, one lookup per (bank, visibility,
        agent): where ``find_by_content_key`` would look for each."""
        keys: dict[tuple[str, Visibility, str], list[str]] = {}
        for plan in plans:
            src = plan.source
            where = keys.setdefault((src.bank_id, src.visibility, src.agent_id), [])
            where.extend(atom.key for atom in plan.atoms)
        return {
            (bank_id, visibility, agent_id): self.store.memories.held_content_keys(
                bank_id, group, visibility, agent_id
            )
            for (bank_id, visibility, agent_id), group in keys.items()
        }

    def _extract(self, plan: Plan) -> None:
        """The LLM's facts replace the rule-made atoms; on any LLM failure the rules' atoms
        stay, and the caller's text is never lost (the source is stored either way)."""
        assert self.extractor is not None
        src = plan.source
        try:
            facts = self.extractor.extract(
                src.text,
                anchor_iso=self.planner.anchor(plan).isoformat(),
                speaker=speaker_of(src.text),
            )
        except LLMError as exc:
            plan.llm_errors.extend((*exc.trail, exc.describe()))
            return
        plan.llm_errors.extend(facts.errors)
        if facts:
            self.planner.from_facts(plan, list(facts))

    def commit(self, plans: Sequence[Plan]) -> list[RetainResult]:
        """Write prepared plans in one transaction (nested in the caller's, if any)."""
        judge = self.atoms.judge
        with self.store.transaction():
            try:
                # Inside the transaction: a store that remembers reads for it (SQLite) answers
                # each atom's repeat check from this one lookup until a unit takes the key.
                self._held_keys(plans)
                self._prefetch(plans)
                return [self._commit(plan) for plan in plans]
            finally:
                judge.forget_prefetch()

    def _prefetch(self, plans: Sequence[Plan]) -> None:
        """The neighbours of every atom to embed, one search per (bank, agent) (the judge
        adds what the batch itself writes as it goes). A single atom searches on its own."""
        groups: dict[tuple[str, str], dict[str, Any]] = {}
        for plan in plans:
            src = plan.source
            group = groups.setdefault((src.bank_id, src.agent_id), {})
            for key, vector in plan.vectors.items():
                group.setdefault(key, vector)
        for (bank_id, agent_id), atoms in groups.items():
            if len(atoms) > 1:
                self.atoms.judge.prefetch(bank_id, agent_id, atoms.items())

    def _commit(self, plan: Plan) -> RetainResult:
        src = plan.source
        store = self.store
        now = src.recorded_at
        if store.banks.get_bank(src.bank_id) is None:
            if not self.config.create_banks:
                raise NotFound(f"no bank {src.bank_id!r} (create_banks is off)")
            store.banks.ensure_bank(Bank(id=src.bank_id, name=src.bank_id, created_at=now))
        store.banks.heartbeat(
            Agent(
                id=src.agent_id,
                bank_id=src.bank_id,
                first_seen=now,
                last_seen=now,
                host=self.host,
            )
        )
        existing = store.memories.get_source(
            Viewer(src.bank_id, src.agent_id, Scope.COLLECTIVE), src.id
        )
        if existing is not None:
            return self._replay(plan, existing)
        # A source id is its writer's among what the writer can see: another agent's private
        # source of the same id takes nothing from it, and no answer here tells it exists
        # (ADR 0107). Another bank's ids are not this bank's business.
        store.memories.put_source(src)
        if plan.screening is not None and plan.screening.found:
            audit_screening(store, src.bank_id, src.agent_id, src.id, plan.screening)
        out = Outcome()
        targets = self.corrected(plan)
        # A conclusion is never merged into the memories it cites as its evidence (a think
        # session's commit): like a correction into what it corrects.
        cited = plan.source.metadata.get("evidence") if plan.source.kind == "thought" else None
        kept_apart = {u.id for u in targets}
        if isinstance(cited, list):
            kept_apart |= {c for c in cited if isinstance(c, str)}
        corrected = frozenset(kept_apart)
        held = [self.atoms.write(plan, atom, out, corrected) for atom in plan.atoms]
        for a, b, kind in plan.relations:
            # "A because B" from the LLM extractor: an edge A -BECAUSE-> B between the units.
            if held[a] != held[b]:
                store.graph.put_edge(
                    Edge(
                        id=new_id("e_"),
                        bank_id=src.bank_id,
                        src=held[a],
                        dst=held[b],
                        type=kind,
                        made_by="llm",
                        created_at=now,
                    )
                )
        # The successor: the first new unit, else the first existing unit the input was
        # merged into (it already said the corrected value), never a unit it corrects.
        successors = [*out.new_ids, *(h for h in held if h not in corrected)]
        if targets and successors:
            self._supersede(plan, out, targets, successors[0])
        return RetainResult(
            status=RetainStatus.NEEDS_CLARIFICATION if out.questions else RetainStatus.OK,
            source_id=src.id,
            memory_ids=tuple(dict.fromkeys(out.new_ids + out.deduped)),
            decisions=tuple(out.decisions),
            deduped=tuple(dict.fromkeys(out.deduped)),
            questions=tuple(out.questions),
            metadata={
                "extracted_by": plan.extracted_by,
                **(
                    {"llm_errors": plan.llm_errors + out.llm_errors}
                    if plan.llm_errors or out.llm_errors
                    else {}
                ),
            },
        )

    def corrected(self, plan: Plan) -> list[Unit]:
        """The units the caller names as corrected (``supersedes=``: unit or source ids).

        Raises:
            NotFound: a reference names no unit or source the writer can see.
        """
        src = plan.source
        viewer = Viewer(src.bank_id, src.agent_id, Scope.COLLECTIVE)
        targets: list[Unit] = []
        for ref in plan.supersedes:
            units = self.store.memories.get_units(viewer, [ref])
            if units:
                targets.extend(units.values())
                continue
            by_source = self.store.memories.units_of_source(viewer, ref)
            if not by_source and self.store.memories.get_source(viewer, ref) is None:
                raise NotFound(
                    f"supersedes names {ref!r}, which is no unit or source "
                    f"visible to {src.agent_id} in bank {src.bank_id}"
                )
            targets.extend(by_source)
        return targets

    def _supersede(self, plan: Plan, out: Outcome, targets: list[Unit], successor_id: str) -> None:
        """The caller said this input corrects earlier sources or units: retire them."""
        src = plan.source
        viewer = Viewer(src.bank_id, src.agent_id, Scope.COLLECTIVE)
        decisions = out.decisions
        successor = self.store.memories.get_units(viewer, [successor_id])[successor_id]
        if successor.status == UnitStatus.REJECTED and successor.id not in out.new_ids:
            return  # merged into a rejected value: it retires nothing
        for target in targets:
            # Read again: writing the atoms may have retired it already.
            old = self.store.memories.get_units(viewer, [target.id]).get(target.id, target)
            if old.id == successor.id or old.status in (
                UnitStatus.SUPERSEDED,
                UnitStatus.REJECTED,
            ):
                continue
            private = not may_retire(successor, old)
            immutable = not private and bool(
                old.metadata.get("immutable") and self.atoms.charter().protect_immutable
            )
            if private or immutable:
                why = RETIRE_REFUSAL if private else "the memory is marked immutable"
                held = f"not applied: {why}"
                decisions.append(Decision(Verdict.SUPERSEDE, old.text, successor.id, old.id, held))
            if immutable:
                out.questions.append(
                    Question(
                        conflict_type="immutable",
                        new_content=successor.text,
                        new_memory_id=successor.id,
                        existing_memory_id=old.id,
                        existing_content=old.text,
                        question=f'"{old.text}" is marked immutable. Replace it anyway?',
                        decision="kept both; the immutable memory was not superseded",
                        confidence=1.0,
                    )
                )
            if private or immutable:
                continue
            retire(
                self.store,
                successor,
                old,
                actor=src.agent_id,
                made_by="caller",
                reason=f"superseded by source {src.id} at the caller's request",
                now=src.recorded_at,
                on_change=self.atoms.conflicts.review.on_change,
            )
            successor = self.store.memories.get_units(viewer, [successor.id])[successor.id]
            # The dispute the judge opened with it is settled by the caller's word, which
            # resolved its conflict: it is neither a decision in force nor a question.
            decisions[:] = [
                d
                for d in decisions
                if not (d.verdict == Verdict.CONTRADICT and d.target_id == old.id)
            ]
            out.questions[:] = [
                q
                for q in out.questions
                if not (q.existing_memory_id == old.id and q.conflict_type != "immutable")
            ]
            decisions.append(
                Decision(
                    Verdict.SUPERSEDE,
                    old.text,
                    successor.id,
                    old.id,
                    "the caller named it as corrected",
                )
            )

    def _replay(self, plan: Plan, existing: Source) -> RetainResult:
        """The same source id again: idempotent when the content matches, an error if not."""
        src = plan.source
        if existing.content_hash != src.content_hash:
            raise Conflict(_SOURCE_ID_TAKEN.format(id=src.id, bank=src.bank_id))
        viewer = Viewer(src.bank_id, src.agent_id, Scope.COLLECTIVE)
        ids = tuple(u.id for u in self.store.memories.units_of_source(viewer, src.id))
        return RetainResult(
            status=RetainStatus.OK,
            source_id=src.id,
            memory_ids=ids,
            decisions=tuple(
                Decision(Verdict.NOOP, a.text, None, None, "source already retained")
                for a in plan.atoms
            ),
            deduped=ids,
            metadata={"replayed": True},
        )
