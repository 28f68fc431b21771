"""Observations (reflect) on LoCoMo dev: evidence recall without and with them (issue 19).

LoCoMo dev is ingested once. Every question of categories 1-4 with evidence is asked
(``recall``, collective scope), reflect runs once per conversation (timed, peak memory traced),
and every question is asked again of the same store, now with observations in the pool.

Two ways to count, both from LoCoMo's own evidence labels (a turn counts when a hit's
``evidence_source_ids`` cite it):

- **turn budget** (the rule of ``bench.locomo.run``): recall k=50, the hits' cited turns
  first-unique in rank order, R@10 over the first 10 *turns*. An observation citing 8 turns
  spends 8 of the 10: citing everything buys nothing.
- **hit budget**: the top 10 *hits*, every turn they cite. Here an observation that cites many
  turns is worth more, so the mean number of turns cited per hit is reported beside it.

A third row is a **ceiling**, not a system: each question's hits with the observation that
cites the most of its evidence turns put first (chosen by the labels, so no recall could do
it). Choosing by the labels among hundreds of groups is strong on its own, so the ceiling is
shown beside a **control**: the same choice among random groups of the same sizes drawn from
the same turns (seeded). What the observations' grouping adds is the gap between the two
lines; the gap between the ceiling and the pool is mostly the labels' choice, not a ranking
recall could learn.

No rule of reflect was tuned to these questions: the disposition is the default
(``Disposition()``: skepticism 2, verbatim, at most 8 units per observation). The pool with
observations is asked twice: with the default recall (cluster smoothing on, ADR 0051) and with
``recall.observation_smoothing`` 0, so what smoothing adds is its own row.

    python -m bench.locomo.reflect [--limit-conversations N] [--embedder minilm|hashing]
"""

from __future__ import annotations

import argparse
import dataclasses
import random
import shutil
import sqlite3
import statistics
import tempfile
import time
import tracemalloc
from collections.abc import Sequence
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.locomo import data as data_mod
from bench.locomo.run import (
    AGENT,
    ReplayClock,
    base_record,
    hits_to_turns,
    ingested,
    latency_stats,
    question_time,
    write_result,
)
from bench.locomo.scoring import score_question, summarize

RESULTS_DIR = Path(__file__).resolve().parents[1] / "results"
TARGET_C1_GAIN = 0.08
DEPTH = 50  # hits recalled for the turn budget (as bench.locomo.run)
K = 10


def best_covering(observations: Sequence[Any], evidence: set[str]) -> list[str]:
    """The cited turns of the observation that cites the most of ``evidence`` (the fewer turns
    on a tie, then the id): the ceiling row's first hit. Empty when none cites any."""
    best = max(
        observations,
        key=lambda u: (len(evidence & set(u.evidence)), -len(u.evidence), u.id),
        default=None,
    )
    return list(best.evidence) if best is not None and evidence & set(best.evidence) else []


@dataclass(frozen=True)
class Group:
    """A group of cited turns, as ``best_covering`` reads an observation."""

    id: str
    evidence: tuple[str, ...]


def random_groups(observations: Sequence[Any], seed: int = 0) -> list[Group]:
    """The control for the ceiling: one random group per observation, of its size, drawn
    (without repeats inside a group) from every turn the observations cite."""
    rng = random.Random(seed)
    pool = sorted({t for u in observations for t in u.evidence})
    return [
        Group(f"random-{i}", tuple(rng.sample(pool, len(set(u.evidence)))))
        for i, u in enumerate(sorted(observations, key=lambda u: u.id))
    ]


def observations_of(mem: Any, bank: str) -> list[Any]:
    """The bank's live observation units (each with the turns it cites)."""
    units = mem.list_memories(bank=bank, agent=AGENT, limit=10_000)
    return [u for u in units if u.network == "observation"]


def _recall_at_10(summary: dict[str, Any]) -> dict[str, float]:
    """R@10 overall and per category (1-4) of a ``summarize`` result."""
    names = ("headline", "category_1", "category_2", "category_3", "category_4")
    return {name: summary[name]["recall@10"] for name in names}


def measure(
    mem: Any, dataset: data_mod.Dataset, clock: ReplayClock, *, ceiling: bool = False
) -> dict[str, Any]:
    """R@10 per category by both budgets, and what the top-10 hits cite; with ``ceiling``,
    also the turn budget with each question's best-covering observation first."""
    rows = []
    first: list[Any] = []
    control: list[Any] = []
    hit_recall: dict[int, list[float]] = {}
    cited: list[int] = []
    observations: list[int] = []
    latency: list[float] = []
    for conv in dataset.conversations:
        clock.now = question_time(conv)
        held = observations_of(mem, conv.sample_id) if ceiling else []
        shuffled = random_groups(held)
        for q in conv.questions:
            if q.category not in data_mod.HEADLINE_CATEGORIES or not q.evidence:
                continue
            started = time.perf_counter()
            hits = mem.recall(
                q.question, bank=conv.sample_id, agent=AGENT, scope="collective", k=DEPTH
            )
            latency.append(1000 * (time.perf_counter() - started))
            ranked = hits_to_turns(hits)
            rows.append(score_question(q.category, q.evidence, ranked))
            if ceiling:
                lead = best_covering(held, set(q.evidence))
                first.append(score_question(q.category, q.evidence, lead + ranked))
                lead = best_covering(shuffled, set(q.evidence))
                control.append(score_question(q.category, q.evidence, lead + ranked))
            top = hits[:K]
            turns = {s for h in top for s in h.evidence_source_ids}
            evidence = set(q.evidence)
            hit_recall.setdefault(q.category, []).append(len(turns & evidence) / len(evidence))
            cited.extend(len(h.evidence_source_ids) for h in top)
            observations.append(sum(1 for h in top if h.unit.network == "observation"))
    summary = summarize(rows)
    extra = (
        {
            "ceiling_turn_budget": _recall_at_10(summarize(first)),
            "control_turn_budget": _recall_at_10(summarize(control)),
        }
        if ceiling
        else {}
    )
    all_hits = [x for xs in hit_recall.values() for x in xs]
    return {
        "questions": len(rows),
        "turn_budget": _recall_at_10(summary),
        "hit_budget": {
            "headline": statistics.fmean(all_hits),
            **{f"category_{c}": statistics.fmean(v) for c, v in sorted(hit_recall.items())},
        },
        "mean_turns_cited_per_hit": statistics.fmean(cited) if cited else 0.0,
        "observations_in_top10": statistics.fmean(observations) if observations else 0.0,
        "latency_ms": latency_stats(latency),
        **extra,
    }


def traced_peak(mem: Any, bank: str, clock: ReplayClock) -> int:
    """The peak bytes (tracemalloc) of one reflect pass over ``bank``, run on a copy of the
    store made with SQLite's backup API, so the measured store is left as it was."""
    from mneme import Memory

    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "traced.db"
        with (
            closing(sqlite3.connect(mem.config.db)) as src,
            closing(sqlite3.connect(copy)) as dst,
        ):
            src.backup(dst)
        shutil.copy(f"{mem.config.db}.audit-key", f"{copy}.audit-key")  # the chain's key
        other = Memory.open(copy, embedder=mem.embedder, clock=clock)
        try:
            tracemalloc.start()
            other.reflect(bank, agent=AGENT)
            _, peak = tracemalloc.get_traced_memory()
            tracemalloc.stop()
        finally:
            other.close()
    return peak


def reflect_all(mem: Any, dataset: data_mod.Dataset, clock: ReplayClock) -> dict[str, Any]:
    """One reflect pass per conversation, timed; its memory traced on a copy of the store
    (tracemalloc slows the pass it traces several times over, so the timed pass runs
    untraced); then a second pass, which must add nothing."""
    passes = []
    for conv in dataset.conversations:
        clock.now = question_time(conv)
        units = len(mem.list_memories(bank=conv.sample_id, limit=10_000))
        peak = traced_peak(mem, conv.sample_id, clock)
        started = time.perf_counter()
        report = mem.reflect(conv.sample_id, agent=AGENT)
        seconds = time.perf_counter() - started
        again = mem.reflect(conv.sample_id, agent=AGENT)
        passes.append(
            {
                "conversation": conv.sample_id,
                "units": units,
                "evidence": report.evidence,
                "observations": len(report.created),
                "skipped": len(report.skipped),
                "seconds": seconds,
                "peak_mb": peak / 2**20,
                "second_pass_added": len(again.created) + len(again.revised) + len(again.retired),
                "second_pass_seconds": again.seconds,
            }
        )
    units = sum(p["units"] for p in passes)
    seconds = sum(p["seconds"] for p in passes)
    return {
        "passes": passes,
        "units": units,
        "observations": sum(p["observations"] for p in passes),
        "seconds_per_1000_units": 1000 * seconds / units if units else 0.0,
        "peak_mb_per_1000_units": max(1000 * p["peak_mb"] / p["units"] for p in passes),
        "max_pass_seconds": max(p["seconds"] for p in passes),
        "second_pass_added": sum(p["second_pass_added"] for p in passes),
    }


def unsmoothed(mem: Any, clock: ReplayClock) -> Any:
    """A second handle on the same store whose recall lends observations' matches to nothing
    (``observation_smoothing`` 0): the ablation row."""
    from mneme import Memory

    recall = dataclasses.replace(mem.config.recall, observation_smoothing=0.0)
    return Memory.open(mem.config.db, embedder=mem.embedder, clock=clock, recall=recall)


def _row(name: str, r: dict[str, Any]) -> str:
    t, h = r["turn_budget"], r["hit_budget"]
    return (
        f"| {name} | {t['headline']:.3f} | {t['category_1']:.3f} | {t['category_2']:.3f} | "
        f"{t['category_3']:.3f} | {t['category_4']:.3f} | {h['headline']:.3f} | "
        f"{h['category_1']:.3f} | {r['mean_turns_cited_per_hit']:.2f} | "
        f"{r['observations_in_top10']:.2f} | {r['latency_ms']['p50_ms']:.0f} | "
        f"{r['latency_ms']['p95_ms']:.0f} |"
    )


def _ceiling(r: dict[str, Any]) -> list[str]:
    """The ceiling line (turn budget), when the run measured it."""
    c = r.get("ceiling_turn_budget")
    if c is None:
        return []
    lines = [
        "Ceiling (not a system: each question's best-covering observation first, chosen by the "
        f"labels): R@10 {_per_category(c)}."
    ]
    k = r.get("control_turn_budget")
    if k is not None:
        lines.append(
            "Control for the ceiling (the same choice among random groups of the observations' "
            f"sizes, from the same turns): R@10 {_per_category(k)}. The observations' grouping "
            "is worth the difference between the two."
        )
    return lines


def _per_category(c: dict[str, float]) -> str:
    return (
        f"{c['headline']:.3f}, c1 {c['category_1']:.3f}, c2 {c['category_2']:.3f}, "
        f"c3 {c['category_3']:.3f}, c4 {c['category_4']:.3f}"
    )


def render(record: dict[str, Any]) -> str:
    before, after, cost = record["without"], record["with"], record["reflect"]
    gain = after["turn_budget"]["category_1"] - before["turn_budget"]["category_1"]
    overall = after["turn_budget"]["headline"] - before["turn_budget"]["headline"]
    hit_gain = after["hit_budget"]["category_1"] - before["hit_budget"]["category_1"]
    lines = [
        f"# LoCoMo with observations (reflect), {record['date']}",
        "",
        f"{before['questions']} questions (categories 1-4 with evidence) of "
        f"{record['dataset']['conversations']} conversations, embedder {record['embedder']}, "
        "one store: asked without observations, reflect run per conversation, asked again. "
        "Turn budget: R@10 over the first 10 distinct turns the hits cite (k=50; "
        "bench.locomo.run's rule, an observation citing 8 turns spends 8 of the 10). Hit "
        "budget: every turn the top 10 hits cite (an observation is worth more here: see "
        "turns per hit).",
        "",
        "| pool | R@10 | c1 | c2 | c3 | c4 | hit-budget R@10 | hit-budget c1 | "
        "turns cited per hit | observations in top 10 | p50 ms | p95 ms |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
        _row("without observations", before),
        _row("with observations", after),
        _row("with observations, smoothing off (ablation)", record["with_unsmoothed"]),
        "",
        *_ceiling(after),
        "",
        f"Target: category 1 R@10 at least +{TARGET_C1_GAIN:.2f} (turn budget): "
        f"{gain:+.3f}, {'MET' if gain >= TARGET_C1_GAIN else 'NOT MET'}; overall R@10 not "
        f"lower: {overall:+.3f}, {'MET' if overall >= 0 else 'NOT MET'}. "
        f"(Hit budget, category 1: {hit_gain:+.3f}.)",
        "",
        "## Reflect cost (offline, default disposition)",
        "",
        "| conversation | units | evidence | observations | skipped groups | seconds | "
        "peak MB (traced) | second pass added |",
        "|---|---|---|---|---|---|---|---|",
    ]
    lines.extend(
        f"| {p['conversation']} | {p['units']} | {p['evidence']} | {p['observations']} | "
        f"{p['skipped']} | {p['seconds']:.2f} | {p['peak_mb']:.1f} | {p['second_pass_added']} |"
        for p in cost["passes"]
    )
    lines += [
        "",
        f"Per 1,000 units: {cost['seconds_per_1000_units']:.2f} s, peak "
        f"{cost['peak_mb_per_1000_units']:.1f} MB (tracemalloc, the worst conversation). "
        f"Longest pass over one conversation: {cost['max_pass_seconds']:.2f} s (target < 10 s: "
        f"{'MET' if cost['max_pass_seconds'] < 10 else 'NOT MET'}). A second pass added "
        f"{cost['second_pass_added']} (idempotent when 0).",
        f"Ingest {record['ingest_seconds']:.0f} s; wall {record['wall_seconds']:.0f} s.",
    ]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.locomo.reflect", description=__doc__)
    p.add_argument("--data", default=str(data_mod.DEFAULT_DATA))
    p.add_argument("--limit-conversations", type=int, default=None, metavar="N")
    p.add_argument("--embedder", default="minilm", help="minilm (default) or hashing")
    p.add_argument("--out", default=str(RESULTS_DIR))
    args = p.parse_args(argv)

    with ingested(args.data, args.limit_conversations, args.embedder, "reflect") as run:
        without = measure(run.mem, run.dataset, run.clock)
        cost = reflect_all(run.mem, run.dataset, run.clock)
        with_obs = measure(run.mem, run.dataset, run.clock, ceiling=True)
        ablation = unsmoothed(run.mem, run.clock)
        try:
            with_unsmoothed = measure(ablation, run.dataset, run.clock)
        finally:
            ablation.close()
    record = {
        **base_record(run, args.data, args.embedder),
        "without": without,
        "with": with_obs,
        "with_unsmoothed": with_unsmoothed,
        "reflect": cost,
    }
    write_result(args.out, "locomo-reflect", record, render(record))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
