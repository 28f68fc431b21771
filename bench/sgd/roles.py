"""Which end of a span a user's date or time is, read by mneme against SGD's own slot names.

    python -m bench.sgd.roles [--split dev|test|all] [--ablate] [--show N]

A date or a time fills one end of a span or a moment: a trip leaves and returns, a rental car
is picked up and dropped off. mneme reads the end from the words around the value
(``mneme.core.slots.role_of``: its preposition, "from" / "until", else a word of the clause
that names an end, ``wordlists.SPAN_END_WORDS``) and treats a start and an end, or a moment
and a named end, as two slots whatever the change cue. The truth here is the data set's annotation,
never written by hand: every user turn's slot span of a date or time slot, the slot's name
saying which end it fills (``END``: return and drop-off dates; ``START``: departure, leaving
and pick-up dates and times, check-in; ``MOMENT``: one-day slots, appointments and alarms).

Reported per split (``bench.sgd.data.split_of``, ADR 0060): for each annotated end, how many
of its values mneme reads as a start, an end, or neither (a moment). ``--ablate`` drops each
word of the list in turn, and adds each of a few candidates, and prints what changes: the
measure each entry is kept (or left out) for. Writes ``bench/results/sgd-roles-<date>``.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import io
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

from bench.sgd.data import load_dialogues
from bench.sgd.harness import write_results
from mneme.core import statements
from mneme.core.slots import role_of
from mneme.core.values import Kind

END = frozenset({"return_date", "dropoff_date"})
START = frozenset(
    {
        "departure_date",
        "leaving_date",
        "leaving_time",
        "outbound_departure_time",
        "pickup_date",
        "pickup_time",
        "check_in_date",
    }
)
MOMENT = frozenset(
    {"appointment_date", "appointment_time", "date", "time", "visit_date", "alarm_time"}
)
ENDS = ("start", "end", "moment")
_LIST = "SPAN_END_WORDS"  # as ``statements`` reads it
#: Words tried beside the list's, each added alone by ``--ablate``.
_CANDIDATES = frozenset({"end", "ends", "ending", "finish", "back", "dropoff", "checkout"})


def _truth(slot: str) -> str | None:
    return (
        "end" if slot in END else "start" if slot in START else "moment" if slot in MOMENT else None
    )


def _spans(split: str) -> Iterator[tuple[str, str, str, str]]:
    """(split, utterance, spanned text, true end) for every user span of a span slot."""
    for d in load_dialogues():
        if split not in ("all", d.split):
            continue
        for turn in d.turns:
            if turn.speaker != "USER":
                continue
            for span in turn.spans:
                truth = _truth(span.slot)
                if truth is not None:
                    yield d.split, turn.utterance, span.value, truth


def _read(text: str, spanned: str) -> str | None:
    """The end mneme reads for the spanned value: "start", "end", "moment", or None when it
    reads no date or time there."""
    st = statements.analyze(text)
    at = st.body.find(spanned)
    for i, v in enumerate(st.values):
        if v.kind in (Kind.DATE, Kind.TIME) and 0 <= at < v.end and v.start < at + len(spanned):
            role = role_of(st, i)
            return "moment" if role == "point" else role
    return None


def measure(split: str) -> dict[str, Counter[tuple[str, str]]]:
    statements.analyze.cache_clear()
    out: dict[str, Counter[tuple[str, str]]] = {}
    for which, text, spanned, truth in _spans(split):
        out.setdefault(which, Counter())[(truth, _read(text, spanned) or "none")] += 1
    return out


def _table(counts: dict[str, Counter[tuple[str, str]]]) -> str:
    rows = [
        "| split | annotated | read start | read end | read moment | no value |",
        "|---|---|---|---|---|---|",
    ]
    for which in sorted(counts):
        c = counts[which]
        for truth in ENDS:
            cells = " | ".join(str(c[(truth, got)]) for got in (*ENDS, "none"))
            rows.append(f"| {which} | {truth} | {cells} |")
        said = sum(c[(t, "end")] for t in ENDS)
        right = c[("end", "end")]
        total = sum(c[("end", g)] for g in (*ENDS, "none"))
        rows.append(
            f"| {which} | ends: precision {right / max(said, 1):.3f}, recall "
            f"{right / max(total, 1):.3f} | | | | |"
        )
    return "\n".join(rows)


def _ablate(split: str, base: dict[str, Counter[tuple[str, str]]]) -> None:
    full: frozenset[str] = getattr(statements, _LIST)
    for word in sorted(full | _CANDIDATES):
        setattr(statements, _LIST, full ^ {word})
        try:
            got = measure(split)
        finally:
            setattr(statements, _LIST, full)
        change = "without" if word in full else "with"
        for which in sorted(got):
            delta = {
                k: got[which][k] - base[which][k]
                for k in set(got[which]) | set(base[which])
                if got[which][k] != base[which][k]
            }
            print(f"{change} {word!r} ({which}): {dict(sorted(delta.items())) or 'no change'}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--split", choices=("dev", "test", "all"), default="all")
    ap.add_argument("--ablate", action="store_true", help="drop each list word in turn")
    ap.add_argument("--out", type=Path, default=Path(__file__).resolve().parent.parent / "results")
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args(argv)
    counts = measure(args.split)
    date = dt.date.today().isoformat()
    md = [f"# Ends of spans read against SGD slot names ({date})", "", _table(counts)]
    if args.ablate:
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            _ablate(args.split, counts)
        md += [
            "",
            "## Each word's part",
            "",
            *(f"- {line}" for line in printed.getvalue().splitlines()),
        ]
    text = "\n".join(md) + "\n"
    print(text)
    if not args.no_write and args.split == "all":
        report = {
            "date": date,
            "splits": {
                w: {f"{t}->{g}": n for (t, g), n in sorted(c.items())} for w, c in counts.items()
            },
        }
        write_results(args.out, f"sgd-roles-{date}", text, report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
