"""Health: what a watchdog (or a person) checks: schema, sizes, pending work, sweep rates."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from mneme.background.worker import Worker
from mneme.store.protocol import Banks, Lifecycle, Sweeps, Trust


class HealthStore(Lifecycle, Protocol):
    """The roles of the store this module uses (ADR 0044)."""

    banks: Banks
    trust: Trust
    sweeps: Sweeps


RECENT_SWEEPS = 1000


def health(
    store: HealthStore, *, charter_error: str | None, workers: Mapping[str, Worker]
) -> dict[str, Any]:
    """A snapshot: cheap queries only (the audit chain is verified by ``audit_verify``).

    Schema, sizes, pending work, open conflicts and reconsolidation rates per bank, the
    charter's error if its file did not parse, and how often each background worker ran
    and failed."""
    banks = [b.id for b in store.banks.list_banks()]
    stats = store.stats()
    totals = {
        "examined": 0,
        "reaccepted": 0,
        "flagged": 0,
        "queued": 0,
        "left_alone": 0,
        "refused": 0,
    }
    done = store.sweeps.done_sweeps(None, RECENT_SWEEPS)
    for sweep in done:
        report = sweep.report or {}
        totals["examined"] += int(report.get("examined", 0))
        for key in ("reaccepted", "flagged", "queued", "left_alone", "refused"):
            totals[key] += len(report.get(key, ()))
    examined = totals["examined"] or 1
    return {
        "ok": True,
        "schema_version": store.schema_version(),
        "backend": store.capabilities.name,
        "store": {
            "banks": stats.banks,
            "sources": stats.sources,
            "units": stats.units,
            "entities": stats.entities,
            "edges": stats.edges,
            "embeddings": dict(stats.embeddings_by_model),
        },
        "reconsolidation": {
            "pending": store.sweeps.has_pending_sweep(None),
            "sweeps": len(done),
            **totals,
            "rates": {
                k: round(totals[k] / examined, 4)
                for k in ("reaccepted", "flagged", "queued", "left_alone")
            },
            "open_proposals": {b: len(store.sweeps.list_proposals(b, "open")) for b in banks},
        },
        "open_conflicts": {b: len(store.trust.list_conflicts(b, status="open")) for b in banks},
        "charter_error": charter_error,
        "workers": {name: {"runs": w.runs, "errors": w.errors} for name, w in workers.items()},
    }
