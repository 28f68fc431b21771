"""Acknowledgement latency of the ingest buffer (issue target: p95 under 20 ms).

retain(wait=0) validates, persists and acknowledges; the pipeline (atomize, embed with the real
MiniLM, judge, write) runs behind it in the worker. This measures the acknowledgement alone,
while the worker is busy, and then how long the queue takes to drain.

    python -m bench.buffer --n 200
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import mneme

TEXTS = [
    "Priya moved the weekly sync to Thursdays at 10:00.",
    "The staging cluster runs Kubernetes 1.30 on six nodes.",
    "Tomas prefers tea in the afternoon and coffee in the morning.",
    "The Q3 offsite is in Lisbon from 14 to 16 October.",
    "Ada fixed the flaky login test by pinning the browser version.",
    "Our SLA promises 99.9 percent uptime for the public API.",
]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--n", type=int, default=200)
    ap.add_argument("--embedder", default="minilm")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        mem = mneme.Memory.open(str(Path(tmp) / "buf.db"), embedder=args.embedder)
        mem.retain("warm up the model and the store", bank="b", agent="a0")
        acks: list[float] = []
        pending = []
        t_start = time.perf_counter()
        for i in range(args.n):
            text = f"{TEXTS[i % len(TEXTS)]} (note {i})"
            t = time.perf_counter()
            r = mem.retain(text, bank="b", agent=f"a{i % 4}", wait=0)
            acks.append(1000 * (time.perf_counter() - t))
            pending.append(r.pending_id)
        accepted = time.perf_counter() - t_start
        deadline = time.monotonic() + 600
        while time.monotonic() < deadline and any(
            mem.get_add_status(p).status in ("pending", "processing") for p in pending[-1:] if p
        ):
            time.sleep(0.05)
        drained = time.perf_counter() - t_start
        done = sum(mem.get_add_status(p).status == "done" for p in pending if p)
        mem.close()
    p50, p95 = statistics.median(acks), percentile(acks, 0.95)
    print("| writes | ack p50 ms | ack p95 ms | ack max ms | accept s | drain s | done |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    print(
        f"| {args.n} | {p50:.2f} | {p95:.2f} | {max(acks):.2f} | {accepted:.2f} | "
        f"{drained:.2f} | {done} |"
    )
    print(f"\ntarget: ack p95 <= 20 ms -> {'PASS' if p95 <= 20 else 'FAIL'} ({args.embedder})")


if __name__ == "__main__":
    main()
