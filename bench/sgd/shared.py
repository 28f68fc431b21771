"""Knowledge updates in a shared bank: the present answer among other conversations.

    python -m bench.sgd.shared [--company N] [--limit N] [--split all|dev|test]
                               [--modes plain,resume,named] [--dump F]
                               [--recall KEY=VALUE ...]

``bench.sgd.run`` gives each dialogue a bank of its own, so everything in the bank is about
the slot's task, and a rule that orders "what the question is about" newest first cannot be
told from one that orders everything newest first. A user's memory is not like that: a bank
holds many conversations about other things, and some were later. Here each probe's dialogue
shares its bank with the user turns of the next ``N`` dialogues (in data order, wrapping) that
use none of its services, said after it (each an hour after the one before), and the question
is asked after the last of them. The other dialogues state no value of the probe's slot (their
services differ), so a first hit from them is a miss, never stale. Scores, labels and the
question are ``bench.sgd.run``'s; mneme only (BM25 has no order by time to confuse).

With ``--modes resume`` the probe's dialogue stops at its first change and is taken up again
as a session of its own after the first other dialogue: the update is said in a later
conversation (ADR 0106). ``--modes named`` is plain, asked as a caller who knows the
conversation asks: ``recall(session=)`` names the probe's dialogue (ADR 0109). Prints a table
per mode (all, [dev], [test]) and, without
``--recall``, writes them to ``bench/results/sgd-shared-<date>.md/.json``; ``make bench`` runs
the first 150 dialogues of each split (tune on dev only, ADR 0060).
"""

from __future__ import annotations

import argparse
import datetime as dt
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench.git import commit
from bench.overrides import add_recall_option, recall_from
from bench.sgd import supersedes
from bench.sgd.data import START, Dialogue, Probe, Turn, fold, load_probes
from bench.sgd.run import (
    AGENT,
    RESULTS_DIR,
    Clock,
    K,
    Run,
    dump_rows,
    publish,
    split_rows,
    summarize,
    table,
)

#: The other dialogues in each bank.
COMPANY = 2
MODES = ("plain", "resume", "named")
GAP = dt.timedelta(hours=1)


def companions(dialogues: Sequence[Dialogue], n: int) -> dict[str, list[Dialogue]]:
    """For each dialogue, the next ``n`` after it (wrapping) sharing none of its services."""
    out: dict[str, list[Dialogue]] = {}
    for i, d in enumerate(dialogues):
        mine = set(d.services)
        found: list[Dialogue] = []
        for step in range(1, len(dialogues) if n > 0 else 0):
            other = dialogues[(i + step) % len(dialogues)]
            if not mine & set(other.services):
                found.append(other)
                if len(found) == n:
                    break
        out[d.id] = found
    return out


def first_change(d: Dialogue, probes: Sequence[Probe]) -> int | None:
    """The index of the dialogue's first user turn that states a slot's value other than the
    one the user stated first (None when no probe is of it)."""
    changes = []
    for p in probes:
        if p.dialogue_id != d.id:
            continue
        first = fold(p.statements[0][1])
        for source_id, value in p.statements[1:]:
            if fold(value) != first:
                changes.append(int(source_id.rsplit(":", 1)[1]))
                break
    return min(changes, default=None)


def conversations(
    d: Dialogue, others: Sequence[Dialogue], probes: Sequence[Probe], resume: bool
) -> list[tuple[str, tuple[Turn, ...]]]:
    """The sessions of a probe's bank in the order said: the dialogue, then the others; with
    ``resume``, the dialogue is left at its first change and taken up again, as a session of
    its own, after the first other one (the change is said in a later conversation)."""
    rest = [(o.id, o.user_turns) for o in others]
    turns = d.user_turns
    cut = first_change(d, probes) if resume else None
    if cut is None:
        return [(d.id, turns), *rest]
    before = tuple(t for t in turns if t.index < cut)
    after = tuple(t for t in turns if t.index >= cut)
    return [(d.id, before), *rest[:1], (d.id + "-resumed", after), *rest[1:]]


def run_shared(
    dialogues: Sequence[Dialogue],
    pool: Sequence[Dialogue],
    probes: Sequence[Probe],
    company: int,
    embedder: Any,
    recall: dict[str, Any],
    resume: bool = False,
    named: bool = False,
) -> Run:
    from mneme import Memory

    run = Run("mneme")
    clock = Clock()
    others = companions(pool, company)
    units: list[Any] = []
    by_dialogue: dict[str, list[int]] = {}
    for i, p in enumerate(probes):
        by_dialogue.setdefault(p.dialogue_id, []).append(i)
    with tempfile.TemporaryDirectory(prefix="mneme-sgd-shared-") as tmp:
        extra: dict[str, Any] = {"recall": recall} if recall else {}
        mem = Memory.open(str(Path(tmp) / "shared.db"), embedder=embedder, clock=clock, **extra)
        try:
            for n, d in enumerate(dialogues, start=1):
                bank = "shared-" + d.id.replace("_", "-")
                t0 = time.perf_counter()
                last = START
                for k, (session, said) in enumerate(conversations(d, others[d.id], probes, resume)):
                    # The dialogue itself at its own minutes; each other one an hour after
                    # the end of the one before.
                    shift = dt.timedelta(0) if k == 0 else (last - said[0].at) + GAP
                    for t in said:
                        clock.now = t.at + shift
                        mem.retain(
                            t.text,
                            bank=bank,
                            agent=AGENT,
                            session=session,
                            occurred_at=clock.now,
                            source_id=t.source_id,
                        )
                        last = max(last, clock.now)
                run.seconds_ingest += time.perf_counter() - t0
                clock.now = last + dt.timedelta(minutes=1)
                for i in by_dialogue.get(d.id, []):
                    t1 = time.perf_counter()
                    hits = mem.recall(
                        probes[i].question,
                        bank=bank,
                        agent=AGENT,
                        scope="collective",
                        k=K,
                        session=d.id if named else None,
                    )
                    run.query_ms.append((time.perf_counter() - t1) * 1000)
                    run.ranked[i] = [list(h.evidence_source_ids) for h in hits]
                units += mem.list_memories(bank=bank, limit=10_000)
                if n % 50 == 0:
                    print(f"  {n}/{len(dialogues)} dialogues", file=sys.stderr, flush=True)
            run.extra["retirements"] = supersedes.support(
                units, {d.id: d for d in pool}, across=True
            ).as_dict()
        finally:
            mem.close()
    return run


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--company", type=int, default=COMPANY, help="other dialogues per bank")
    ap.add_argument("--limit", type=int, default=0, help="first N dialogues with probes")
    ap.add_argument(
        "--split",
        choices=("all", "dev", "test"),
        default="all",
        help="probe dialogues of this split only (their company is drawn from all)",
    )
    ap.add_argument(
        "--modes",
        default=",".join(MODES),
        help="plain (the dialogue, then the others) and/or resume (its first change said in a "
        "later session, after another dialogue)",
    )
    ap.add_argument("--out", type=Path, default=RESULTS_DIR)
    ap.add_argument("--dump", type=Path, help="write every probe's ranked turns here (JSONL)")
    add_recall_option(ap, "a run with one is never written")
    args = ap.parse_args(argv)
    recall = recall_from(ap, args.recall)
    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    if not modes or set(modes) - set(MODES):
        ap.error(f"--modes takes {' and/or '.join(MODES)}, comma-separated")
    pool, probes = load_probes()
    chosen = [d for d in pool if args.split in ("all", d.split)]
    dialogues = chosen[: args.limit] if args.limit else chosen
    keep = {d.id for d in dialogues}
    probes = [p for p in probes if p.dialogue_id in keep]
    turns = {t.source_id: t for d in pool for t in d.turns}
    split_of = {d.id: d.split for d in dialogues}
    from mneme.embed.minilm import MiniLMEmbedder

    embedder = MiniLMEmbedder()
    shown = ", ".join(f"{k}={v}" for k, v in sorted(recall.items())) or "defaults"
    date = dt.datetime.now(dt.UTC).date().isoformat()
    md = [
        f"# SGD knowledge updates in shared banks ({date}, commit {commit()})",
        "",
        f"{len(dialogues)} dialogues of the SGD dev split (our part: {args.split}, ADR 0060), "
        f"{len(probes)} probes; each bank holds "
        f"the probe's dialogue and the user turns of the next {args.company} dialogues sharing "
        "none of its services, said later; question and scores as `bench.sgd.run`'s (user "
        f"turns). plain: the dialogue, then the others; resume: the dialogue stops at its first "
        "change and is taken up again as a session of its own after the first other one; "
        "named: plain, the question asked with `recall(session=)` naming the dialogue. "
        f"recall: {shown}. ADRs 0105, 0106, 0109.",
    ]
    report: dict[str, Any] = {"date": date, "commit": commit(), "recall": recall, "modes": {}}
    dumps: list[dict[str, Any]] = []
    for mode in modes:
        t0 = time.perf_counter()
        run = run_shared(
            dialogues,
            pool,
            probes,
            args.company,
            embedder,
            recall,
            resume=mode == "resume",
            named=mode == "named",
        )
        rows: dict[str, dict[str, float]] = {}
        rows["mneme"], verdicts = summarize(run, probes, turns)
        rows.update(split_rows(run, probes, turns, split_of, "mneme"))
        dumps += dump_rows(run, probes, verdicts, turns, mode)
        seconds = time.perf_counter() - t0
        retired = run.extra["retirements"]
        report["modes"][mode] = {"summary": rows, "seconds": seconds, "retirements": retired}
        md += [
            "",
            f"## {mode} ({seconds:.0f} s)",
            "",
            table(rows),
            "",
            supersedes.line(retired["counts"]),
        ]
    name = "sgd-shared" + ("" if args.split == "all" else f"-{args.split}")
    stem = None if recall else args.out / f"{name}-{date}"
    publish(md, report, stem, args.dump, dumps)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
