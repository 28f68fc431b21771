"""Memory: the one service object. Every surface (CLI, MCP, HTTP, page) goes through it.

It is the composition root (ADR 0043): it builds the services once and wires them, keeps the
verbs on memories themselves (retain, recall, get, history, graph, chain, update...), and
hands everything else out as namespaces (``mem.review``, ``mem.conflicts``, ``mem.beliefs``,
``mem.swarm``, ``mem.admin``, ``mem.think``). The work is done in write/, read/, trust/ and
background/: a method here passes its arguments to the part that does it.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import threading
import warnings
from collections.abc import Callable, Generator, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any

from mneme import config as config_mod
from mneme import validate
from mneme.background.cadence import ReflectCadence
from mneme.background.insights import INSIGHTS, Insighter
from mneme.background.probes import Stage
from mneme.background.reconsolidate import Reconsolidator
from mneme.background.reflect import Reflector, ReflectReport
from mneme.background.watchdog import ACTOR as WATCHDOG
from mneme.background.watchdog import Watchdog, WatchSettings
from mneme.background.worker import Worker
from mneme.config import Config
from mneme.core.context_block import MAX_TOKENS, MIN_TOKENS, ContextBlock
from mneme.core.context_block import assemble as assemble_context
from mneme.core.judgement import JudgeConfig
from mneme.core.model import (
    AddStatus,
    Edge,
    HistoryEvent,
    Hit,
    RetainResult,
    Scope,
    Source,
    Unit,
)
from mneme.core.watchdog import Thresholds
from mneme.deprecation import Moved, warn_moved
from mneme.embed.protocol import Embedder
from mneme.errors import BackendUnavailable, InvalidInput
from mneme.lifecycle import close_at_exit, forget_at_exit
from mneme.llm.extract import LLMExtractor
from mneme.llm.fallback import LLMTierSkipped, build_chain
from mneme.llm.judge import LLMJudge
from mneme.llm.protocol import LLM
from mneme.llm.sweep import LLMSweepJudge
from mneme.namespaces import (
    AdminNamespace,
    BeliefsNamespace,
    ConflictsNamespace,
    InsightsNamespace,
    ReviewNamespace,
    SwarmNamespace,
)
from mneme.observe import Observers
from mneme.presence import Presence
from mneme.read.chain import ChainStep
from mneme.read.chain import from_query as chain_from_query
from mneme.read.lookup import Lookup
from mneme.read.neighbourhood import GraphView, neighbourhood
from mneme.read.recall import Recaller
from mneme.reconfigure import ReloadReport, Status, split
from mneme.store.copy import CopyReport, copy_store
from mneme.store.protocol import Store
from mneme.think import Thinker
from mneme.trust.conflicts import Conflicts
from mneme.trust.edits import Edits
from mneme.trust.history import history as trust_history
from mneme.trust.history import state_at as trust_state_at
from mneme.trust.review import Review
from mneme.trust.settle import Settler
from mneme.trust.worklist import Work
from mneme.write.buffer import IngestBuffer
from mneme.write.charter import CharterFile
from mneme.write.decide import Judge
from mneme.write.defence import Defence
from mneme.write.links import connect as connect_memories
from mneme.write.retain import Retainer


@dataclass(frozen=True, slots=True)
class _Live:
    """What a reload replaces, as one value (ADR 0057)."""

    config: Config
    llm: LLM | None
    retainer: Retainer
    recaller: Recaller
    sweep_judge: LLMSweepJudge | None


def _utcnow() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


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
    key_file = audit_key_file or config_mod.default_audit_key_file(None, target)
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


def watch_settings(config: Config) -> WatchSettings:
    """The watchdog's settings from the configuration's ``watch_*`` fields."""
    return WatchSettings(
        Thresholds(
            wal_bytes=config.watch_wal_bytes,
            db_bytes=config.watch_db_bytes,
            growth_bytes_per_hour=config.watch_growth_bytes_per_hour,
            queue_depth=config.watch_queue_depth,
            queue_age_seconds=config.watch_queue_age,
            stuck_seconds=config.watch_stuck_after,
            flood_per_pass=config.watch_flood_per_pass,
            disk_free_bytes=config.watch_disk_free_bytes,
            memory_bytes=config.watch_memory_bytes,
        ),
        bank=config.watch_bank,
        hook=config.watch_hook,
        hook_timeout=config.watch_hook_timeout,
        pause_passes=config.watch_pause_passes,
    )


@dataclass
class _Produced:
    """A stage's output so far in this process (``background.probes.Produces``)."""

    produced: int = 0


class Memory:
    """Long-term memory for agents: retain, recall, and the trust and review mechanics.

    On the Memory: the verbs on memories (``retain``, ``retain_many``, ``retain_batches``,
    ``get_add_status``, ``recall``, ``get``, ``source``, ``list_memories``, ``concept``,
    ``graph``, ``chain``, ``history``, ``state_at``, ``update``, ``invalidate``,
    ``connect``, ``reflect``) and its life (``open``, ``close``, ``with``). In namespaces:
    ``review`` (queue, decide, reject, restore), ``conflicts`` (list, resolve,
    resolve_contradiction),
    ``beliefs`` (reconsolidate, contest, support, set_confidence, proposals, decide),
    ``swarm`` (roster, enroll, heartbeat, farewell), ``insights`` (run, list, verify,
    categories), ``admin`` (health, stats, banks, schema,
    audit, purge, compact, reembed, policies and rules) and ``think`` (FastThink sessions).
    """

    def __init__(
        self,
        store: Store,
        embedder: Embedder,
        config: Config,
        clock: Callable[[], dt.datetime] = _utcnow,
        llm: LLM | None = None,
    ) -> None:
        # The store stays private: a reader of it would bypass scope (ADR 0043).
        self._store = store
        store.set_clock(clock)
        self.embedder = embedder
        self.clock = clock
        self.charter = CharterFile(config.charter)
        review = Review(store, clock)
        conflicts = Conflicts(store, review, clock)
        settler = Settler(store, conflicts, clock)
        self._conflicts, self._settler = conflicts, settler
        # What a reload rebuilds, held in one object: a request reads it once and finishes on
        # it, whatever a reload swaps in meanwhile (ADR 0057).
        self._live = self._wire(config, llm, Recaller(store, embedder, config.recall, clock))
        self._reloads = Status()
        self._reload_lock = threading.Lock()
        self._retired: list[LLM] = []  # replaced LLM chains: closed with the Memory
        #: The layers ``open`` read (overrides, env, file), for ``reload``; None: built directly.
        self._layers: dict[str, Any] | None = None
        self._lookup = Lookup(store)
        self._edits = Edits(store, review, self._lookup.owned)
        self._reconsolidator = Reconsolidator(
            store,
            review,
            conflicts,
            clock,
            bar=config.reconsolidation_bar,
            batch=config.reconsolidation_batch,
            llm_judge=self._live.sweep_judge,
        )
        self._reflector = Reflector(
            store,
            embedder,
            clock,
            llm=self._reflect_llm,
            max_calls=lambda: self._live.config.reflect_llm_max_calls,
        )
        review.on_change.append(self._reflector.note_change)
        self._presence = Presence(store, clock)
        self._sweeper = Worker(
            "reconsolidate", self._reconsolidator.step, config.reconsolidate_every
        )
        self._cadence = ReflectCadence(
            self._reflector,
            lambda: [b.id for b in store.banks.list_banks()],
            config.reflect_banks_per_pass,
        )
        self._reflecting = Worker("reflect", self._cadence.step, config.reflect_every)
        self._insighter = Insighter(store, embedder, clock, llm=self._insights_llm)
        review.on_change.append(self._insighter.note_change)
        self._insight_cadence = ReflectCadence(
            None,
            lambda: [b.id for b in store.banks.list_banks()],
            config.reflect_banks_per_pass,
            run=self._insight_pass,
        )
        #: What background insight passes wrote, for the watchdog's flood detector.
        self._insight_output = _Produced()
        self._insighting = Worker("insights", self._insight_cadence.step, config.insights_every)
        self._buffer = IngestBuffer(store, self._retainer, clock)
        #: Listeners of every write and recall (a metrics exporter attaches here, ADR 0055).
        self.observers = Observers()
        self._watchdog = Watchdog(
            store,
            clock,
            watch_settings(config),
            {
                "reconsolidate": Stage("reconsolidate", self._sweeper, self._reconsolidator),
                "insights": Stage("insights", self._insighting, self._insight_output),
            },
            self._ops_alert,
        )
        self._watching = Worker("watchdog", self._watchdog.step, config.watch_every)
        self.review = ReviewNamespace(review, Work(store, review, self._reconsolidator.decide))
        self.conflicts = ConflictsNamespace(conflicts, settler)
        self.beliefs = BeliefsNamespace(self._reconsolidator, self._edits)
        self.swarm = SwarmNamespace(self._presence)
        self.admin = AdminNamespace(
            store,
            embedder,
            clock,
            charter=self.charter,
            settler=settler,
            defence=self._retainer.defence,
            workers={
                "reconsolidate": self._sweeper,
                "reflect": self._reflecting,
                "watchdog": self._watching,
                "insights": self._insighting,
            },
            reflector=self._reflector,
            watchdog=self._watchdog,
            create_banks=config.create_banks,
        )
        self.think = Thinker(self, store.transaction)
        self.insights = InsightsNamespace(self._insighter)
        # A store that cannot be written (read-only media, a file this user may only read)
        # is still read: nothing is written at open, so nothing fails there (issue 16).
        if not (config.read_only or store.read_only):
            self._buffer.recover()  # accepted writes a previous process did not finish
            self._sweeper.start()
            self._reflecting.start()
            self._watching.start()
            self._insighting.start()
        # Left open at exit, a Memory closes itself before its store's own hook runs: its
        # workers stop before the pool closes (a write worker found it closed under it).
        self._close_at_exit = close_at_exit(self, Memory.close)

    def _insight_pass(self, bank: str) -> dict[str, Any]:
        """One background insight pass over ``bank``, its output counted for the watchdog."""
        report = self._insighter.run(bank, agent=INSIGHTS)
        self._insight_output.produced += len(report.created)
        return report.as_dict()

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
        env = config_mod.environment() if env is None else env
        if isinstance(embedder, str):
            config = {**config, "embedder": embedder}
            embedder = None
        layers: dict[str, Any] = {
            "overrides": {**config, "db": str(dsn_or_path) if dsn_or_path else None},
            "env": env,
            "file": config_file,
        }
        cfg = config_mod.load(**layers)
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
                embedder = build_embedder(
                    cfg.embedder, api_key=cfg.embedder_api_key, options=dataclasses.asdict(cfg)
                )
            except BaseException:
                store.close()
                raise
        chain = build_chain(cfg.llm, env) if cfg.llm else None
        memory = cls(store, embedder, cfg, clock or _utcnow, llm=chain or None)
        memory._layers = layers
        return memory

    # -- configuration ------------------------------------------------------------------

    @property
    def config(self) -> Config:
        """The configuration in force (a reload may replace it; ADR 0057)."""
        return self._live.config

    @property
    def llm(self) -> LLM | None:
        """The optional LLM (a fallback chain): write side and background only, never recall."""
        return self._live.llm

    def _reflect_llm(self) -> LLM | None:
        """The LLM reflect composes with: the chain when ``reflect_llm`` is on (ADR 0058)."""
        live = self._live
        return live.llm if live.config.reflect_llm else None

    def _insights_llm(self) -> LLM | None:
        """The LLM that names categories and judges causes when ``insights_llm`` is on."""
        live = self._live
        return live.llm if live.config.insights_llm else None

    @property
    def _retainer(self) -> Retainer:
        return self._live.retainer

    @property
    def _recaller(self) -> Recaller:
        return self._live.recaller

    def _wire(self, config: Config, llm: LLM | None, recaller: Recaller) -> _Live:
        """The clients that depend on reloadable settings, built for ``config``."""
        store, embedder = self._store, self.embedder
        judge = Judge(
            store, JudgeConfig(), embedder.model_id, LLMJudge(llm) if llm is not None else None
        )
        retainer = Retainer(
            store,
            embedder,
            config,
            self.clock,
            judge,
            self._conflicts,
            self.charter,
            self._settler,
            LLMExtractor(llm) if llm is not None else None,
        )
        sweep_judge = LLMSweepJudge(llm) if llm is not None else None
        return _Live(config, llm, retainer, recaller, sweep_judge)

    def reconfigure(self, config: Config) -> ReloadReport:
        """Put ``config`` in force without a restart, as far as it can be (ADR 0057).

        The settings of ``reconfigure.LIVE`` (recall knobs, LLM tiers, write limits, the
        sensitive-data policy, background cadences) are applied: their clients are rebuilt
        and swapped in at once, and a request already running finishes on the old ones. Any
        other changed setting keeps its value and is listed in ``needs_restart``. When a new
        client cannot be built (an LLM tier without its key), nothing changes and the report
        says why. The charter file is read again as well.
        """
        with self._reload_lock:
            old = self._live
            effective, applied, held = split(old.config, config)
            try:
                llm = old.llm
                if effective.llm != old.config.llm:
                    llm = self._chain(effective.llm)
                recaller = old.recaller
                if effective.recall != old.config.recall:
                    recaller = old.recaller.retuned(effective.recall)
                live = self._wire(effective, llm, recaller)
            except (InvalidInput, BackendUnavailable, ValueError) as exc:
                return self._reloads.record(error=f"nothing changed: {exc}")
            self._live = live  # the swap: one assignment
            self._buffer.retainer = live.retainer
            self._reconsolidator.retune(
                effective.reconsolidation_bar, effective.reconsolidation_batch, live.sweep_judge
            )
            self._cadence.per_pass = effective.reflect_banks_per_pass
            self._insight_cadence.per_pass = effective.reflect_banks_per_pass
            runs = not (effective.read_only or self._store.read_only)
            self._sweeper.retime(effective.reconsolidate_every, start=runs)
            self._reflecting.retime(effective.reflect_every, start=runs)
            self._insighting.retime(effective.insights_every, start=runs)
            self._watching.retime(effective.watch_every, start=runs)
            self.admin.retune(live.retainer.defence, create_banks=effective.create_banks)
            if llm is not old.llm and old.llm is not None:
                self._retired.append(old.llm)
            self.charter.reload(strict=False)
            return self._reloads.record(applied=applied, needs_restart=held)

    def _chain(self, tiers: tuple[Mapping[str, Any], ...]) -> LLM | None:
        """A reloaded LLM chain, every tier built: a tier left out (its key is not in the
        environment) fails the reload, where at start it is skipped with a warning."""
        if not tiers:
            return None
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", LLMTierSkipped)
            chain = build_chain(tiers, self._env())
        if chain.skipped:
            chain.close()
            raise InvalidInput("; ".join(chain.skipped))
        return chain

    def reload(self) -> ReloadReport:
        """Read the configuration layers again (defaults < file < environment < the keyword
        arguments ``open`` was given) and ``reconfigure`` with them. An invalid layer changes
        nothing: the report names the setting, and the configuration in force stays."""
        if self._layers is None:
            raise InvalidInput(
                "this Memory was built from a Config, not opened from the configuration "
                "layers: call reconfigure(config) instead"
            )
        try:
            config = config_mod.load(**self._layers)
        except InvalidInput as exc:
            return self._reloads.record(error=f"nothing changed: {exc}")
        return self.reconfigure(config)

    def reload_status(self) -> dict[str, Any]:
        """The reloads so far: how many, the last one's report, settings awaiting a restart."""
        return self._reloads.as_dict()

    def _env(self) -> Mapping[str, str]:
        layers = self._layers
        return layers["env"] if layers is not None else config_mod.environment()

    def close(self) -> None:
        forget_at_exit(getattr(self, "_close_at_exit", None))
        self._watching.stop()
        self._cadence.halt()
        self._insight_cadence.halt()
        self._insighting.stop()
        self._reflecting.stop()
        self._sweeper.stop()
        for chain in (*self._retired, self.llm):
            closer = getattr(chain, "close", None)
            if closer is not None:
                closer()
        self._buffer.close()
        self._recaller.close()
        self._store.close()

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
        bank's policy (``admin.set_sensitive_policy``) stores, redacts or refuses what is found,
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
        with self.observers.timed("write"):
            if wait is not None:
                return self._buffer.submit(args, wait)
            text_arg = args.pop("text")
            retainer = self._retainer
            return retainer.run([retainer.plan(text_arg, **args)])[0]

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
        with self.observers.timed("write"):
            retainer = self._retainer
            plans = retainer.plans(items)
            return retainer.run(plans) if plans else []

    def retain_batches(
        self, batches: Iterable[Iterable[Mapping[str, Any]]]
    ) -> Generator[list[RetainResult], None, None]:
        """Retain batch after batch, each as ``retain_many`` would (validated whole, one
        transaction), while the next batch is embedded in a worker thread (ADR 0024).

        A generator: it yields each batch's results once the batch is committed. The next
        batch is taken from ``batches`` (and validated) before the current one commits, so
        its embedding can run meanwhile. A bad batch (or an error from ``batches``
        itself) is raised after the batches before it are committed; nothing of it is stored.
        This is the fast path for imports: on LoCoMo here it is about 1.3x the rate of the
        same batches through ``retain_many`` one after another.
        """
        retainer = self._retainer
        return retainer.stream(retainer.plans(batch) for batch in batches)

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

    def invalidate(
        self, memory_id: str, valid_until: dt.datetime | str, *, actor: str, reason: str = ""
    ) -> Unit:
        """Say when a memory stopped being true (valid time), never before it began."""
        return self._edits.invalidate(memory_id, valid_until, actor=actor, reason=reason)

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
        return connect_memories(
            self._store,
            self.recall,
            a,
            b,
            bank=bank,
            agent=agent,
            type=type,
            weight=weight,
            note=note,
            now=self.clock(),
        )

    def reflect(
        self,
        bank: str,
        *,
        agent: str,
        skepticism: int | None = None,
        literalism: bool | None = None,
        max_cited: int | None = None,
    ) -> ReflectReport:
        """Consolidate the bank's shared evidence into observations (ADR 0051).

        Each observation is about one entity or one topic, cites its evidence units
        (DERIVED_FROM), carries a proof count, first and last evidence dates and its change
        history. A second pass over unchanged evidence writes nothing; changed evidence gives
        a new version that supersedes the old; evidence gone retires it. ``skepticism`` (the
        fewest evidence units), ``literalism`` (verbatim or compressed) and ``max_cited`` (the
        most units one observation cites) override the bank's config ``reflect``.

        Raises:
            NotFound: no such bank.
            InvalidInput: a bad id or disposition.
        """
        return self._reflector.reflect(
            bank, agent=agent, skepticism=skepticism, literalism=literalism, max_cited=max_cited
        )

    # -- read ---------------------------------------------------------------------------

    def recall(
        self,
        query: str,
        *,
        bank: str,
        agent: str,
        scope: str = "collective",
        k: int = 10,
        time_from: dt.datetime | str | None = None,
        time_to: dt.datetime | str | None = None,
        as_of: dt.datetime | str | None = None,
        types: Iterable[str] | None = None,
        include_superseded: bool = True,
        min_relevance: float | None = None,
        session: str | None = None,
    ) -> list[Hit]:
        """Find what is known, best first, with provenance. No model call but the embedding.

        ``scope`` is ``collective`` (the bank, less other agents' private memories) unless
        you say ``personal`` (only what this agent stated): the default of every read, on
        every surface.

        Every hit carries ``relevance``, the calibrated probability (0 to 1) that it is an
        answer; ``min_relevance`` drops the hits below it, so fewer than ``k`` may come back.
        ``session`` keeps the memories said in that session (as ``retain(session=)`` named
        it) and nothing else, but the successor of a superseded one, whichever session said
        it (an old value is never shown without what replaced it): in a bank shared by many
        conversations, "what is the current ...?" about this one (ADR 0109). An unknown bank
        holds nothing: the result is empty.
        """
        with self.observers.timed("recall"):
            return self._recall(
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
                session=session,
            )

    def _recall(self, query: str, **args: Any) -> list[Hit]:
        recaller = self._recaller  # one reading: a reload swaps it between requests only
        return recaller.recall(recaller.parse(query, **args))

    def _ops_alert(self, text: str, metadata: Mapping[str, Any]) -> list[str]:
        """Retain an ops-alert memory into the system bank (the watchdog's alert rung)."""
        bank = self.config.watch_bank
        self.admin.create_bank(bank, name="operations", actor=WATCHDOG)
        plan = self._retainer.plan(
            text,
            bank=bank,
            agent=WATCHDOG,
            source_kind="ops-alert",
            metadata=dict(metadata),
        )
        return list(self._retainer.run([plan])[0].memory_ids)

    def context(
        self,
        query: str,
        *,
        bank: str,
        agent: str,
        scope: str = "collective",
        max_tokens: int = 800,
        k: int = 20,
        as_of: dt.datetime | str | None = None,
        time_from: dt.datetime | str | None = None,
        time_to: dt.datetime | str | None = None,
        types: Iterable[str] | None = None,
        session: str | None = None,
    ) -> ContextBlock:
        """A ready context block for ``query`` within ``max_tokens`` (characters / 4).

        Recalls ``k`` hits and keeps the best that fit: one line each, citing its source id,
        superseded and contested memories marked, newest first when the question is about the
        present (``core.context_block``); ``session`` as for ``recall``. No model call but the
        query's embedding.
        """
        budget = validate.positive_int(max_tokens, "max_tokens", low=MIN_TOKENS, high=MAX_TOKENS)
        hits = self.recall(
            query,
            bank=bank,
            agent=agent,
            scope=scope,
            k=validate.positive_int(k, "k", high=200),
            as_of=as_of,
            time_from=time_from,
            time_to=time_to,
            types=types,
            session=session,
        )
        return assemble_context(query, hits, budget, present=None if as_of is None else False)

    def get(
        self,
        memory_id: str,
        *,
        bank: str | None = None,
        agent: str | None = None,
        scope: str = "collective",
    ) -> Unit:
        """One memory unit by id. Without ``agent``, the caller is the store's owner."""
        return self._lookup.unit(memory_id, bank, agent, scope)

    def source(
        self,
        source_id: str,
        *,
        bank: str | None = None,
        agent: str | None = None,
        scope: str = "collective",
    ) -> Source:
        """One source (the input as given) by id. Without ``agent``, the caller is the owner."""
        return self._lookup.source(source_id, bank, agent, scope)

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
        return self._lookup.units(bank, agent, scope, limit, offset)

    def concept(
        self, name: str, *, bank: str, agent: str, scope: str = "collective", k: int = 20
    ) -> list[Unit]:
        """Memories that mention a named thing (an entity or one of its aliases)."""
        return self._lookup.mentioning(name, bank, agent, scope, k)

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
        viewer = self._lookup.viewer(memory_id, bank, agent, scope, "memory")
        return neighbourhood(self._store, viewer, memory_id, depth)

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
        return chain_from_query(
            self._store,
            self.recall,
            query,
            bank=bank,
            agent=agent,
            scope=scope,
            direction=direction,
            depth=depth,
        )

    def history(
        self, object_id: str, *, bank: str | None = None, agent: str | None = None
    ) -> list[HistoryEvent]:
        """Every recorded change of a unit, source, claim or conflict, oldest first."""
        viewer = self._lookup.recorded(object_id, bank, agent)
        # A source id may be several writers' (ADR 0107): only the sources this reader sees.
        writers = (
            None
            if viewer.scope == Scope.OWNER
            else self._store.memories.source_writers(viewer, object_id)
        )
        return trust_history(self._store, viewer.bank_id, object_id, writers)

    def state_at(self, object_id: str, at: dt.datetime | str) -> dict[str, Any] | None:
        """What mneme held about a unit, claim or conflict at a past instant (record time)."""
        when = validate.when(at, "at")
        assert when is not None
        viewer = self._lookup.viewer(object_id, None, None, "collective", "memory or source")
        return trust_state_at(self._store, viewer.bank_id, object_id, when)

    # -- deprecated: the flat names of 0.1, kept one release (ADR 0043) -----------------

    @property
    def store(self) -> Store:
        """Deprecated: the store is private; read through the public API (``admin.audit_log``)."""
        warn_moved("store", "admin.audit_log and the other public methods")
        return self._store

    @property
    def presence(self) -> Presence:
        """Deprecated: use ``Memory.swarm``."""
        warn_moved("presence", "swarm")
        return self._presence

    @property
    def reconsolidator(self) -> Reconsolidator:
        """Deprecated: use ``Memory.beliefs``."""
        warn_moved("reconsolidator", "beliefs")
        return self._reconsolidator

    reject = Moved("review.reject", Review.reject)
    restore = Moved("review.restore", Review.restore)
    resolve = Moved("conflicts.resolve", Conflicts.resolve)
    resolve_contradiction = Moved("conflicts.resolve_contradiction", Settler.resolve_contradiction)
    reconsolidate = Moved("beliefs.reconsolidate", Reconsolidator.reconsolidate)
    has_pending_reconsolidation = Moved("beliefs.has_pending", Reconsolidator.has_pending)
    contest = Moved("beliefs.contest", Reconsolidator.contest)
    support = Moved("beliefs.support", Reconsolidator.support)
    set_confidence = Moved("beliefs.set_confidence", Edits.set_confidence)
    sweep_proposals = Moved("beliefs.proposals", Reconsolidator.proposals)
    decide_proposal = Moved("beliefs.decide", Reconsolidator.decide)
    roster = Moved("swarm.roster", Presence.roster)
    enroll = Moved("swarm.enroll", Presence.enroll)
    heartbeat = Moved("swarm.heartbeat", Presence.heartbeat)
    farewell = Moved("swarm.farewell", Presence.farewell)
    banks = Moved("admin.banks", AdminNamespace.banks)
    stats = Moved("admin.stats", AdminNamespace.stats)
    health = Moved("admin.health", AdminNamespace.health)
    schema_version = Moved("admin.schema_version", AdminNamespace.schema_version)
    migrate = Moved("admin.migrate", AdminNamespace.migrate)
    compact = Moved("admin.compact", AdminNamespace.compact)
    reembed = Moved("admin.reembed", AdminNamespace.reembed)
    audit_verify = Moved("admin.audit_verify", AdminNamespace.audit_verify)
    audit_anchor = Moved("admin.audit_anchor", AdminNamespace.audit_anchor)
    purge = Moved("admin.purge", AdminNamespace.purge)
    purge_subject = Moved("admin.purge_subject", AdminNamespace.purge_subject)
    sensitive_policy = Moved("admin.sensitive_policy", Defence.view)
    set_sensitive_policy = Moved("admin.set_sensitive_policy", AdminNamespace.set_sensitive_policy)
    rules = Moved("admin.rules", AdminNamespace.rules)
    adopt_rule = Moved("admin.adopt_rule", AdminNamespace.adopt_rule)
    # ``mem.conflicts(...)``, the old method, is the namespace called: ConflictsNamespace.__call__.
