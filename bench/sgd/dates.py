"""Date forms to calendar days, checked against Schema-Guided Dialogue's own equivalences.

    python -m bench.sgd.dates [--split dev|test|all]

SGD's dialogue state lists, for a date slot, every form the dialogue used for one value
("March 8th", "the 8th", "8th of this month", "next Friday", "Friday next week"); its
dialogues are set on Friday 1 March 2019 (``bench.sgd.data.START``: "today" is "March 1st").
Each set that holds a month-and-day form ("March 8th") has its day from that form; every other
form of the set should name that day when said on 1 March 2019 (``timeexpr.single_day``).
Counted once per (dialogue, slot, set of forms): forms resolved to the right day, to another
day (a wrong equality waiting to happen), or to none. Nothing is written; the numbers go in
the commit message and the results file of the change that moves them.
"""

from __future__ import annotations

import argparse
import calendar
import datetime as dt
import json
import re
import sys
from collections import Counter

from bench.sgd.data import DATA_DIR, START, split_of
from mneme.core.timeexpr import single_day

_MONTH_DAY = re.compile(
    r"^(?P<month>January|February|March|April|May|June|July|August|September|October|"
    r"November|December) (?P<day>\d{1,2})(?:st|nd|rd|th)?$"
)
_MONTHS = {name: i for i, name in enumerate(calendar.month_name) if name}


def _truth(forms: tuple[str, ...]) -> dt.date | None:
    for f in forms:
        m = _MONTH_DAY.match(f)
        if m:
            return dt.date(START.year, _MONTHS[m.group("month")], int(m.group("day")))
    return None


def _date_sets(split: str) -> list[tuple[dt.date, tuple[str, ...]]]:
    """Each (dialogue, slot, set of forms) once: the day its month-and-day form names, and
    its forms."""
    seen: set[tuple[str, str, tuple[str, ...]]] = set()
    out: list[tuple[dt.date, tuple[str, ...]]] = []
    for path in sorted(DATA_DIR.glob("dialogues_*.json")):
        for d in json.loads(path.read_text(encoding="utf-8")):
            if split != "all" and split_of(path.name, d["dialogue_id"]) != split:
                continue
            for turn in d["turns"]:
                for frame in turn["frames"]:
                    state = frame.get("state") or {}
                    for slot, forms in state.get("slot_values", {}).items():
                        key = (d["dialogue_id"], slot, tuple(forms))
                        if "date" not in slot or len(forms) < 2 or key in seen:
                            continue
                        seen.add(key)
                        truth = _truth(tuple(forms))
                        if truth is not None:
                            out.append((truth, tuple(forms)))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--split", choices=("dev", "test", "all"), default="all")
    ap.add_argument("--show", type=int, default=15, metavar="N", help="wrong forms to list")
    args = ap.parse_args(argv)
    counts: Counter[str] = Counter()
    wrong: Counter[tuple[str, str, str]] = Counter()
    unresolved: Counter[str] = Counter()
    for truth, forms in _date_sets(args.split):
        for f in forms:
            if _MONTH_DAY.match(f):
                continue
            got = single_day(f, START)
            if got == truth:
                counts["right"] += 1
            elif got is None:
                counts["none"] += 1
                unresolved[f] += 1
            else:
                counts["wrong"] += 1
                wrong[(f, truth.isoformat(), got.isoformat())] += 1
    total = sum(counts.values())
    print(f"SGD date forms ({args.split}): {total} forms beside a month-and-day form")
    for k in ("right", "wrong", "none"):
        print(f"  {k}: {counts[k]} ({counts[k] / max(total, 1):.1%})")
    print("wrong (form, truth, got):")
    for (f, t, g), n in wrong.most_common(args.show):
        print(f"  {n:4d}  {f!r}  {t}  {g}")
    print("unresolved:")
    for f, n in unresolved.most_common(args.show):
        print(f"  {n:4d}  {f!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
