"""The health watchdog (ADR 0054): look, judge, react, journal.

A pass takes a snapshot (``probes``), judges it with the pure detectors of ``core.watchdog``,
and climbs the reaction ladder for each finding: heal silently where that is safe (checkpoint
the WAL, rebuild a stale vector index, requeue a stuck ingest item, pause a flooding stage),
else alert through memory (an ops-alert memory retained into the system bank, recallable) and
run the operator's shell hook, once per ongoing condition. Every reaction is journaled in the
system bank's hash-chained audit log (``watchdog.<action>``: detector, evidence, action,
outcome), and the alerted conditions are read back from that journal, so a second process (a
cron ``mneme watch`` after a restart) does not alert again for a condition already alerted.
"""

from __future__ import annotations

import collections
import datetime as dt
import logging
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from mneme.background.hook import run_hook
from mneme.background.probes import ProbeStore, Stage, snapshot
from mneme.core.model import Bank
from mneme.core.watchdog import (
    DETECTORS,
    Finding,
    Severity,
    Snapshot,
    Thresholds,
    cleared,
    detect,
    ladder,
    worst,
)
from mneme.errors import MnemeError
from mneme.store.protocol import Audit, Banks

log = logging.getLogger("mneme.watchdog")

#: Who the journal and the alert memories name as their actor.
ACTOR = "watchdog"
#: Journal ops that open and close an alerted condition.
_OPENS, _CLOSES = "watchdog.alert", "watchdog.cleared"


class WatchStore(ProbeStore, Protocol):
    """The roles of the store this module uses (ADR 0044)."""

    banks: Banks
    audit: Audit


#: ``alert(text, metadata)``: retain an ops-alert memory; the ids of the memories it made.
Alert = Callable[[str, Mapping[str, Any]], Sequence[str]]


@dataclass(frozen=True, slots=True)
class WatchSettings:
    thresholds: Thresholds
    bank: str  # the system bank: alert memories and the journal
    hook: str | None = None
    hook_timeout: float = 10.0
    pause_passes: int = 10  # watchdog passes a flooding stage stays paused


class Watchdog:
    """One store's watchdog. ``look`` only reports; ``step`` (the worker's) reacts too."""

    def __init__(
        self,
        store: WatchStore,
        clock: Callable[[], dt.datetime],
        settings: WatchSettings,
        stages: Mapping[str, Stage],
        alert: Alert,
    ) -> None:
        self.store = store
        self.clock = clock
        self.settings = settings
        self.stages = dict(stages)
        self._alert = alert
        self._lock = threading.Lock()
        self._previous: Snapshot | None = None
        #: Recent snapshots, the oldest at least the growth window old: growth is read over
        #: a sliding window, whatever the interval between passes.
        self._history: collections.deque[Snapshot] = collections.deque()
        self._active: dict[str, str] | None = None  # alerted condition -> when
        self._paused_at: dict[str, int] = {}  # stage -> the pass that paused it
        self.passes = 0
        #: Reactions taken by this process, by kind (heal actions, alert, hook, resume...).
        self.reactions: collections.Counter[str] = collections.Counter()
        #: The latest pass's report (None before the first).
        self.last: dict[str, Any] | None = None

    # -- looking ------------------------------------------------------------------------

    def look(self) -> dict[str, Any]:
        """One report, no reaction (``mneme health``): the findings against the last pass."""
        snap = snapshot(self.store, self.stages, self.clock())
        findings = detect(snap, self._previous, self.settings.thresholds, self._base(snap))
        return self._report(snap, findings, {})

    def _base(self, snap: Snapshot) -> Snapshot | None:
        """The snapshot growth is measured from: the oldest kept, once old enough."""
        window = self.settings.thresholds.growth_window_seconds
        if self._history and _age(self._history[0], snap) >= window:
            return self._history[0]
        return None

    def step(self) -> bool:
        """One pass with reactions (the background worker's step). Always False: the next
        pass waits for the interval."""
        self.run_pass()
        return False

    def run_pass(self) -> dict[str, Any]:
        with self._lock:
            self.passes += 1
            self._cool_down()
            snap = snapshot(self.store, self.stages, self.clock())
            findings = detect(snap, self._previous, self.settings.thresholds, self._base(snap))
            reactions = {f.condition: self._react(f) for f in findings}
            for condition in cleared(list(self._alerted()), findings):
                self._journal(_CLOSES, condition, {"condition": condition}, "the condition ended")
                self._alerted().pop(condition, None)
            self._previous = snap
            self._history.append(snap)
            window = self.settings.thresholds.growth_window_seconds
            while len(self._history) > 1 and _age(self._history[1], snap) >= window:
                self._history.popleft()
            self.last = self._report(snap, findings, reactions)
            return self.last

    # -- the ladder -----------------------------------------------------------------------

    def _react(self, finding: Finding) -> dict[str, Any]:
        done: dict[str, Any] = {}
        healed: bool | None = None
        if finding.heal is not None:
            healed, outcome = self._heal(finding)
            done["heal"] = {"action": finding.heal.action, "ok": healed, "outcome": outcome}
            self._journal(
                f"watchdog.{finding.heal.action}",
                finding.heal.target,
                self._entry(finding, finding.heal.action, outcome, healed),
                finding.summary,
            )
        rungs = ladder(finding, healed, finding.condition in self._alerted())
        if rungs.alert:
            done["alert"] = self._raise_alert(finding)
        if rungs.hook and self.settings.hook:
            ran = run_hook(self.settings.hook, _public(finding), self.settings.hook_timeout)
            self.reactions["hook" if ran["ok"] else "hook_failed"] += 1
            done["hook"] = ran
            self._journal(
                "watchdog.hook",
                finding.condition,
                self._entry(finding, "hook", ran, bool(ran["ok"])),
                finding.summary,
            )
        return done

    def _heal(self, finding: Finding) -> tuple[bool, str]:
        heal = finding.heal
        assert heal is not None
        try:
            if heal.action == "checkpoint":
                outcome = self.store.probe.checkpoint()
                ok = outcome.startswith("checkpointed")
            elif heal.action == "rebuild_index":
                bank, _, model = heal.target.partition("/")
                outcome = f"rebuilt: {self.store.probe.rebuild_index(bank, model)} rows"
                ok = True
            elif heal.action == "requeue":
                with self.store.transaction():
                    ok = self.store.queue.requeue(heal.target, self.clock())
                outcome = "requeued" if ok else "no longer processing"
            elif heal.action == "pause":
                self.stages[heal.target].worker.pause(finding.summary)
                self._paused_at[heal.target] = self.passes
                outcome, ok = f"paused for {self.settings.pause_passes} passes", True
            else:
                return False, f"unknown action {heal.action!r}"
        except (MnemeError, OSError, KeyError) as exc:
            return False, f"failed: {exc}"
        self.reactions[heal.action if ok else f"{heal.action}_failed"] += 1
        return ok, outcome

    def _raise_alert(self, finding: Finding) -> dict[str, Any]:
        text = f"Ops alert ({finding.severity.label}): {finding.summary}."
        try:
            ids = list(
                self._alert(
                    text,
                    {
                        "ops_alert": True,
                        "detector": finding.detector,
                        "subject": finding.subject,
                        "severity": finding.severity.label,
                    },
                )
            )
            outcome: dict[str, Any] = {"ok": True, "memory_ids": ids}
        except MnemeError as exc:
            outcome = {"ok": False, "error": str(exc)}
        self.reactions["alert" if outcome["ok"] else "alert_failed"] += 1
        self._journal(
            _OPENS,
            finding.condition,
            self._entry(finding, "alert", outcome, bool(outcome["ok"])),
            finding.summary,
        )
        self._alerted()[finding.condition] = self.clock().isoformat()
        return outcome

    def _cool_down(self) -> None:
        """Resume a stage paused for a flood once its cool-down is over (a flood again
        pauses it again, without a second alert: the condition is still open)."""
        for name, at in list(self._paused_at.items()):
            if self.passes - at > self.settings.pause_passes:
                self.resume(name, actor=ACTOR, why="cool-down over")

    def resume(self, stage: str, *, actor: str, why: str = "resumed by an operator") -> bool:
        """Let a paused stage run again; False when it was not paused.

        Raises:
            KeyError: no such stage.
        """
        worker = self.stages[stage].worker
        self._paused_at.pop(stage, None)
        if worker.paused is None:
            return False
        worker.resume()
        self.reactions["resume"] += 1
        self._journal("watchdog.resume", stage, {"stage": stage, "actor": actor}, why)
        return True

    # -- the journal ----------------------------------------------------------------------

    @staticmethod
    def _entry(finding: Finding, action: str, outcome: Any, ok: bool) -> dict[str, Any]:
        return {
            "detector": finding.detector,
            "subject": finding.subject,
            "severity": finding.severity.label,
            "evidence": dict(finding.evidence),
            "action": action,
            "ok": ok,
            "outcome": outcome,
        }

    def _journal(self, op: str, target: str, after: Mapping[str, Any], reason: str) -> None:
        """One audit record in the system bank; a store that cannot be written loses the
        record (logged), never the pass."""
        bank = self.settings.bank
        try:
            with self.store.transaction():
                if self.store.banks.get_bank(bank) is None:
                    self.store.banks.ensure_bank(
                        Bank(id=bank, name="operations", created_at=self.clock()),
                        actor=ACTOR,
                        reason="the watchdog's journal and alerts",
                    )
                self.store.audit.append(bank, ACTOR, op, target[:200], None, after, reason)
        except MnemeError as exc:
            log.warning("the watchdog could not journal %s on %s: %s", op, target, exc)

    def _alerted(self) -> dict[str, str]:
        """Conditions alerted and not yet cleared, read once from the journal."""
        if self._active is None:
            active: dict[str, str] = {}
            if self.store.banks.get_bank(self.settings.bank) is not None:
                for r in self.store.audit.records(self.settings.bank):
                    if r.actor != ACTOR:
                        continue
                    if r.op == _OPENS:
                        active[r.target] = r.at.isoformat()
                    elif r.op == _CLOSES:
                        active.pop(r.target, None)
            self._active = active
        return self._active

    def journal(self, last: int = 50) -> list[dict[str, Any]]:
        """The newest journal entries, oldest first."""
        if self.store.banks.get_bank(self.settings.bank) is None:
            return []
        entries = collections.deque(
            (
                {"at": r.at, "op": r.op, "target": r.target, "entry": r.after, "reason": r.reason}
                for r in self.store.audit.records(self.settings.bank)
                if r.actor == ACTOR and r.op.startswith("watchdog.")
            ),
            maxlen=last,
        )
        return list(entries)

    # -- the report -----------------------------------------------------------------------

    def _report(
        self, snap: Snapshot, findings: Sequence[Finding], reactions: Mapping[str, Any]
    ) -> dict[str, Any]:
        severity = worst(findings)
        if reactions:
            # A finding healed silently is not the store's state any more.
            severity = worst(
                [f for f in findings if not _healed_silently(f, reactions.get(f.condition, {}))]
            )
        checks = dict.fromkeys(DETECTORS, "ok")
        for f in findings:
            if Severity[checks[f.detector].upper()] < f.severity:
                checks[f.detector] = f.severity.label
        return {
            "severity": severity.label,
            "at": snap.now,
            "backend": snap.backend,
            "checks": checks,
            "findings": [
                {
                    **_public(f),
                    **({"reaction": reactions[f.condition]} if f.condition in reactions else {}),
                }
                for f in findings
            ],
            "store": {
                "db_bytes": snap.db_bytes,
                "wal_bytes": snap.wal_bytes,
                "disk_free_bytes": snap.disk_free_bytes,
                "queue_pending": snap.queue_pending,
                "queue_oldest": snap.queue_oldest,
                "processing": len(snap.processing),
                "indexes": [
                    {
                        "bank": i.bank,
                        "model": i.model,
                        "stored": i.stored,
                        "indexed": i.indexed,
                        "valid": i.valid,
                    }
                    for i in snap.indexes
                ],
            },
            "process": {"rss_bytes": snap.rss_bytes},
            "stages": {
                name: {
                    "paused": s.worker.paused,
                    "runs": s.worker.runs,
                    "skipped": s.worker.skipped,
                    "produced": s.producer.produced,
                }
                for name, s in self.stages.items()
            },
            "passes": self.passes,
            "reactions": dict(self.reactions),
            "alerted": sorted(self._active or {}),
        }


def _age(old: Snapshot, new: Snapshot) -> float:
    return (new.now - old.now).total_seconds()


def _healed_silently(finding: Finding, reaction: Mapping[str, Any]) -> bool:
    heal = reaction.get("heal")
    return bool(heal and heal.get("ok") and finding.heal is not None and finding.heal.silent)


def _public(finding: Finding) -> dict[str, Any]:
    return {
        "detector": finding.detector,
        "subject": finding.subject,
        "severity": finding.severity.label,
        "summary": finding.summary,
        "evidence": dict(finding.evidence),
        "heal": finding.heal.action if finding.heal is not None else None,
    }
