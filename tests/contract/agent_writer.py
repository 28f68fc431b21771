"""One agent of the many-agents test, run as its own process (the process boundary is the point).

Usage: ``python agent_writer.py TARGET BANK AGENT_INDEX OWN SHARED REPEATS BATCH``

Opens ``Memory`` on TARGET (a SQLite path or a PostgreSQL DSN), prints ``ready``, waits for a
line on stdin (so every agent starts writing at once), then states OWN facts of its own and SHARED
facts every agent states, plus REPEATS of them again (new sources) and REPEATS replays of a
source id it already used, in a shuffled order: mostly ``retain_many`` batches of BATCH, every
fifth batch as single retains. Prints one JSON line: what it stated and any error it met.
"""

from __future__ import annotations

import json
import random
import sys
import time
import traceback
from typing import Any

WORDS = [
    *("amber", "basil", "cedar", "delta", "ember", "fjord", "garnet", "harbor", "indigo"),
    *("juniper", "kelp", "lotus", "maple", "nickel", "onyx", "pepper", "quartz", "raven"),
    *("saffron", "tundra", "umber", "velvet", "willow", "xenon", "yarrow", "zinnia"),
]


def _words(k: int) -> tuple[str, str, str]:
    """Three words unique to k (k < 26**3), from three disjoint vocabularies: no two facts have
    the same words but for a number, which the judge would rightly read as a contradiction."""
    n = len(WORDS)
    return WORDS[k % n], WORDS[(k // n) % n] + "wood", WORDS[(k // n // n) % n] + "ton"


def own_fact(agent: int, i: int) -> str:
    a, b, c = _words(agent * 1000 + i)
    return f"Crate {agent}x{i} of the {a} depot holds {b} seeds for the {c} garden."


def shared_fact(j: int) -> str:
    a, b, c = _words(10_000 + j)
    return f"Beacon {j}y of the {a} ridge guides {b} ships for the {c} fleet."


def plan(agent: int, own: int, shared: int, repeats: int) -> list[tuple[str, str | None, bool]]:
    """(text, source_id, replay) in the order this agent states them."""
    rng = random.Random(agent)
    texts = [own_fact(agent, i) for i in range(own)] + [shared_fact(j) for j in range(shared)]
    firsts: list[tuple[str, str | None, bool]] = [(t, None, False) for t in texts]
    with_ids = rng.sample(range(len(firsts)), repeats)
    for k, i in enumerate(with_ids):
        firsts[i] = (firsts[i][0], f"ev-{agent}-{k}", False)
    again = [(texts[i], None, False) for i in rng.sample(range(len(texts)), repeats)]
    replays = [(firsts[i][0], firsts[i][1], True) for i in with_ids]
    order = firsts + again
    rng.shuffle(order)
    # a replay must come after the first use of its source id
    return order + replays


def main(argv: list[str]) -> int:
    target, bank = argv[1], argv[2]
    agent, own, shared, repeats, batch = (int(x) for x in argv[3:8])
    import mneme

    name = f"agent-{agent}"
    mem = mneme.Memory.open(target, embedder="hashing:15")
    print("ready", flush=True)
    sys.stdin.readline()
    started = time.monotonic()
    stated: list[tuple[str, str | None, bool]] = []
    errors: list[str] = []
    bad: list[str] = []
    steps = plan(agent, own, shared, repeats)
    try:
        for n, i in enumerate(range(0, len(steps), batch)):
            chunk = steps[i : i + batch]
            items: list[dict[str, Any]] = [
                {"text": t, "bank": bank, "agent": name, **({"source_id": s} if s else {})}
                for t, s, _ in chunk
            ]
            try:
                if n % 5 == 4:
                    results = [mem.retain(**item) for item in items]
                else:
                    results = mem.retain_many(items)
            except Exception:
                errors.append(traceback.format_exc(limit=3))
                continue
            for (text, source, replay), r in zip(chunk, results, strict=True):
                stated.append((text, source, replay))
                if r.status != mneme.RetainStatus.OK or len(r.memory_ids) != 1:
                    bad.append(f"{text!r}: {r.status} {r.memory_ids} {r.decisions}")
    finally:
        mem.close()
    print(
        json.dumps(
            {
                "agent": name,
                "stated": stated,
                "errors": errors,
                "bad": bad,
                "seconds": time.monotonic() - started,
            }
        ),
        flush=True,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
