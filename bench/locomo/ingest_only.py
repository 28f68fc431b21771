"""LoCoMo ingest alone, for comparing the write path of two trees on a shared machine.

    PYTHONPATH=<tree>/src:<tree> python -m bench.locomo.ingest_only [--limit-conversations N]

Runs ``bench.locomo.run.ingest_mneme`` of whichever tree is first on the path (an older tree's
works too: it imports nothing else of this file's tree) on a fresh SQLite store, MiniLM with no
query cache, the model loaded before timing. Prints one line: turns, units, seconds, turns/s,
the process's CPU seconds (every thread), the CPU seconds of the thread that plans, judges and
writes (the embedding worker and OpenVINO's threads excluded: it is the number a busy machine
disturbs least), the decision hash when the tree has one, and the load average. Alternate two
trees run after run and compare medians (bench/results/ingest-profile-2026-12-02.md).
"""

from __future__ import annotations

import argparse
import os
import resource
import tempfile
import time
from pathlib import Path
from typing import Any


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default="/work/shared/data/locomo/locomo_dev.json")
    ap.add_argument("--limit-conversations", type=int, default=None)
    args = ap.parse_args()

    from bench.locomo import data as data_mod
    from bench.locomo import run as locomo
    from mneme import Memory
    from mneme.embed import MiniLMEmbedder

    dataset = data_mod.load(args.data, limit=args.limit_conversations)
    embedder = MiniLMEmbedder(query_cache_size=0)
    # The model loaded and the batch encoder compiled before any timing (an older tree's
    # embedder has no warm(): one text loads its model, the batch encoder compiles in the run).
    if hasattr(embedder, "warm"):
        embedder.warm()
    else:
        embedder.embed(["load the model before any timing"])
    clock = locomo.ReplayClock()
    turns = sum(len(c.turns) for c in dataset.conversations)
    with tempfile.TemporaryDirectory(prefix="mneme-ingest-") as tmp:
        mem = Memory.open(Path(tmp) / "locomo.db", embedder=embedder, clock=clock)
        try:
            before = resource.getrusage(resource.RUSAGE_SELF)
            thread0 = time.thread_time()
            out: Any = locomo.ingest_mneme(mem, dataset, clock, lambda m: print(m, flush=True))
            thread = time.thread_time() - thread0
            after = resource.getrusage(resource.RUSAGE_SELF)
        finally:
            mem.close()
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    seconds, units = out[0], out[1]
    decided = out[2] if len(out) > 2 else "-"  # trees before the decision hash return two
    print(
        f"RESULT turns={turns} units={units} secs={seconds:.2f} tps={turns / seconds:.1f} "
        f"cpu={cpu:.2f} tcpu={thread:.2f} hash={decided} load={os.getloadavg()[0]:.2f}",
        flush=True,
    )


if __name__ == "__main__":
    main()
