"""The health watchdog's overhead on the read path (issue 20 target: within the noise of an
interleaved A/B run).

One LoCoMo conversation is retained into a fresh SQLite store (real MiniLM embeddings). Then
recall latency is measured in blocks that alternate between the watchdog running (A: a thread
doing ``mem.admin.watch()``, the very pass the server's background worker runs, every
``--every`` seconds, far more often than the server's 60 s default) and the watchdog off (B),
in the order ABBA BAAB ... so drift in the machine's load falls on both arms alike. The noise
is what two halves of the B blocks differ by (an A/A comparison); the overhead is A's median
against B's, with a bootstrap interval.

    python -m bench.watchdog_overhead [--rounds 12] [--block 40] [--every 0.5] [--embedder minilm]
"""

from __future__ import annotations

import argparse
import datetime as dt
import random
import statistics
import tempfile
import threading
import time
from pathlib import Path

from bench.locomo.data import load
from bench.locomo.run import offline_embedder, retain_items

RESULTS = Path(__file__).parent / "results"


def _watching(mem: object, every: float, stop: threading.Event, passes: list[float]) -> None:
    while not stop.is_set():
        began = time.perf_counter()
        mem.admin.watch()  # type: ignore[attr-defined]
        passes.append(time.perf_counter() - began)
        stop.wait(every)


def _median_ci(a: list[float], b: list[float], seed: int = 7) -> tuple[float, float, float]:
    """median(a) - median(b), with a 95% bootstrap interval."""
    rng = random.Random(seed)
    diffs = sorted(
        statistics.median(rng.choices(a, k=len(a))) - statistics.median(rng.choices(b, k=len(b)))
        for _ in range(2000)
    )
    return statistics.median(a) - statistics.median(b), diffs[50], diffs[1949]


def _p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[round(0.95 * (len(ordered) - 1))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=12)
    parser.add_argument("--block", type=int, default=40, help="recalls per block")
    parser.add_argument("--every", type=float, default=0.5, help="seconds between passes (A)")
    parser.add_argument("--embedder", default="minilm", choices=("minilm", "hashing"))
    parser.add_argument("--conversation", default="conv-26")
    parser.add_argument("--out", default=str(RESULTS / "watchdog-overhead-2026-12-02.md"))
    args = parser.parse_args()

    import mneme

    dataset = load()
    (conv,) = [c for c in dataset.conversations if c.sample_id == args.conversation]
    questions = [q.question for q in conv.questions]
    with tempfile.TemporaryDirectory() as tmp:
        mem = mneme.Memory.open(str(Path(tmp) / "w.db"), embedder=offline_embedder(args.embedder))
        try:
            items = retain_items(conv)
            for i in range(0, len(items), 64):
                mem.retain_many(items[i : i + 64])
            units = mem.admin.stats().units
            bank = items[0]["bank"]
            rng = random.Random(1)
            for q in questions[:20]:  # warm: index loaded, caches filled
                mem.recall(q, bank=bank, agent="bench", scope="collective")
            arms: dict[str, list[float]] = {"A": [], "B": []}
            b_halves: list[list[float]] = [[], []]
            passes: list[float] = []
            b_blocks = 0
            for r in range(args.rounds):
                for arm in "ABBA" if r % 2 == 0 else "BAAB":
                    stop = threading.Event()
                    watcher = None
                    if arm == "A":
                        watcher = threading.Thread(
                            target=_watching, args=(mem, args.every, stop, passes), daemon=True
                        )
                        watcher.start()
                    block = []
                    for _ in range(args.block):
                        q = rng.choice(questions)
                        began = time.perf_counter()
                        mem.recall(q, bank=bank, agent="bench", scope="collective")
                        block.append((time.perf_counter() - began) * 1000)
                    stop.set()
                    if watcher is not None:
                        watcher.join()
                    arms[arm] += block
                    if arm == "B":
                        b_halves[b_blocks % 2] += block
                        b_blocks += 1
        finally:
            mem.close()
    a, b = arms["A"], arms["B"]
    diff, lo, hi = _median_ci(a, b)
    noise, nlo, nhi = _median_ci(b_halves[0], b_halves[1])
    within = lo <= 0 <= hi or abs(diff) <= max(abs(nlo), abs(nhi))
    lines = [
        "# Watchdog overhead on the read path (issue 20)",
        "",
        f"Run {dt.date.today().isoformat()} on this machine (2 cores shared), "
        f"`python -m bench.watchdog_overhead --rounds {args.rounds} --block {args.block} "
        f"--every {args.every} --embedder {args.embedder}`.",
        "",
        f"Store: LoCoMo {args.conversation}, {units} units, SQLite, {args.embedder} embeddings. "
        f"Recall (collective scope, k=10) of the conversation's questions, drawn at random; "
        f"{args.rounds * 4} blocks of {args.block} recalls in the order ABBA BAAB ...; "
        f"A: the watchdog's full pass (`mem.admin.watch()`: quick_check, sizes, index check, "
        f"queue, disk, memory, reactions) every {args.every:g} s in a thread, 120x the "
        "server's default of 60 s; B: no watchdog.",
        "",
        "| arm | recalls | p50 ms | p95 ms | mean ms |",
        "|---|---|---|---|---|",
        *(
            f"| {name} | {len(v)} | {statistics.median(v):.2f} | {_p95(v):.2f} | "
            f"{statistics.fmean(v):.2f} |"
            for name, v in (("A (watchdog on)", a), ("B (off)", b))
        ),
        "",
        f"- watchdog passes during A: {len(passes)}, median {statistics.median(passes) * 1000:.1f}"
        f" ms a pass"
        if passes
        else "- no watchdog pass ran",
        f"- overhead, median A - median B: **{diff:+.2f} ms** (95% bootstrap {lo:+.2f} .. "
        f"{hi:+.2f})",
        f"- noise, A/A (the two halves of the B blocks): {noise:+.2f} ms (95% bootstrap "
        f"{nlo:+.2f} .. {nhi:+.2f})",
        f"- verdict: {'within' if within else 'NOT within'} the noise of the interleaved run",
        "",
    ]
    Path(args.out).write_text("\n".join(lines), encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
