"""How many pending belief changes one reconsolidation pass should take (ADR 0009).

Builds a bank with B beliefs, each holding back C memories and supported by S others, retracts
every belief, then drains the pending sweeps with passes of a given batch size, measuring the
wall time per belief swept and the longest single pass (how long the worker holds the store).

    python -m bench.reconsolidation --beliefs 64 --contested 4 --supporters 2
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import mneme


def build(path: Path, beliefs: int, contested: int, supporters: int) -> list[str]:
    mem = mneme.Memory.open(str(path), embedder="hashing")
    ids = []
    for b in range(beliefs):
        belief = mem.retain(
            f"I believe supplier S{b:03d} is unreliable.", bank="r", agent="a1"
        ).memory_ids[0]
        ids.append(belief)
        for c in range(contested):
            unit = mem.retain(
                f"Order part P{b:03d}-{c} from supplier S{b:03d}.", bank="r", agent="a1"
            ).memory_ids[0]
            mem.review.decide(unit, "reject", "rev1", "held back by the belief", because=belief)
        for s in range(supporters):
            unit = mem.retain(
                f"Supplier S{b:03d} was late on shipment {s} in week {s + 10}.",
                bank="r",
                agent="a1",
            ).memory_ids[0]
            mem.beliefs.support(unit, belief=belief, actor="a1")
    mem.close()
    return ids


def measure(path: Path, ids: list[str], batch: int) -> dict[str, float]:
    mem = mneme.Memory.open(str(path), embedder="hashing", reconsolidation_batch=batch)
    for belief in ids:
        mem.review.reject(belief, reason="retracted", actor="rev1")
    passes = []
    swept = 0
    t0 = time.perf_counter()
    while mem.beliefs.has_pending("r"):
        t = time.perf_counter()
        swept += len(mem.beliefs.reconsolidate(bank="r"))
        passes.append(time.perf_counter() - t)
    total = time.perf_counter() - t0
    mem.close()
    return {
        "batch": batch,
        "beliefs": swept,
        "total_s": total,
        "ms_per_belief": 1000 * total / max(swept, 1),
        "longest_pass_ms": 1000 * max(passes, default=0.0),
        "median_pass_ms": 1000 * statistics.median(passes) if passes else 0.0,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--beliefs", type=int, default=64)
    ap.add_argument("--contested", type=int, default=4)
    ap.add_argument("--supporters", type=int, default=2)
    ap.add_argument("--batches", default="1,4,16,64")
    args = ap.parse_args()
    rows = []
    for batch in (int(b) for b in args.batches.split(",")):
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "r.db"
            ids = build(path, args.beliefs, args.contested, args.supporters)
            rows.append(measure(path, ids, batch))
    print("| batch | beliefs swept | total s | ms / belief | median pass ms | longest pass ms |")
    print("|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        print(
            f"| {r['batch']:.0f} | {r['beliefs']:.0f} | {r['total_s']:.2f} | "
            f"{r['ms_per_belief']:.1f} | {r['median_pass_ms']:.0f} | "
            f"{r['longest_pass_ms']:.0f} |"
        )


if __name__ == "__main__":
    main()
