"""Tombstones by meaning on Schema-Guided Dialogue: does a rejected value stay rejected when it
comes back in other words, and does nothing else get held back?

    python -m bench.sgd.tombstones [--split dev|test|all] [--per-split N] [--dump FILE]

Every label is read off the data set's own annotations, never written here. In each sampled
dialogue the first user turn that states exactly one slot (one span: service, slot, value) is
the *rejected* statement: the dialogue is retained turn by turn through the public API (one bank,
one agent, one session, a minute apart, "User: ..." / "Assistant: ..."), that turn's memories
holding the value are rejected through ``review.reject``, and the next ``WINDOW`` turns are
retained. Each of those turns is one probe:

- ``restates``: it has a span for the same service and slot whose value is one of the rejected
  value's forms (the turn's spanned text, or an equivalent form the dialogue state lists):
  the same slot and the same value, said again, by either speaker and in any words ("So you'd
  like to leave on March 4th?", "Yes, the 4th"). Expected: held back (kept as rejected and put
  in front of a person, pointing at the tombstone).
- ``other``: no span of it holds one of those forms and its text does not name one: another
  value, another slot, or nothing at all. Expected: admitted as usual.
- not scored, counted: the same value for another slot (``other_slot``: a check-in date equal
  to the rejected departure date), and a turn that names the value without a span
  (``unlabelled``).

A probe is predicted *held back* when any decision of its retain reports the rejected value
asserted again. Reported per split: recall on ``restates``, the false hold-back rate on
``other``, and both for the unscored groups. Splits as in ``bench.sgd.data.split_of`` (ADR
0060): rules may be tuned on dev, never on test. Writes ``bench/results/sgd-tombstones-<date>``.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import random
import re
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from bench.sgd.data import Dialogue, Turn, fold, load_dialogues
from bench.sgd.harness import Clock, verdict_lines, write_results

RESULTS_DIR = Path(__file__).resolve().parent.parent / "results"
#: Turns after the rejected one that are retained and scored.
WINDOW = 10
#: Dialogues sampled per split (seeded).
PER_SPLIT = 250
GROUPS = ("restates", "other", "other_slot", "unlabelled")
HELD = "a rejected value was asserted again"


@dataclass(frozen=True, slots=True)
class Case:
    dialogue: Dialogue
    rejected: Turn
    service: str
    slot: str
    forms: frozenset[str]  # folded forms of the rejected value
    probes: tuple[tuple[Turn, str], ...]  # (turn, group)


def _mentions(text: str, forms: frozenset[str]) -> bool:
    folded = fold(text)
    return any(re.search(rf"(?<!\w){re.escape(f)}(?!\w)", folded) for f in forms if f)


def forms_of(dialogue: Dialogue, value: str) -> frozenset[str]:
    """The folded forms of a value: every form a user turn's dialogue state lists beside one
    already known ("half past 5 in the evening" and the assistant's "5:30 pm"), to a fixpoint."""
    forms = {value}
    grew = True
    while grew:
        grew = False
        for turn in dialogue.turns:
            for _, values in turn.state:
                folded = {fold(v) for v in values}
                if folded & forms and not folded <= forms:
                    forms |= folded
                    grew = True
    return frozenset(forms)


def case_of(dialogue: Dialogue) -> Case | None:
    """The dialogue's first user turn stating one slot, and the probes after it."""
    for i, turn in enumerate(dialogue.turns):
        if turn.speaker != "USER" or len(turn.spans) != 1:
            continue
        span = turn.spans[0]
        frozen = forms_of(dialogue, fold(span.value))
        probes: list[tuple[Turn, str]] = []
        for later in dialogue.turns[i + 1 : i + 1 + WINDOW]:
            same = [s for s in later.spans if fold(s.value) in frozen]
            if any((s.service, s.slot) == (span.service, span.slot) for s in same):
                group = "restates"
            elif same:
                group = "other_slot"
            elif _mentions(later.utterance, frozen):
                group = "unlabelled"
            else:
                group = "other"
            probes.append((later, group))
        if not probes:
            return None
        return Case(dialogue, turn, span.service, span.slot, frozen, tuple(probes))
    return None


_T = TypeVar("_T")


def load_cases(split: str, per_split: int = PER_SPLIT) -> list[Case]:
    by: dict[str, list[Case]] = {}
    for d in load_dialogues():
        if split not in ("all", d.split):
            continue
        c = case_of(d)
        if c is not None:
            by.setdefault(d.split, []).append(c)
    return [case for s in sorted(by) for case in sample(by[s], per_split)]


def sample(group: Sequence[_T], per_split: int) -> list[_T]:
    """A split's sample: seeded by itself alone, so a split's probes are the same whether it
    is run alone or beside the other (one generator shared by both drew the test part's
    sample after the dev part's, so ``--split all`` and ``--split test`` measured different
    dialogues)."""
    if len(group) <= per_split:
        return list(group)
    return random.Random(5).sample(list(group), per_split)


def run_case(mem: Any, clock: Clock, case: Case) -> list[tuple[Turn, str, bool, list[Any]]]:
    """Retain up to the rejected turn, reject what holds its value, retain the probes."""
    d = case.dialogue
    bank = "t-" + d.id.replace("_", "-")

    def retain(t: Turn) -> Any:
        clock.now = t.at
        return mem.retain(
            t.text, bank=bank, agent="sgd", session=d.id, occurred_at=t.at, source_id=t.source_id
        )

    result = None
    for t in d.turns[: case.rejected.index + 1]:
        result = retain(t)
    assert result is not None
    ids = list(dict.fromkeys(result.memory_ids))
    texts = {i: mem.get(i, bank=bank, agent="sgd").text for i in ids}
    holding = [i for i in ids if _mentions(texts[i], case.forms)] or ids
    for uid in holding:
        if mem.get(uid, bank=bank, agent="sgd").status.value != "rejected":
            mem.review.reject(uid, reason="the reviewer says no", actor="bench")
    out = []
    for t, group in case.probes:
        r = retain(t)
        held = any(dd.reason.startswith(HELD) for dd in r.decisions)
        out.append((t, group, held, list(r.decisions)))
    return out


def table(rows: Sequence[tuple[str, bool]]) -> tuple[str, dict[str, Any]]:
    lines = ["| probe | turns | held back | rate |", "|---|---|---|---|"]
    stats: dict[str, Any] = {}
    for g in GROUPS:
        n = sum(1 for grp, _ in rows if grp == g)
        h = sum(1 for grp, held in rows if grp == g and held)
        rate = h / n if n else 0.0
        stats[g] = {"n": n, "held": h, "rate": rate}
        lines.append(f"| {g} | {n} | {h} | {rate:.3f} |")
    rec, fp = stats["restates"]["rate"], stats["other"]["rate"]
    stats["recall"], stats["false_hold"] = rec, fp
    lines += [
        "",
        f"recall on restatements {rec:.3f}; false hold-back on other turns {fp:.4f}",
    ]
    return "\n".join(lines), stats


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--split", choices=("dev", "test", "all"), default="all")
    ap.add_argument("--per-split", type=int, default=PER_SPLIT)
    ap.add_argument("--out", type=Path, default=RESULTS_DIR)
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument("--dump", type=Path, help="write every probe's verdicts here (JSON lines)")
    args = ap.parse_args(argv)

    from mneme import Memory
    from mneme.embed.minilm import MiniLMEmbedder

    cases = load_cases(args.split, args.per_split)
    clock = Clock()
    results: list[tuple[Case, Turn, str, bool, list[Any]]] = []
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="mneme-sgd-tomb-") as tmp:
        mem = Memory.open(str(Path(tmp) / "tomb.db"), embedder=MiniLMEmbedder(), clock=clock)
        try:
            for c in cases:
                results.extend((c, *r) for r in run_case(mem, clock, c))
        finally:
            mem.close()
    seconds = time.perf_counter() - t0
    date = dt.date.today().isoformat()
    md = [
        f"# SGD tombstones by meaning ({date})",
        "",
        f"{len(cases)} dialogues, {len(results)} probe turns labelled by SGD's span "
        f"annotations, written through Memory.retain after a review.reject ({seconds:.0f} s).",
    ]
    report: dict[str, Any] = {"date": date, "dialogues": len(cases), "splits": {}}
    for split in ("dev", "test"):
        rows = [(g, h) for c, _, g, h, _ in results if c.dialogue.split == split]
        if not rows:
            continue
        text, stats = table(rows)
        report["splits"][split] = stats
        md += ["", f"## {split}", "", text]
    if args.dump:
        with args.dump.open("w", encoding="utf-8") as fh:
            for c, t, g, h, decisions in results:
                row = {
                    "split": c.dialogue.split,
                    "rejected": c.rejected.text,
                    "slot": f"{c.service}/{c.slot}",
                    "probe": t.text,
                    "group": g,
                    "held": h,
                    "decisions": verdict_lines(decisions),
                }
                fh.write(json.dumps(row) + "\n")
    text = "\n".join(md) + "\n"
    print(text)
    if not args.no_write and args.split == "all":
        write_results(args.out, f"sgd-tombstones-{date}", text, report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
