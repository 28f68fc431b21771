"""The watchdog's eyes: one snapshot of the store, its disk, the process and the background
stages, read cheaply (ADR 0054). The rules that judge it are pure (``core.watchdog``)."""

from __future__ import annotations

import datetime as dt
import shutil
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from mneme.background.worker import Worker
from mneme.core.watchdog import Snapshot, StageSample
from mneme.errors import MnemeError
from mneme.store.protocol import Lifecycle, Probe, Queue


class ProbeStore(Lifecycle, Protocol):
    """The roles of the store this module uses (ADR 0044)."""

    queue: Queue
    probe: Probe


class Produces(Protocol):
    """A background stage's producer: what its passes produced so far, in this process."""

    produced: int


@dataclass(frozen=True, slots=True)
class Stage:
    """A background stage the flood detector watches and the watchdog may pause: its worker
    (the passes) and what counts its output. Reconsolidation registers today; a stage that
    counts what it produces (insights, say) registers the same way."""

    name: str
    worker: Worker
    producer: Produces


def rss_bytes() -> int | None:
    """The process's resident memory now (Linux ``/proc``; None elsewhere)."""
    try:
        for line in Path("/proc/self/status").read_text(encoding="ascii").splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def disk_free(directory: str | None) -> int | None:
    if directory is None:
        return None
    try:
        return shutil.disk_usage(directory).free
    except OSError:
        return None


def snapshot(store: ProbeStore, stages: Mapping[str, Stage], now: dt.datetime) -> Snapshot:
    """What the detectors judge. A store that fails its check gives a snapshot with only the
    problem: nothing else read from it would be trusted."""
    backend = store.capabilities.name
    samples = tuple(
        StageSample(s.name, s.worker.busy, s.producer.produced, s.worker.paused is not None)
        for s in stages.values()
    )
    problem = store.probe.integrity()
    if problem is not None:
        return Snapshot(now, backend, problem, stages=samples, rss_bytes=rss_bytes())
    try:
        files = store.probe.files()
        queue = store.queue.queue_stats()
        indexes = tuple(store.probe.indexes())
    except MnemeError as exc:
        return Snapshot(now, backend, str(exc), stages=samples, rss_bytes=rss_bytes())
    return Snapshot(
        now=now,
        backend=backend,
        db_bytes=files.db_bytes,
        wal_bytes=files.wal_bytes,
        indexes=indexes,
        queue_pending=queue.pending,
        queue_oldest=queue.oldest_pending,
        processing=queue.processing,
        stages=samples,
        disk_free_bytes=disk_free(files.directory),
        rss_bytes=rss_bytes(),
    )
