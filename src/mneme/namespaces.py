"""The namespaces of ``Memory`` (ADR 0043): ``mem.review``, ``mem.conflicts``,
``mem.beliefs``, ``mem.swarm`` and ``mem.admin``.

A namespace does no work of its own. Where one service answers, it hands out that service's
bound method (``mem.review.decide`` is ``Review.decide``), so each signature and docstring is
written once, where the work is done. Where an answer needs the store or several parts,
a method passes them along and returns what the part returns.
"""

from __future__ import annotations

import builtins
import datetime as dt
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from mneme import validate
from mneme.background.health import health as health_report
from mneme.background.insights import Insighter, InsightReport
from mneme.background.reconsolidate import Reconsolidator
from mneme.background.reembed import reembed as reembed_units
from mneme.background.reflect import Reflector
from mneme.background.watchdog import Watchdog
from mneme.background.worker import Worker
from mneme.core.audit_chain import ChainReport
from mneme.core.erasure import PurgeReport
from mneme.core.model import Bank, Category, ConflictRecord, Rule, Unit
from mneme.deprecation import warn_moved
from mneme.embed.protocol import Embedder
from mneme.embed.warming import warm_in_background
from mneme.errors import NotFound
from mneme.presence import Presence
from mneme.store import backup as store_backup
from mneme.store.archive import ArchiveReport
from mneme.store.merge import ImportReport
from mneme.store.protocol import AuditRecord, CompactReport, Store, StoreStats, WorkFilter
from mneme.trust import archives, audit
from mneme.trust.conflicts import Conflicts
from mneme.trust.edits import Edits
from mneme.trust.purge import purge as erase
from mneme.trust.purge import purge_subject as erase_subject
from mneme.trust.review import Review
from mneme.trust.settle import Settler
from mneme.trust.worklist import Work
from mneme.write.charter import CharterFile
from mneme.write.defence import Defence, PolicyView


class ReviewNamespace:
    """``mem.review``: the review queue, and a person's decisions on claims and memories
    (approve, reject with a tombstone, supersede, restore); the worklist of what waits for a
    decision, and bulk decisions on it (ADR 0048)."""

    def __init__(self, review: Review, work: Work) -> None:
        self.queue = review.queue
        self.worklist = work.worklist
        self.bulk = work.bulk
        self.decide = review.decide
        self.reject = review.reject
        self.restore = review.restore
        #: The claim or unit an id names (NotFound if none): a surface checks its bank.
        self.target = review.target


class ConflictsNamespace:
    """``mem.conflicts``: disagreements between memories, and settling them: a person's
    resolution of a conflict, or the answer to the question a write came back with."""

    def __init__(self, conflicts: Conflicts, settler: Settler) -> None:
        self.list = conflicts.list
        self.resolve = conflicts.resolve
        self.resolve_contradiction = settler.resolve_contradiction

    def __call__(
        self, *, bank: str, status: str | None = "open", limit: int = 100
    ) -> builtins.list[ConflictRecord]:
        """Deprecated: ``mem.conflicts(...)`` was the method ``mem.conflicts.list`` is now."""
        warn_moved("conflicts", "conflicts.list")
        return self.list(bank=bank, status=status, limit=limit)


class BeliefsNamespace:
    """``mem.beliefs``: beliefs and what hangs on them: sweep them now (reconsolidation),
    hang a memory on one, change a memory's confidence, and decide the sweep verdicts that
    wait for a person."""

    def __init__(self, reconsolidator: Reconsolidator, edits: Edits) -> None:
        self.reconsolidate = reconsolidator.reconsolidate
        self.has_pending = reconsolidator.has_pending
        self.contest = reconsolidator.contest
        self.support = reconsolidator.support
        self.set_confidence = edits.set_confidence
        self.proposals = reconsolidator.proposals
        self.decide = reconsolidator.decide


class SwarmNamespace:
    """``mem.swarm``: the agents of a bank: who is around (the roster), enrolling,
    heartbeats, farewells. Records are never deleted."""

    def __init__(self, presence: Presence) -> None:
        self.roster = presence.roster
        self.enroll = presence.enroll
        self.heartbeat = presence.heartbeat
        self.farewell = presence.farewell


class AdminNamespace:
    """``mem.admin``: the store as a whole and each bank's policy: health, sizes, schema,
    the audit log (read, verify, anchor), legal erasure, compaction, re-embedding, the
    sensitive-data policy, the reflect disposition, and the rules adopted beside the charter."""

    def __init__(
        self,
        store: Store,
        embedder: Embedder,
        clock: Callable[[], dt.datetime],
        *,
        charter: CharterFile,
        settler: Settler,
        defence: Defence,
        workers: Mapping[str, Worker],
        reflector: Reflector,
        watchdog: Watchdog,
        create_banks: bool,
    ) -> None:
        self._store = store
        self._embedder = embedder
        self._clock = clock
        self._charter = charter
        self._settler = settler
        self._defence = defence
        self._workers = workers
        self._reflector = reflector
        self._watchdog = watchdog
        self._create_banks = create_banks
        self.sensitive_policy = defence.view

    def warm_embedder(self, say: Callable[[str], None]) -> bool:
        """Load and compile the embedder on a background thread, so the first write or
        recall does not wait seconds for its model (servers call this as they start). ``say``
        hears how it went: "ready (2.3 s)", or "not loaded ahead: <why>" (then the first call
        loads it). False, and nothing started, when the embedder has nothing to load
        (hashing, a remote API)."""
        return warm_in_background(self._embedder, say) is not None

    def retune(self, defence: Defence, *, create_banks: bool) -> None:
        """Take a reloaded configuration's defence and bank rule (ADR 0057)."""
        self._defence, self._create_banks = defence, create_banks
        self.sensitive_policy = defence.view

    # -- the store ----------------------------------------------------------------------

    def banks(self) -> list[Bank]:
        """Every bank of the store."""
        return self._store.banks.list_banks()

    def create_bank(self, bank: str, *, name: str | None = None, actor: str = "owner") -> Bank:
        """Make a bank now (nothing happens when it exists); audited as made by ``actor``.

        The surfaces make banks only this way (or with ``create_bank`` on a write), so a
        mistyped bank is an error there, never a new bank. A Python caller's first write to
        a bank still makes it unless ``Config.create_banks`` is off (ADR 0046).
        """
        bank_id = validate.ident(bank, "bank")
        validate.ident(actor, "actor")
        label = validate.text(name, what="name", max_chars=200) if name is not None else bank_id
        with self._store.transaction():
            existing = self._store.banks.get_bank(bank_id)
            if existing is not None:
                return existing
            return self._store.banks.ensure_bank(
                Bank(id=bank_id, name=label, created_at=self._clock()),
                actor=actor,
                reason="created explicitly",
            )

    def bank(self, bank_id: str) -> Bank | None:
        """One bank, or None when there is no such bank."""
        return self._store.banks.get_bank(validate.ident(bank_id, "bank"))

    def stats(self) -> StoreStats:
        """Row counts: banks, sources, units, entities, edges, embeddings by model."""
        return self._store.stats()

    def health(self) -> dict[str, Any]:
        """Schema, sizes, pending work, open conflicts, reconsolidation rates, the charter's
        error and the background workers' runs (``background.health``)."""
        return health_report(self._store, charter_error=self._charter.error, workers=self._workers)

    # -- the health watchdog (ADR 0054) -------------------------------------------------

    def check(self) -> dict[str, Any]:
        """The watchdog's report now, with no reaction: every detector's verdict (ok, warn,
        critical), the findings with their evidence, the store's sizes, the stages."""
        return self._watchdog.look()

    def watch(self) -> dict[str, Any]:
        """One watchdog pass with its reactions (heal, alert, hook, all journaled)."""
        return self._watchdog.run_pass()

    def watch_status(self) -> dict[str, Any]:
        """The background watchdog's latest pass, or a fresh look when none ran yet."""
        return self._watchdog.last or self._watchdog.look()

    def watch_journal(self, last: int = 50) -> list[dict[str, Any]]:
        """The newest reactions the watchdog journaled (its system bank's audit log)."""
        return self._watchdog.journal(validate.positive_int(last, "last", high=10_000))

    def resume_stage(self, stage: str, *, actor: str) -> bool:
        """Let a stage the watchdog paused (a flood) run again; False if it was not paused.

        Raises:
            NotFound: no such stage.
        """
        if stage not in self._watchdog.stages:
            raise NotFound(
                f"no stage {stage!r}; the stages are {', '.join(sorted(self._watchdog.stages))}"
            )
        return self._watchdog.resume(stage, actor=validate.ident(actor, "actor"))

    def gauges(self) -> dict[str, Any]:
        """What a metrics scrape reads: the ingest queue, open conflicts and the review
        worklist per bank, the store's sizes, the vector indexes, the watchdog's reactions."""
        queue = self._store.queue.queue_stats()
        stats = self._store.stats()
        worklist: dict[str, dict[str, int]] = {}
        for bank in self._store.banks.list_banks():
            worklist[bank.id] = self._store.trust.review_counts(bank.id, WorkFilter())
        return {
            "queue": {"pending": queue.pending, "processing": len(queue.processing)},
            "worklist": worklist,
            "stats": stats,
            "indexes": self._store.probe.indexes(),
            "reactions": dict(self._watchdog.reactions),
            "paused": {n: s.worker.paused is not None for n, s in self._watchdog.stages.items()},
        }

    def schema_version(self) -> int:
        """The store's schema version."""
        return self._store.schema_version()

    def migrate(self) -> list[int]:
        """Apply pending schema migrations (opening already does); the versions applied."""
        return self._store.migrate()

    def compact(self) -> CompactReport:
        """Rewrite the store's files so erased rows leave no bytes behind (SQLite: checkpoint
        the WAL and VACUUM; PostgreSQL: VACUUM FULL, end the WAL segment, checkpoint). Run it
        after a purge that must be proved on disk; it takes the write lock while it runs."""
        return self._store.erasure.compact()

    def reembed(
        self,
        *,
        bank: str | None = None,
        batch: int = 64,
        progress: Callable[[int], None] | None = None,
    ) -> int:
        """Give every unit a vector from the configured embedder; returns how many moved."""
        return reembed_units(self._store, self._embedder, bank=bank, batch=batch, progress=progress)

    # -- backups and portable archives (ADR 0053) ---------------------------------------

    def backup(
        self, path: str, *, overwrite: bool = False, pg_dump: str | None = None
    ) -> store_backup.BackupReport:
        """Back the store up in its backend's format (SQLite: the online backup API;
        PostgreSQL: pg_dump), its audit keys beside it in ``<path>.audit-key``."""
        return store_backup.backup(self._store, path, overwrite=overwrite, pg_dump=pg_dump)

    def export(
        self,
        path: str,
        *,
        overwrite: bool = False,
        progress: Callable[[str, int], None] | None = None,
    ) -> ArchiveReport:
        """Write every table to a portable archive (gzip JSONL, ``store.archive``), read from
        one snapshot; its audit keys go to ``<path>.audit-key``."""
        return archives.export(
            self._store, path, now=self._clock(), overwrite=overwrite, progress=progress
        )

    def import_archive(
        self,
        path: str,
        *,
        audit_key_file: str | None = None,
        progress: Callable[[str, int], None] | None = None,
    ) -> ImportReport:
        """Merge a portable archive into this store by id (refused on a clash, a damaged or
        newer archive, or an audit that does not verify on the copy; then nothing is written)."""
        return archives.import_archive(
            self._store, path, audit_key_file=audit_key_file, progress=progress
        )

    # -- the audit log (ADR 0008, ADR 0035) ---------------------------------------------

    def audit_log(
        self, bank: str, *, target: str | None = None, last: int | None = None
    ) -> list[AuditRecord]:
        """A bank's audit records (who, what, before, after, why), oldest first: every one,
        or the ``last`` ones; ``target`` keeps the records about one object."""
        return audit.records(self._store, bank, target=target, last=last)

    def audit_verify(
        self, bank: str | None = None, *, anchors: Sequence[Mapping[str, Any]] = ()
    ) -> dict[str, ChainReport]:
        """Check every bank's audit (ADR 0035): the keyed hash chain and its keyed head (edits,
        deletions, insertions, reordering, truncation, a chain recomputed without the key),
        erasures made outside a purge, and every memory, source, claim, tombstone and conflict
        against the state its last audit record sealed (changes made beside mneme).

        Raises:
            NotFound: ``bank`` names no bank.
        """
        return audit.verify_bank(self._store, bank, anchors)

    def audit_anchor(self) -> dict[str, Any]:
        """The heads of every bank's audit chain now, to keep outside the store (ADR 0035):
        ``audit_verify(anchors=[...])`` then catches a rollback or a rewrite by a key holder."""
        return audit.anchor(self._store, self._clock().isoformat())

    # -- erasure (ADR 0008, ADR 0036) ---------------------------------------------------

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
        return erase(self._store, object_id, actor=actor, reason=reason, dry_run=dry_run, bank=bank)

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
        return erase_subject(
            self._store,
            name,
            actor=actor,
            reason=reason,
            aliases=tuple(aliases),
            dry_run=dry_run,
            bank=bank,
        )

    # -- policy ---------------------------------------------------------------------------

    def set_sensitive_policy(
        self, bank: str, policy: Mapping[str, str], *, actor: str, reason: str = ""
    ) -> PolicyView:
        """Set actions by category (``secret``, ``personal``) or kind (``api_key``, ``email``,
        ...): ``{"personal": "redact", "phone": "store"}``; ``"default"`` drops a rule. Laid
        over the rules the bank has; audited; a bank not yet written to is created.

        Raises:
            InvalidInput: an unknown category, kind or action.
        """
        return self._defence.set_policy(
            bank,
            policy,
            actor=actor,
            reason=reason,
            now=self._clock(),
            create=self._create_banks,
        )

    def reflect_disposition(self, bank: str) -> dict[str, Any]:
        """The bank's reflect disposition (ADR 0051): skepticism, literalism, max_cited.

        Raises:
            NotFound: no such bank.
            InvalidInput: a bad id, or a bad disposition in the bank's config.
        """
        return self._reflector.disposition(validate.ident(bank, "bank"), {}).as_dict()

    def set_reflect_disposition(
        self,
        bank: str,
        *,
        actor: str,
        reason: str = "",
        skepticism: int | None = None,
        literalism: bool | None = None,
        max_cited: int | None = None,
    ) -> dict[str, Any]:
        """Set how reflect treats the bank's evidence (ADR 0051): ``skepticism`` (the fewest
        evidence units an observation rests on), ``literalism`` (statements verbatim, or
        compressed to their claims), ``max_cited`` (the most units one observation cites).
        None keeps a value; audited; the next pass (background or ``reflect``) applies it.
        Returns the disposition now in force.

        Raises:
            NotFound: no such bank.
            InvalidInput: a bad id or value; nothing is written.
        """
        return self._reflector.set_disposition(
            bank,
            actor=actor,
            reason=reason,
            skepticism=skepticism,
            literalism=literalism,
            max_cited=max_cited,
        ).as_dict()

    def rules(self, *, bank: str | None = None) -> dict[str, Any]:
        """The charter in force (text and checked rules) and, per bank, the adopted rules."""
        return self._charter.in_force(self._settler.adopted(bank))

    def adopt_rule(
        self, *, bank: str, kind: str, attribute: str, decision: str, actor: str
    ) -> Rule:
        """Adopt a proposed rule; it is listed beside the charter, never inside it."""
        return self._settler.adopt(bank, kind, attribute, decision, actor=actor)


class InsightsNamespace:
    """``mem.insights``: the generative layer (ADR 0056): categories, threads and insights
    with their witnesses."""

    def __init__(self, insighter: Insighter) -> None:
        self._insighter = insighter

    def run(self, bank: str, *, agent: str, resume: bool = False) -> InsightReport:
        """One insight pass: tag untagged memories from the bank's vocabulary, stitch explicit
        causes, find threads, write new insights (proposed) and verify the held ones. A
        second pass over unchanged memories writes nothing. ``resume`` lifts a pause the
        flood guard set.

        Raises:
            NotFound: no such bank.
            InvalidInput: a bad id or bad settings in the bank's config ``insights``.
        """
        return self._insighter.run(bank, agent=agent, resume=resume)

    def list(self, bank: str, *, state: str | None = None, limit: int = 100) -> list[Unit]:
        """The bank's insights, best first; ``state``: proposed, verified or retired.

        Raises:
            NotFound: no such bank.
            InvalidInput: an unknown state.
        """
        return self._insighter.list(bank, state=state, limit=limit)

    def verify(self, bank: str, *, agent: str, insight: str | None = None) -> InsightReport:
        """Judge the bank's insights (or one) against their witnesses now: verified when every
        witness is live and still links its hop, retired when a witness is gone.

        Raises:
            NotFound: no such bank or insight.
        """
        return self._insighter.verify(bank, agent=agent, insight=insight)

    def categories(self, bank: str) -> builtins.list[Category]:
        """The bank's category vocabulary, oldest first."""
        if self._insighter.store.banks.get_bank(validate.ident(bank, "bank")) is None:
            raise NotFound(f"no bank {bank!r}")
        return self._insighter.store.vocabulary.list_categories(bank)
