"""The write path's judgement: find what an atom is judged against, and ask the charter.

For each new atom the write path gathers its neighbours in the writer's collective view (the
nearest by embedding, plus every live unit whose claim fills the same slot), hands them to the
judge (offline rules, or the LLM judge when configured, validated and falling back), and asks
the charter whether a rewrite may be applied or must become a question for a person.
"""

from __future__ import annotations

import datetime as dt
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Protocol

import numpy as np

from mneme.core import charter as charter_rules
from mneme.core.claims import Claim, extract_claim
from mneme.core.judgement import (
    DESTRUCTIVE,
    JUDGED_STATUSES,
    Candidate,
    JudgeConfig,
    Judgement,
    Neighbour,
    is_held,
    judge,
)
from mneme.core.model import (
    ClaimRecord,
    EdgeType,
    Scope,
    Unit,
    UnitStatus,
    UnitType,
    Verdict,
    Viewer,
    Visibility,
)
from mneme.core.slots import is_bare, kinds_in_roles, on_days, says_again
from mneme.core.speakers import split_speaker
from mneme.core.statements import Statement, analyze, in_turn, wonders
from mneme.core.succession import Role, roles_said, still_held, successors
from mneme.core.topics import Said
from mneme.llm.judge import LLMJudge
from mneme.llm.protocol import LLMError, LLMInvalid
from mneme.store.protocol import Channels, Filters, Graph, Memories, Trust
from mneme.store.ranking import best_rows
from mneme.trust.claims import keys_of


class DecideStore(Protocol):
    """The roles of the store this module uses (ADR 0044)."""

    memories: Memories
    channels: Channels
    trust: Trust
    graph: Graph


LIVE = frozenset(UnitStatus(s) for s in JUDGED_STATUSES)
#: A statement retired by a change of one of its values (what it still holds is judged).
RETIRED = frozenset({UnitStatus.SUPERSEDED})
NEIGHBOURS = 8
#: The latest live units of the atom's own conversation are judged too: a correction ("make it
#: Big 4") names no slot; the conversation says which statement it corrects.
SESSION_WINDOW = 12
#: Units of a bare answer's conversation read to find the question it answers: its own turn's
#: earlier atoms, then the turn before.
ANSWER_WINDOW = 6
#: How many of a conversation's latest statements are read for what was brought up in it.
CONVERSATION_WINDOW = 64
#: Rejected units a new atom is compared with, nearest first (tombstones by meaning); units held
#: back as restatements are rejected too, so a few more than the tombstones themselves.
REJECTED_NEIGHBOURS = 6
#: A prefetched neighbour list holds this many more than NEIGHBOURS: a unit the same batch
#: retires before the atom is judged drops out, and the next one takes its place.
PREFETCH_SLACK = 4
#: At most this many further conflicts are opened for one atom with the other values of its
#: one-valued slot (besides the unit its verdict names).
MAX_SLOT_RIVALS = 5


class _Written:
    """The units a batch wrote after its neighbours were prefetched, with their vectors."""

    def __init__(self) -> None:
        self.ids: list[str] = []
        self._mat = np.zeros((0, 0), dtype=np.float32)

    def add(self, unit_id: str, vector: np.ndarray) -> None:
        n = len(self.ids)
        if n == len(self._mat):
            grown = np.zeros((max(16, 2 * n), len(vector)), dtype=np.float32)
            if n:
                grown[:n] = self._mat[:n]
            self._mat = grown
        self._mat[n] = vector
        self.ids.append(unit_id)

    def nearest(self, vector: np.ndarray) -> list[tuple[str, float]]:
        """The written units most similar to ``vector`` (cosine: the vectors are unit
        length), best first, at most NEIGHBOURS + PREFETCH_SLACK."""
        sims = self._mat[: len(self.ids)] @ np.asarray(vector, dtype=np.float32)
        return [
            (self.ids[int(i)], float(sims[i])) for i in best_rows(sims, NEIGHBOURS + PREFETCH_SLACK)
        ]


@dataclass(slots=True)
class _Batch:
    """One thread's prefetch: neighbour lists by (bank, agent, content key), and the units
    written since, per bank."""

    prefetched: dict[tuple[str, str, str], list[tuple[str, float]]] = field(default_factory=dict)
    fresh: dict[str, _Written] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Assessment:
    judgement: Judgement
    claim: Claim | None
    target: Unit | None
    ruling: charter_rules.Ruling
    errors: tuple[str, ...] = ()  # the LLM's error trail, when one was asked
    #: A rejected unit the atom says again in other words (same slot, same value): the atom
    #: is not admitted as active; it goes to review, pointing at that unit's tombstone.
    rejected: Unit | None = None
    #: Retired with the target by a SUPERSEDE: other statements of the value that changed.
    also: tuple[Unit, ...] = ()
    #: The question a bare answer answers (the other speaker's turn just before it): the new
    #: unit records its id, so a later atom is judged against the slot it was asked for.
    answers: Unit | None = None
    #: For an ADD that corroborates its target: the other units it restates, each counted as
    #: evidence too (``Judgement.supports``).
    supported: tuple[Unit, ...] = ()


class Judge:
    def __init__(
        self,
        store: DecideStore,
        config: JudgeConfig,
        model_id: str,
        llm_judge: LLMJudge | None = None,
    ) -> None:
        self.store = store
        self.config = config
        self.model_id = model_id
        self.llm_judge = llm_judge
        #: Per thread (a PostgreSQL store runs writers side by side): the neighbours searched
        #: for a whole batch at once, by (bank, agent, content key), and the units written
        #: since, per bank (``prefetch``; valid for one transaction).
        self._local = threading.local()

    @property
    def _batch(self) -> _Batch:
        batch: _Batch | None = getattr(self._local, "batch", None)
        if batch is None:
            batch = self._local.batch = _Batch()
        return batch

    def prefetch(
        self, bank_id: str, agent_id: str, atoms: Iterable[tuple[str, np.ndarray]]
    ) -> None:
        """Search the semantic neighbours of many atoms (content key, vector) in one pass.

        Call it inside the write transaction, before the atoms are written: each atom's
        ``neighbours`` then merges its prefetched list with the units written since
        (``note_written``), which is the search it would have run itself.
        """
        todo = [(key, vec) for key, vec in atoms]
        if not todo:
            return
        viewer = Viewer(bank_id, agent_id, Scope.COLLECTIVE)
        found = self.store.channels.search_semantic_many(
            viewer,
            [vec for _, vec in todo],
            self.model_id,
            Filters(statuses=LIVE),
            NEIGHBOURS + PREFETCH_SLACK,
        )
        for (key, _), hits in zip(todo, found, strict=True):
            self._batch.prefetched[(bank_id, agent_id, key)] = [(h.unit_id, h.score) for h in hits]
        self._batch.fresh.setdefault(bank_id, _Written())
        # Every atom reads its neighbours' units (``neighbours``): read them all now, in one
        # statement. A store that remembers reads for the transaction (SQLite) then answers
        # each atom from memory; one that does not reads them again, one statement per atom.
        self.store.memories.get_units(
            viewer, list(dict.fromkeys(h.unit_id for hits in found for h in hits)), lean=True
        )

    def note_written(self, bank_id: str, unit_id: str, vector: np.ndarray | None) -> None:
        """A unit was written after the prefetch: later atoms must be judged against it too."""
        fresh = self._batch.fresh.get(bank_id)
        if fresh is not None and vector is not None:
            fresh.add(unit_id, vector)

    def forget_prefetch(self) -> None:
        self._local.batch = _Batch()

    def _semantic(
        self, viewer: Viewer, key: str | None, vector: np.ndarray
    ) -> tuple[list[tuple[str, float]], bool]:
        """The nearest live units, best first: (id, similarity) and whether the list is
        prefetched (then it holds up to PREFETCH_SLACK more, for units retired since)."""
        pre = (
            None
            if key is None
            else self._batch.prefetched.get((viewer.bank_id, viewer.agent_id, key))
        )
        if pre is None:
            hits = self.store.channels.search_semantic(
                viewer, vector, self.model_id, Filters(statuses=LIVE), NEIGHBOURS
            )
            return [(h.unit_id, h.score) for h in hits], False
        fresh = self._batch.fresh.get(viewer.bank_id)
        if fresh is None or not fresh.ids:
            return pre, True
        # Score desc; on a tie the older unit first (the order one search over all would give).
        # What the viewer may not see or what is no longer live is dropped by ``neighbours``,
        # whose read of the units is scoped by the store.
        merged = [(uid, sim, 0, i) for i, (uid, sim) in enumerate(pre)]
        merged += [(uid, sim, 1, i) for i, (uid, sim) in enumerate(fresh.nearest(vector))]
        merged.sort(key=lambda m: (-m[1], m[2], m[3]))
        return [(uid, sim) for uid, sim, _, _ in merged[: NEIGHBOURS + PREFETCH_SLACK]], True

    @staticmethod
    def _corrects(text: str, turn: str | None = None) -> bool:
        """Whether an atom may correct an earlier statement of its conversation that the
        embedder finds far from it: a change cue (its own or its turn's: "I've changed my mind.
        ...") and a value ("change it to Big 4"). Only such atoms read the session's latest
        units, live and retired (two queries each, and one per step of a retired one's line
        of successors)."""
        statement = in_turn(analyze(text), turn)
        return statement.cue and bool(statement.values)

    def neighbours(
        self,
        bank_id: str,
        agent_id: str,
        claim: Claim | None,
        vector: np.ndarray | None,
        exclude: frozenset[str] = frozenset(),
        key: str | None = None,
        session: str | None = None,
        claim_text: str = "",
        turn: str | None = None,
    ) -> tuple[list[tuple[Unit, float]], dict[str, frozenset[Role]]]:
        """The units to judge the new atom against, with their similarity to it, and for
        each retired one among them the kinds of value, in their roles, it still holds."""
        viewer = Viewer(bank_id, agent_id, Scope.COLLECTIVE)
        found: dict[str, float] = {}
        slot_units: list[str] = []
        near: list[tuple[str, float]] = []
        prefetched = False
        holds: dict[str, frozenset[Role]] = {}
        if vector is not None:
            near, prefetched = self._semantic(viewer, key, vector)
            found.update(near)
        if session is not None and self._corrects(claim_text, turn):
            recent = self.store.memories.list_units(
                viewer, Filters(statuses=LIVE, session=session), SESSION_WINDOW, lean=True
            )
            slot_units += [u.id for u in recent if u.agent_id == agent_id]
            # A correction may change a value a statement still holds after a change of
            # another one retired it ("Can you change the date?" after the time changed).
            holds = self._held_in(viewer, agent_id, session)
            slot_units += list(holds)
        if claim is not None:
            # Same-slot units are judged even when the embedder finds them far apart
            # ("I live in Paris" / "I moved to Berlin last month").
            slot_units += self.store.trust.slot_unit_ids(bank_id, keys_of(claim)[1])
        missing = frozenset(u for u in slot_units if u not in found)
        if missing and vector is not None:
            for s in self.store.channels.search_semantic(
                viewer,
                vector,
                self.model_id,
                Filters(statuses=LIVE | RETIRED if holds else LIVE, include_ids=missing),
                len(missing),
            ):
                found[s.unit_id] = s.score
        for uid in missing:
            found.setdefault(uid, 0.0)
        for uid in exclude:
            found.pop(uid, None)
        units = self.store.memories.get_units(viewer, list(found), lean=True)
        out = [
            (units[u], found[u])
            for u in found
            if u in units
            and (units[u].status in LIVE or (u in holds and units[u].status in RETIRED))
        ]
        if prefetched:
            # The search's share is its NEIGHBOURS best still live; slot units all stay.
            # (An excluded unit keeps its place, as it did in a search of its own.)
            semantic = [
                u for u, _ in near if u in exclude or (u in units and units[u].status in LIVE)
            ]
            dropped = set(semantic[NEIGHBOURS:]) - set(slot_units)
            out = [(u, sim) for u, sim in out if u.id not in dropped]
        return out, holds

    def _held_in(self, viewer: Viewer, agent_id: str, session: str) -> dict[str, frozenset[Role]]:
        """The conversation's latest statements of this agent retired for a change of one of
        their values, each with the kinds of value, in their roles, it still holds (no
        successor in its lines said them: ``mneme.core.succession``). A later change of those
        is judged against it (ADR 0076, 0077). One query for the retired units, one per step
        of their lines."""
        retired = {
            u.id: (kinds_in_roles(analyze(u.text)), u)
            for u in self.store.memories.list_units(
                viewer, Filters(statuses=RETIRED, session=session), SESSION_WINDOW, lean=True
            )
            if u.agent_id == agent_id and successors(u)
        }
        if not retired:
            return {}
        held = still_held(
            retired,
            lambda ids: self.store.memories.get_units(viewer, list(ids), lean=True),
            roles_said,
        )
        return {uid: kinds for uid, kinds in held.items() if kinds}

    def assess(
        self,
        text: str,
        unit_type: UnitType,
        agent_id: str,
        bank_id: str,
        vector: np.ndarray | None,
        charter: charter_rules.Charter,
        exclude: frozenset[str] = frozenset(),
        key: str | None = None,
        session: str | None = None,
        when: dt.datetime | None = None,
        turn: str | None = None,
        source_id: str | None = None,
        visibility: Visibility = Visibility.SHARED,
    ) -> Assessment:
        """The verdict on a new atom; units in ``exclude`` are not judged against. ``key``:
        the atom's content key, under which ``prefetch`` may hold its neighbours; ``session``
        and ``when``: the conversation it was said in and when; ``turn``: the whole input the
        atom is one of, ``source_id`` its source and ``visibility`` the new unit's."""
        said = analyze(text)
        # A question states no claim ("What is the CEO's name?" is no claim about "what"; "Does
        # the office open at 9am?" none about "does office").
        claim = None if said.asks or wonders(said) else extract_claim(text)
        near, holds = self.neighbours(
            bank_id, agent_id, claim, vector, exclude, key, session, text, turn
        )
        question = self._question(bank_id, agent_id, text, session, source_id, visibility)
        asked = self._questions(bank_id, agent_id, [u for u, _ in near])
        voices = self._voices(bank_id, agent_id, said, session, [u for u, _ in near])
        candidate = Candidate(
            text=text,
            type=unit_type,
            agent_id=agent_id,
            claim=claim,
            session=session,
            when=when,
            turn=turn,
            answers=question.text if question is not None else None,
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
                session=session_of(u),
                when=said_at(u),
                answers=asked.get(u.id),
                holds=holds.get(u.id, frozenset()),
                voices=voices.get(u.id, frozenset()),
            )
            for u, sim in near
        ]
        errors: tuple[str, ...] = ()
        verdict = None
        live = [(u, sim) for u, sim in near if u.status in LIVE]
        if self.llm_judge is not None and live:
            # The LLM judges live statements only: what a retired one still holds is the
            # rules' reading (ADR 0076).
            verdict, errors = self._llm(text, live)
        if verdict is None:
            verdict = judge(candidate, nbs, self.config)
            if verdict.verdict in DESTRUCTIVE:
                # A value about to change is judged again with the other speaker's question
                # it answers, if any ("Would you like to visit on March 6th?" / "No, the
                # 7th."): what that question asked about is what the answer changes (a bare
                # answer's question is at hand; else one query, only when a value would
                # change).
                # So is what its author brought up since the value it would change ("is
                # there a bus from Vancouver?"): one more query, on the same condition.
                # Both come from one read of the conversation.
                recent = self._recent(bank_id, agent_id, session)
                prompt = question or self._question(
                    bank_id, agent_id, text, session, source_id, visibility, bare=False,
                    recent=recent,
                )  # fmt: skip
                candidate = replace(
                    candidate,
                    prompt=prompt.text if prompt is not None else None,
                    conversation=_conversation(recent, when, turn, visibility),
                )
                verdict = judge(candidate, nbs, self.config)
        if verdict.target_id is not None and verdict.old_value is not None:
            verdict = self._with_echoes(bank_id, agent_id, verdict, session)
        target = None
        also: tuple[Unit, ...] = ()
        supported: tuple[Unit, ...] = ()
        if verdict.target_id is not None:
            # The neighbours were read lean; what is done to the target needs all of it.
            viewer = Viewer(bank_id, agent_id, Scope.COLLECTIVE)
            full = self.store.memories.get_units(
                viewer, [verdict.target_id, *verdict.also, *verdict.supports]
            )
            target = full.get(verdict.target_id)
            also = tuple(full[u] for u in verdict.also if u in full)
            supported = tuple(full[u] for u in verdict.supports if u in full)
        ruling = charter_rules.evaluate(
            charter,
            verdict.verdict,
            verdict.confidence,
            new_type=candidate.type,
            old_type=target.type if target else None,
            old_immutable=bool(target and target.metadata.get("immutable")),
            conflict_type=verdict.conflict_type,
        )
        rejected = None
        if verdict.verdict not in (Verdict.NOOP, Verdict.LINK_EXISTING) and vector is not None:
            rejected = self.restated_rejection(bank_id, agent_id, candidate, vector)
        return Assessment(
            verdict, claim, target, ruling, errors, rejected, also, question, supported
        )

    def _with_echoes(
        self, bank_id: str, agent_id: str, verdict: Judgement, session: str | None
    ) -> Judgement:
        """The verdict with the statements that said its target's changed value back, in the
        same conversation, retired with it: what the write path recorded as restating the
        target (a SUPPORTS edge: "Please confirm: a taxi to 12 Harbour Road" after "I need a
        taxi to 12 Harbour Road") and still holding the value that stops holding. The judge
        pairs echoes it finds among the neighbours itself; this finds those it read as
        another frame ("Sorry, could I go to the Casa Azul instead?"). One query for the
        target's edges, one for the echoes, only when a value is retired."""
        assert verdict.target_id is not None
        assert verdict.old_value is not None
        if session is None:
            return verdict
        viewer = Viewer(bank_id, agent_id, Scope.COLLECTIVE)
        known = {verdict.target_id, *verdict.also}
        ids = [
            e.src
            for e in self.store.graph.edges_of(viewer, verdict.target_id)
            if e.type == EdgeType.SUPPORTS and e.dst == verdict.target_id and e.src not in known
        ]
        if not ids:
            return verdict
        echoes = sorted(
            (said_at(u), u.id)
            for u in self.store.memories.get_units(viewer, ids, lean=True).values()
            if u.status in LIVE
            and session_of(u) == session
            and verdict.old_value in on_days(analyze(u.text), said_at(u)).norms
        )
        if not echoes:
            return verdict
        return replace(verdict, also=(*verdict.also, *(uid for _, uid in echoes)))

    def _question(
        self,
        bank_id: str,
        agent_id: str,
        text: str,
        session: str | None,
        source_id: str | None,
        visibility: Visibility,
        *,
        bare: bool = True,
        recent: Sequence[Unit] | None = None,
    ) -> Unit | None:
        """The question an atom answers: the latest earlier turn of its conversation, when
        another speaker of the same agent's transcript said it and it asks something (one
        query). With ``bare`` (for a bare answer, whose slot it names), only a question that
        asks for something; else any that ends asking ("Are you leaving on March 9th?"). A
        private question is never named by a shared answer. ``recent``: the conversation's
        latest units of any status, newest first, if already read (then no query)."""
        statement = analyze(text)
        if session is None or statement.speaker is None or (bare and not is_bare(statement)):
            return None
        if recent is None:
            viewer = Viewer(bank_id, agent_id, Scope.COLLECTIVE)
            live = self.store.memories.list_units(
                viewer, Filters(statuses=LIVE, session=session), ANSWER_WINDOW, lean=True
            )
        else:
            live = [u for u in recent if u.status in LIVE][:ANSWER_WINDOW]
        for u in live:
            if source_id is not None and source_id in u.evidence:
                continue  # an earlier atom of the same turn
            asked = analyze(u.text)
            if (
                u.agent_id != agent_id
                or asked.speaker is None
                or asked.speaker.casefold() == statement.speaker.casefold()
                or not (asked.asks if bare else asked.ends_asking)
                or _hidden(u, visibility)
            ):
                return None
            return u
        return None

    def _recent(self, bank_id: str, agent_id: str, session: str | None) -> list[Unit] | None:
        """The conversation's latest ``CONVERSATION_WINDOW`` units of any status (a retired
        value was still said) as this agent may see them, newest first (one query); None
        outside a conversation."""
        if session is None:
            return None
        viewer = Viewer(bank_id, agent_id, Scope.COLLECTIVE)
        return self.store.memories.list_units(
            viewer, Filters(session=session), CONVERSATION_WINDOW, lean=True
        )

    def _voices(
        self,
        bank_id: str,
        agent_id: str,
        said: Statement,
        session: str | None,
        units: list[Unit],
    ) -> dict[str, frozenset[str]]:
        """For the neighbours of a transcript line's conversation, the speakers of the sources
        each rests on (read through the store's scope: a source this agent may not see names
        no one). One query, and none for a line without a speaker or a conversation."""
        if said.speaker is None or session is None:
            return {}
        ids = [u.id for u in units if session_of(u) == session]
        if not ids:
            return {}
        viewer = Viewer(bank_id, agent_id, Scope.COLLECTIVE)
        return {
            uid: frozenset(who.casefold() for t in texts if (who := split_speaker(t)[0]))
            for uid, texts in self.store.memories.evidence_texts(viewer, ids).items()
        }

    def _questions(self, bank_id: str, agent_id: str, units: list[Unit]) -> dict[str, str]:
        """For the neighbours that were bare answers, the text of the question each answered
        (read through the store's scope: a question this agent may not see is not read)."""
        ids = {u.id: q for u in units if isinstance(q := u.metadata.get("answers"), str)}
        if not ids:
            return {}
        viewer = Viewer(bank_id, agent_id, Scope.COLLECTIVE)
        found = self.store.memories.get_units(viewer, sorted(set(ids.values())), lean=True)
        return {uid: found[q].text for uid, q in ids.items() if q in found}

    def restated_rejection(
        self, bank_id: str, agent_id: str, candidate: Candidate, vector: np.ndarray
    ) -> Unit | None:
        """A rejected unit the candidate says again, in any words: one of the nearest
        rejected units the judge would merge the candidate into, or count it as evidence
        for, if it were live (the same values under one frame, a paraphrase, an exact
        repeat). None in a bank without any tombstone, which costs one cached lookup."""
        if not self.store.trust.has_tombstones(bank_id):
            return None
        viewer = Viewer(bank_id, agent_id, Scope.COLLECTIVE)
        hits = self.store.channels.search_semantic(
            viewer,
            vector,
            self.model_id,
            Filters(statuses=frozenset({UnitStatus.REJECTED})),
            REJECTED_NEIGHBOURS,
        )
        units = self.store.memories.get_units(viewer, [h.unit_id for h in hits], lean=True)
        for h in hits:
            unit = units.get(h.unit_id)
            if unit is None:
                continue
            nb = Neighbour(
                unit_id=unit.id,
                text=unit.text,
                type=unit.type,
                agent_id=unit.agent_id,
                status=UnitStatus.ACTIVE.value,  # judged as if it still held
                similarity=h.score,
                claim=extract_claim(unit.text),
                knowers=unit.knowers,
            )
            j = judge(candidate, [nb], self.config)
            restates = (
                j.verdict in (Verdict.NOOP, Verdict.LINK_EXISTING)
                or (j.verdict == Verdict.ADD and j.target_id == unit.id)  # says it, and more
                or (
                    # A belief about what a rejected plan or fact names ("I believe the Falcon
                    # cluster is overloaded" / rejected "Schedule the nightly jobs on the Falcon
                    # cluster.") says something of its own: only a statement held the way the
                    # rejected one was can say it again in other words.
                    is_held(candidate.type) == is_held(unit.type)
                    and says_again(
                        in_turn(analyze(candidate.text), candidate.turn),
                        analyze(unit.text),
                        h.score,
                        self.config.slots,
                        new_when=candidate.when,
                        old_when=said_at(unit),
                    )
                )
            )
            # A unit held back earlier as a restatement has no tombstone of its own: the one it
            # was held against is reached through the rejected unit it restated, a hit too.
            if restates and self.store.trust.find_tombstones(
                bank_id, content_key=unit.content_key, unit_id=unit.id
            ):
                return self.store.memories.get_units(viewer, [unit.id]).get(unit.id)
        return None

    def slot_rivals(
        self,
        unit: Unit,
        claim: Claim,
        rivals: Sequence[ClaimRecord],
        skip: frozenset[str],
        limit: int = MAX_SLOT_RIVALS,
        vector: np.ndarray | None = None,
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
            for uid in self.store.trust.claim_unit_ids(unit.bank_id, c.id)
            if uid not in skip and uid != unit.id
        ]
        units = self.store.memories.get_units(viewer, list(dict.fromkeys(ids)), lean=True)
        sims: dict[str, float] = {}
        if vector is not None and units:
            for hit in self.store.channels.search_semantic(
                viewer,
                vector,
                self.model_id,
                Filters(statuses=LIVE, include_ids=frozenset(units)),
                len(units),
            ):
                sims[hit.unit_id] = hit.score
        candidate = Candidate(
            text=unit.text,
            type=unit.type,
            agent_id=unit.agent_id,
            claim=claim,
            session=session_of(unit),
            when=said_at(unit),
        )
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
                similarity=sims.get(uid, 0.0),
                claim=extract_claim(other.text),
                knowers=other.knowers,
            )
            verdict = judge(candidate, [nb], self.config)
            if verdict.verdict == Verdict.CONTRADICT:
                full = self.store.memories.get_units(viewer, [uid]).get(uid)
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


def _hidden(unit: Unit, visibility: Visibility) -> bool:
    """Whether ``unit`` is private and what is judged is not: a shared atom's verdict never
    depends on (so never tells) what was said privately."""
    return unit.visibility == Visibility.PRIVATE and visibility != Visibility.PRIVATE


def _conversation(
    recent: Sequence[Unit] | None,
    when: dt.datetime | None,
    turn: str | None,
    visibility: Visibility,
) -> tuple[Said, ...] | None:
    """The atom's conversation, oldest first (``recent`` reversed, private statements left out
    of a shared atom's), and its own turn last; None outside a conversation."""
    if recent is None:
        return None
    said = [Said(u.text, said_at(u)) for u in reversed(recent) if not _hidden(u, visibility)]
    if turn is not None:
        said.append(Said(turn, when))
    return tuple(said)


def session_of(unit: Unit) -> str | None:
    session = unit.metadata.get("session_id")
    return session if isinstance(session, str) else None


def said_at(unit: Unit) -> dt.datetime:
    """When a unit was said: its mention time, else when it was recorded."""
    return unit.mentioned_at or unit.recorded_at


def is_merge(a: Assessment) -> bool:
    return a.judgement.verdict in (Verdict.NOOP, Verdict.LINK_EXISTING) and a.target is not None


def describe(verdicts: Sequence[Verdict]) -> str:
    return ", ".join(v.value for v in verdicts)
