"""The behaviour suite: every case through every adapter, scored without a judge.

    python -m bench.behaviour.run [--adapter mneme|transcript|window30|command ...]
                                  [--cmd "python my_system.py"] [--embedder minilm|hashing]
                                  [--k 5] [--out bench/results] [--no-write]
                                  [--dimension D ...] [--case ID ...]

All of mneme, transcript and window30 run by default (``command`` only when named, with
``--cmd``). Prints one Markdown table (a row per dimension, a column per adapter, and the
overall mean of dimensions), then the cases each adapter did not score 100 on, and writes both
to ``bench/results/behaviour-<YYYY-MM-DD>.md`` and every number and prediction to ``.json``.
The dataset is refused if any file differs from its pinned SHA-256 (``model.PINS``).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import platform
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from bench.behaviour.adapters import BASELINE, Adapter
from bench.behaviour.adapters.baselines import transcript, window30
from bench.behaviour.adapters.command import CommandAdapter
from bench.behaviour.model import (
    CASES_DIR,
    DIMENSIONS,
    PINS,
    Case,
    CaseError,
    Prediction,
    load_dataset,
)
from bench.behaviour.score import CaseScore, Summary, score_case, summarize
from bench.git import commit
from bench.overrides import add_recall_option, recall_from, shown

RESULTS_DIR = Path(__file__).resolve().parent.parent / "results"
DEFAULT_ADAPTERS = ("mneme", "transcript", "window30")
ALL_ADAPTERS = (*DEFAULT_ADAPTERS, "command")


def build_adapter(
    name: str,
    *,
    cmd: str | None,
    embedder: str,
    k: int,
    recall: Mapping[str, float | int | bool] | None = None,
) -> Adapter:
    if name == "mneme":
        from bench.behaviour.adapters.mneme import MnemeAdapter

        return MnemeAdapter(embedder=embedder, k=k, recall=recall)
    if name == "transcript":
        return transcript()
    if name == "window30":
        return window30()
    if name == "command":
        if not cmd:
            raise SystemExit("--adapter command needs --cmd")
        return CommandAdapter(cmd)
    raise SystemExit(f"unknown adapter {name!r}; one of {', '.join(ALL_ADAPTERS)}")


def run_adapter(adapter: Adapter, cases: Sequence[Case]) -> tuple[list[Prediction], float]:
    started = time.perf_counter()
    preds = [adapter.predict(c) for c in cases]
    return preds, time.perf_counter() - started


def table(summaries: dict[str, Summary], labels: dict[str, str]) -> str:
    names = list(summaries)
    head = "| dimension | cases | " + " | ".join(
        f"{n}{' †' if labels[n] == BASELINE else ''}" for n in names
    )
    lines = [head + " |", "|---|---:|" + "---:|" * len(names)]
    for d in DIMENSIONS:
        if not any(d in s.dimensions for s in summaries.values()):
            continue
        count = next(s.counts[d] for s in summaries.values() if d in s.counts)
        cells = [
            f"{s.dimensions[d]:.1f} ({s.perfect[d]}/{s.counts[d]})" if d in s.dimensions else "-"
            for s in summaries.values()
        ]
        lines.append(f"| {d} | {count} | " + " | ".join(cells) + " |")
    lines.append(
        "| **overall** (mean of dimensions) | "
        + str(sum(next(iter(summaries.values())).counts.values()))
        + " | "
        + " | ".join(f"**{s.overall:.1f}**" for s in summaries.values())
        + " |"
    )
    return "\n".join(lines)


def failures(name: str, scores: Sequence[CaseScore], preds: Sequence[Prediction]) -> str:
    rows = [
        f"| {s.case_id} | {s.score:.0f} | {_fmt(s.answer)} | {_fmt(s.citations)} | "
        f"{_fmt(s.contradictions)} | {_why(s, p)} |"
        for s, p in zip(scores, preds, strict=True)
        if s.score < 100.0 - 1e-9
    ]
    if not rows:
        return f"### {name}: every case scored 100\n"
    return "\n".join(
        [
            f"### {name}: {len(rows)} cases below 100",
            "",
            "| case | score | answer | citations F1 | contradictions F1 | why |",
            "|---|---:|---:|---:|---:|---|",
            *rows,
            "",
        ]
    )


def _fmt(x: float | None) -> str:
    return "-" if x is None else f"{x:.2f}"


def _why(s: CaseScore, p: Prediction) -> str:
    parts = []
    if s.unsupported:
        parts.append("unsupported: " + ", ".join(s.unsupported))
    if s.missing:
        parts.append("missing " + ", ".join(f"`{m}`" for m in s.missing))
    if s.forbidden_found:
        parts.append("forbidden " + ", ".join(f"`{m}`" for m in s.forbidden_found))
    return "; ".join(parts).replace("|", "/")


def report(
    cases: Sequence[Case],
    runs: dict[str, tuple[Adapter, list[Prediction], list[CaseScore], float]],
    *,
    embedder: str,
    k: int,
    recall: Mapping[str, float | int | bool] | None = None,
) -> tuple[str, dict[str, Any]]:
    overrides = dict(recall or {})
    ablation = (
        " Recall overrides (an ablation, not the product default): "
        + ", ".join(f"`{key}={shown(v)}`" for key, v in sorted(overrides.items()))
        + "."
        if overrides
        else ""
    )
    summaries = {n: summarize(r[2]) for n, r in runs.items()}
    labels = {n: r[0].label for n, r in runs.items()}
    today = dt.date.today().isoformat()
    md = [
        f"# Behaviour suite (a regression suite) — {today}",
        "",
        "The cases were written by this project, with its rules in mind: a score here says the "
        "behaviour they pin has not regressed, never how mneme does on data nobody here wrote "
        "(that is bench.sgd and bench.locomo).",
        "",
        f"{len(cases)} cases in {len({c.dimension for c in cases})} dimensions, "
        "scored without a judge (normalized phrase match, forbidden phrases, F1 on citations "
        "and on contradiction pairs; see bench/behaviour/README.md). Each cell: mean case "
        "score 0-100 (cases at 100 / cases).",
        f"mneme: offline, no LLM, embedder `{embedder}`, recall k={k}, answer = recall's "
        "first current hit, as any caller would take it. † = reference_baseline_not_a_product."
        + ablation,
        "",
        table(summaries, labels),
        "",
        "Time per adapter: "
        + ", ".join(f"{n} {r[3]:.1f} s" for n, r in runs.items())
        + f". Commit {commit()}, Python {platform.python_version()}.",
        "",
        "## Cases below 100",
        "",
    ]
    for n, (_, preds, scores, _) in runs.items():
        md.append(failures(n, scores, preds))
    data = {
        "date": today,
        "commit": commit(),
        "python": platform.python_version(),
        "dataset": {"dir": str(CASES_DIR), "pins": dict(PINS), "cases": len(cases)},
        "mneme": {"embedder": embedder, "k": k, "llm": None, "recall": overrides},
        "adapters": {
            n: {
                "label": labels[n],
                "seconds": r[3],
                "overall": summaries[n].overall,
                "dimensions": dict(summaries[n].dimensions),
                "perfect": dict(summaries[n].perfect),
                "cases": [
                    {**asdict(s), "prediction": p.to_json()}
                    for s, p in zip(r[2], r[1], strict=True)
                ],
            }
            for n, r in runs.items()
        },
    }
    return "\n".join(md), data


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m bench.behaviour.run", description=__doc__.split("\n")[0]
    )
    ap.add_argument(
        "--adapter",
        action="append",
        choices=ALL_ADAPTERS,
        help="an adapter to run (repeatable); default: mneme, transcript and window30",
    )
    ap.add_argument("--cmd", help="the command of the command adapter (one case on stdin)")
    ap.add_argument(
        "--embedder",
        default="minilm",
        help="mneme's embedder: minilm (the default product embedder) or hashing (fast)",
    )
    ap.add_argument("--k", type=int, default=5, help="mneme's recall depth (default 5)")
    ap.add_argument(
        "--dimension",
        action="append",
        choices=DIMENSIONS,
        help="run only this dimension (repeatable); implies --no-write",
    )
    ap.add_argument(
        "--case", action="append", help="run only this case id (repeatable); implies --no-write"
    )
    add_recall_option(ap, "the result is written with the overrides in its name")
    ap.add_argument("--out", type=Path, default=RESULTS_DIR)
    ap.add_argument("--no-write", action="store_true", help="print only")
    args = ap.parse_args(argv)
    recall = recall_from(ap, args.recall)
    names = list(dict.fromkeys(args.adapter or DEFAULT_ADAPTERS))
    if args.cmd and "command" not in names:
        names.append("command")
    try:
        cases = load_dataset()
    except CaseError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.dimension or args.case:
        # A subset is for working on a system, never a result to commit.
        args.no_write = True
        cases = [
            c
            for c in cases
            if (not args.dimension or c.dimension in args.dimension)
            and (not args.case or c.id in args.case)
        ]
        if not cases:
            print("error: no case matches the filters", file=sys.stderr)
            return 2
    runs: dict[str, tuple[Adapter, list[Prediction], list[CaseScore], float]] = {}
    for name in names:
        adapter = build_adapter(name, cmd=args.cmd, embedder=args.embedder, k=args.k, recall=recall)
        try:
            print(f"running {name} on {len(cases)} cases...", file=sys.stderr)
            preds, secs = run_adapter(adapter, cases)
        finally:
            adapter.close()
        runs[name] = (
            adapter,
            preds,
            [score_case(c, p) for c, p in zip(cases, preds, strict=True)],
            secs,
        )
    md, data = report(cases, runs, embedder=args.embedder, k=args.k, recall=recall)
    print(md)
    if not args.no_write:
        args.out.mkdir(parents=True, exist_ok=True)
        suffix = "".join(f"-{key}={shown(v)}" for key, v in sorted(recall.items()))
        stem = args.out / f"behaviour-{data['date']}{suffix}"
        # Not with_suffix: an override such as rrf_k=30.5 holds a dot.
        Path(f"{stem}.md").write_text(md + "\n", encoding="utf-8")
        Path(f"{stem}.json").write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
        print(f"wrote {stem}.md and {stem}.json", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
