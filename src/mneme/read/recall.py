"""Recall: four channels over a scoped store, fused by RRF, reranked, shaped with provenance.

The read path makes no model call besides embedding the query (a test holds it to that).
"""

from __future__ import annotations

import copy
import datetime as dt
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent import futures
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from mneme import validate
from mneme.config import RecallConfig
from mneme.core import ranking
from mneme.core.claims import extract_claim
from mneme.core.keys import normalize_text
from mneme.core.language import entity_key, query_terms, tokens
from mneme.core.model import (
    LIVE_STATUSES,
    Channel,
    ConflictRef,
    Hit,
    Network,
    Scope,
    Unit,
    UnitStatus,
    UnitType,
    Viewer,
)
from mneme.core.questions import about_present, answer_kinds, without_now
from mneme.core.slots import frame_words
from mneme.core.statements import Statement, analyze
from mneme.core.succession import kinds_said, still_held, successors
from mneme.core.timeexpr import query_time_range
from mneme.core.values import Kind, find_values
from mneme.embed.protocol import Embedder
from mneme.errors import InvalidInput
from mneme.read import aliases, focus, hubs, present, relevance, smoothing
from mneme.store.protocol import Banks, Channels, Filters, Memories, Scored, Trust, UnitBrief


class RecallStore(Protocol):
    """The roles of the store this module uses (ADR 0044)."""

    banks: Banks
    memories: Memories
    channels: Channels
    trust: Trust


MAX_QUERY_CHARS = 8_192
QUERY_NODE = "<query>"
SCOPE_BOOST = 2.0
MAX_K = 1_000
#: A first-person query ("my account") lifts the asking agent's own first-person memories.
SELF_BOOST = 1.25
#: At most this many alias statements bridge one query (each costs one more pass).
ALIAS_BRIDGES = 2
#: The ``via_edge`` of a hit reached under another name through an alias statement.
ALIAS_EDGE = "ALIAS"
#: An observation found beside evidence it cites ranks just below that evidence: at most this
#: share of the lowest score among its cited units that are candidates too (ADR 0051). What
#: was said comes first; the observation that restates it follows.
OBSERVATION_BELOW_EVIDENCE = 0.999
#: Derived networks and where their units name what they rest on: an insight ranks below its
#: witnesses by the same rule (ADR 0056).
_CITES = {
    Network.OBSERVATION: ("observation", "evidence_units"),
    Network.INSIGHT: ("insight", "witnesses"),
}

#: How much one step of each link type passes on in spreading activation.
LINK_WEIGHTS: Mapping[str, float] = {
    "SUPERSEDES": 0.9,
    "SUPPORTS": 0.8,
    "BECAUSE": 0.8,
    "CAUSES": 0.8,
    "IMPLIES": 0.7,
    "CONTRADICTS": 0.6,
    "CONTESTED_BECAUSE": 0.6,
    "DERIVED_FROM": 0.6,
    "PART_OF": 0.5,
    "IS_A": 0.5,
    "RELATES_TO": 0.2,  # topical links the judge adds: weak evidence of relevance
    "ENTITY": 0.6,
    # Sibling atoms of one source fold into one hit (family collapse); letting them feed each
    # other graph mass would only reorder a family against its own best member.
    "SOURCE": 0.0,
}


@dataclass(slots=True)
class _Candidate:
    brief: UnitBrief
    channels: dict[str, int] = field(default_factory=dict)
    similarity: float = 0.0
    graph_mass: float = 0.0
    origin: str = "seed"
    via_edge: str | None = None
    parent: str | None = None
    flashback: bool = False
    score: float = 0.0


@dataclass(frozen=True, slots=True)
class Query:
    text: str
    viewer: Viewer
    k: int
    filters: Filters
    window: bool  # a hard time window was asked for
    as_of: dt.datetime | None
    min_relevance: float | None = None  # hits below it are dropped (k stays an upper bound)
    #: The best two candidate scores, set once the candidates are ranked: relevance reads them.
    top: tuple[float, float] = (0.0, 0.0)


class Recaller:
    def __init__(
        self,
        store: RecallStore,
        embedder: Embedder,
        config: RecallConfig,
        clock: Callable[[], dt.datetime],
    ) -> None:
        self.store = store
        self.embedder = embedder
        self.config = config
        self.clock = clock
        self._pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="mneme-recall")

    def retuned(self, config: RecallConfig) -> Recaller:
        """The same recaller with other knobs (a configuration reload, ADR 0057): it shares
        this one's channel threads, and a query already running here keeps its knobs."""
        twin = copy.copy(self)
        twin.config = config
        return twin

    def close(self) -> None:
        # Wait for a channel still running: the store closes its connections next, and closing
        # one under a running statement crashed the process (SIGSEGV, seen on a corrupt store).
        self._pool.shutdown(wait=True)

    def parse(
        self,
        query: Any,
        *,
        bank: Any,
        agent: Any,
        scope: Any,
        k: Any,
        time_from: Any,
        time_to: Any,
        as_of: Any,
        types: Any,
        include_superseded: bool,
        min_relevance: Any = None,
        session: Any = None,
    ) -> Query:
        text = validate.text(query, what="query", max_chars=MAX_QUERY_CHARS)
        conversation = validate.optional_ident(session, "session")
        bar = validate.fraction(min_relevance, "min_relevance")
        viewer = Viewer(
            validate.ident(bank, "bank"), validate.ident(agent, "agent"), validate.scope(scope)
        )
        k = validate.positive_int(k, "k", high=MAX_K)
        start = validate.when(time_from, "time_from")
        end = validate.when(time_to, "time_to")
        if start and end and start > end:
            raise InvalidInput(f"time_from {start.isoformat()} is after time_to {end.isoformat()}")
        at = validate.when(as_of, "as_of")
        type_set = None
        if types is not None:
            try:
                type_set = frozenset(
                    UnitType(t) for t in ([types] if isinstance(types, str) else types)
                )
            except ValueError as exc:
                raise InvalidInput(
                    f"unknown memory type in {types!r}; known: "
                    f"{', '.join(t.value for t in UnitType)}"
                ) from exc
        statuses = LIVE_STATUSES if include_superseded else LIVE_STATUSES - {UnitStatus.SUPERSEDED}
        if not include_superseded and at is None:
            at = self.clock()  # "only what holds": also drop what was said to have stopped
            current_only = True
        else:
            current_only = False
        filters = Filters(
            statuses=frozenset(statuses),
            types=type_set,
            occurred_from=start,
            occurred_to=end,
            valid_at=at,
            session=conversation,
        )
        return Query(
            text,
            viewer,
            k,
            filters,
            window=bool(start or end),
            as_of=None if current_only else at,
            min_relevance=bar,
        )

    # -- the read path ------------------------------------------------------------------

    def recall(self, q: Query) -> list[Hit]:
        """Hits for a parsed query, best first. An unknown bank holds nothing."""
        if self.store.banks.get_bank(q.viewer.bank_id) is None:
            return []
        cands = self._pass(q)
        self._smooth_by_observations(q, cands)
        self._aliases(q, cands)
        self._successors(q, cands)
        read: dict[str, Unit] = {}  # the texts the steps below read, each once per recall
        self._questions_below_statements(q, cands, read)
        self._present(q, cands, read)
        self._observations_below_evidence(q, cands, read)
        best = [*sorted((c.score for c in cands.values()), reverse=True)[:2], 0.0, 0.0]
        q = replace(q, top=(best[0], best[1]))
        hits = _successors_answer_too(self._shape(q, cands))
        if q.min_relevance is None:
            return hits
        return [h for h in hits if h.relevance >= q.min_relevance]

    def _pass(self, q: Query) -> dict[str, _Candidate]:
        """Channels, fusion, graph and rerank for one query text: the scored candidates."""
        cfg = self.config
        n = max(cfg.candidates, q.k * 3)
        anchor = q.as_of or self.clock()
        span = query_time_range(q.text, anchor)
        lexical: Future[list[Scored]] = self._pool.submit(
            self.store.channels.search_lexical, q.viewer, query_terms(q.text), q.filters, n
        )
        temporal: Future[list[Scored]] | None = None
        if span is not None:
            temporal = self._pool.submit(
                self.store.channels.search_temporal, q.viewer, span[0], span[1], q.filters, n
            )
        focused: Future[tuple[Any, frozenset[str]] | None] = self._pool.submit(self._focus, q)
        try:
            # The read path's model call (the focus channel's, when there is one, runs beside
            # it in the pool). MiniLM caches repeated queries.
            vector = self._embed(q.text)
            semantic = [
                s
                for s in self.store.channels.search_semantic(
                    q.viewer, vector, self.embedder.model_id, q.filters, n
                )
                if s.score >= cfg.semantic_floor
            ]
            semantic = self._less_hubs(q.viewer, semantic)
            lexical_hits = lexical.result()
            focus_hits = self._focused(q, focused.result())
            temporal_hits = temporal.result() if temporal is not None else None
        except BaseException:
            # Never leave a channel running behind the error: the caller may close the store
            # next, and a connection closed under a running statement crashed the process.
            running: list[Future[Any]] = [lexical, focused]
            futures.wait(running + ([temporal] if temporal is not None else []))
            raise
        if lexical_hits and cfg.lexical_floor > 0:
            bar = cfg.lexical_floor * lexical_hits[0].score
            lexical_hits = [s for s in lexical_hits if s.score >= bar]
        channels: dict[str, list[Scored]] = {
            Channel.SEMANTIC: semantic,
            Channel.LEXICAL: lexical_hits,
        }
        if temporal_hits is not None:
            channels[Channel.TEMPORAL] = temporal_hits
        if focus_hits:
            channels[Channel.FOCUS] = focus_hits
        weights: dict[str, float] = {
            Channel.SEMANTIC: cfg.semantic_weight,
            Channel.LEXICAL: cfg.lexical_weight,
            Channel.TEMPORAL: cfg.temporal_weight,
            Channel.GRAPH: cfg.graph_weight,
            Channel.FOCUS: cfg.focus_weight,
        }
        order = {c: [s.unit_id for s in hits] for c, hits in channels.items()}
        fused = ranking.rrf(order, weights, cfg.rrf_k)
        graph = self._graph(q, fused)
        if graph:
            order[Channel.GRAPH] = [
                uid for uid, _ in sorted(graph.items(), key=lambda kv: (-kv[1].mass, kv[0]))
            ]
            fused = ranking.rrf(order, weights, cfg.rrf_k)
        cands = self._candidates(q, order, channels, graph)
        self._score(cands, fused, graph, q.text)
        return cands

    def _embed(self, text: str) -> Any:
        """One query's vector: the embedder's query path (cached) when it has one."""
        embed_query = getattr(self.embedder, "embed_query", None)
        return embed_query(text) if embed_query else self.embedder.embed([text])[0]

    def _focus(self, q: Query) -> tuple[Any, frozenset[str]] | None:
        """The focus channel's question (``read/focus.py``, ADR 0103), in the recall pool: the
        query without the names of the entities it names that the bank knows, embedded, and
        the units that mention them (the restriction is the store query's). None when the
        query names no known entity or is nothing but names."""
        if self.config.focus_weight <= 0:
            return None
        surfaces = focus.name_keys(q.text)
        if not surfaces:
            return None
        mentions = self.store.channels.entity_mentions(
            q.viewer, list(surfaces), q.filters, focus.MAX_MENTIONS
        )
        keys = focus.outermost(mentions)
        asked = focus.without_names(q.text, surfaces, keys) if keys else None
        if asked is None:
            return None
        ids = frozenset(uid for k in keys for uid in mentions[k])
        if q.filters.include_ids is not None:
            ids &= q.filters.include_ids
        if len(ids) <= q.k:
            # The list would hold every mention: it would choose nothing, only vote again for
            # saying the name, and for this spelling of it ("Nordic", not "Nordics").
            return None
        return self._embed(asked), ids

    def _focused(self, q: Query, asked: tuple[Any, frozenset[str]] | None) -> list[Scored]:
        """The focus channel's list: the masked question's vector ranked among the mentions,
        ``k`` deep. On the calling thread, as the semantic channel: the vector index is not
        shared between threads mid-search."""
        if asked is None:
            return []
        vector, ids = asked
        within = replace(q.filters, include_ids=ids)
        found = self.store.channels.search_semantic(
            q.viewer, vector, self.embedder.model_id, within, q.k
        )
        return [s for s in found if s.score >= self.config.semantic_floor]

    def _less_hubs(self, viewer: Viewer, semantic: list[Scored]) -> list[Scored]:
        """The semantic channel's candidates in CSLS order (``hubs.less_hubs``), each keeping
        its cosine: only the order the fusion reads changes. A pool no larger than
        ``hub_neighbours`` keeps its order: there a density would be the pool's mean, no
        measure of a hub (a three-turn chat's question would jump its answer)."""
        cfg = self.config
        if cfg.hub_weight <= 0 or len(semantic) <= cfg.hub_neighbours:
            return semantic
        by_id = {s.unit_id: s for s in semantic}
        ids = list(by_id)
        density = self.store.channels.semantic_density(
            viewer, ids, self.embedder.model_id, cfg.hub_neighbours
        )
        order = hubs.less_hubs(ids, [s.score for s in semantic], density, cfg.hub_weight)
        return [by_id[u] for u in order]

    def _aliases(self, q: Query, cands: dict[str, _Candidate]) -> None:
        """An alias statement among the best candidates bridges the query to the other name.

        The query is asked again with the other name; what that finds saying the other name
        is reached through the alias statement (its parent) and ranked just above it, as a
        successor is above what it superseded. One extra pass per alias, at most
        ``ALIAS_BRIDGES``; none when no top candidate is an alias statement.
        """
        top = sorted(cands.values(), key=lambda c: (-c.score, c.brief.id))[: q.k]
        units = self.store.memories.get_units(q.viewer, [c.brief.id for c in top]) if top else {}
        bridges = 0
        for c in top:
            unit = units.get(c.brief.id)
            found = aliases.rewrite(q.text, unit.text) if unit is not None else None
            if found is None or bridges >= ALIAS_BRIDGES:
                continue
            bridges += 1
            other = self._pass(replace(q, text=found.text))
            ranked = sorted(other.values(), key=lambda o: (-o.score, o.brief.id))[: q.k]
            texts = self.store.memories.get_units(
                q.viewer, [o.brief.id for o in ranked if o.brief.id != c.brief.id]
            )
            for rank, o in enumerate(ranked):
                said = texts.get(o.brief.id)
                if said is None or not aliases.mentions(said.text, found.name):
                    continue
                if aliases.sides(said.text) is not None:
                    continue  # another alias statement is no answer either
                mine = cands.get(o.brief.id)
                if mine is None:
                    mine = cands[o.brief.id] = replace(o, origin="graph")
                mine.via_edge, mine.parent = ALIAS_EDGE, c.brief.id
                # Just above the alias statement, in the order the other name found them.
                mine.score = max(mine.score, c.score * (1.0001 + 1e-5 * (q.k - rank)) + 1e-9)

    def _graph(self, q: Query, fused: Mapping[str, float]) -> dict[str, ranking.Activation]:
        cfg = self.config
        if cfg.graph_weight <= 0 or not fused:
            return {}
        seeds = sorted(fused, key=lambda u: (-fused[u], u))[: cfg.graph_seeds]
        seed_mass = ranking.normalize({s: fused[s] for s in seeds})
        # Graph expansion honours scope and status, but not the time window: what it pulls in
        # from outside the window comes back flagged as a flashback.
        gfilters = Filters(
            statuses=q.filters.statuses,
            types=q.filters.types,
            valid_at=q.filters.valid_at,
            session=q.filters.session,  # a session named is a hard bound, not a window
        )
        links = self.store.channels.graph_links(
            q.viewer, seeds, gfilters, cfg.graph_links, kinds=frozenset(cfg.graph_kinds)
        )
        steps = [ranking.Step(li.src, li.dst, li.type, li.weight) for li in links]
        # The query itself is a node too: it links to the units that mention an entity it
        # names ("Where does Alice live?" reaches every unit about Alice).
        if cfg.graph_query_entities:
            named = self.store.channels.search_entities(
                q.viewer, entity_candidates(q.text), gfilters, cfg.candidates
            )
            steps.extend(ranking.Step(QUERY_NODE, s.unit_id, "ENTITY", s.score) for s in named)
            seed_mass[QUERY_NODE] = 1.0
        return ranking.spread(seed_mass, steps, LINK_WEIGHTS)

    def _candidates(
        self,
        q: Query,
        order: Mapping[str, list[str]],
        channels: Mapping[str, list[Scored]],
        graph: Mapping[str, ranking.Activation],
    ) -> dict[str, _Candidate]:
        ids = list(dict.fromkeys(uid for ids in order.values() for uid in ids))
        units = self.store.memories.unit_briefs(q.viewer, ids)
        sims = {s.unit_id: s.score for s in channels.get(Channel.SEMANTIC, [])}
        seeded = {uid for c, ids in order.items() if c != Channel.GRAPH for uid in ids}
        out: dict[str, _Candidate] = {}
        for channel, ranked in order.items():
            for rank, uid in enumerate(ranked, start=1):
                unit = units.get(uid)
                if unit is None:
                    continue
                cand = out.setdefault(uid, _Candidate(unit, similarity=sims.get(uid, 0.0)))
                cand.channels[channel] = rank
        for uid, act in graph.items():
            if uid not in out:
                continue
            cand = out[uid]
            cand.graph_mass = act.mass
            if uid not in seeded:
                parent = None if act.parent == QUERY_NODE else act.parent
                cand.origin, cand.via_edge, cand.parent = "graph", act.via, parent
                cand.flashback = q.window and not _in_window(cand.brief, q.filters)
        return out

    def _score(
        self,
        cands: Mapping[str, _Candidate],
        fused: Mapping[str, float],
        graph: Mapping[str, ranking.Activation],
        query_text: str = "",
    ) -> None:
        cfg = self.config
        w = ranking.BlendWeights(
            similarity=cfg.blend_similarity,
            graph=cfg.blend_graph,
            freshness=cfg.blend_freshness,
            consensus=cfg.blend_consensus,
            superseded_penalty=cfg.superseded_penalty,
        )
        norm = ranking.normalize({u: fused.get(u, 0.0) for u in cands})
        gnorm = ranking.normalize({u: c.graph_mass for u, c in cands.items()})
        now = self.clock()
        for uid, c in cands.items():
            when = c.brief.occurred_start or c.brief.recorded_at
            age = (now - when).total_seconds() / 86400.0
            c.score = ranking.blend(
                norm.get(uid, 0.0),
                c.similarity,
                gnorm.get(uid, 0.0),
                ranking.freshness(age, cfg.freshness_half_life_days),
                c.brief.knowers,
                _is_superseded(c.brief, None),
                w,
            )
        self._honour_scopes(query_text, cands)

    @staticmethod
    def _honour_scopes(query_text: str, cands: Mapping[str, _Candidate]) -> None:
        """Scoped exceptions: both memories hold, each in its scope ("at work" / "at home").

        A query that names a scope lifts the memory scoped to it above the one scoped
        elsewhere; a query that names none leaves both as they are.
        """
        named, elsewhere = _scopes(query_text, cands)
        for uid in named:
            cands[uid].score *= SCOPE_BOOST
        for uid in elsewhere:
            cands[uid].score /= SCOPE_BOOST

    def _successors(self, q: Query, cands: dict[str, _Candidate]) -> None:
        """A superseded hit brings its successor along, ranked just above it."""
        wanted = {
            c.brief.superseded_by: uid
            for uid, c in cands.items()
            if _is_superseded(c.brief, q.as_of) and c.brief.superseded_by
        }
        missing = [s for s in wanted if s and s not in cands]
        found = self.store.memories.unit_briefs(q.viewer, missing) if missing else {}
        for succ_id, old_id in wanted.items():
            if succ_id is None:
                continue
            old = cands[old_id]
            succ = cands.get(succ_id)
            if succ is None:
                brief = found.get(succ_id)
                if brief is None or (q.filters.statuses and brief.status not in q.filters.statuses):
                    continue
                succ = _Candidate(brief, origin="graph", via_edge="SUPERSEDES", parent=old_id)
                cands[succ_id] = succ
            succ.score = max(succ.score, old.score * 1.0001 + 1e-9)

    def _smooth_by_observations(self, q: Query, cands: Mapping[str, _Candidate]) -> None:
        """Each candidate cited by an observation that is a candidate too gains
        ``observation_smoothing`` times that observation's score (the best one), before
        observations are ranked below their evidence (``read/smoothing.py``, ADR 0051)."""
        matched = {
            uid: c.score
            for uid, c in cands.items()
            if c.brief.network == Network.OBSERVATION and c.score > 0.0
        }
        lift = smoothing.bonuses(
            self.store.memories, q.viewer, matched, self.config.observation_smoothing
        )
        for uid, gain in lift.items():
            c = cands.get(uid)
            if c is not None and c.brief.network not in _CITES:
                c.score += gain

    def _lean(self, q: Query, ids: Iterable[str], read: dict[str, Unit]) -> dict[str, Unit]:
        """The units (lean) of these ids, each read from the store once per recall."""
        wanted = list(dict.fromkeys(ids))
        missing = [uid for uid in wanted if uid not in read]
        if missing:
            read.update(self.store.memories.get_units(q.viewer, missing, lean=True))
        return {uid: read[uid] for uid in wanted if uid in read}

    def _observations_below_evidence(
        self, q: Query, cands: Mapping[str, _Candidate], read: dict[str, Unit]
    ) -> None:
        """An observation ranks below each evidence unit it cites that is a candidate too
        (``OBSERVATION_BELOW_EVIDENCE``). No query at all when no candidate is an observation."""
        found = [c for c in cands.values() if c.brief.network in _CITES]
        if not found:
            return
        units = self._lean(q, (c.brief.id for c in found), read)
        for c in found:
            unit = units.get(c.brief.id)
            key, field = _CITES[c.brief.network]
            meta = unit.metadata.get(key) if unit is not None else None
            cited = meta.get(field, ()) if isinstance(meta, Mapping) else ()
            scores = [cands[uid].score for uid in cited if uid in cands and uid != c.brief.id]
            if scores:
                c.score = min(c.score, min(scores) * OBSERVATION_BELOW_EVIDENCE - 1e-9)

    def _questions_below_statements(
        self, q: Query, cands: Mapping[str, _Candidate], read: dict[str, Unit]
    ) -> None:
        """A memory that only asks ("Bob: Congrats! What breed?") answers nothing: among the
        best ``question_window`` candidates, each that asks and names no value scores
        ``question_factor`` times its score (one read of their texts; none when the factor is
        1; ADR 0067)."""
        factor = self.config.question_factor
        window = self.config.question_window
        if factor >= 1.0 or window <= 0 or not cands:
            return
        top = sorted(cands.values(), key=lambda c: (-c.score, c.brief.id))[:window]
        units = self._lean(q, (c.brief.id for c in top), read)
        for c in top:
            unit = units.get(c.brief.id)
            said = analyze(unit.text) if unit is not None else None
            # A question that names a value ("Would you like the 10:30 slot?") offers it.
            if said is not None and said.asks and not said.values:
                c.score *= factor

    def _present(self, q: Query, cands: Mapping[str, _Candidate], read: dict[str, Unit]) -> None:
        """A question about what holds now ("What is the current ...?", "Where does Alice
        live?") is answered by the newest statement of what it asks for.

        Among the best ``present_window`` candidates, the ones that state a value of the kind
        the question asks for (a date for "when", a name for "where"...) come first, newest
        first; of two in open conflict the newer ranks above the older. Nothing leaves the
        window and nothing outside it moves: freshness stays weak everywhere else.
        """
        window = self.config.present_window
        if window <= 0 or q.as_of is not None or q.window or not about_present(q.text):
            return
        # A memory a scoped exception holds elsewhere than the question says ("at work" for
        # "... at home?") is no statement of its slot there, however new: it is not ordered.
        elsewhere = _scopes(q.text, cands)[1]
        top = sorted(
            (c for c in cands.values() if c.brief.id not in elsewhere),
            key=lambda c: (-c.score, c.brief.id),
        )[:window]
        if len(top) < 2:
            return
        units = self._lean(q, (c.brief.id for c in top), read)
        # A question that names what it asks about ("Where does *Alice* live?") is answered
        # by statements about it, not by the newest name in the bank.
        named = {v.norm for v in find_values(q.text) if v.kind in (Kind.NAME, Kind.CODE)}
        kinds = answer_kinds(q.text) or _asked_by_best(top[0], units, named)
        said = {
            c.brief.id: (u.mentioned_at or u.recorded_at)
            for c in top
            if (u := units.get(c.brief.id)) is not None
        }
        # A question that names nothing ("What is our cat called?") is about the subject its
        # best match shares with it (the cat): statements of another subject (the dog) are not
        # its answer, however new.
        about = frozenset() if named else _asked_subject(q.text, units.get(top[0].brief.id))
        held = self._still_held(q, top, units, kinds, read)
        typed = [
            c
            for c in top
            if kinds
            and (u := units.get(c.brief.id)) is not None
            and (st := analyze(u.text))
            # A value of the asked kind besides what the question names: "Melanie signed up
            # for a pottery class." names Melanie, and states no place for "Where has Melanie
            # camped?". A superseded statement answers only for the kinds it still holds.
            and {v.kind for v in st.values if v.norm not in named}
            & (
                held.get(c.brief.id, frozenset())
                if c.brief.status == UnitStatus.SUPERSEDED
                else kinds
            )
            and (
                _about_named(st, u.text, named)
                if named
                else not _of_another_subject(u.text, about, q.text)
            )
        ]
        # A value the question states ("locker 7", "floor 4", "the 2019 audit", "Anika's
        # number with Nordair") is part of its slot: a statement that states values of that
        # kind but not the question's ("Locker 17 ...", "... with Nordwing ...") is of
        # another slot, however new (ADR 0105).
        qualifiers: dict[Kind, set[str]] = {}
        for v in find_values(q.text):
            qualifiers.setdefault(v.kind, set()).add(v.norm)
        typed = [c for c in typed if not _of_another_qualifier(units[c.brief.id].text, qualifiers)]
        ratio = self.config.present_similarity
        asked = frame_words(without_now(q.text).casefold())
        if typed and named and ratio > 0:
            # A question that names its subject ("Who is Nora's manager?") asks for one of its
            # many slots: the value kind alone would put the newest statement about Nora that
            # names anything first ("Nora moved to Berlin."). Only statements that say a word the
            # question says besides its subject, or read about as close to it as the closest
            # one, are ordered newest first (ADR 0063 amendment).
            subject = frame_words(" ".join(named))
            kept = _near_question(typed, units, asked - subject, ratio, subject)
            typed = kept + _moved_on(
                [c for c in typed if c not in kept], kept, units, said, named, kinds
            )
        elif not typed and not named and self.config.present_untyped:
            # No candidate states a value of the kind asked for, because the answer is no value
            # the analyzer reads ("What is the current genre of the movie?": "I like mystery
            # movies.", "Look for comedy."): the question is read as a named one is, its slot
            # being what the statements close to it say (ADR 0096).
            pool = [
                c
                for c in top
                if c.brief.id in units
                and not _of_another_qualifier(units[c.brief.id].text, qualifiers)
            ]
            typed = _near_question(pool, units, asked, ratio)
        typed.sort(key=lambda c: (said.get(c.brief.id, c.brief.recorded_at), c.brief.id))
        typed.reverse()
        if not named:
            typed = _recent_and_close(asked, typed, units, self.config.present_closeness)
        ordered = typed + [c for c in top if c not in typed]
        # Of two in open conflict, the newer first (a settled one, a scoped exception
        # included, orders nothing).
        disputes = self._open_disputes(q, units.values())
        for i, c in enumerate(ordered):
            for j in range(i):
                other = ordered[j]
                newer = said.get(c.brief.id, c.brief.recorded_at) > said.get(
                    other.brief.id, other.brief.recorded_at
                )
                if newer and frozenset((c.brief.id, other.brief.id)) in disputes:
                    ordered.insert(j, ordered.pop(i))
                    break
        scores = sorted((c.score for c in top), reverse=True)
        for k in range(1, len(scores)):
            scores[k] = min(scores[k], scores[k - 1] - 1e-9)  # strictly in the new order
        for c, score in zip(ordered, scores, strict=True):
            c.score = score

    def _still_held(
        self,
        q: Query,
        top: Iterable[_Candidate],
        units: Mapping[str, Unit],
        kinds: frozenset[Kind],
        read: dict[str, Unit],
    ) -> dict[str, frozenset[Kind]]:
        """For each superseded candidate, the asked kinds no successor in its line says
        anything of (``mneme.core.succession``): one lean read per step of the line, only for
        superseded candidates."""
        if not kinds:
            return {}
        retired = {
            c.brief.id: (kinds, u)
            for c in top
            if c.brief.status == UnitStatus.SUPERSEDED
            and (u := units.get(c.brief.id)) is not None
            and successors(u)
        }
        return still_held(retired, lambda ids: self._lean(q, ids, read), kinds_said)

    def _open_disputes(self, q: Query, units: Iterable[Unit]) -> set[frozenset[str]]:
        """The pairs of these units that are in an open conflict."""
        return {
            frozenset((uid, other))
            for uid, found in self._open_conflicts(q, units).items()
            for _, other in found
        }

    def _open_conflicts(self, q: Query, units: Iterable[Unit]) -> dict[str, list[tuple[str, str]]]:
        """Per unit, its open conflicts as (conflict id, the other unit). Only a unit some
        conflict was ever opened on is looked up."""
        out: dict[str, list[tuple[str, str]]] = {}
        for unit in units:
            if not unit.contradictions:
                continue
            for c in self.store.trust.list_conflicts(
                q.viewer.bank_id, status="open", unit_id=unit.id
            ):
                other = c.b_unit if c.a_unit == unit.id else c.a_unit
                out.setdefault(unit.id, []).append((c.id, other))
        return out

    def _shape(self, q: Query, cands: Mapping[str, _Candidate]) -> list[Hit]:
        """The best ``k`` candidates as hits. Sibling atoms of one source are distinct facts:
        each takes its own place ("The Osprey router failed again." and "The Osprey router's
        replacement part number is RX-5531."), and each hit names the siblings among them."""
        ranked = sorted(cands.values(), key=lambda c: (-c.score, c.brief.id))
        chosen: list[_Candidate] = []
        flashbacks = 0
        for c in ranked:
            if len(chosen) >= q.k:
                break
            if c.flashback and flashbacks >= self.config.flashback_cap:
                continue
            flashbacks += c.flashback
            chosen.append(c)
        # Only now read whole units, and only for the hits returned.
        units = self.store.memories.get_units(q.viewer, [c.brief.id for c in chosen])
        chosen = _honour_speaker(q, chosen, units)
        members: dict[str, list[str]] = {}
        for c in chosen:
            members.setdefault(c.brief.family, []).append(c.brief.id)
        hits = [
            self._hit(
                q,
                c,
                units[c.brief.id],
                tuple(m for m in members[c.brief.family] if m != c.brief.id),
            )
            for c in chosen
            if c.brief.id in units
        ]
        return self._with_conflicts(q, hits)

    def _hit(self, q: Query, c: _Candidate, unit: Unit, family: tuple[str, ...]) -> Hit:
        sup = _is_superseded(unit, q.as_of)
        return Hit(
            unit=unit,
            score=round(c.score, 6),
            channels=dict(c.channels),
            origin=c.origin,
            via_edge=c.via_edge,
            parent=c.parent,
            superseded=sup,
            successor=unit.superseded_by if sup else None,
            flashback=c.flashback,
            evidence_source_ids=unit.evidence,
            family=family,
            relevance=round(
                relevance.probability(
                    relevance.features(c.score, q.top, c.channels, q.text, unit.text)
                ),
                4,
            ),
        )

    def _with_conflicts(self, q: Query, hits: list[Hit]) -> list[Hit]:
        """Each hit's *open* conflicts: the conflict id, the other party and its sources.
        A settled conflict is gone from hits; another party the agent may not see is never
        named. A personal recall still flags its hits disputed by another agent's shared
        statement: what the agent recalls of its own is contested, whichever scope it asked
        in (the other party is read in the collective scope, which holds no one else's
        private statement)."""
        open_ = self._open_conflicts(q, (h.unit for h in hits))
        if not open_:
            return hits
        others = sorted({o for pairs in open_.values() for _, o in pairs})
        seen = (
            q.viewer if q.viewer.scope == Scope.OWNER else replace(q.viewer, scope=Scope.COLLECTIVE)
        )
        units = self.store.memories.get_units(seen, others)
        out = []
        for h in hits:
            refs = tuple(
                ConflictRef(cid, o, units[o].evidence)
                for cid, o in open_.get(h.unit.id, [])
                if o in units
            )
            out.append(_replace(h, conflicts=refs) if refs else h)
        return out


def _successors_answer_too(hits: list[Hit]) -> list[Hit]:
    """A hit that replaced another hit is at least as relevant as the one it replaced: it
    holds the newer value of what that one answered ("Alice moved from Berlin to Munich."
    for "Where does Alice live?", beside "Alice lives in Berlin."), however fewer words it
    shares with the question. Without this, ``min_relevance`` could keep the stale value and
    drop the current one. Along chains too (A replaced by B replaced by C)."""
    at = {h.unit.id: i for i, h in enumerate(hits)}
    rel = [h.relevance for h in hits]
    changed = True
    while changed:  # relevance only rises, to the chain's best: this ends
        changed = False
        for i, h in enumerate(hits):
            j = at.get(h.successor) if h.successor else None
            if j is not None and rel[i] > rel[j]:
                rel[j] = rel[i]
                changed = True
    return [
        h if h.relevance == r else _replace(h, relevance=r) for h, r in zip(hits, rel, strict=True)
    ]


def _asked_by_best(best: _Candidate, units: Mapping[str, Unit], named: set[str]) -> frozenset[Kind]:
    """What a question that names what it asks about, but not the kind of answer ("Which React
    version does the app use?", "What is Jane's title?"), asks for: the kinds of value its
    best match states about that thing besides what the question names. Empty when the
    question names nothing (then nothing says which statements are about it)."""
    unit = units.get(best.brief.id)
    if not named or unit is None:
        return frozenset()
    st = analyze(unit.text)
    if not _about_named(st, unit.text, named):
        return frozenset()
    return frozenset(v.kind for v in st.values if v.norm not in named)


def _asked_subject(question: str, best: Unit | None) -> frozenset[str]:
    """The words of the best match's subject that the question says too ("our cat" in "What
    is our cat called?"); empty when its subject is a pronoun or the question does not say it."""
    claim = extract_claim(best.text) if best is not None else None
    if claim is None:
        return frozenset()
    return frame_words(question.casefold()) & frame_words(claim.subject.casefold())


def _of_another_subject(text: str, about: frozenset[str], question: str) -> bool:
    """Whether a statement is said of a subject of its own that is not what the question asks
    about ("Our dog is named Miso." for "What is our cat called?"). A statement whose subject
    is a pronoun, that says the asked subject anywhere, or a line of a transcript, is not."""
    if not about or about <= frame_words(text.casefold()):
        return False
    if analyze(text).speaker is not None:
        # A line of a transcript is its speaker's: what the claim rules read as its subject
        # ("actually user", "what bus station") is no subject of its own (SGD: 3 probes lost
        # to that reading).
        return False
    claim = extract_claim(text)
    own = frame_words(claim.subject.casefold()) if claim is not None else frozenset()
    return bool(own) and not own & frame_words(question.casefold())


def _scopes(query_text: str, cands: Mapping[str, _Candidate]) -> tuple[set[str], set[str]]:
    """Of the candidates a scoped exception holds, those in a scope the query names and those
    in another; none of either when the query names no scope of theirs."""
    text = normalize_text(query_text)
    scoped = {uid: c.brief.scope for uid, c in cands.items() if c.brief.scope}
    named = {uid for uid, scope in scoped.items() if normalize_text(scope) in text}
    if not named:
        return set(), set()
    return named, set(scoped) - named


def _near_question(
    candidates: Sequence[_Candidate],
    units: Mapping[str, Unit],
    asked: frozenset[str],
    ratio: float,
    subject: frozenset[str] = frozenset(),
) -> list[_Candidate]:
    """The candidates that read about as close to the question as the closest one (a cosine
    at least ``ratio`` times its), or say one of the question's words ``asked`` besides the
    ``subject`` it names: the ones about the slot it asks for."""
    bar = ratio * max(c.similarity for c in candidates) if candidates else 0.0
    return [
        c
        for c in candidates
        if c.similarity >= bar or asked & (frame_words(units[c.brief.id].text.casefold()) - subject)
    ]


def _recent_and_close(
    asked: frozenset[str], typed: Sequence[_Candidate], units: Mapping[str, Unit], weight: float
) -> list[_Candidate]:
    """Typed candidates, given newest first, with recency and closeness fused by rank
    (``read.present.order``, ADR 0093). A statement that says a change cue ("Actually, make
    it the 5th.") says where a value went however unlike the question it reads, and one that
    says one of the question's words ``asked`` (its words besides those for now: "weather" in
    "What is the current date for the weather?") is about what it asks, as for a question that
    names its subject: both count as closest."""
    closest = {
        c.brief.id
        for c in typed
        if analyze(text := units[c.brief.id].text).cue or asked & frame_words(text.casefold())
    }
    by_id = {c.brief.id: c for c in typed}
    similarity = {c.brief.id: c.similarity for c in typed}
    return [by_id[i] for i in present.order(list(by_id), similarity, closest, weight)]


def _moved_on(
    others: Sequence[_Candidate],
    kept: Sequence[_Candidate],
    units: Mapping[str, Unit],
    said: Mapping[str, dt.datetime],
    named: set[str],
    kinds: frozenset[Kind],
) -> list[_Candidate]:
    """Of the statements a named present question's similarity bar left out, the ones that
    say again, later, every value of the asked kind a kept statement answers with, and a new
    one beside it: "Lucy left Google and joined Stripe." after "Lucy works at Google." for
    "Where does Lucy work?". Naming the held value ties them to its slot however unlike the
    question they read; "Nora moved to Berlin." names no value of "Who is Nora's manager?"."""

    def asked_values(c: _Candidate) -> frozenset[str]:
        return frozenset(
            v.norm
            for v in analyze(units[c.brief.id].text).values
            if v.kind in kinds and v.norm not in named
        )

    held = [(said.get(k.brief.id, k.brief.recorded_at), asked_values(k)) for k in kept]
    out = []
    for c in others:
        values = asked_values(c)
        at = said.get(c.brief.id, c.brief.recorded_at)
        if any(old and old < values and when < at for when, old in held):
            out.append(c)
    return out


def _of_another_qualifier(text: str, qualifiers: Mapping[Kind, set[str]]) -> bool:
    """Whether a statement states a value of a kind the question qualifies its slot with,
    and does not say every one of the question's own (as a value or in its words: "React"
    is said by "... to React 18.")."""
    if not qualifiers:
        return False
    said: dict[Kind, set[str]] = {}
    for v in find_values(text):
        said.setdefault(v.kind, set()).add(v.norm)
    return any(
        k in said and not all(n in said[k] or _mentions_any(text, {n}) for n in norms)
        for k, norms in qualifiers.items()
    )


def _about_named(st: Statement, text: str, named: set[str]) -> bool:
    """Whether a statement is about what the question names: states it or mentions it."""
    return bool(named & st.norms) or _mentions_any(text, named)


def _mentions_any(text: str, names: set[str]) -> bool:
    low = text.casefold()
    return any(re.search(rf"\b{re.escape(n)}\b", low) for n in names)


_FIRST_PERSON = re.compile(r"\b(?:i|me|my|mine|myself)\b", re.IGNORECASE)


def _honour_speaker(
    q: Query, chosen: list[_Candidate], units: Mapping[str, Unit]
) -> list[_Candidate]:
    """ "my" in a query means the asking agent: what that agent said about itself, in the first
    person, ranks above what others said (SELF_BOOST), among the hits already chosen."""
    if not _FIRST_PERSON.search(q.text):
        return chosen
    for c in chosen:
        unit = units.get(c.brief.id)
        mine = unit is not None and unit.agent_id == q.viewer.agent_id
        if mine and unit is not None and _FIRST_PERSON.search(unit.text):
            c.score *= SELF_BOOST
    return sorted(chosen, key=lambda c: (-c.score, c.brief.id))


def entity_candidates(text: str) -> list[str]:
    """Entity keys a query might name: its words and word pairs and triples, normalized."""
    words = [w for w in tokens(text) if w not in ("s",)]
    keys = {
        entity_key(" ".join(words[i : i + n])) for n in (1, 2, 3) for i in range(len(words) - n + 1)
    }
    return sorted(k for k in keys if k)


def _is_superseded(unit: Unit | UnitBrief, as_of: dt.datetime | None) -> bool:
    if unit.status != UnitStatus.SUPERSEDED:
        return False
    if as_of is None:
        return True
    # As of a past instant, a supersession that came later was not yet in force.
    return unit.valid_until is not None and unit.valid_until <= as_of


def _in_window(unit: Unit | UnitBrief, f: Filters) -> bool:
    start = unit.occurred_start or unit.recorded_at
    end = unit.occurred_end or start
    lo = f.occurred_from
    hi = f.occurred_to
    return (hi is None or start <= hi) and (lo is None or end > lo or start >= lo)


def _replace(hit: Hit, **changes: Any) -> Hit:
    return replace(hit, **changes)


def evidence_sources(hits: Iterable[Hit]) -> list[str]:
    """Distinct evidence source ids of hits, in rank order (what an answer cites)."""
    out: list[str] = []
    for h in hits:
        for s in h.evidence_source_ids:
            if s not in out:
                out.append(s)
    return out
