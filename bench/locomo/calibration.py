"""Relevance calibration on LoCoMo dev: is ``Hit.relevance`` a probability you can act on?

    python -m bench.locomo.calibration [--data PATH] [--k 20] [--limit-conversations N]
                                       [--db PATH] [--out DIR]

Every turn of every conversation is retained into a fresh SQLite store exactly as
``bench.locomo.run`` does (``retain_items`` in batches through ``ingest_mneme``, the clock
replaying the sessions), then every question of categories 1-4 that has evidence is asked with
``Memory.recall(..., scope="collective", k=20)`` the day after its conversation's last session.
Each hit is labelled 1 when one of its ``evidence_source_ids`` is an evidence turn of the
question (evidence normalized by ``bench.locomo.data``), else 0, and the features
``mneme.read.relevance`` computes for it are recorded.

A logistic regression on those features (plain numpy, Newton steps) is fitted by 5-fold
cross-validation by conversation: fit on four conversations, score the fifth. Reported, for
the held-out predictions, for the constants shipped in ``relevance.py`` (the ``relevance``
recall returned, fitted on all five conversations: in-sample, so optimistic), and for a refit
on all five (the constants to paste into ``relevance.py``):

- expected calibration error (ECE, 10 equal-width bins, weighted by hits) and a reliability
  table; Brier score and ROC AUC, next to a constant predictor (the base rate);
- at ``min_relevance`` 0.3, 0.5 and 0.7: the hits kept, their precision (share labelled 1),
  and evidence recall (the share of a question's evidence turns the kept hits cite, mean over
  questions; the unfiltered k=20 value is the ceiling);
- within-question separation: the chance that a relevant hit has a higher relevance than an
  irrelevant hit of the same question.

Writes ``bench/results/calibration-<date>.md`` and ``.json``; prints the refit constants.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import sys
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from bench.locomo import data as data_mod
from bench.locomo.data import Dataset
from bench.locomo.run import AGENT, ReplayClock, environment, ingest_mneme, question_time

K = 20
BINS = 10
BARS = (0.3, 0.5, 0.7)
TARGET_ECE = 0.1
RESULTS_DIR = Path(__file__).resolve().parent.parent / "results"


@dataclass(frozen=True, slots=True)
class Row:
    """One hit of one question: its features, the relevance recall gave it, its label."""

    sample_id: str
    question: int  # index in the conversation's qa list
    category: int
    rank: int
    features: tuple[float, ...]  # in the order of relevance.WEIGHTS
    shipped: float  # Hit.relevance as recall returned it
    label: int
    sources: tuple[str, ...]


# -- collecting ------------------------------------------------------------------------------


def collect(
    mem: Any, dataset: Dataset, clock: ReplayClock, k: int, log: Callable[[str], None]
) -> list[Row]:
    """Ask every question of categories 1-4 with evidence; one row per hit."""
    from mneme.read import relevance

    names = list(relevance.WEIGHTS)
    recaller = mem._recaller
    original = recaller._hit
    seen: dict[str, relevance.Features] = {}

    def recording(q: Any, c: Any, unit: Any, family: Any) -> Any:
        # The same call Recaller._hit makes; the check below keeps the two in step.
        seen[unit.id] = relevance.features(c.score, q.top, c.channels, q.text, unit.text)
        return original(q, c, unit, family)

    recaller._hit = recording
    rows: list[Row] = []
    try:
        for conv in dataset.conversations:
            clock.now = question_time(conv)
            for q in conv.questions:
                if q.category not in data_mod.HEADLINE_CATEGORIES or not q.evidence:
                    continue
                seen.clear()
                hits = mem.recall(
                    q.question, bank=conv.sample_id, agent=AGENT, scope="collective", k=k
                )
                evidence = set(q.evidence)
                for rank, h in enumerate(hits, 1):
                    f = seen[h.id]
                    if abs(relevance.probability(f) - h.relevance) > 1e-4:
                        raise RuntimeError(
                            f"recorded features of {h.id} do not give its relevance "
                            f"{h.relevance}: Recaller._hit and this bench disagree"
                        )
                    values = f.as_dict()
                    rows.append(
                        Row(
                            sample_id=conv.sample_id,
                            question=q.index,
                            category=q.category,
                            rank=rank,
                            features=tuple(values[n] for n in names),
                            shipped=h.relevance,
                            label=int(bool(evidence & set(h.evidence_source_ids))),
                            sources=tuple(h.evidence_source_ids),
                        )
                    )
            log(f"  {conv.sample_id}: {len(rows)} hits so far")
    finally:
        recaller._hit = original
    return rows


# -- fitting and measuring (numpy only) ------------------------------------------------------


def sigmoid(z: np.ndarray) -> np.ndarray:
    return np.asarray(0.5 * (1.0 + np.tanh(0.5 * z)))


def fit_logistic(
    x: np.ndarray, y: np.ndarray, ridge: float = 1e-3, steps: int = 100
) -> tuple[float, np.ndarray]:
    """(intercept, weights) of a logistic regression by Newton's method; a small ridge on the
    weights (not the intercept) keeps a separable or collinear fit finite."""
    a = np.column_stack([np.ones(len(x)), x])
    w = np.zeros(a.shape[1])
    penalty = np.diag([0.0] + [ridge] * x.shape[1])
    for _ in range(steps):
        p = sigmoid(a @ w)
        grad = a.T @ (p - y) + penalty @ w
        hess = (a * (p * (1.0 - p))[:, None]).T @ a + penalty
        step = np.linalg.solve(hess, grad)
        w -= step
        if float(np.abs(step).max()) < 1e-10:
            break
    return float(w[0]), w[1:]


def predict(intercept: float, weights: np.ndarray, x: np.ndarray) -> np.ndarray:
    return sigmoid(intercept + x @ weights)


def reliability(p: np.ndarray, y: np.ndarray, bins: int = BINS) -> list[dict[str, Any]]:
    """Equal-width bins over [0, 1] (the last one closed): hits, mean predicted, observed."""
    idx = np.minimum((p * bins).astype(int), bins - 1)
    out = []
    for b in range(bins):
        m = idx == b
        n = int(m.sum())
        out.append(
            {
                "bin": f"{b / bins:.1f}-{(b + 1) / bins:.1f}",
                "hits": n,
                "predicted": float(p[m].mean()) if n else None,
                "observed": float(y[m].mean()) if n else None,
            }
        )
    return out


def ece(p: np.ndarray, y: np.ndarray, bins: int = BINS) -> float:
    """Expected calibration error: the hit-weighted mean |predicted - observed| over bins."""
    total = len(p)
    return float(
        sum(
            b["hits"] / total * abs(b["predicted"] - b["observed"])
            for b in reliability(p, y, bins)
            if b["hits"]
        )
    )


def auc(p: np.ndarray, y: np.ndarray) -> float | None:
    """ROC AUC by the rank-sum formula, ties counted half."""
    pos, neg = int(y.sum()), int(len(y) - y.sum())
    if not pos or not neg:
        return None
    order = np.argsort(p, kind="mergesort")
    ranks = np.empty(len(p))
    ranks[order] = np.arange(1, len(p) + 1)
    _, inverse, counts = np.unique(p, return_inverse=True, return_counts=True)
    sums = np.bincount(inverse, weights=ranks)
    ranks = (sums / counts)[inverse]  # mean rank within ties
    return float((ranks[y == 1].sum() - pos * (pos + 1) / 2) / (pos * neg))


def within_question(p: np.ndarray, y: np.ndarray, groups: Sequence[tuple[str, int]]) -> float:
    """P(a relevant hit has higher relevance than an irrelevant hit of the same question)."""
    wins = pairs = 0.0
    by: dict[tuple[str, int], list[int]] = {}
    for i, g in enumerate(groups):
        by.setdefault(g, []).append(i)
    for ids in by.values():
        pos = [p[i] for i in ids if y[i] == 1]
        neg = [p[i] for i in ids if y[i] == 0]
        for a in pos:
            for b in neg:
                wins += 1.0 if a > b else 0.5 if a == b else 0.0
                pairs += 1
    return wins / pairs if pairs else float("nan")


def at_bar(
    p: np.ndarray, rows: Sequence[Row], evidence: Mapping[tuple[str, int], set[str]], bar: float
) -> dict[str, Any]:
    """What ``min_relevance=bar`` keeps: hits, precision, evidence recall."""
    keep = p >= bar
    y = np.array([r.label for r in rows])
    cited: dict[tuple[str, int], set[str]] = {key: set() for key in evidence}
    for i in np.flatnonzero(keep):
        r = rows[int(i)]
        cited[(r.sample_id, r.question)].update(r.sources)
    recall = [len(ev & cited[key]) / len(ev) for key, ev in evidence.items()]
    n = int(keep.sum())
    return {
        "min_relevance": bar,
        "hits": n,
        "hits_per_question": n / len(evidence),
        "questions_with_a_hit": sum(1 for key in evidence if cited[key]) / len(evidence),
        "precision": float(y[keep].mean()) if n else None,
        "evidence_recall": float(np.mean(recall)),
        "relevant_hits_kept": float(y[keep].sum() / y.sum()) if y.sum() else None,
    }


def measure(
    p: np.ndarray,
    rows: Sequence[Row],
    evidence: Mapping[tuple[str, int], set[str]],
) -> dict[str, Any]:
    y = np.array([r.label for r in rows], dtype=float)
    groups = [(r.sample_id, r.question) for r in rows]
    return {
        "ece": ece(p, y),
        "brier": float(np.mean((p - y) ** 2)),
        "auc": auc(p, y),
        "within_question": within_question(p, y, groups),
        "mean_relevance": float(p.mean()),
        "reliability": reliability(p, y),
        "bars": [at_bar(p, rows, evidence, b) for b in (0.0, *BARS)],
    }


def cross_validate(rows: Sequence[Row]) -> tuple[np.ndarray, list[dict[str, Any]]]:
    """Held-out predictions, fitting on every conversation but the one scored."""
    x = np.array([r.features for r in rows])
    y = np.array([r.label for r in rows], dtype=float)
    sids = np.array([r.sample_id for r in rows])
    p = np.zeros(len(rows))
    folds = []
    for sid in sorted(set(sids)):
        test = sids == sid
        b, w = fit_logistic(x[~test], y[~test])
        p[test] = predict(b, w, x[test])
        folds.append(
            {
                "held_out": sid,
                "hits": int(test.sum()),
                "base_rate": float(y[test].mean()),
                "ece": ece(p[test], y[test]),
                "auc": auc(p[test], y[test]),
                "intercept": b,
                "weights": w.tolist(),
            }
        )
    return p, folds


# -- reporting -------------------------------------------------------------------------------


def _f(value: Any, digits: int = 3) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def summary_table(results: Mapping[str, Mapping[str, Any]]) -> str:
    lines = [
        "| predictions | ECE | Brier | ROC AUC | within-question | mean relevance |",
        "|---|---|---|---|---|---|",
    ]
    for name, m in results.items():
        lines.append(
            f"| {name} | {_f(m['ece'], 4)} | {_f(m['brier'], 4)} | {_f(m['auc'])} | "
            f"{_f(m['within_question'])} | {_f(m['mean_relevance'])} |"
        )
    return "\n".join(lines)


def reliability_table(results: Mapping[str, Mapping[str, Any]]) -> str:
    names = list(results)
    head = ["bin"] + [f"{n}: hits / predicted / observed" for n in names]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for i in range(BINS):
        cells = []
        for n in names:
            b = results[n]["reliability"][i]
            cells.append(f"{b['hits']} / {_f(b['predicted'])} / {_f(b['observed'])}")
        lines.append(
            f"| {results[names[0]]['reliability'][i]['bin']} | " + " | ".join(cells) + " |"
        )
    return "\n".join(lines)


def bars_table(results: Mapping[str, Mapping[str, Any]]) -> str:
    lines = [
        "| predictions | min_relevance | hits kept | per question | questions with a hit | "
        "precision | evidence recall | relevant hits kept |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for name, m in results.items():
        for b in m["bars"]:
            bar = "none (k=20)" if b["min_relevance"] == 0 else f"{b['min_relevance']:.1f}"
            lines.append(
                f"| {name} | {bar} | {b['hits']} | {b['hits_per_question']:.2f} | "
                f"{_f(b['questions_with_a_hit'])} | {_f(b['precision'])} | "
                f"{_f(b['evidence_recall'])} | {_f(b['relevant_hits_kept'])} |"
            )
    return "\n".join(lines)


def folds_table(folds: Sequence[Mapping[str, Any]]) -> str:
    lines = ["| held out | hits | base rate | ECE | ROC AUC |", "|---|---|---|---|---|"]
    lines += [
        f"| {f['held_out']} | {f['hits']} | {_f(f['base_rate'])} | {_f(f['ece'], 4)} | "
        f"{_f(f['auc'])} |"
        for f in folds
    ]
    return "\n".join(lines)


def constants_text(names: Sequence[str], intercept: float, weights: Sequence[float]) -> str:
    body = "".join(f'    "{n}": {w:.4f},\n' for n, w in zip(names, weights, strict=True))
    return f"WEIGHTS: Mapping[str, float] = {{\n{body}}}\nINTERCEPT = {intercept:.4f}"


def render(record: Mapping[str, Any]) -> str:
    results = record["results"]
    held = results["held out (5-fold by conversation)"]["ece"]
    verdict = "PASS" if held <= TARGET_ECE else "FAIL"
    ds = record["dataset"]
    return "\n".join(
        [
            f"# Relevance calibration on LoCoMo dev, {record['date']}",
            "",
            f"{ds['conversations']} conversations, {ds['turns']} turns; {ds['questions']} "
            f"questions of categories 1-4 with evidence, each asked with `Memory.recall(..., "
            f"scope='collective', k={record['k']})` on a fresh SQLite store ingested as "
            "`bench.locomo.run` does. "
            f"{record['hits']} hits; a hit is relevant (label 1) when one of its "
            "`evidence_source_ids` is an evidence turn of its question: "
            f"base rate {record['base_rate']:.3f}. Features (see `mneme.read.relevance`): "
            + ", ".join(f"`{n}`" for n in record["features"])
            + ".",
            "",
            "Three sets of predictions over the same hits: **held out**, each conversation "
            "scored by a logistic regression fitted on the other four (the honest number); "
            "**shipped**, the `relevance` recall returned with the constants in "
            "`relevance.py` at run time, which were fitted on all five conversations, so "
            "these are in-sample and optimistic; **refit on all five**, in-sample too (the "
            "constants below). **base rate** predicts the same probability for every hit: "
            "perfectly calibrated in-sample and useless, which is why ECE is reported with "
            "ROC AUC and the precision at each bar.",
            "",
            f"Target: held-out ECE <= {TARGET_ECE}: **{verdict}** ({held:.4f}).",
            "",
            "## Calibration and separation",
            "",
            "ECE over 10 equal-width bins, weighted by hits. *within-question*: the chance "
            "that a relevant hit gets a higher relevance than an irrelevant hit of the same "
            "question (how well relevance separates an answer from a distractor next to it).",
            "",
            summary_table(results),
            "",
            "## Reliability (hits / mean predicted / observed share relevant)",
            "",
            reliability_table({k: v for k, v in results.items() if k != "base rate"}),
            "",
            "## What min_relevance keeps",
            "",
            "Precision: the share of kept hits labelled relevant. Evidence recall: the share "
            "of a question's evidence turns the kept hits cite, mean over questions (the "
            "unfiltered row is the k=20 ceiling). LoCoMo marks one or two turns per "
            "question as evidence; a hit that answers from another turn counts as wrong, so "
            "precision is a floor.",
            "",
            bars_table({k: v for k, v in results.items() if k != "base rate"}),
            "",
            "## Held-out folds",
            "",
            "Each fold's ECE is over its own conversation's hits only, so its bins above 0.3 "
            "hold a few dozen hits and it is noisier than the pooled number above; the worst "
            f"fold is {max(f['ece'] for f in record['folds']):.4f}.",
            "",
            folds_table(record["folds"]),
            "",
            "## Constants (refit on all five conversations)",
            "",
            "```python",
            constants_text(
                record["features"], record["refit"]["intercept"], record["refit"]["weights"]
            ),
            "```",
            "",
            f"Shipped in `relevance.py` at run time: `{record['shipped_constants']}`.",
        ]
    )


# -- the entry point -------------------------------------------------------------------------


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="python -m bench.locomo.calibration",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--data", default=str(data_mod.DEFAULT_DATA), help="LoCoMo JSON list")
    p.add_argument("--k", type=int, default=K, help=f"hits asked per question (default {K})")
    p.add_argument(
        "--limit-conversations", type=int, default=None, metavar="N", help="only the first N"
    )
    p.add_argument(
        "--db",
        default=None,
        help="an SQLite file to ingest into and keep (default: a fresh temporary one); an "
        "existing file is reused as it is, without ingesting again",
    )
    p.add_argument("--out", default=str(RESULTS_DIR), help="directory for the report files")
    args = p.parse_args(argv)
    if args.k < 1:
        p.error("--k must be at least 1")
    return args


def _log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def run(args: argparse.Namespace, db: Path) -> int:
    from mneme import Memory
    from mneme.embed import MiniLMEmbedder
    from mneme.read import relevance

    started = time.perf_counter()
    dataset = data_mod.load(args.data, limit=args.limit_conversations)
    clock = ReplayClock()
    embedder = MiniLMEmbedder()
    fresh = not db.exists()
    mem = Memory.open(db, embedder=embedder, clock=clock)
    try:
        if fresh:
            seconds, units, _ = ingest_mneme(mem, dataset, clock, _log)
            _log(f"ingested {dataset.report.turns} turns into {units} units in {seconds:.0f} s")
        else:
            _log(f"reusing the store in {db} as it is")
        rows = collect(mem, dataset, clock, args.k, _log)
    finally:
        mem.close()
    if len({r.sample_id for r in rows}) < 2:
        raise SystemExit("cross-validation by conversation needs at least two conversations")
    names = list(relevance.WEIGHTS)
    x = np.array([r.features for r in rows])
    y = np.array([r.label for r in rows], dtype=float)
    evidence = {
        (q.sample_id, q.index): set(q.evidence)
        for q in dataset.questions
        if q.category in data_mod.HEADLINE_CATEGORIES and q.evidence
    }
    held, folds = cross_validate(rows)
    b, w = fit_logistic(x, y)
    shipped = np.array([r.shipped for r in rows])
    results = {
        "held out (5-fold by conversation)": measure(held, rows, evidence),
        "shipped constants (in-sample)": measure(shipped, rows, evidence),
        "refit on all five (in-sample)": measure(predict(b, w, x), rows, evidence),
        "base rate": measure(np.full(len(rows), y.mean()), rows, evidence),
    }
    today = dt.date.today().isoformat()
    record = {
        "date": today,
        "data": str(args.data),
        "environment": environment(),
        "k": args.k,
        "dataset": {
            "conversations": dataset.report.conversations,
            "turns": dataset.report.turns,
            "questions": len(evidence),
        },
        "hits": len(rows),
        "base_rate": float(y.mean()),
        "features": names,
        "rules": {
            "label": "1 if any evidence_source_id of the hit is an evidence turn of the question",
            "categories": list(data_mod.HEADLINE_CATEGORIES),
            "ece_bins": BINS,
            "folds": "5-fold by conversation (fit on four, score the fifth)",
            "model": "logistic regression, Newton steps, ridge 1e-3 on the weights",
        },
        "target": {"held_out_ece": ("<=", TARGET_ECE)},
        "results": results,
        "folds": folds,
        "refit": {"intercept": b, "weights": w.tolist()},
        "shipped_constants": {"intercept": relevance.INTERCEPT, **relevance.WEIGHTS},
        "wall_seconds": time.perf_counter() - started,
    }
    md = render(record)
    print(md)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    stem = out / f"calibration-{today}"
    stem.with_suffix(".md").write_text(md + "\n", encoding="utf-8")
    stem.with_suffix(".json").write_text(
        json.dumps(record, indent=2, default=str) + "\n", encoding="utf-8"
    )
    _log("constants to paste into src/mneme/read/relevance.py:")
    _log(constants_text(names, b, w.tolist()))
    _log(f"wrote {stem}.md and .json in {record['wall_seconds']:.0f} s")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if args.db is not None:
        return run(args, Path(args.db))
    with tempfile.TemporaryDirectory(prefix="mneme-calibration-") as tmp:
        return run(args, Path(tmp) / "locomo.db")


if __name__ == "__main__":
    raise SystemExit(main())
