"""Write-path decisions on pairs of statements from Schema-Guided Dialogue, labelled by the data.

    python -m bench.sgd.decisions [--split dev|test|all] [--show-errors N]

Every pair is two turns of one SGD dialogue, each with exactly one annotated slot span, so the
label comes from the annotations alone:

- ``update``: a user turn states a (service, slot) with another value than the latest earlier
  user statement of it (the user changed it). Expected: the later one supersedes (or updates)
  the earlier one.
- ``different``: two user turns stating two different slots whose names share their head word
  ("check_in_date" / "check_out_date", "origin_city" / "destination_city", a restaurant's
  "location" and a hotel's): different slots sharing a frame. Expected: nothing destructive.
- ``same``: a turn and the other speaker's next turns (within three) stating the same slot with
  the same value ("I'm going to 899 Sir Francis Drake Boulevard." / "So you'd like to go to 899
  Sir Francis Drake Boulevard?"). Expected: corroboration (the later one merged as evidence).

Each pair is read in its context, through the public API as one user of mneme would: the
pair's dialogue is retained turn by turn into a bank of its own (one agent, one session, a
minute apart, "User: ..." and "Assistant: ..."), and the verdicts the second turn's retain
returns are read against the first turn's units. Predicted label: ``update`` when a
verdict SUPERSEDEs or UPDATEs a unit of the first turn, ``contradict`` for a CONTRADICT against
one, ``same`` for a NOOP or LINK_EXISTING into one or an ADD that names one as what it
corroborates, else ``different``.

Splits (``bench.sgd.data.split_of``, ADR 0060): ``dev`` (dialogues_001-008 and one dialogue in
three of the other files) is what rules may be tuned on; ``test`` (the rest of 009-020) is
reported and never tuned on. Writes ``bench/results/sgd-decisions-<date>.md``.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import random
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.sgd.data import DATA_DIR, Dialogue, Turn, fold, load_dialogues
from bench.sgd.harness import Clock, verdict_lines, write_results

RESULTS_DIR = Path(__file__).resolve().parent.parent / "results"
CLASSES = ("update", "different", "same")
PREDICTED = ("update", "contradict", "same", "different")
TARGET_MACRO_F1 = 0.9
PER_CLASS = 400  # at most this many pairs per class and split (a seeded sample)


@dataclass(frozen=True, slots=True)
class Pair:
    id: str
    label: str
    split: str
    old: Turn
    new: Turn


def _single(turn: Turn) -> tuple[str, str, str] | None:
    if len(turn.spans) != 1:
        return None
    s = turn.spans[0]
    return s.service, s.slot, fold(s.value)


def _head(slot: str) -> str:
    return slot.rsplit("_", 1)[-1]


def pairs_of(dialogue: Dialogue, split: str) -> list[Pair]:
    out: list[Pair] = []
    turns = dialogue.turns
    users = dialogue.user_turns
    for j, b in enumerate(users):
        one_b = _single(b)
        if one_b is None:
            continue
        service, slot, value = one_b
        # update: the latest earlier user statement of the slot holds another value
        for a in reversed(users[:j]):
            said = {(s.service, s.slot): fold(s.value) for s in a.spans}
            if (service, slot) in said:
                if said[(service, slot)] != value:
                    out.append(Pair(f"{a.source_id}>{b.source_id}", "update", split, a, b))
                break
        # different: an earlier single-slot user statement of another slot sharing its head
        for a in users[:j]:
            one_a = _single(a)
            if (
                one_a is not None
                and (one_a[0], one_a[1]) != (service, slot)
                and _head(one_a[1]) == _head(slot)
            ):
                out.append(Pair(f"{a.source_id}>{b.source_id}", "different", split, a, b))
    for i, a in enumerate(turns):
        one_a = _single(a)
        if one_a is None:
            continue
        for b in turns[i + 1 : i + 4]:
            if b.speaker != a.speaker and _single(b) == one_a:
                out.append(Pair(f"{a.source_id}>{b.source_id}", "same", split, a, b))
                break
    return out


def load_pairs(data_dir: Path = DATA_DIR, per_class: int = PER_CLASS) -> list[Pair]:
    """Every labelled pair, then at most ``per_class`` per (split, class), seeded."""
    by: dict[tuple[str, str], list[Pair]] = {}
    for path in sorted(data_dir.glob("dialogues_*.json")):
        for d in load_dialogues(data_dir, only=path.name):
            for p in pairs_of(d, d.split):
                by.setdefault((p.split, p.label), []).append(p)
    rng = random.Random(15)
    out: list[Pair] = []
    for key in sorted(by):
        group = by[key]
        out.extend(group if len(group) <= per_class else rng.sample(group, per_class))
    return out


def run_dialogue(
    mem: Any, clock: Clock, dialogue: Dialogue, wanted: Sequence[Pair]
) -> list[tuple[Pair, str, list[Any]]]:
    """Retain every turn of the dialogue in order (its own bank, one agent, one session, a
    minute apart) and read each wanted pair off the second turn's verdicts."""
    bank = "d-" + dialogue.id.replace("_", "-")
    units: dict[str, set[str]] = {}
    decisions: dict[str, list[Any]] = {}
    last = max(
        (t.index for p in wanted for t in (p.old, p.new)),
        default=-1,
    )
    for t in dialogue.turns[: last + 1]:
        clock.now = t.at
        r = mem.retain(
            t.text,
            bank=bank,
            agent="sgd",
            session=dialogue.id,
            occurred_at=t.at,
            source_id=t.source_id,
        )
        units[t.source_id] = set(r.memory_ids)
        decisions[t.source_id] = list(r.decisions)
    out = []
    for p in wanted:
        olds = units[p.old.source_id]
        label = "different"
        for d in decisions[p.new.source_id]:
            if d.target_id not in olds:
                continue
            v = d.verdict.value
            if v in ("SUPERSEDE", "UPDATE"):
                label = "update"
            elif v == "CONTRADICT" and label != "update":
                label = "contradict"
            elif v in ("NOOP", "LINK_EXISTING", "ADD") and label == "different":
                label = "same"  # merged as evidence, or kept and counted as evidence for it
        out.append((p, label, decisions[p.new.source_id]))
    return out


def f1_table(rows: Sequence[tuple[Pair, str]]) -> tuple[str, dict[str, Any]]:
    lines = ["| class | pairs | precision | recall | F1 |", "|---|---|---|---|---|"]
    f1s = []
    stats: dict[str, Any] = {}
    for c in CLASSES:
        tp = sum(1 for p, y in rows if p.label == c and y == c)
        fp = sum(1 for p, y in rows if p.label != c and y == c)
        fn = sum(1 for p, y in rows if p.label == c and y != c)
        n = sum(1 for p, _ in rows if p.label == c)
        prec = tp / (tp + fp) if tp + fp else 0.0
        rec = tp / (tp + fn) if tp + fn else 0.0
        f1 = 2 * prec * rec / (prec + rec) if prec + rec else 0.0
        f1s.append(f1)
        stats[c] = {"n": n, "precision": prec, "recall": rec, "f1": f1}
        lines.append(f"| {c} | {n} | {prec:.3f} | {rec:.3f} | {f1:.3f} |")
    macro = sum(f1s) / len(f1s)
    destructive = sum(
        1 for p, y in rows if p.label == "different" and y in ("update", "contradict")
    )
    stats["macro_f1"] = macro
    stats["destructive_on_different"] = destructive
    confusion = Counter((p.label, y) for p, y in rows)
    stats["confusion"] = {f"{a}->{b}": n for (a, b), n in sorted(confusion.items())}
    lines += [
        "",
        f"macro-F1 {macro:.3f} (target >= {TARGET_MACRO_F1}); destructive verdicts on "
        f"different slots: {destructive} (target 0)",
        "",
        "| expected \\ predicted | " + " | ".join(PREDICTED) + " |",
        "|---|" + "---|" * len(PREDICTED),
    ]
    for c in CLASSES:
        lines.append(f"| {c} | " + " | ".join(str(confusion[(c, y)]) for y in PREDICTED) + " |")
    return "\n".join(lines), stats


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--split", choices=("dev", "test", "all"), default="all")
    ap.add_argument("--show-errors", type=int, default=0, metavar="N")
    ap.add_argument("--out", type=Path, default=RESULTS_DIR)
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument("--dump", type=Path, help="write every pair's verdicts here (JSON lines)")
    args = ap.parse_args(argv)

    from mneme import Memory
    from mneme.embed.minilm import MiniLMEmbedder

    pairs = [p for p in load_pairs() if args.split in ("all", p.split)]
    by_dialogue: dict[str, list[Pair]] = {}
    for p in pairs:
        by_dialogue.setdefault(p.old.dialogue_id, []).append(p)
    dialogues = {d.id: d for d in load_dialogues() if d.id in by_dialogue}
    clock = Clock()
    results: list[tuple[Pair, str, list[Any]]] = []
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="mneme-sgd-pairs-") as tmp:
        mem = Memory.open(str(Path(tmp) / "pairs.db"), embedder=MiniLMEmbedder(), clock=clock)
        try:
            for did in sorted(by_dialogue):
                results.extend(run_dialogue(mem, clock, dialogues[did], by_dialogue[did]))
        finally:
            mem.close()
    seconds = time.perf_counter() - t0
    date = dt.date.today().isoformat()
    md = [
        f"# SGD decision pairs ({date})",
        "",
        f"{len(pairs)} pairs labelled by SGD's own span annotations, each written through "
        f"Memory.retain into a fresh bank ({seconds:.0f} s).",
    ]
    report: dict[str, Any] = {"date": date, "pairs": len(pairs), "splits": {}}
    for split in ("dev", "test"):
        rows = [(p, y) for p, y, _ in results if p.split == split]
        if not rows:
            continue
        text, stats = f1_table(rows)
        report["splits"][split] = stats
        md += ["", f"## {split}", "", text]
    if args.show_errors:
        md += ["", "## Errors (first per class)", ""]
        shown: Counter[tuple[str, str]] = Counter()
        for p, y, decisions in results:
            if y == p.label or shown[(p.label, y)] >= args.show_errors:
                continue
            shown[(p.label, y)] += 1
            md.append(f"- [{p.split}] {p.label} -> {y}: `{p.old.text}` / `{p.new.text}`")
            for d in decisions:
                md.append(f"    - {d.verdict.value} {d.target_id}: {d.reason}")
    if args.dump:
        with args.dump.open("w", encoding="utf-8") as fh:
            for p, y, decisions in results:
                row = {
                    "id": p.id,
                    "split": p.split,
                    "label": p.label,
                    "predicted": y,
                    "old": p.old.text,
                    "new": p.new.text,
                    "decisions": verdict_lines(decisions),
                }
                fh.write(json.dumps(row) + "\n")
    text = "\n".join(md) + "\n"
    print(text)
    if not args.no_write and args.split == "all":
        write_results(args.out, f"sgd-decisions-{date}", text, report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
