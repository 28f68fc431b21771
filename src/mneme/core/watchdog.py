"""The health watchdog's rules: detectors over a snapshot, and the reaction ladder (ADR 0054).

Pure: a snapshot (what ``background.probes`` read from the store, the disk and the process)
goes in, findings come out; nothing here touches a file, a clock or a store. Each detector
looks at one thing and answers ``ok``, ``warn`` or ``critical`` with its evidence, and names the
safe repair for it, if there is one. ``ladder`` says, for a finding and what was already done
about its condition, which rungs to climb: heal silently where that is safe, else (or when
healing fails) alert through memory and run the operator's hook, once per ongoing condition.
"""

from __future__ import annotations

import datetime as dt
import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any


class Severity(enum.IntEnum):
    """Ordered: the worst finding gives the report's severity (and ``mneme health``'s exit
    code: 0, 1, 2, the convention of Nagios-style checks)."""

    OK = 0
    WARN = 1
    CRITICAL = 2

    @property
    def label(self) -> str:
        return self.name.lower()


@dataclass(frozen=True, slots=True)
class Thresholds:
    """When a detector warns or goes critical; 0 turns a size or count check off."""

    wal_bytes: int = 64 * 1024 * 1024  # WAL above this: checkpoint it (warn)
    db_bytes: int = 0  # database file above this: warn (0: no limit)
    growth_bytes_per_hour: int = 1024 * 1024 * 1024  # database + WAL growth rate: warn
    #: The shortest span a growth rate is read over (a few bytes between two passes a second
    #: apart would be gigabytes an hour).
    growth_window_seconds: float = 300.0
    queue_depth: int = 1000  # pending accepted writes: warn (critical at 10x)
    queue_age_seconds: float = 600.0  # the oldest pending write waited longer: warn
    stuck_seconds: float = 600.0  # an item processing this long is stuck: requeue it
    flood_per_pass: int = 500  # a stage produced more than this per pass: pause it
    disk_free_bytes: int = 1024 * 1024 * 1024  # free disk below this: warn (critical at 1/10)
    memory_bytes: int = 0  # process resident memory above this: warn (0: no limit)


@dataclass(frozen=True, slots=True)
class IndexState:
    """One vector index beside the embeddings it derives from."""

    bank: str
    model: str
    stored: int  # embeddings rows the index should hold
    indexed: int | None  # rows the loaded index holds (None: not loaded, nothing to compare)
    valid: bool = True  # a native index (pgvector) the server marks usable


@dataclass(frozen=True, slots=True)
class QueuedItem:
    id: str
    bank: str
    since: dt.datetime  # when it was claimed (processing) or accepted (pending)


@dataclass(frozen=True, slots=True)
class StageSample:
    """A background stage's cumulative counters when the snapshot was taken."""

    name: str
    runs: int  # passes that found work so far (idle passes would dilute the rate)
    produced: int  # what its passes produced so far (sweep verdicts, insights...)
    paused: bool = False


@dataclass(frozen=True, slots=True)
class Snapshot:
    now: dt.datetime
    backend: str
    store_problem: str | None = None  # None: the store answered and its integrity check passed
    db_bytes: int | None = None
    wal_bytes: int | None = None
    indexes: tuple[IndexState, ...] = ()
    queue_pending: int = 0
    queue_oldest: dt.datetime | None = None
    processing: tuple[QueuedItem, ...] = ()
    stages: tuple[StageSample, ...] = ()
    disk_free_bytes: int | None = None
    rss_bytes: int | None = None


@dataclass(frozen=True, slots=True)
class Heal:
    """A repair the watchdog may make without asking: ``action`` on ``target``. A silent heal
    that works raises no alert; a loud one (a paused stage holds work back) still does."""

    action: str  # checkpoint | rebuild_index | requeue | pause
    target: str
    silent: bool = True


@dataclass(frozen=True, slots=True)
class Finding:
    detector: str
    subject: str  # what it is about (the store, a bank's index, a queue item, a stage)
    severity: Severity
    summary: str
    evidence: Mapping[str, Any] = field(default_factory=dict)
    heal: Heal | None = None

    @property
    def condition(self) -> str:
        """The ongoing condition this finding belongs to: alerted about once."""
        return f"{self.detector}:{self.subject}"


MIB = 1024 * 1024


def _mib(n: int) -> str:
    return f"{n / MIB:.1f} MiB"


def store_liveness(s: Snapshot, t: Thresholds) -> list[Finding]:
    if s.store_problem is None:
        return []
    return [
        Finding(
            "store",
            s.backend,
            Severity.CRITICAL,
            f"the store failed its check: {s.store_problem}",
            {"problem": s.store_problem},
        )
    ]


def wal_size(s: Snapshot, t: Thresholds) -> list[Finding]:
    if s.wal_bytes is None or not t.wal_bytes or s.wal_bytes <= t.wal_bytes:
        return []
    return [
        Finding(
            "wal",
            "store",
            Severity.WARN,
            f"the write-ahead log is {_mib(s.wal_bytes)} (limit {_mib(t.wal_bytes)})",
            {"wal_bytes": s.wal_bytes, "limit": t.wal_bytes},
            Heal("checkpoint", "store"),
        )
    ]


def db_size(s: Snapshot, t: Thresholds) -> list[Finding]:
    if s.db_bytes is None or not t.db_bytes or s.db_bytes <= t.db_bytes:
        return []
    return [
        Finding(
            "db_size",
            "store",
            Severity.WARN,
            f"the database is {_mib(s.db_bytes)} (limit {_mib(t.db_bytes)})",
            {"db_bytes": s.db_bytes, "limit": t.db_bytes},
        )
    ]


def growth(s: Snapshot, previous: Snapshot | None, t: Thresholds) -> list[Finding]:
    """Database and WAL bytes per hour since the previous snapshot."""
    if previous is None or not t.growth_bytes_per_hour or s.db_bytes is None:
        return []
    seconds = (s.now - previous.now).total_seconds()
    if seconds < max(t.growth_window_seconds, 1e-9) or previous.db_bytes is None:
        return []
    now_bytes = s.db_bytes + (s.wal_bytes or 0)
    then_bytes = previous.db_bytes + (previous.wal_bytes or 0)
    rate = (now_bytes - then_bytes) / (seconds / 3600)
    if rate <= t.growth_bytes_per_hour:
        return []
    return [
        Finding(
            "growth",
            "store",
            Severity.WARN,
            f"the store grows {_mib(int(rate))} an hour (limit {_mib(t.growth_bytes_per_hour)})",
            {"bytes_per_hour": int(rate), "limit": t.growth_bytes_per_hour},
        )
    ]


def index_consistency(s: Snapshot, t: Thresholds) -> list[Finding]:
    found = []
    for idx in s.indexes:
        drift = idx.indexed is not None and idx.indexed != idx.stored
        if not drift and idx.valid:
            continue
        what = (
            f"holds {idx.indexed} vectors, the embeddings table {idx.stored}"
            if drift
            else "is marked invalid by the server"
        )
        found.append(
            Finding(
                "index",
                f"{idx.bank}/{idx.model}",
                Severity.WARN,
                f"the vector index of bank {idx.bank!r} ({idx.model}) {what}",
                {
                    "bank": idx.bank,
                    "model": idx.model,
                    "stored": idx.stored,
                    "indexed": idx.indexed,
                    "valid": idx.valid,
                },
                Heal("rebuild_index", f"{idx.bank}/{idx.model}"),
            )
        )
    return found


def queue(s: Snapshot, t: Thresholds) -> list[Finding]:
    found = []
    if t.queue_depth and s.queue_pending > t.queue_depth:
        severity = Severity.CRITICAL if s.queue_pending > 10 * t.queue_depth else Severity.WARN
        found.append(
            Finding(
                "queue_depth",
                "ingest",
                severity,
                f"{s.queue_pending} accepted writes wait (limit {t.queue_depth})",
                {"pending": s.queue_pending, "limit": t.queue_depth},
            )
        )
    if s.queue_oldest is not None and t.queue_age_seconds:
        age = (s.now - s.queue_oldest).total_seconds()
        if age > t.queue_age_seconds:
            found.append(
                Finding(
                    "queue_age",
                    "ingest",
                    Severity.WARN,
                    f"the oldest accepted write has waited {age:.0f} s "
                    f"(limit {t.queue_age_seconds:g} s)",
                    {"age_seconds": round(age, 1), "limit": t.queue_age_seconds},
                )
            )
    return found


def stuck(s: Snapshot, t: Thresholds) -> list[Finding]:
    found = []
    for item in s.processing:
        age = (s.now - item.since).total_seconds()
        if t.stuck_seconds and age > t.stuck_seconds:
            found.append(
                Finding(
                    "stuck",
                    item.id,
                    Severity.WARN,
                    f"accepted write {item.id} of bank {item.bank!r} has been processing for "
                    f"{age:.0f} s (limit {t.stuck_seconds:g} s)",
                    {"item": item.id, "bank": item.bank, "age_seconds": round(age, 1)},
                    Heal("requeue", item.id),
                )
            )
    return found


def flood(s: Snapshot, previous: Snapshot | None, t: Thresholds) -> list[Finding]:
    """A stage producing more per pass than the limit since the previous snapshot: generic
    over stages (reconsolidation today; any stage that counts what it produces can register)."""
    found = [
        # A paused stage stays a finding of the same condition: it is not alerted again, and
        # it shows in the report until the stage is resumed.
        Finding(
            "flood",
            st.name,
            Severity.WARN,
            f"stage {st.name} is paused (a flood); it resumes after a cool-down or when an "
            "operator resumes it",
            {"stage": st.name, "paused": True},
        )
        for st in s.stages
        if st.paused
    ]
    if previous is None or not t.flood_per_pass:
        return found
    before = {st.name: st for st in previous.stages}
    for st in s.stages:
        old = before.get(st.name)
        if old is None or st.paused:
            continue
        produced = st.produced - old.produced
        per_pass = produced / max(1, st.runs - old.runs)
        if per_pass > t.flood_per_pass:
            found.append(
                Finding(
                    "flood",
                    st.name,
                    Severity.WARN,
                    f"stage {st.name} produced {per_pass:.0f} a pass "
                    f"(limit {t.flood_per_pass}); paused until it is resumed",
                    {
                        "stage": st.name,
                        "per_pass": round(per_pass, 1),
                        "produced": produced,
                        "limit": t.flood_per_pass,
                    },
                    Heal("pause", st.name, silent=False),
                )
            )
    return found


def disk(s: Snapshot, t: Thresholds) -> list[Finding]:
    if s.disk_free_bytes is None or not t.disk_free_bytes:
        return []
    if s.disk_free_bytes >= t.disk_free_bytes:
        return []
    severity = Severity.CRITICAL if s.disk_free_bytes < t.disk_free_bytes / 10 else Severity.WARN
    return [
        Finding(
            "disk",
            "store",
            severity,
            f"{_mib(s.disk_free_bytes)} free on the store's disk (limit {_mib(t.disk_free_bytes)})",
            {"free_bytes": s.disk_free_bytes, "limit": t.disk_free_bytes},
        )
    ]


def memory(s: Snapshot, t: Thresholds) -> list[Finding]:
    if s.rss_bytes is None or not t.memory_bytes or s.rss_bytes <= t.memory_bytes:
        return []
    return [
        Finding(
            "memory",
            "process",
            Severity.WARN,
            f"the process holds {_mib(s.rss_bytes)} (limit {_mib(t.memory_bytes)})",
            {"rss_bytes": s.rss_bytes, "limit": t.memory_bytes},
        )
    ]


#: Every detector, in the order a report lists them.
DETECTORS = (
    "store",
    "wal",
    "db_size",
    "growth",
    "index",
    "queue_depth",
    "queue_age",
    "stuck",
    "flood",
    "disk",
    "memory",
)


def detect(
    s: Snapshot, previous: Snapshot | None, t: Thresholds, base: Snapshot | None = None
) -> list[Finding]:
    """Every finding of one snapshot, against the previous one (per-pass rates) and ``base``
    (growth: a snapshot at least the growth window old; None: growth is not judged yet)."""
    found = store_liveness(s, t)
    if s.store_problem is not None:
        return found  # nothing else read from a store that failed its check is trusted
    return [
        *found,
        *wal_size(s, t),
        *db_size(s, t),
        *growth(s, base, t),
        *index_consistency(s, t),
        *queue(s, t),
        *stuck(s, t),
        *flood(s, previous, t),
        *disk(s, t),
        *memory(s, t),
    ]


def worst(findings: Sequence[Finding]) -> Severity:
    return max((f.severity for f in findings), default=Severity.OK)


@dataclass(frozen=True, slots=True)
class Rungs:
    """What to do about one finding, after its heal (if any) was tried."""

    alert: bool  # retain an ops-alert memory
    hook: bool  # run the operator's hook


def ladder(finding: Finding, healed: bool | None, alerted: bool) -> Rungs:
    """The rungs above healing: none when a silent heal worked, none when the condition was
    already alerted (one alert per ongoing condition), else the alert and the hook.

    ``healed``: None when the finding names no heal, else whether the heal worked."""
    if finding.severity is Severity.OK or alerted:
        return Rungs(False, False)
    if healed and finding.heal is not None and finding.heal.silent:
        return Rungs(False, False)
    return Rungs(True, True)


def cleared(active: Sequence[str], findings: Sequence[Finding]) -> list[str]:
    """Alerted conditions that no finding holds any more: they ended."""
    now = {f.condition for f in findings}
    return [c for c in active if c not in now]
