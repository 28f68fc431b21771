"""A restart at scale: the first recall of a fresh process on a large SQLite store, with and
without the persisted index files (ADR 0052), and the warm p95 both ways.

    python -m bench.scale.restart build --store PATH --size 1000000
    python -m bench.scale.restart measure --store PATH [--rounds 3] [--queries 200]

``build`` fills a store *fast*, not through the write path (which takes hours at 1M on this
machine): the first ``SEED`` memories of ``bench.scale.generate``'s stream are retained
through ``Memory.retain_many`` (so the bank, its lexical table, entities and a real unit row
exist), then the rest of the stream is imported through the store's own import path
(``store.portable.import_rows``, what ``mneme db copy`` uses): one unit per memory, with its
source, knower, evidence and hashing-embedder vector, shaped like the rows the write path wrote
for the seed. No atomization, entity linking or claims for the imported units: this store is
for measuring how a process reopens it, not the write path.

``measure`` runs fresh processes, interleaved: ``rows`` (the index files deleted first, so the
first recall rebuilds the vector index, the coarse quantizer and the BM25 postings from the
rows, the old behaviour) and ``file`` (the files a previous process left). Each reports the
first recall's seconds, what the store did (loaded, caught up, rebuilt) and the warm p50/p95
over ``--queries`` questions after 10 untimed ones.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime as dt
import hashlib
import json
import os
import resource
import shutil
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench.scale.generate import generate, queries
from bench.scale.run import WARMUP, percentile

SEED = 200
BATCH = 5000
BANK = "scale"


def build(path: str, size: int) -> None:
    from mneme import Memory
    from mneme.embed.hashing import HashingEmbedder

    mem = Memory.open(path, embedder="hashing", env={})
    store: Any = mem._store
    stream = generate(size)
    seed = [next(stream) for _ in range(min(SEED, size))]
    mem.retain_many([m.retain_item(BANK) for m in seed])
    unit = next(r for b in store.portable.export_rows("units") for r in b)
    source = next(r for b in store.portable.export_rows("sources") for r in b)
    embedder = HashingEmbedder()
    now = dt.datetime.now(dt.UTC)
    started = time.perf_counter()
    done = len(seed)
    batch: list[Any] = []

    def flush() -> None:
        vectors = embedder.embed([m.text for m in batch])
        units, sources, knowers, evidence, embeddings = [], [], [], [], []
        for m, vec in zip(batch, vectors, strict=True):
            uid = "u_bulk" + hashlib.blake2b(m.source_id.encode(), digest_size=10).hexdigest()
            at = m.occurred_at
            units.append(
                {
                    **unit,
                    "id": uid,
                    "text": m.text,
                    "content_key": hashlib.md5(m.text.encode() + uid.encode()).hexdigest(),
                    "agent_id": m.agent,
                    "occurred_start": at,
                    "occurred_end": at,
                    "valid_from": at,
                    "mentioned_at": at,
                    "recorded_at": now,
                    "metadata": {"session_id": m.session},
                }
            )
            sources.append(
                {
                    **source,
                    "id": m.source_id,
                    "text": m.text,
                    "content_hash": hashlib.sha256(m.text.encode()).hexdigest(),
                    "agent_id": m.agent,
                    "session_id": m.session,
                    "occurred_at": at,
                    "mentioned_at": at,
                    "recorded_at": now,
                }
            )
            knowers.append(
                {
                    "bank_id": BANK,
                    "unit_id": uid,
                    "agent_id": m.agent,
                    "first_source_id": m.source_id,
                    "first_at": now,
                }
            )
            evidence.append(
                {
                    "bank_id": BANK,
                    "unit_id": uid,
                    "source_id": m.source_id,
                    "agent_id": m.agent,
                    "at": now,
                }
            )
            embeddings.append(
                {
                    "bank_id": BANK,
                    "unit_id": uid,
                    "model": embedder.model_id,
                    "dim": embedder.dim,
                    "vector": vec.tolist(),
                }
            )
        with store.transaction():
            for table, rows in (
                ("sources", sources),
                ("units", units),
                ("unit_knowers", knowers),
                ("unit_evidence", evidence),
                ("embeddings", embeddings),
            ):
                store.portable.import_rows(table, rows)
        batch.clear()

    for m in stream:
        batch.append(m)
        if len(batch) >= BATCH:
            flush()
            done += BATCH
            if done % 50_000 < BATCH:
                rate = (done - len(seed)) / (time.perf_counter() - started)
                print(f"  {done} units, {rate:.0f}/s", file=sys.stderr, flush=True)
    if batch:
        flush()
    # Imported rows bypass the generation counter: one bump tells every index they exist.
    with store.transaction():
        store.engine._touch(BANK)
    mem.close()


def index_dir(path: str) -> Path:
    return Path(path + ".index")


def _engine(mem: Any) -> Any:
    return mem._store.engine


def measure_once(path: str, n_queries: int, mode: str) -> dict[str, Any]:
    """In this (fresh) process: open, the first recall, then warm recall. ``rows``: no index
    file is read or written (the files were deleted, and saving is off), as before ADR 0052."""
    from mneme import Memory

    t_open = time.perf_counter()
    mem = Memory.open(path, embedder="hashing", env={})
    opened = time.perf_counter() - t_open
    files = _engine(mem).index_files
    if mode == "rows":
        files.min_rows = 1 << 62  # nothing saved: the old behaviour, measured alone
    qs = queries(1_000_000, n_queries)
    t0 = time.perf_counter()
    first_hits = mem.recall(qs[0], bank=BANK, agent="assistant", scope="collective", k=10)
    first = time.perf_counter() - t0
    events = dataclasses.asdict(files.stats)
    for q in qs[:WARMUP]:
        mem.recall(q, bank=BANK, agent="assistant", scope="collective", k=10)
    lat = []
    for q in qs:
        t0 = time.perf_counter()
        mem.recall(q, bank=BANK, agent="assistant", scope="collective", k=10)
        lat.append((time.perf_counter() - t0) * 1000)
    t0 = time.perf_counter()
    mem.close()
    closed = time.perf_counter() - t0
    return {
        "open_s": opened,
        "first_recall_s": first,
        "first_hits": [h.unit.id for h in first_hits],
        "p50_ms": percentile(lat, 0.5),
        "p95_ms": percentile(lat, 0.95),
        "close_s": closed,
        "index_files": events,
        "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def child(path: str, mode: str, n_queries: int) -> dict[str, Any]:
    """One fresh process. ``rows``: the files deleted first; ``save``: the files deleted, the
    index rebuilt and saved; ``file``: the files a previous process saved."""
    if mode in ("rows", "save"):
        shutil.rmtree(index_dir(path), ignore_errors=True)
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    command = [sys.executable, "-m", "bench.scale.restart", "once", "--store", path]
    command += ["--queries", str(n_queries), "--mode", mode]
    out = subprocess.run(command, check=True, capture_output=True, text=True, env=env)
    result: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    result["mode"] = mode
    return result


def measure(path: str, rounds: int, n_queries: int) -> list[dict[str, Any]]:
    """``rows`` and ``file`` runs interleaved (alternating which goes first); before each
    ``file`` run whose files a ``rows`` run deleted, a ``save`` run writes them."""
    results = []
    for r in range(rounds):
        for mode in ("file", "rows") if r % 2 == 0 else ("rows", "file"):
            if mode == "file" and not index_dir(path).exists():
                res = child(path, "save", n_queries)
                res["round"] = r
                print(json.dumps(res), flush=True)
                results.append(res)
            res = child(path, mode, n_queries)
            res["round"] = r
            print(json.dumps(res), flush=True)
            results.append(res)
    return results


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("command", choices=("build", "measure", "once"))
    ap.add_argument("--store", required=True)
    ap.add_argument("--size", type=int, default=1_000_000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--mode", choices=("rows", "save", "file"), default="file")
    args = ap.parse_args(argv)
    if args.command == "build":
        t0 = time.perf_counter()
        build(args.store, args.size)
        print(f"built {args.store} ({args.size} memories) in {time.perf_counter() - t0:.0f} s")
    elif args.command == "once":
        print(json.dumps(measure_once(args.store, args.queries, args.mode)))
    else:
        measure(args.store, args.rounds, args.queries)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
