"""Recall in one process while another process writes: the latency a reader sees when its
in-memory indexes must catch up with a writer's commits (ADR 0025).

    python -m bench.scale.beside STORE [--seconds 40]

STORE is a SQLite store with a ``scale`` bank (one ``bench.scale.run --keep`` kept). It is
written to: pass a copy. The reader builds its indexes first (first recall, timed apart); then
a writer process retains 10 memories per ``retain_many`` call with 0.2 s between calls while
the reader asks the scale questions back to back. Prints one JSON line.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import sys
import time
from typing import Any

from bench.scale.generate import generate, queries


def _writer(path: str, seconds: float, out: Any) -> None:
    from mneme import Memory

    mem = Memory.open(path, embedder="hashing", env={})
    started = time.perf_counter()
    batch: list[dict[str, Any]] = []
    written = 0
    for i, m in enumerate(generate(100_000, seed=99)):
        batch.append(
            {
                "text": m.text,
                "bank": "scale",
                "agent": m.agent,
                "occurred_at": m.occurred_at,
                "source_id": f"beside-{os.getpid()}-{i}",
            }
        )
        if len(batch) == 10:
            mem.retain_many(batch)
            batch = []
            written += 10
            time.sleep(0.2)
        if time.perf_counter() - started > seconds:
            break
    mem.close()
    out.put(("writer", written))


def _reader(path: str, seconds: float, out: Any) -> None:
    from mneme import Memory

    mem = Memory.open(path, embedder="hashing", env={})
    qs = queries(100_000, 400)
    t0 = time.perf_counter()
    mem.recall(qs[0], bank="scale", agent="assistant", scope="collective", k=10)
    out.put(("ready", time.perf_counter() - t0))
    lat: list[float] = []
    started = time.perf_counter()
    while time.perf_counter() - started < seconds:
        q = qs[len(lat) % len(qs)]
        t0 = time.perf_counter()
        mem.recall(q, bank="scale", agent="assistant", scope="collective", k=10)
        lat.append((time.perf_counter() - t0) * 1000)
    mem.close()
    lat.sort()
    out.put(
        (
            "reader",
            {
                "recalls": len(lat),
                "p50_ms": lat[len(lat) // 2],
                "p95_ms": lat[int(len(lat) * 0.95)],
                "max_ms": lat[-1],
            },
        )
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("store")
    parser.add_argument("--seconds", type=float, default=40.0)
    args = parser.parse_args(argv)
    ctx = mp.get_context("spawn")
    out = ctx.Queue()
    reader = ctx.Process(target=_reader, args=(args.store, args.seconds, out))
    reader.start()
    kind, first = out.get()
    writer = ctx.Process(target=_writer, args=(args.store, args.seconds + 5, out))
    writer.start()
    result: dict[str, Any] = {"store": args.store, "first_recall_s": first}
    for _ in range(2):
        kind, value = out.get()
        result["written" if kind == "writer" else "beside_writer"] = value
    reader.join()
    writer.join()
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
