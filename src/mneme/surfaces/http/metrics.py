"""Prometheus metrics for one server (ADR 0055): ``/metrics``, in the text format, from a
registry of its own (never the process-wide default: two apps, or two tests, never share
counts).

Counted as they happen (``Memory.observers``): writes and recalls by surface and outcome, and
their latency. Read at scrape time (``mem.admin.gauges``): the ingest queue, open conflicts and
the review worklist per bank, the store's rows and embeddings, each vector index's rows, the
watchdog's reactions by kind and the paused stages. Store-wide numbers: the route needs an
admin token for every bank, as ``/v1/stats`` does.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Histogram
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.exposition import generate_latest
from prometheus_client.registry import Collector
from starlette.types import ASGIApp, Receive, Scope, Send

from mneme.errors import MnemeError
from mneme.memory import Memory
from mneme.observe import Event, surface

#: Latency buckets (seconds): a recall is milliseconds, a write with its embedding up to
#: seconds, a large batch more.
BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)


class Metrics:
    """The registry of one server, fed by its ``Memory``'s events."""

    def __init__(self, memory: Memory) -> None:
        self.memory = memory
        self.registry = CollectorRegistry(auto_describe=True)
        self.calls = {
            op: Counter(
                f"mneme_{op}s",
                f"{op.capitalize()}s, by the surface that asked and the outcome (ok or error).",
                ["surface", "outcome"],
                registry=self.registry,
            )
            for op in ("write", "recall")
        }
        self.seconds = {
            op: Histogram(
                f"mneme_{op}_seconds",
                f"Seconds a {op} took, by surface.",
                ["surface"],
                buckets=BUCKETS,
                registry=self.registry,
            )
            for op in ("write", "recall")
        }
        self.registry.register(_Gauges(memory))
        memory.observers.add(self.observe)

    def observe(self, event: Event) -> None:
        if event.op not in self.calls:
            return
        outcome = "ok" if event.ok else "error"
        self.calls[event.op].labels(event.surface, outcome).inc()
        self.seconds[event.op].labels(event.surface).observe(event.seconds)

    def close(self) -> None:
        self.memory.observers.remove(self.observe)

    def exposition(self) -> tuple[bytes, str]:
        return generate_latest(self.registry), CONTENT_TYPE_LATEST


class _Gauges(Collector):
    """Numbers read from the store when Prometheus scrapes, never cached."""

    def __init__(self, memory: Memory) -> None:
        self.memory = memory

    def describe(self) -> list[Metric]:
        return []  # read at scrape time only (describing would query the store at register)

    def collect(self) -> Iterator[Metric]:
        up = GaugeMetricFamily("mneme_store_up", "1 when the store answered this scrape.")
        try:
            g: dict[str, Any] = self.memory.admin.gauges()
        except MnemeError:
            up.add_metric([], 0)
            yield up
            return
        up.add_metric([], 1)
        yield up
        queue = GaugeMetricFamily(
            "mneme_ingest_queue",
            "Accepted writes in the ingest buffer, by state.",
            labels=["state"],
        )
        for state in ("pending", "processing"):
            queue.add_metric([state], g["queue"][state])
        yield queue
        conflicts = GaugeMetricFamily(
            "mneme_open_conflicts", "Open conflicts (questions) per bank.", labels=["bank"]
        )
        worklist = GaugeMetricFamily(
            "mneme_review_worklist",
            "Items waiting for a person's decision, per bank and kind.",
            labels=["bank", "kind"],
        )
        for bank, counts in sorted(g["worklist"].items()):
            conflicts.add_metric([bank], counts.get("question", 0))
            for kind, n in sorted(counts.items()):
                worklist.add_metric([bank, kind], n)
        yield conflicts
        yield worklist
        stats = g["stats"]
        rows = GaugeMetricFamily(
            "mneme_store_rows", "Rows of the store, by table.", labels=["table"]
        )
        for table in ("banks", "sources", "units", "entities", "edges"):
            rows.add_metric([table], getattr(stats, table))
        yield rows
        embeddings = GaugeMetricFamily(
            "mneme_embeddings", "Stored embeddings, by model.", labels=["model"]
        )
        for model, n in sorted(stats.embeddings_by_model.items()):
            embeddings.add_metric([model], n)
        yield embeddings
        index = GaugeMetricFamily(
            "mneme_vector_index_rows",
            "Rows a vector index holds (loaded in memory; pgvector: the rows it indexes).",
            labels=["bank", "model"],
        )
        for idx in g["indexes"]:
            index.add_metric(
                [idx.bank, idx.model], idx.stored if idx.indexed is None else idx.indexed
            )
        yield index
        reactions = CounterMetricFamily(
            "mneme_watchdog_reactions",
            "Reactions the watchdog took in this process, by kind.",
            labels=["kind"],
        )
        for kind, n in sorted(g["reactions"].items()):
            reactions.add_metric([kind], n)
        yield reactions
        paused = GaugeMetricFamily(
            "mneme_stage_paused", "1 while the watchdog holds a stage paused.", labels=["stage"]
        )
        for stage, is_paused in sorted(g["paused"].items()):
            paused.add_metric([stage], int(is_paused))
        yield paused


class SurfaceMark:
    """Mark every call an HTTP request makes into ``Memory`` as the ``http`` surface's (MCP
    over HTTP marks its own calls ``mcp`` inside, where its tools run)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        with surface("http"):
            await self.app(scope, receive, send)
