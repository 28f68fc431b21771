"""What a running Memory takes of a new configuration, and what needs a restart (ADR 0055).

``Memory.reconfigure(config)`` (and ``Memory.reload()``, which reads the layers again) compares
the new configuration with the one in force. A setting in ``LIVE`` is applied: Memory builds
new clients for it (the LLM chain, the retain pipeline, the recall knobs) and swaps them in one
assignment, so a request already running finishes on the objects it started with. Any other
setting that changed (the store, the embedder, the audit key, a surface's option read once at
start) is reported as needing a restart and keeps its value in force: never silently ignored,
never half applied. A new field of ``Config`` needs a restart until Memory is taught to
rebuild what depends on it.

The status (the last reload, its error, how many were applied) is what ``mneme config apply``,
``GET /v1/admin/config`` and the server's log report.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import threading
from typing import Any

from mneme.config import Config
from mneme.config_types import flatten

#: Top-level fields (a section as a whole) a running Memory applies without a restart.
LIVE = frozenset(
    {
        "recall",
        "llm",
        "max_text_chars",
        "max_atoms",
        "create_banks",
        "sensitive",
        "phone_region",
        "reconsolidate_every",
        "reconsolidation_bar",
        "reconsolidation_batch",
        "reflect_every",
        "reflect_banks_per_pass",
    }
)


@dataclasses.dataclass(frozen=True, slots=True)
class ReloadReport:
    """One reload: what was applied, what waits for a restart, or why nothing changed."""

    ok: bool
    #: Settings (dotted paths) now in force.
    applied: tuple[str, ...] = ()
    #: Settings that changed but keep their old value until the process restarts.
    needs_restart: tuple[str, ...] = ()
    #: Why nothing changed (an invalid setting, a client that could not be built).
    error: str | None = None
    #: Reloads asked so far in this process, this one included.
    generation: int = 0
    at: str = ""


def changed(old: Config, new: Config) -> list[str]:
    """The dotted paths whose value differs."""
    before, after = flatten(old), flatten(new)
    return [path for path, value in after.items() if before.get(path) != value]


def split(old: Config, new: Config) -> tuple[Config, tuple[str, ...], tuple[str, ...]]:
    """The configuration to put in force (``new`` for live settings, ``old`` for the rest),
    the live settings that changed, and those that need a restart."""
    paths = changed(old, new)
    live = tuple(p for p in paths if p.split(".", 1)[0] in LIVE)
    held = tuple(p for p in paths if p.split(".", 1)[0] not in LIVE)
    effective = dataclasses.replace(old, **{name: getattr(new, name) for name in LIVE})
    return effective, live, held


class Status:
    """The reloads of one Memory: a counter and the last report, read by any thread."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.generation = 0
        self.last: ReloadReport | None = None
        #: Settings that changed in a reload and still wait for a restart.
        self.pending: tuple[str, ...] = ()

    def record(
        self,
        *,
        error: str | None = None,
        applied: tuple[str, ...] = (),
        needs_restart: tuple[str, ...] | None = None,
    ) -> ReloadReport:
        with self._lock:
            self.generation += 1
            if needs_restart is not None:
                self.pending = needs_restart
            report = ReloadReport(
                ok=error is None,
                applied=applied,
                needs_restart=self.pending,
                error=error,
                generation=self.generation,
                at=dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
            )
            self.last = report
            return report

    def as_dict(self) -> dict[str, Any]:
        last = self.last
        return {
            "generation": self.generation,
            "needs_restart": list(self.pending),
            "last": dataclasses.asdict(last) if last is not None else None,
        }
