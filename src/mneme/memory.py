"""Memory: the one service object. Every surface (CLI, MCP, HTTP, page) goes through it."""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Callable, Generator, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any

from mneme import config as config_mod
from mneme import validate
from mneme.background.health import health as health_snapshot
from mneme.background.reconsolidate import Reconsolidator
from mneme.background.worker import Worker
from mneme.config import Config
from mneme.core.audit_chain import ChainReport
from mneme.core.erasure import PurgeReport
from mneme.core.judgement import JudgeConfig
from mneme.core.language import entity_key
from mneme.core.model import (
    LIVE_STATUSES,
    AddStatus,
    Agent,
    Bank,
    ConflictRecord,
    Edge,
    EdgeType,
    HistoryEvent,
    Hit,
    RetainResult,
    ReviewEvent,
    Rule,
    Scope,
    Settlement,
    Source,
    SweepProposal,
    SweepReport,
    Tombstone,
    Unit,
    Viewer,
)
from mneme.embed.protocol import Embedder
from mneme.errors import BackendUnavailable, InvalidInput, NotFound
from mneme.llm.extract import LLMExtractor
from mneme.llm.fallback import build_chain
from mneme.llm.judge import LLMJudge
from mneme.llm.protocol import LLM
from mneme.llm.sweep import LLMSweepJudge
from mneme.presence import PRESENCE_TTL, Presence, Roster
from mneme.read.chain import DIRECTIONS as CHAIN_DIRECTIONS
from mneme.read.chain import ChainStep
from mneme.read.chain import walk as walk_chain
from mneme.read.recall import Recaller
from mneme.store.copy import CopyReport, copy_store
from mneme.store.protocol import CompactReport, Filters, Store, StoreStats, UnitChanges
from mneme.think import Thinker
from mneme.trust.audit import anchor as audit_anchor
from mneme.trust.audit import verify as verify_audit
from mneme.trust.conflicts import Conflicts
from mneme.trust.history import history as trust_history
from mneme.trust.history import state_at as trust_state_at
from mneme.trust.purge import purge as purge_object
from mneme.trust.purge import purge_subject
from mneme.trust.review import Review
from mneme.trust.settle import Settler
from mneme.write.buffer import IngestBuffer
from mneme.write.charter import CharterFile
from mneme.write.decide import Judge
from mneme.write.defence import PolicyView
from mneme.write.links import connect as connect_memories
from mneme.write.plan import Plan
from mneme.write.retain import Retainer


def _utcnow() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


def unseen(what: str, object_id: str, agent: str) -> NotFound:
    """The one answer for an id that does not exist and for one the caller may not see: the
    words never tell the two apart (issue 16: they differed, so an absent id and another
    agent's private one could be told apart by the message alone)."""
    return NotFound(f"no {what} {object_id!r} visible to {agent}")


@dataclass(frozen=True, slots=True)
class GraphView:
    center: str
    units: Mapping[str, Unit]
    edges: tuple[Edge, ...]


def open_store(
    target: str,
    *,
    read_only: bool = False,
    audit_key_file: str | None = None,
    vector_index: str | None = None,
) -> Store:
    """The backend for a path or DSN. The only place that chooses between backends.

    ``audit_key_file``: the audit key (ADR 0035); None takes the default place for the target
    (``config.default_audit_key_file``). ``vector_index``: PostgreSQL's semantic channel
    (``Config.pg_vector_index``); None takes the configured one.
    """
    key_file = audit_key_file or config_mod.default_audit_key_file(os.environ, target)
    if target.startswith(("postgresql://", "postgres://")):
        from mneme.store.postgres import PostgresStore

        return PostgresStore(target, audit_key_file=key_file, vector_index=vector_index)
    from mneme.store.sqlite import SQLiteStore

    if target not in ("", ":memory:") and not read_only:
        parent = Path(target).expanduser().parent
        try:
            parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise BackendUnavailable(f"cannot create the directory for {target}: {exc}") from exc
    return SQLiteStore(target, read_only=read_only, audit_key_file=key_file)


def copy_between(
    src: str, dst: str, *, progress: Callable[[str, int], None] | None = None
) -> CopyReport:
    """Copy the whole store at ``src`` (path or DSN) into the new, empty store at ``dst``.

    Every row of every table moves, audit log verbatim (``audit verify`` passes on the copy:
    the keys that sealed the source's records join the destination's audit key file).

    Raises:
        Conflict: the destination already holds rows.
        SchemaMismatch: the stores are at different schema versions (after migrating both).
    """
    source = open_store(src)
    try:
        target = open_store(dst)
        try:
            return copy_store(source, target, progress=progress)
        finally:
            target.close()
    finally:
        source.close()


#: The longest a caller may wait for a buffered write (``retain(..., wait=)``).
MAX_WAIT_SECONDS = 3600


class Memory:
    """Long-term memory for agents: retain, recall, and the trust and review mechanics."""

    def __init__(
        self,
        store: Store,
        embedder: Embedder,
        config: Config,
        clock: Callable[[], dt.datetime] = _utcnow,
        llm: LLM | None = None,
    ) -> None:
        self.store = store
        store.set_clock(clock)
        self.embedder = embedder
        self.config = config
        self.clock = clock
        self.review = Review(store, clock)
        self._conflicts = Conflicts(store, self.review, clock)
        self.charter = CharterFile(config.charter)
        #: The optional LLM (a fallback chain): write side and background only, never recall.
        self.llm = llm
        judge = Judge(
            store, JudgeConfig(), embedder.model_id, LLMJudge(llm) if llm is not None else None
        )
        self._settler = Settler(store, self._conflicts, clock)
        self.presence = Presence(store, clock)
        self._retainer = Retainer(
            store,
            embedder,
            config,
            clock,
            judge,
            self._conflicts,
            self.charter,
            self._settler,
            LLMExtractor(llm) if llm is not None else None,
        )
        self._recaller = Recaller(store, embedder, config.recall, clock)
        self.reconsolidator = Reconsolidator(
            store,
            self.review,
            self._conflicts,
            clock,
            bar=config.reconsolidation_bar,
            batch=config.reconsolidation_batch,
            llm_judge=LLMSweepJudge(llm) if llm is not None else None,
        )
        self._sweeper = Worker("reconsolidate", self._sweep_step, config.reconsolidate_every)
        self._buffer = IngestBuffer(store, self._retainer, clock)
        self.think = Thinker(self)
        # A store that cannot be written (read-only media, a file this user may only read)
        # is still read: nothing is written at open, so nothing fails there (issue 16).
        if not (config.read_only or store.read_only):
            self._buffer.recover()  # accepted writes a previous process did not finish
            self._sweeper.start()

    @classmethod
    def open(
        cls,
        dsn_or_path: str | Path | None = None,
        *,
        embedder: Embedder | str | None = None,
        clock: Callable[[], dt.datetime] | None = None,
        config_file: str | None = None,
        env: Mapping[str, str] | None = None,
        **config: Any,
    ) -> Memory:
        """Open (creating and migrating if needed) the store at a path or PostgreSQL DSN.

        ``None`` opens the configured default (``MNEME_DB``, else the user data directory).
        Keyword arguments override configuration keys (see ``mneme.config.Config``).
        ``embedder`` is an Embedder, or a spec such as ``"minilm"`` or ``"hashing"``.

        Raises:
            SchemaMismatch: not a mneme store, corrupt, or written by a newer mneme.
            BackendUnavailable: the file or server cannot be opened.
        """
        env = os.environ if env is None else env
        if isinstance(embedder, str):
            config = {**config, "embedder": embedder}
            embedder = None
        cfg = config_mod.load(
            {**config, "db": str(dsn_or_path) if dsn_or_path else None}, env=env, file=config_file
        )
        target = cfg.db or config_mod.default_db_path(env)
        key_file = cfg.audit_key_file or config_mod.default_audit_key_file(env, target)
        store = open_store(
            target,
            read_only=cfg.read_only,
            audit_key_file=key_file,
            vector_index=cfg.pg_vector_index,
        )
        if embedder is None:
            from mneme.embed.factory import build_embedder

            try:
                embedder = build_embedder(cfg.embedder, api_key=cfg.embedder_api_key)
            except BaseException:
                store.close()
                raise
        chain = build_chain(cfg.llm, env) if cfg.llm else None
        return cls(store, embedder, cfg, clock or _utcnow, llm=chain or None)

    def schema_version(self) -> int:
        return self.store.schema_version()

    def migrate(self) -> list[int]:
        """Apply pending schema migrations (opening already does); the versions applied."""
        return self.store.migrate()

    def close(self) -> None:
        self._sweeper.stop()
        closer = getattr(self.llm, "close", None)
        if closer is not None:
            closer()
        self._buffer.close()
        self._recaller.close()
        self.store.close()

    def __enter__(self) -> Memory:
        return self

    def __exit__(self, *exc: type[BaseException] | BaseException | TracebackType | None) -> None:
        self.close()

    # -- write --------------------------------------------------------------------------

    def retain(
        self,
        text: str,
        *,
        bank: str,
        agent: str,
        session: str | None = None,
        occurred_at: dt.datetime | str | None = None,
        mentioned_at: dt.datetime | str | None = None,
        source_id: str | None = None,
        source_kind: str | None = None,
        trust: float | None = None,
        supersedes: Iterable[str] | str | None = None,
        visibility: str = "shared",
        metadata: Mapping[str, Any] | None = None,
        wait: float | None = None,
    ) -> RetainResult:
        """Keep what happened: store the source, atomize it, and link what it says.

        ``wait=None`` does the work before returning. A number uses the ingest buffer: the input
        is validated and persisted, then the finished result comes back if it is done within
        ``wait`` seconds, else ``status="accepted"`` with a ``pending_id`` for
        ``get_add_status``.

        Before anything is stored, the text is screened for secrets and personal data; the
        bank's policy (``set_sensitive_policy``) stores, redacts or refuses what is found,
        and the decision is audited (ADR 0034).

        Raises:
            InvalidInput: empty or oversized text, NUL bytes, a bad id, time or trust; or the
                bank's sensitive-data policy refuses what the text holds.
            Conflict: ``source_id`` already holds different text.
        """
        args: dict[str, Any] = {
            "text": text,
            "bank": bank,
            "agent": agent,
            "session": session,
            "occurred_at": occurred_at,
            "mentioned_at": mentioned_at,
            "source_id": source_id,
            "source_kind": source_kind,
            "trust": trust,
            "supersedes": list(supersedes)
            if supersedes and not isinstance(supersedes, str)
            else supersedes,
            "visibility": visibility,
            "metadata": metadata,
        }
        if wait is not None:
            if (
                isinstance(wait, bool)
                or not isinstance(wait, int | float)
                or not 0 <= wait <= MAX_WAIT_SECONDS
            ):
                raise InvalidInput(
                    f"wait must be a number of seconds from 0 to {MAX_WAIT_SECONDS}, not {wait!r}"
                )
            return self._buffer.submit(args, float(wait))
        text_arg = args.pop("text")
        return self._retainer.run([self._retainer.plan(text_arg, **args)])[0]

    def get_add_status(
        self, pending_id: str, *, bank: str | None = None, agent: str | None = None
    ) -> AddStatus:
        """Where an accepted write stands: pending, processing, done (with result) or failed.
        ``bank`` (and ``agent``) scope the lookup: a write into another bank, or another
        agent's private write, is not found.

        Raises:
            NotFound: no accepted write has this id (that the caller may see).
        """
        return self._buffer.status(
            validate.ident(pending_id, "pending_id"),
            validate.optional_ident(bank, "bank"),
            validate.optional_ident(agent, "agent"),
        )

    def retain_many(self, items: Iterable[Mapping[str, Any]]) -> list[RetainResult]:
        """Retain many inputs with one embedding batch and one transaction (bulk import).

        Each item holds ``retain``'s arguments by name. Every item is validated before
        anything is written: one bad item rejects the whole batch and nothing is stored.
        """
        plans = self._plans(items)
        return self._retainer.run(plans) if plans else []

    def retain_batches(
        self, batches: Iterable[Iterable[Mapping[str, Any]]]
    ) -> Generator[list[RetainResult], None, None]:
        """Retain batch after batch, each as ``retain_many`` would (validated whole, one
        transaction), while the next batch is embedded in a worker thread (ADR 0024).

        A generator: it yields each batch's results once the batch is committed, and takes
        the next batch from ``batches`` only then. A bad batch (or an error from ``batches``
        itself) is raised after the batches before it are committed; nothing of it is stored.
        This is the fast path for imports: on LoCoMo here it is about 1.3x the rate of the
        same batches through ``retain_many`` one after another.
        """
        return self._retainer.stream(self._plans(batch) for batch in batches)

    def _plans(self, items: Iterable[Mapping[str, Any]]) -> list[Plan]:
        plans = []
        for i, item in enumerate(items):
            if not isinstance(item, Mapping) or "text" not in item:
                raise InvalidInput(f"item {i} must be a mapping with a 'text' key")
            args = dict(item)
            try:
                plans.append(self._retainer.plan(args.pop("text"), **args))
            except (TypeError, InvalidInput) as exc:
                err = InvalidInput(f"item {i}: {exc}")
                err.index = i
                raise err from exc
        return plans

    # -- read ---------------------------------------------------------------------------

    def recall(
        self,
        query: str,
        *,
        bank: str,
        agent: str,
        scope: str = "personal",
        k: int = 10,
        time_from: dt.datetime | str | None = None,
        time_to: dt.datetime | str | None = None,
        as_of: dt.datetime | str | None = None,
        types: Iterable[str] | None = None,
        include_superseded: bool = True,
        min_relevance: float | None = None,
    ) -> list[Hit]:
        """Find what is known, best first, with provenance. No model call but the embedding.

        Every hit carries ``relevance``, the calibrated probability (0 to 1) that it is an
        answer; ``min_relevance`` drops the hits below it, so fewer than ``k`` may come back.
        An unknown bank holds nothing: the result is empty.
        """
        q = self._recaller.parse(
            query,
            bank=bank,
            agent=agent,
            scope=scope,
            k=k,
            time_from=time_from,
            time_to=time_to,
            as_of=as_of,
            types=types,
            include_superseded=include_superseded,
            min_relevance=min_relevance,
        )
        if self.store.get_bank(q.viewer.bank_id) is None:
            return []
        return self._recaller.recall(q)

    def _viewer(
        self, object_id: str, bank: str | None, agent: str | None, scope: str, what: str
    ) -> Viewer:
        """Who looks, and in which bank: the named one, else the bank holding the id. An id
        that is nowhere is refused in the words ``what`` an invisible one gets (``unseen``)."""
        validate.ident(object_id, "id")
        who = "owner" if agent is None else validate.ident(agent, "agent")
        if bank is not None:
            # The bank named is where to look: whether the id exists elsewhere is not told.
            found: str | None = validate.ident(bank, "bank")
        else:
            found = self.store.locate(object_id)
            if found is not None and len(self.store.source_banks(object_id)) > 1:
                raise InvalidInput(
                    f"source id {object_id!r} is used in more than one bank; name the bank"
                )
        if found is None:
            raise unseen(what, object_id, who)
        if agent is None:
            return Viewer(found, "owner", Scope.OWNER)
        return Viewer(found, who, validate.scope(scope))

    def get(
        self,
        memory_id: str,
        *,
        bank: str | None = None,
        agent: str | None = None,
        scope: str = "collective",
    ) -> Unit:
        """One memory unit by id. Without ``agent``, the caller is the store's owner."""
        viewer = self._viewer(memory_id, bank, agent, scope, "memory")
        unit = self.store.get_units(viewer, [memory_id]).get(memory_id)
        if unit is None:
            raise unseen("memory", memory_id, viewer.agent_id)
        return unit

    def source(
        self,
        source_id: str,
        *,
        bank: str | None = None,
        agent: str | None = None,
        scope: str = "collective",
    ) -> Source:
        viewer = self._viewer(source_id, bank, agent, scope, "source")
        src = self.store.get_source(viewer, source_id)
        if src is None:
            raise unseen("source", source_id, viewer.agent_id)
        return src

    def list_memories(
        self,
        *,
        bank: str,
        agent: str | None = None,
        scope: str = "collective",
        limit: int = 50,
        offset: int = 0,
    ) -> list[Unit]:
        """Units of a bank, newest first."""
        validate.ident(bank, "bank")
        viewer = (
            Viewer(bank, "owner", Scope.OWNER)
            if agent is None
            else Viewer(bank, validate.ident(agent, "agent"), validate.scope(scope))
        )
        return self.store.list_units(
            viewer,
            Filters(),
            validate.positive_int(limit, "limit", high=10_000),
            max(0, int(offset)),
        )

    def history(
        self, object_id: str, *, bank: str | None = None, agent: str | None = None
    ) -> list[HistoryEvent]:
        """Every recorded change of a unit, source, claim or conflict, oldest first."""
        viewer = self._viewer(object_id, bank, agent, "collective", "memory or source")
        visible = (
            self.store.get_units(viewer, [object_id])
            or self.store.get_source(viewer, object_id) is not None
            or (
                viewer.scope == Scope.OWNER
                and (
                    self.store.get_claim(viewer.bank_id, object_id) is not None
                    or self.store.get_conflict(viewer.bank_id, object_id) is not None
                )
            )
        )
        if not visible:
            raise unseen("memory or source", object_id, viewer.agent_id)
        return trust_history(self.store, viewer.bank_id, object_id)

    def state_at(self, object_id: str, at: dt.datetime | str) -> dict[str, Any] | None:
        """What mneme held about a unit, claim or conflict at a past instant (record time)."""
        when = validate.when(at, "at")
        assert when is not None
        viewer = self._viewer(object_id, None, None, "collective", "memory or source")
        return trust_state_at(self.store, viewer.bank_id, object_id, when)

    def invalidate(
        self, memory_id: str, valid_until: dt.datetime | str, *, actor: str, reason: str = ""
    ) -> Unit:
        """Say when a memory stopped being true (valid time), never before it began."""
        until = validate.when(valid_until, "valid_until")
        assert until is not None
        unit = self.get(memory_id)
        if unit.valid_from is not None and until < unit.valid_from:
            raise InvalidInput(
                f"valid_until {until.isoformat()} is before the memory began to hold "
                f"({unit.valid_from.isoformat()})"
            )
        with self.store.transaction():
            return self.store.update_unit(
                unit.bank_id,
                unit.id,
                UnitChanges(valid_until=until),
                actor=validate.ident(actor, "actor"),
                reason=reason or "no longer true",
            )

    # -- trust: review, tombstones, conflicts -------------------------------------------

    def reject(
        self, memory_id: str, reason: str, actor: str, because: str | None = None
    ) -> Tombstone:
        """Reject a unit or claim: its value is tombstoned and never comes back by itself.

        ``because`` names the belief (a memory of the same bank) the rejection rests on, as
        ``review.decide`` takes it: the unit is then CONTESTED_BECAUSE that belief, and
        reconsolidation re-examines the rejection when the belief changes.

        Raises:
            NotFound: no such unit or claim, or no memory ``because`` in its bank.
            Conflict: it is already rejected.
        """
        return self.review.reject(memory_id, reason, actor, because=because)

    def restore(self, memory_id: str, actor: str, note: str = "") -> ReviewEvent:
        """Undo the latest decision on a unit or claim (a rejection lifts its tombstone).

        Raises:
            Conflict: there is nothing to restore.
        """
        return self.review.decide(memory_id, "restore", actor, note=note)

    def conflicts(
        self, *, bank: str, status: str | None = "open", limit: int = 100
    ) -> list[ConflictRecord]:
        """Disagreements between memories; open ones by default."""
        return self._conflicts.list(bank=bank, status=status, limit=limit)

    def resolve(
        self,
        conflict_id: str,
        resolution: str,
        *,
        actor: str,
        note: str = "",
        winner: str | None = None,
        scope_a: str | None = None,
        scope_b: str | None = None,
    ) -> ConflictRecord:
        """Settle a conflict: supersede, reject, not_conflict or scoped_exception."""
        return self._conflicts.resolve(
            conflict_id,
            resolution,
            actor=actor,
            note=note,
            winner=winner,
            scope_a=scope_a,
            scope_b=scope_b,
        )

    def graph(
        self,
        memory_id: str,
        depth: int = 1,
        *,
        bank: str | None = None,
        agent: str | None = None,
        scope: str = "collective",
    ) -> GraphView:
        """The neighbourhood of a unit over typed edges, within the caller's scope."""
        viewer = self._viewer(memory_id, bank, agent, scope, "memory")
        depth = validate.positive_int(depth, "depth", high=4)
        units: dict[str, Unit] = {}
        edges: dict[str, Edge] = {}
        frontier = [memory_id]
        for _ in range(depth + 1):
            found = self.store.get_units(viewer, [f for f in frontier if f not in units])
            units.update(found)
            if len(edges) > 2_000:
                break
            nxt: list[str] = []
            for uid in found:
                for e in self.store.edges_of(viewer, uid):
                    edges[e.id] = e
                    nxt.extend(x for x in (e.src, e.dst) if x not in units)
            frontier = nxt
        if memory_id not in units:
            raise unseen("memory", memory_id, viewer.agent_id)
        return GraphView(memory_id, units, tuple(edges.values()))

    def resolve_contradiction(
        self, from_id: str, to_id: str, decision: str, *, actor: str, note: str = ""
    ) -> Settlement:
        """Answer a write's question: confirm the new memory, retract it, or keep both.

        ``from_id`` is the new memory, ``to_id`` the one it disputed. Each settlement is a
        precedent; enough identical ones come back with a rule proposal.
        """
        return self._settler.resolve_contradiction(from_id, to_id, decision, actor=actor, note=note)

    def adopt_rule(
        self, *, bank: str, kind: str, attribute: str, decision: str, actor: str
    ) -> Rule:
        """Adopt a proposed rule; it is listed beside the charter, never inside it."""
        return self._settler.adopt(bank, kind, attribute, decision, actor=actor)

    def rules(self, *, bank: str | None = None) -> dict[str, Any]:
        """The charter in force (text and checked rules) and, per bank, the adopted rules."""
        charter = self.charter()
        banks = [bank] if bank else [b.id for b in self.banks()]
        return {
            "charter": charter.text,
            "charter_rules": list(charter.rules),
            "charter_error": self.charter.error,
            "adopted": {b: self.store.list_rules(b) for b in banks},
        }

    def update(
        self,
        memory_id: str,
        text: str,
        *,
        agent: str,
        reason: str | None = None,
        occurred_at: dt.datetime | str | None = None,
        source_id: str | None = None,
    ) -> RetainResult:
        """Correct a memory: the new text supersedes it (nothing is overwritten in place).

        A memory marked immutable is not superseded: the result asks a person instead.
        """
        unit = self.get(memory_id, agent=agent, scope="collective")
        return self.retain(
            text,
            bank=unit.bank_id,
            agent=agent,
            occurred_at=occurred_at,
            source_id=source_id,
            supersedes=[memory_id],
            source_kind="correction",
            metadata={"reason": reason} if reason else None,
        )

    def chain(
        self,
        query: str,
        *,
        bank: str,
        agent: str,
        scope: str = "collective",
        direction: str = "both",
        depth: int = 3,
    ) -> list[ChainStep]:
        """A reasoning chain: the best match for the query and its why-edges, both ways."""
        if direction not in CHAIN_DIRECTIONS:
            raise InvalidInput(f"direction must be one of {', '.join(CHAIN_DIRECTIONS)}")
        depth = validate.positive_int(depth, "depth", high=6)
        hits = self.recall(query, bank=bank, agent=agent, scope=scope, k=1)
        if not hits:
            return []
        viewer = Viewer(bank, agent, validate.scope(scope))
        return walk_chain(self.store, viewer, hits[0].unit, direction, depth)

    def connect(
        self,
        a: str,
        b: str,
        *,
        bank: str,
        agent: str,
        type: str = "RELATES_TO",
        weight: float = 1.0,
        note: str = "",
    ) -> Edge:
        """Link two memories (ids, or queries whose best match is taken) with a typed edge."""
        viewer = Viewer(
            validate.ident(bank, "bank"), validate.ident(agent, "agent"), Scope.COLLECTIVE
        )

        def best(query: str, v: Viewer) -> list[Hit]:
            return self.recall(query, bank=v.bank_id, agent=v.agent_id, scope="collective", k=1)

        return connect_memories(
            self.store, best, viewer, a, b, type=type, weight=weight, note=note, now=self.clock()
        )

    def concept(
        self, name: str, *, bank: str, agent: str, scope: str = "collective", k: int = 20
    ) -> list[Unit]:
        """Memories that mention a named thing (an entity or one of its aliases)."""
        name = validate.text(name, what="concept", max_chars=200)
        viewer = Viewer(
            validate.ident(bank, "bank"), validate.ident(agent, "agent"), validate.scope(scope)
        )
        k = validate.positive_int(k, "k", high=1000)
        scored = self.store.search_entities(
            viewer, [entity_key(name)], Filters(statuses=LIVE_STATUSES), k
        )
        units = self.store.get_units(viewer, [s.unit_id for s in scored])
        return [units[s.unit_id] for s in scored if s.unit_id in units]

    # -- reconsolidation ----------------------------------------------------------------

    def reconsolidate(
        self, belief_id: str | None = None, *, bank: str | None = None
    ) -> list[SweepReport]:
        """Re-examine what hangs on changed beliefs: one belief, or every pending change."""
        if belief_id is not None:
            validate.ident(belief_id, "belief_id")
            return [self.reconsolidator.sweep(belief_id)]
        return self.reconsolidator.run_pending(bank)

    def has_pending_reconsolidation(self, bank: str | None = None) -> bool:
        return self.reconsolidator.has_pending(bank)

    def contest(self, memory_id: str, *, because: str, actor: str) -> Edge:
        """Record that a memory is held back because of a belief (CONTESTED_BECAUSE)."""
        return self.reconsolidator.link(
            memory_id, because, EdgeType.CONTESTED_BECAUSE, actor=validate.ident(actor, "actor")
        )

    def support(self, memory_id: str, *, belief: str, actor: str) -> Edge:
        """Record that a memory is evidence for a belief (SUPPORTS)."""
        return self.reconsolidator.link(
            memory_id, belief, EdgeType.SUPPORTS, actor=validate.ident(actor, "actor")
        )

    def set_confidence(self, memory_id: str, confidence: float, *, actor: str, reason: str) -> Unit:
        """A person's (or a sweep's) change of confidence; a belief that changes is swept."""
        if (
            isinstance(confidence, bool)
            or not isinstance(confidence, int | float)
            or not 0 <= confidence <= 1
        ):
            raise InvalidInput(f"confidence must be a number from 0 to 1, not {confidence!r}")
        unit = self.get(memory_id)
        with self.store.transaction():
            after = self.store.update_unit(
                unit.bank_id,
                unit.id,
                UnitChanges(confidence=float(confidence)),
                actor=validate.ident(actor, "actor"),
                reason=reason or "confidence changed",
            )
            if confidence < unit.confidence:
                self.review.changed(unit.bank_id, [unit.id], "lost confidence")
        return after

    def sweep_proposals(self, *, bank: str) -> list[SweepProposal]:
        """Sweep verdicts below the confidence bar, waiting for a person."""
        return self.reconsolidator.proposals(validate.ident(bank, "bank"))

    def decide_proposal(self, proposal_id: str, accept: bool, *, actor: str) -> SweepProposal:
        return self.reconsolidator.decide(
            validate.ident(proposal_id, "proposal_id"),
            bool(accept),
            actor=validate.ident(actor, "actor"),
        )

    def _sweep_step(self) -> bool:
        if not self.reconsolidator.has_pending():
            return False
        return bool(self.reconsolidator.run_pending())

    # -- banks, agents, maintenance -----------------------------------------------------

    def banks(self) -> list[Bank]:
        return self.store.list_banks()

    def sensitive_policy(self, bank: str) -> PolicyView:
        """How a bank's writes treat secrets and personal data (ADR 0034): the rules set on
        the bank, and the action (store | redact | refuse) every category and kind gets."""
        return self._retainer.defence.view(validate.ident(bank, "bank"))

    def set_sensitive_policy(
        self, bank: str, policy: Mapping[str, str], *, actor: str, reason: str = ""
    ) -> PolicyView:
        """Set actions by category (``secret``, ``personal``) or kind (``api_key``, ``email``,
        ...): ``{"personal": "redact", "phone": "store"}``; ``"default"`` drops a rule. Laid
        over the rules the bank has; audited; a bank not yet written to is created.

        Raises:
            InvalidInput: an unknown category, kind or action.
        """
        return self._retainer.defence.set_policy(
            validate.ident(bank, "bank"),
            policy,
            actor=validate.ident(actor, "actor"),
            reason=reason,
            now=self.clock(),
            create=self.config.create_banks,
        )

    def roster(self, bank: str, *, ttl: dt.timedelta = PRESENCE_TTL) -> Roster:
        """Agents seen within the TTL; the silent ones are counted as hidden_stale."""
        return self.presence.roster(bank, ttl=ttl)

    def enroll(self, *, bank: str, agent: str, host: str | None = None) -> Agent:
        """Announce an agent to a bank's roster (its first heartbeat)."""
        return self.presence.heartbeat(bank=bank, agent=agent, host=host)

    def heartbeat(self, *, bank: str, agent: str, status: str = "active") -> Agent:
        return self.presence.heartbeat(bank=bank, agent=agent, status=status)

    def farewell(self, *, bank: str, agent: str) -> Agent:
        return self.presence.farewell(bank=bank, agent=agent)

    def reembed(
        self,
        *,
        bank: str | None = None,
        batch: int = 64,
        progress: Callable[[int], None] | None = None,
    ) -> int:
        """Give every unit a vector from the configured embedder; returns how many moved."""
        done = 0
        for rows in self.store.iter_for_embedding(bank, self.embedder.model_id, batch):
            vectors = self.embedder.embed([r.text for r in rows])
            with self.store.transaction():
                for row, vec in zip(rows, vectors, strict=True):
                    owner = self.store.locate(row.unit_id)
                    if owner is not None:
                        self.store.put_embedding(
                            owner, row.unit_id, self.embedder.model_id, [float(x) for x in vec]
                        )
            done += len(rows)
            if progress:
                progress(len(rows))
        return done

    def audit_anchor(self) -> dict[str, Any]:
        """The heads of every bank's audit chain now, to keep outside the store (ADR 0035):
        ``audit_verify(anchors=[...])`` then catches a rollback or a rewrite by a key holder."""
        return audit_anchor(self.store, self.clock().isoformat())

    def audit_verify(
        self, bank: str | None = None, *, anchors: Sequence[Mapping[str, Any]] = ()
    ) -> dict[str, ChainReport]:
        """Check every bank's audit (ADR 0035): the keyed hash chain and its keyed head (edits,
        deletions, insertions, reordering, truncation, a chain recomputed without the key),
        erasures made outside a purge, and every memory, source, claim, tombstone and conflict
        against the state its last audit record sealed (changes made beside mneme)."""
        if bank is not None:
            validate.ident(bank, "bank")
            if self.store.get_bank(bank) is None:
                raise NotFound(f"no bank {bank!r}")
        return verify_audit(self.store, bank, anchors)

    def purge(
        self,
        object_id: str,
        *,
        actor: str,
        reason: str,
        dry_run: bool = False,
        bank: str | None = None,
    ) -> PurgeReport:
        """Erase a memory or source irreversibly, as the law may require. Audited.

        The one exception to "never delete": a purged unit takes the sources that state it
        (their raw text holds the same content) and every unit that rests only on them;
        past audit records keep their digests but lose their content.
        """
        return purge_object(
            self.store, object_id, actor=actor, reason=reason, dry_run=dry_run, bank=bank
        )

    def compact(self) -> CompactReport:
        """Rewrite the store's files so erased rows leave no bytes behind (SQLite: checkpoint
        the WAL and VACUUM; PostgreSQL: VACUUM FULL, end the WAL segment, checkpoint). Run it
        after a purge that must be proved on disk; it takes the write lock while it runs."""
        return self.store.compact()

    def purge_subject(
        self,
        name: str,
        *,
        actor: str,
        reason: str,
        aliases: Sequence[str] = (),
        dry_run: bool = False,
        bank: str | None = None,
    ) -> tuple[PurgeReport, ...]:
        """Erase everything about a data subject (GDPR art. 17), in every bank or in ``bank``.

        Every memory and source that names the person (whole-word, case- and accent-insensitive,
        by ``name``, ``aliases`` and the aliases of the entity that is them) goes as ``purge``
        takes them; what survives but names them is blanked (review notes, conflict questions,
        claim review notes, audit content) or dropped (tombstones, sweep proposals, adopted
        rules, the entity). One report per bank; ``dry_run`` changes nothing.
        """
        return purge_subject(
            self.store,
            name,
            actor=actor,
            reason=reason,
            aliases=tuple(aliases),
            dry_run=dry_run,
            bank=bank,
        )

    def health(self) -> dict[str, Any]:
        """Schema, sizes, pending work, open conflicts and reconsolidation rates."""
        report = health_snapshot(self.store, banks=[b.id for b in self.banks()])
        report["charter_error"] = self.charter.error
        report["workers"] = {
            "reconsolidate": {"runs": self._sweeper.runs, "errors": self._sweeper.errors}
        }
        return report

    def stats(self) -> StoreStats:
        return self.store.stats()
