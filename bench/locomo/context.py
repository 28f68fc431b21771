"""Context blocks against the hits they come from, on LoCoMo dev (issue 18).

Every question of categories 1-4 with evidence is asked twice of the same store: ``recall``
(k=10, collective), and ``context`` at each budget (800 tokens by default). Evidence recall is
the share of a question's evidence turns whose source id the answer cites: the hits'
``evidence_source_ids``, or the block's cited ``items[].source_id``. The target: the block at
800 tokens keeps at least 90% of the top-10 hits' evidence recall, and no block ever exceeds
its budget (tokens = characters / 4). Labels are LoCoMo's own evidence annotations.

    python -m bench.locomo.context [--budgets 400,800,1600] [--limit-conversations N]
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench.locomo import data as data_mod
from bench.locomo.run import (
    AGENT,
    ReplayClock,
    base_record,
    ingested,
    question_time,
    write_result,
)

RESULTS_DIR = Path(__file__).resolve().parents[1] / "results"
TARGET_SHARE = 0.90
K = 10


def _recall(cited: set[str], evidence: set[str]) -> float:
    return len(cited & evidence) / len(evidence)


def measure(
    mem: Any, dataset: data_mod.Dataset, clock: ReplayClock, budgets: Sequence[int]
) -> dict[str, Any]:
    """Evidence recall of top-10 hits and of a block per budget, and the blocks' sizes."""
    hits_recall: list[float] = []
    blocks: dict[int, dict[str, list[float]]] = {
        b: {"recall": [], "tokens": [], "lines": [], "over": []} for b in budgets
    }
    latency: list[float] = []
    for conv in dataset.conversations:
        clock.now = question_time(conv)
        for q in conv.questions:
            if q.category not in data_mod.HEADLINE_CATEGORIES or not q.evidence:
                continue
            evidence = set(q.evidence)
            hits = mem.recall(q.question, bank=conv.sample_id, agent=AGENT, scope="collective", k=K)
            hits_recall.append(_recall({s for h in hits for s in h.evidence_source_ids}, evidence))
            for budget in budgets:
                started = time.perf_counter()
                block = mem.context(q.question, bank=conv.sample_id, agent=AGENT, max_tokens=budget)
                latency.append((time.perf_counter() - started) * 1000)
                cited = {i.source_id for i in block.items if i.source_id}
                row = blocks[budget]
                row["recall"].append(_recall(cited, evidence))
                row["tokens"].append(block.tokens)
                row["lines"].append(len(block.items))
                row["over"].append(float(block.tokens > budget))
    base = statistics.fmean(hits_recall)
    out: dict[str, Any] = {
        "questions": len(hits_recall),
        "top10_hits_evidence_recall": base,
        "blocks": {},
        "context_latency_ms": {
            "p50": statistics.median(latency),
            "p95": statistics.quantiles(latency, n=20)[-1],
        },
    }
    for budget, row in blocks.items():
        recall = statistics.fmean(row["recall"])
        out["blocks"][budget] = {
            "evidence_recall": recall,
            "share_of_top10": recall / base if base else None,
            "mean_tokens": statistics.fmean(row["tokens"]),
            "max_tokens_used": max(row["tokens"]),
            "mean_lines": statistics.fmean(row["lines"]),
            "over_budget": int(sum(row["over"])),
        }
    return out


def render(record: dict[str, Any]) -> str:
    r = record["results"]
    lines = [
        f"# LoCoMo context blocks ({record['date']})",
        "",
        f"{r['questions']} questions (categories 1-4 with evidence) of "
        f"{record['dataset']['conversations']} conversations, embedder {record['embedder']}. "
        f"Evidence recall = share of a question's evidence turns the answer cites.",
        "",
        f"Top-10 hits: evidence recall {r['top10_hits_evidence_recall']:.3f}.",
        "",
        "| budget (tokens) | evidence recall | share of top-10 | mean tokens | max used | "
        "mean lines | over budget |",
        "|---|---|---|---|---|---|---|",
    ]
    for budget, b in r["blocks"].items():
        lines.append(
            f"| {budget} | {b['evidence_recall']:.3f} | {b['share_of_top10']:.3f} | "
            f"{b['mean_tokens']:.0f} | {b['max_tokens_used']} | {b['mean_lines']:.1f} | "
            f"{b['over_budget']} |"
        )
    lat = r["context_latency_ms"]
    lines += [
        "",
        f"Target: the 800-token block keeps >= {TARGET_SHARE:.0%} of the top-10 hits' evidence "
        "recall; no block over its budget.",
        f"context() latency over every budget: p50 {lat['p50']:.1f} ms, p95 {lat['p95']:.1f} ms.",
        f"Ingest {record['ingest_seconds']:.0f} s; wall {record['wall_seconds']:.0f} s.",
    ]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.locomo.context", description=__doc__)
    p.add_argument("--data", default=str(data_mod.DEFAULT_DATA))
    p.add_argument("--budgets", default="400,800,1600")
    p.add_argument("--limit-conversations", type=int, default=None, metavar="N")
    p.add_argument("--embedder", default="minilm", help="minilm (default) or hashing")
    p.add_argument("--out", default=str(RESULTS_DIR))
    args = p.parse_args(argv)
    budgets = [int(b) for b in args.budgets.split(",")]

    with ingested(args.data, args.limit_conversations, args.embedder, "context") as run:
        results = measure(run.mem, run.dataset, run.clock, budgets)
    record = {**base_record(run, args.data, args.embedder), "results": results}
    write_result(args.out, "locomo-context", record, render(record))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
