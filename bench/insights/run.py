"""Insight precision on the fixtures, and the insight pass on LoCoMo (issue 19 item 6, ADR 0056).

Fixtures (``fixtures.jsonl``): ``chain`` is a causal chain told over five sessions (weather ->
harvest -> commodity price -> an industry's input costs -> a company's shares) among
unrelated memories; ``broad_word`` is unrelated memories sharing one broad word. Each is fed
into a fresh bank (and both into one bank), one memory per session, and one insight pass runs.
Precision: an insight on ``chain`` counts as correct when its witnesses are chain memories in
chain order; every insight on ``broad_word`` is wrong. Target: precision 1.0 on ``chain`` with
at least one insight, zero insights on ``broad_word``.

LoCoMo: one pass over each of the first conversations (``--locomo N``): categories, threads,
insights and seconds, so a flood on real data shows.

    python -m bench.insights.run [--embedder minilm|hashing] [--locomo 2] [--out bench/results]
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).with_name("fixtures.jsonl")
#: The first version's numbers (ADR 0056 before its amendment), kept for comparison.
BEFORE = (
    "Before (the first version, 2026-12-02): conv-26: 1,076 memories, 1,010 categories, "
    "15,361 threads, 4,697 candidates, 20 written, 4,677 held back, paused, 527.75 s; "
    "conv-30: 831 memories, 814 categories, 15,765 threads, 4,759 candidates, 20 written, "
    "4,739 held back, paused, 568.73 s. Re-measured at the merge (rank made linear), "
    "conv-26: 59 s, the same counts."
)


def load(path: Path = FIXTURES) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def feed(mem: Any, rows: Sequence[dict[str, Any]], bank: str) -> dict[str, dict[str, Any]]:
    """Retain each row as its own session's memory; unit id -> row."""
    out: dict[str, dict[str, Any]] = {}
    for r in rows:
        at = dt.datetime.fromisoformat(r["at"].replace("Z", "+00:00"))
        res = mem.retain(r["text"], bank=bank, agent="user", session=r["session"], occurred_at=at)
        for uid in res.memory_ids:
            out[uid] = r
    return out


def judge(insights: Sequence[Any], fed: dict[str, dict[str, Any]]) -> list[bool]:
    """Per insight: its witnesses are chain memories, in chain order."""
    out = []
    for u in insights:
        rows = [fed.get(w) for w in u.metadata["insight"]["witnesses"]]
        steps = [r.get("chain") if r and r["fixture"] == "chain" else None for r in rows]
        known = [int(s) for s in steps if s is not None]
        out.append(len(known) == len(steps) and known == sorted(known))
    return out


def fixtures(embedder: Any) -> dict[str, Any]:
    from mneme import Memory

    rows = load()
    out: dict[str, Any] = {}
    for name, kinds in (("chain", {"chain"}), ("broad_word", {"broad_word"}),
                        ("both", {"chain", "broad_word"})):  # fmt: skip
        with tempfile.TemporaryDirectory() as tmp:
            mem = Memory.open(Path(tmp) / "insights.db", embedder=embedder)
            try:
                fed = feed(mem, [r for r in rows if r["fixture"] in kinds], "fixture")
                report = mem.insights.run("fixture", agent="bench")
                again = mem.insights.run("fixture", agent="bench")
                found = mem.insights.list("fixture")
                ok = judge(found, fed)
                out[name] = {
                    "memories": len(fed),
                    "insights": len(found),
                    "correct": sum(ok),
                    "precision": (sum(ok) / len(ok)) if ok else None,
                    "witness_steps": [
                        [fed[w].get("chain") for w in u.metadata["insight"]["witnesses"]]
                        for u in found
                    ],
                    "seconds": report.seconds,
                    "second_pass_created": len(again.created),
                    "texts": [u.text for u in found],
                }
            finally:
                mem.close()
    return out


def locomo(embedder_name: str, limit: int) -> list[dict[str, Any]]:
    from bench.locomo.data import DEFAULT_DATA
    from bench.locomo.run import ingested

    out = []
    with ingested(str(DEFAULT_DATA), limit, embedder_name, "insights") as run:
        banks = sorted({b.id for b in run.mem.admin.banks()})
        for bank in banks:
            t0 = time.perf_counter()
            report = run.mem.insights.run(bank, agent="bench")
            seconds = time.perf_counter() - t0
            again = run.mem.insights.run(bank, agent="bench")
            out.append(
                {
                    "bank": bank,
                    "memories": report.memories,
                    "categories": len(run.mem.insights.categories(bank)),
                    "tagged": report.categorized.tagged,
                    "aliases": report.categorized.aliases,
                    "because_edges": report.because,
                    "threads": report.threads,
                    "candidates": report.candidates,
                    "coherence_floor": report.coherence_floor,
                    "steps": report.steps,
                    "exhausted": report.exhausted,
                    "insights": len(report.created),
                    "held_back": report.held_back,
                    "paused": bool(report.paused),
                    "seconds": round(seconds, 2),
                    "second_pass_created": len(again.created),
                    "examples": [u.text[:300] for u in run.mem.insights.list(bank, limit=3)],
                }
            )
    return out


def markdown(record: dict[str, Any]) -> str:
    fx = record["fixtures"]
    lines = [
        f"# Insights on the fixtures and on LoCoMo ({record['date']}, {record['embedder']})",
        "",
        "Target: every insight on the chain fixture traceable to witnesses in order, zero "
        "insights on the broad-word fixture.",
        "",
        "| fixture | memories | insights | in order | precision | second pass adds | s |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, r in fx.items():
        p = "n/a" if r["precision"] is None else f"{r['precision']:.2f}"
        lines.append(f"| {name} | {r['memories']} | {r['insights']} | {r['correct']} | {p} | "
                     f"{r['second_pass_created']} | {r['seconds']:.2f} |")  # fmt: skip
    met = (
        fx["chain"]["insights"] >= 1
        and fx["chain"]["precision"] == 1.0
        and fx["broad_word"]["insights"] == 0
        and fx["both"]["precision"] == 1.0
    )
    lines += ["", f"Target met: **{'yes' if met else 'no'}**", ""]
    for t in fx["chain"]["texts"]:
        lines += [f"> {t}", ""]
    if record.get("locomo"):
        lines += [
            "## LoCoMo dev, one pass per conversation",
            "",
            "Target: a pass well under 60 s per conversation, candidate insights in the tens "
            "at most (the flood guard writes at most `max_new`, 20, and pauses the bank above).",
            "",
            "| bank | memories | categories | threads | candidates | written | held back "
            "| paused | coherence floor | search steps | BECAUSE | s |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|",
        ]
        for r in record["locomo"]:
            lines.append(f"| {r['bank']} | {r['memories']} | {r['categories']} | {r['threads']} "
                         f"| {r['candidates']} | {r['insights']} | {r['held_back']} "
                         f"| {'yes' if r['paused'] else 'no'} | {r['coherence_floor']:.3f} "
                         f"| {r['steps']}{' (cut)' if r['exhausted'] else ''} "
                         f"| {r['because_edges']} | {r['seconds']} |")  # fmt: skip
        lines += ["", BEFORE, ""]
        for r in record["locomo"]:
            lines += [f"Best insights of {r['bank']}:", ""]
            for t in r["examples"]:
                lines += [f"> {t}", ""]
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--embedder", default="minilm", choices=["minilm", "hashing"])
    ap.add_argument("--locomo", type=int, default=2, help="LoCoMo conversations (0: none)")
    ap.add_argument("--out", default="bench/results")
    args = ap.parse_args(argv)
    from bench.locomo.run import offline_embedder, write_result

    record: dict[str, Any] = {
        "date": dt.date.today().isoformat(),
        "embedder": args.embedder,
        "fixtures": fixtures(offline_embedder(args.embedder)),
    }
    if args.locomo:
        record["locomo"] = locomo(args.embedder, args.locomo)
    write_result(args.out, "insights", record, markdown(record))
    return 0


if __name__ == "__main__":
    sys.exit(main())
