"""Knowledge updates on Schema-Guided Dialogue: does memory answer with the current value?

    python -m bench.sgd.run [--limit N] [--systems mneme,bm25,bm25-newest] [--no-assistant]

For every probe of ``bench.sgd.data`` (a slot the user changed within a dialogue), each system
indexes the dialogue's turns, one bank per dialogue, and is asked "What is the current <slot
description>?" after the last turn. Two runs: the user's turns only, and every turn (the
assistant's too). Scores, judge-free, from the data's span annotations:

- top-1: the first hit cites a turn stating the final value and no stale one;
- stale-first: the first hit cites a turn stating a stale value;
- R@5: the share of the final value's statements among the turns the top five hits cite;
- first-current: among the top ten, the newest turn stating any value of the slot states the
  final one (how much "prefer the latest" alone could give).

Systems, over the very same texts ("User: <utterance>", "Assistant: <utterance>"):

- ``mneme``: ``Memory.retain`` per turn in order (the clock at the turn's minute), then
  ``Memory.recall(question, k=10, scope="collective")``; each hit cites its evidence sources;
- ``bm25``: rank_bm25 BM25Okapi over lowercase word tokens;
- ``bm25-newest``: the same scores, but the hits within 80% of the best score come first,
  newest first (a reference for "prefer the latest" without knowing the slot).

Writes ``bench/results/sgd-<date>.md`` and ``.json``.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from bench.git import commit
from bench.locomo.baselines import BM25Index, word_tokenize
from bench.overrides import add_recall_option, recall_from
from bench.sgd import supersedes
from bench.sgd.data import (
    Dialogue,
    Probe,
    Turn,
    Verdict,
    load_probes,
    score_probe,
)

AGENT = "sgd"
K = 10
NEAR_BEST = 0.8
SYSTEMS = ("mneme", "bm25", "bm25-newest")
RESULTS_DIR = Path(__file__).resolve().parent.parent / "results"

#: The issue's bars (mneme, the user-turn run).
TARGETS = {"top1": (">=", 0.70), "stale_first": ("<=", 0.03), "recall5": (">=", 0.87)}


class Clock:
    def __init__(self) -> None:
        self.now = dt.datetime(2019, 3, 1, tzinfo=dt.UTC)

    def __call__(self) -> dt.datetime:
        return self.now


@dataclass(slots=True)
class Run:
    name: str
    ranked: dict[int, list[list[str]]] = field(default_factory=dict)  # probe index -> hits
    seconds_ingest: float = 0.0
    query_ms: list[float] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)


def turns_of(dialogue: Dialogue, assistant: bool) -> list[Turn]:
    return [t for t in dialogue.turns if assistant or t.speaker == "USER"]


def run_mneme(
    dialogues: Sequence[Dialogue],
    probes: Sequence[Probe],
    assistant: bool,
    embedder: Any,
    log: Callable[[str], None],
    recall: dict[str, Any] | None = None,
) -> Run:
    from mneme import Memory

    run = Run("mneme")
    clock = Clock()
    by_dialogue: dict[str, list[int]] = {}
    for i, p in enumerate(probes):
        by_dialogue.setdefault(p.dialogue_id, []).append(i)
    decisions: dict[str, int] = {}
    with tempfile.TemporaryDirectory(prefix="mneme-sgd-") as tmp:
        extra: dict[str, Any] = {"recall": recall} if recall else {}
        mem = Memory.open(str(Path(tmp) / "sgd.db"), embedder=embedder, clock=clock, **extra)
        try:
            for n, d in enumerate(dialogues, start=1):
                t0 = time.perf_counter()
                for t in turns_of(d, assistant):
                    clock.now = t.at
                    r = mem.retain(
                        t.text,
                        bank=_bank(d),
                        agent=AGENT,
                        session=d.id,
                        occurred_at=t.at,
                        source_id=t.source_id,
                    )
                    for dec in r.decisions:
                        decisions[dec.verdict.value] = decisions.get(dec.verdict.value, 0) + 1
                run.seconds_ingest += time.perf_counter() - t0
                clock.now = d.asked_at
                for i in by_dialogue.get(d.id, []):
                    t1 = time.perf_counter()
                    hits = mem.recall(
                        probes[i].question, bank=_bank(d), agent=AGENT, scope="collective", k=K
                    )
                    run.query_ms.append((time.perf_counter() - t1) * 1000)
                    run.ranked[i] = [list(h.evidence_source_ids) for h in hits]
                if n % 100 == 0:
                    log(f"  mneme: {n}/{len(dialogues)} dialogues")
            run.extra["decisions"] = decisions
            run.extra["open_conflicts"] = sum(
                len(mem.conflicts.list(bank=_bank(d))) for d in dialogues
            )
            units = [u for d in dialogues for u in mem.list_memories(bank=_bank(d), limit=10_000)]
            run.extra["retirements"] = supersedes.support(
                units, {d.id: d for d in dialogues}
            ).as_dict()
        finally:
            mem.close()
    return run


def _bank(d: Dialogue) -> str:
    return "sgd-" + d.id.replace("_", "-")


def run_bm25(
    dialogues: Sequence[Dialogue], probes: Sequence[Probe], assistant: bool, newest: bool
) -> Run:
    run = Run("bm25-newest" if newest else "bm25")
    dmap = {d.id: d for d in dialogues}
    indexes: dict[str, tuple[BM25Index, list[Turn]]] = {}
    for i, p in enumerate(probes):
        if p.dialogue_id not in indexes:
            ts = turns_of(dmap[p.dialogue_id], assistant)
            indexes[p.dialogue_id] = (
                BM25Index([t.source_id for t in ts], [t.text for t in ts], word_tokenize),
                ts,
            )
        index, ts = indexes[p.dialogue_id]
        scores = np.asarray(index._bm25.get_scores(word_tokenize(p.question)), dtype=np.float64)
        order = list(np.argsort(-scores, kind="stable"))
        if newest and len(order) and scores[order[0]] > 0:
            bar = NEAR_BEST * scores[order[0]]
            near = sorted((j for j in order if scores[j] >= bar), key=lambda j: -ts[j].index)
            order = near + [j for j in order if scores[j] < bar]
        run.ranked[i] = [[ts[int(j)].source_id] for j in order[:K]]
    return run


def summarize(
    run: Run, probes: Sequence[Probe], turns: dict[str, Turn]
) -> tuple[dict[str, float], list[Verdict]]:
    verdicts = [score_probe(p, run.ranked.get(i, []), turns) for i, p in enumerate(probes)]
    n = len(verdicts) or 1
    out = {
        "probes": float(len(verdicts)),
        "top1": sum(v.top1 for v in verdicts) / n,
        "stale_first": sum(v.stale_first for v in verdicts) / n,
        "recall5": sum(v.recall5 for v in verdicts) / n,
        "first_current": sum(v.first_current for v in verdicts) / n,
    }
    if run.query_ms:
        q = sorted(run.query_ms)
        out["p50_ms"] = q[len(q) // 2]
        out["p95_ms"] = q[int(len(q) * 0.95)]
    return out, verdicts


def split_rows(
    run: Run,
    probes: Sequence[Probe],
    turns: dict[str, Turn],
    split_of: dict[str, str],
    name: str,
) -> dict[str, dict[str, float]]:
    """The run's scores on the dev and on the test split apart ("<name> [dev]", ...)."""
    out = {}
    for split in ("dev", "test"):
        chosen = [i for i, p in enumerate(probes) if split_of[p.dialogue_id] == split]
        part = Run(run.name, query_ms=[])
        part.ranked = {j: run.ranked.get(i, []) for j, i in enumerate(chosen)}
        out[f"{name} [{split}]"], _ = summarize(part, [probes[i] for i in chosen], turns)
    return out


def dump_rows(
    run: Run,
    probes: Sequence[Probe],
    verdicts: Sequence[Verdict],
    turns: dict[str, Turn],
    label: str,
) -> list[dict[str, Any]]:
    """One JSON row per probe: its slot, values, verdict and the texts of the first five hits."""
    return [
        {
            "run": label,
            "dialogue": p.dialogue_id,
            "slot": f"{p.service}.{p.slot}",
            "question": p.question,
            "final": p.final,
            "stale": p.stale,
            "top1": v.top1,
            "stale_first": v.stale_first,
            "hits": [
                [turns[s].text for s in hit if s in turns] for hit in run.ranked.get(i, [])[:5]
            ],
            "ranked": run.ranked.get(i, []),
        }
        for i, (p, v) in enumerate(zip(probes, verdicts, strict=True))
    ]


def publish(
    md: Sequence[str],
    report: dict[str, Any],
    stem: Path | None,
    dump: Path | None,
    dumps: Sequence[dict[str, Any]],
) -> None:
    """Print the markdown; write it and the JSON report beside ``stem`` (none: not written)
    and the dump rows to ``dump`` (JSONL), if given."""
    text = "\n".join(md) + "\n"
    print(text)
    if stem is not None:
        stem.parent.mkdir(parents=True, exist_ok=True)
        stem.with_suffix(".md").write_text(text, encoding="utf-8")
        stem.with_suffix(".json").write_text(json.dumps(report, indent=2), encoding="utf-8")
    if dump is not None:
        dump.write_text("\n".join(json.dumps(d) for d in dumps) + "\n", encoding="utf-8")


def table(rows: dict[str, dict[str, float]]) -> str:
    lines = [
        "| system | probes | top-1 | stale-first | R@5 | newest-of-slot current | p95 ms |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, s in rows.items():
        p95 = f"{s['p95_ms']:.1f}" if "p95_ms" in s else ""
        lines.append(
            f"| {name} | {int(s['probes'])} | {s['top1']:.3f} | {s['stale_first']:.3f} | "
            f"{s['recall5']:.3f} | {s['first_current']:.3f} | {p95} |"
        )
    return "\n".join(lines)


def _targets(s: dict[str, float]) -> str:
    out = []
    for metric, (op, bar) in TARGETS.items():
        v = s[metric]
        ok = v >= bar if op == ">=" else v <= bar
        out.append(f"- {metric} {op} {bar}: {v:.3f} {'PASS' if ok else 'FAIL'}")
    return "\n".join(out)


def _log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--limit", type=int, default=0, help="first N dialogues with probes")
    ap.add_argument("--systems", default=",".join(SYSTEMS))
    ap.add_argument("--no-assistant", action="store_true", help="skip the every-turn run")
    ap.add_argument("--out", type=Path, default=RESULTS_DIR)
    ap.add_argument("--dump", type=Path, help="write every probe's ranked turns here (JSONL)")
    add_recall_option(ap, "a run with one is never written")
    args = ap.parse_args(argv)
    systems = [s for s in args.systems.split(",") if s]
    recall = recall_from(ap, args.recall)
    dialogues, probes = load_probes()
    if args.limit:
        dialogues = dialogues[: args.limit]
        keep = {d.id for d in dialogues}
        probes = [p for p in probes if p.dialogue_id in keep]
    turns = {t.source_id: t for d in dialogues for t in d.turns}
    _log(f"SGD dev: {len(dialogues)} dialogues, {len(probes)} probes")
    embedder = None
    if "mneme" in systems:
        from mneme.embed.minilm import MiniLMEmbedder

        embedder = MiniLMEmbedder()
    report: dict[str, Any] = {
        "date": dt.date.today().isoformat(),
        "commit": commit(),
        "dialogues": len(dialogues),
        "probes": len(probes),
        "runs": {},
    }
    md = [
        f"# SGD knowledge updates ({report['date']}, commit {report['commit']})",
        "",
        f"{len(dialogues)} dialogues of the SGD dev split, {len(probes)} probes (a slot the "
        'user changed); question: "What is the current <slot description>?", k=10. '
        "[dev]: dialogues_001-008 and one dialogue in three of the others, which rules may be "
        "tuned on; [test]: the rest of files 009-020, never tuned on (ADR 0060).",
    ]
    dumps: list[dict[str, Any]] = []
    for assistant in (False,) if args.no_assistant else (False, True):
        label = "every turn" if assistant else "user turns"
        rows: dict[str, dict[str, float]] = {}
        extra: dict[str, Any] = {}
        split_of = {d.id: d.split for d in dialogues}
        for name in systems:
            t0 = time.perf_counter()
            if name == "mneme":
                run = run_mneme(dialogues, probes, assistant, embedder, _log, recall)
            else:
                run = run_bm25(dialogues, probes, assistant, newest=name == "bm25-newest")
            rows[name], verdicts = summarize(run, probes, turns)
            rows.update(split_rows(run, probes, turns, split_of, name))
            extra[name] = {**run.extra, "ingest_s": run.seconds_ingest}
            _log(f"{label} / {name}: {rows[name]} ({time.perf_counter() - t0:.0f}s)")
            if args.dump and name == "mneme":
                dumps += dump_rows(run, probes, verdicts, turns, label)
        report["runs"][label] = {"summary": rows, "extra": extra}
        md += ["", f"## {label}", "", table(rows)]
        if "mneme" in rows and not assistant:
            md += ["", "Targets (mneme, user turns):", _targets(rows["mneme"])]
        if "mneme" in extra:
            md += [
                "",
                f"mneme write decisions: {extra['mneme'].get('decisions')}; "
                f"open conflicts: {extra['mneme'].get('open_conflicts')}",
            ]
            retired = extra["mneme"].get("retirements")
            if retired:
                md += ["", supersedes.line(retired["counts"])]
    written = not args.limit and not recall
    stem = args.out / f"sgd-{report['date']}" if written else None
    publish(md, report, stem, args.dump, dumps)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
