"""When mneme says a turn's event happened, checked against LoCoMo's temporal answers.

    python -m bench.locomo.dating [--limit-conversations N] [--dump FILE] [--out DIR]

Every label is the data set's own: a temporal question (category 2) whose answer is a date
("7 May 2023", "The sunday before 25 May 2023", "The week before 9 June 2023", "June 2023",
"2022") and the evidence turns that say it. The answer is read as the span of days it names
(``gold_span``; answers that name no date, durations such as "4 years" and places, are
counted and left out). Every turn is retained as ``bench.locomo.run`` retains it (the session's
time as ``occurred_at``); then each memory made from an evidence turn is read back with its
occurrence (``occurred_start`` .. ``occurred_end``) and compared:

- **right**: a memory of an evidence turn has an occurrence that lies within the answer's days
  (one of its days is the answer's, for an answer of one day);
- **overlaps**: none lies within, one overlaps them (an occurrence wider than the answer, or
  one that straddles it);
- **wrong**: every occurrence lies outside the answer's days;
- **session date**: the baseline of no time expressions at all: the session's date lies
  within the answer's days.

A memory with no occurrence of its own counts as the session's date (``occurred_at``); an
occurrence is half-open, so its last day is the one before its end. "The week before D" is
read loosely, as the Monday of the week before D's through the day before D (the seven days
before, or the calendar week before: the data set's answers use both). Writes
``bench/results/locomo-dating-<date>.md/.json`` (``--out``).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.locomo import data as data_mod
from bench.locomo.run import AGENT, base_record, ingested, write_result

RESULTS_DIR = Path(__file__).resolve().parents[1] / "results"

_MONTHS = [
    "january", "february", "march", "april", "may", "june",
    "july", "august", "september", "october", "november", "december",
]  # fmt: skip
_WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
_NUMBERS = {"one": 1, "two": 2, "three": 3, "four": 4, "a": 1, "the": 1}

Span = tuple[dt.date, dt.date]  # first and last day, inclusive


def _month(word: str) -> int | None:
    """A month by its first three letters ("janury", "Sept" and "June" all count)."""
    w = word.lower()
    for i, m in enumerate(_MONTHS):
        if len(w) >= 3 and m.startswith(w[:3]):
            return i + 1
    return None


def _clean(text: str) -> str:
    t = text.strip().lower().replace("`", " ").replace(".", " ").replace(",", " ")
    t = re.sub(r"\b(\d{1,2})(?:st|nd|rd|th)\b", r"\1", t)
    t = re.sub(r"(\d)([a-z])", r"\1 \2", t)  # "3june" -> "3 june"
    return re.sub(r"\s+", " ", t).strip()


def _day(text: str) -> dt.date | None:
    """ "9 june 2023", "june 9 2023" (cleaned)."""
    m = re.fullmatch(r"(\d{1,2}) ([a-z]+) (\d{4})", text)
    if m and _month(m[2]):
        return _safe(int(m[3]), _month(m[2]), int(m[1]))
    m = re.fullmatch(r"([a-z]+) (\d{1,2}) (\d{4})", text)
    if m and _month(m[1]):
        return _safe(int(m[3]), _month(m[1]), int(m[2]))
    return None


def _safe(year: int, month: int | None, day: int) -> dt.date | None:
    try:
        return dt.date(year, month or 0, day)
    except ValueError:
        return None


def _month_span(year: int, month: int) -> Span:
    first = dt.date(year, month, 1)
    last = (first.replace(day=28) + dt.timedelta(days=4)).replace(day=1) - dt.timedelta(days=1)
    return first, last


def _weekend_before(day: dt.date) -> Span:
    sunday = day - dt.timedelta(days=(day.weekday() + 1) % 7 or 7)
    return sunday - dt.timedelta(days=1), sunday


def gold_span(answer: str) -> Span | None:
    """The days a temporal answer names, or None when it names no date."""
    t = re.sub(r"^(?:on|in|around) ", "", _clean(answer))
    return _absolute(t) or _within_month(t) or _relative(t)


def _absolute(t: str) -> Span | None:
    """A day, a month, a year or a summer."""
    if (d := _day(t)) is not None:
        return d, d
    if (m := re.fullmatch(r"([a-z]+) (\d{4})", t)) and (mo := _month(m[1])) is not None:
        return _month_span(int(m[2]), mo)
    if m := re.fullmatch(r"(\d{4})", t):
        return dt.date(int(m[1]), 1, 1), dt.date(int(m[1]), 12, 31)
    if m := re.fullmatch(r"(?:the )?summer (?:of )?(\d{4})", t):
        return dt.date(int(m[1]), 6, 1), dt.date(int(m[1]), 8, 31)
    return None


def _within_month(t: str) -> Span | None:
    """Early in a month, or its first or last week or weekend."""
    if (m := re.fullmatch(r"early ([a-z]+) (\d{4})", t)) and (mo := _month(m[1])) is not None:
        return dt.date(int(m[2]), mo, 1), dt.date(int(m[2]), mo, 10)
    m = re.fullmatch(r"(first|last) (week|weekend) of ([a-z]+) (\d{4})", t)
    if m is None or (mo := _month(m[3])) is None:
        return None
    first, last = _month_span(int(m[4]), mo)
    if m[1] == "first":
        return first, first + dt.timedelta(days=6 if m[2] == "week" else 8)
    return last - dt.timedelta(days=6), last


def _relative(t: str) -> Span | None:
    """A weekday, week or weekend before, after or of a day ("two weekends before D")."""
    m = re.fullmatch(r"(?:the )?([a-z]+)(?: ([a-z]+))? (before|after|of) (.+)", t)
    if m is None or (day := _day(m[4])) is None:
        return None
    count = _NUMBERS.get(m[1]) if m[2] else 1
    unit = m[2] or m[1]
    unit = unit[:-1] if unit.endswith("s") and unit not in _WEEKDAYS else unit
    if count is None:
        return None
    if unit in _WEEKDAYS and m[3] != "of":
        return _weekday(_WEEKDAYS.index(unit), day, m[3] == "before")
    if unit == "week":
        return _week(day, m[3], count)
    if unit == "weekend":
        return _weekend(day, m[3], count)
    return None


def _weekday(target: int, day: dt.date, before: bool) -> Span:
    if before:
        d = day - dt.timedelta(days=(day.weekday() - target) % 7 or 7)
    else:
        d = day + dt.timedelta(days=(target - day.weekday()) % 7 or 7)
    return d, d


def _week(day: dt.date, how: str, count: int) -> Span | None:
    if how == "of":
        monday = day - dt.timedelta(days=day.weekday())
        return monday, monday + dt.timedelta(days=6)
    if how == "before":
        # "The week before 9 June" is loose: the seven days before, or the calendar week
        # before (Monday to Sunday): either reading is the answer's.
        monday = day - dt.timedelta(days=day.weekday() + 7 * count)
        return monday, day - dt.timedelta(days=7 * (count - 1) + 1)
    return None


def _weekend(day: dt.date, how: str, count: int) -> Span:
    if how == "of":
        saturday = day + dt.timedelta(days=5 - day.weekday())
        return saturday, saturday + dt.timedelta(days=1)
    if how == "before":
        first, last = _weekend_before(day)
        back = dt.timedelta(days=7 * (count - 1))
        return first - back, last - back
    saturday = day + dt.timedelta(days=(5 - day.weekday()) % 7 or 7)
    return saturday, saturday + dt.timedelta(days=1)


@dataclass(frozen=True, slots=True)
class Probe:
    sample_id: str
    index: int
    question: str
    answer: str
    gold: Span
    session_day: dt.date
    said: tuple[tuple[str, Span], ...]  # (memory text, its occurrence's days)
    verdict: str


def _days(unit: Any, session: dt.date) -> Span:
    """A memory's occurrence as days: its interval is half-open (``core.timeexpr``), so the
    last day is the one before its end's midnight; an instant is its day."""
    start = unit.occurred_start
    if start is None:
        return session, session
    end = unit.occurred_end
    if end is None or end <= start:
        return start.date(), start.date()
    return start.date(), (end - dt.timedelta(microseconds=1)).date()


def _of_source(mem: Any, bank: str, source_id: str) -> list[Any]:
    """The memories a turn supports (white-box: the public API reads a source, not the
    memories resting on it; ``bench.locomo.run`` reads the store's capabilities so too)."""
    from mneme.core.model import Scope, Viewer

    return list(
        mem._store.memories.units_of_source(Viewer(bank, AGENT, Scope.COLLECTIVE), source_id)
    )


def judge(gold: Span, said: Sequence[Span]) -> str:
    """right / overlaps / wrong (see the module docstring); undated when nothing was said."""
    if not said:
        return "undated"
    if any(gold[0] <= a and b <= gold[1] for a, b in said):
        return "right"
    if any(a <= gold[1] and gold[0] <= b for a, b in said):
        return "overlaps"
    return "wrong"


def measure(mem: Any, dataset: data_mod.Dataset) -> tuple[list[Probe], dict[str, int]]:
    probes: list[Probe] = []
    skipped = {"no date": 0, "no memory": 0}
    for conv in dataset.conversations:
        turns = {t.source_id: t for t in conv.turns}
        for q in conv.questions:
            if q.category != 2 or not q.evidence:
                continue
            gold = gold_span(q.answer)
            if gold is None:
                skipped["no date"] += 1
                continue
            said: list[tuple[str, Span]] = []
            for sid in q.evidence:
                turn = turns.get(sid)
                if turn is None:
                    continue
                session = turn.date_time.date()
                said.extend(
                    (unit.text, _days(unit, session))
                    for unit in _of_source(mem, conv.sample_id, sid)
                )
            if not said:
                skipped["no memory"] += 1
                continue
            first = turns[q.evidence[0]].date_time.date() if q.evidence[0] in turns else gold[0]
            probes.append(
                Probe(
                    conv.sample_id,
                    q.index,
                    q.question,
                    q.answer,
                    gold,
                    first,
                    tuple(said),
                    judge(gold, [s for _, s in said]),
                )
            )
    return probes, skipped


def summary(probes: Sequence[Probe]) -> dict[str, Any]:
    n = len(probes)
    counts = {k: sum(p.verdict == k for p in probes) for k in ("right", "overlaps", "wrong")}
    session = sum(p.gold[0] <= p.session_day <= p.gold[1] for p in probes)
    return {
        "probes": n,
        **{k: v / n if n else 0.0 for k, v in counts.items()},
        "session_date": session / n if n else 0.0,
        "counts": counts,
    }


def render(s: dict[str, Any], skipped: dict[str, int], record: dict[str, Any]) -> str:
    return "\n".join(
        [
            f"# LoCoMo dating, {record['date']}",
            "",
            f"{s['probes']} temporal questions (category 2) whose answer names a date, of "
            f"{record['dataset']['conversations']} conversations; left out: "
            f"{skipped['no date']} answers that name no date, {skipped['no memory']} with no "
            "memory of their evidence turns. Labels: the answers and evidence ids of the data "
            "set. A memory of an evidence turn is *right* when its occurrence lies within the "
            "answer's days (bench/locomo/dating.py).",
            "",
            "| dated by | probes | right | overlaps | wrong |",
            "|---|---|---|---|---|",
            f"| mneme (occurrence of the evidence turns' memories) | {s['probes']} | "
            f"{s['right']:.3f} | {s['overlaps']:.3f} | {s['wrong']:.3f} |",
            f"| the session's date (no time expressions) | {s['probes']} | "
            f"{s['session_date']:.3f} | | |",
            "",
            f"Ingest {record['ingest_seconds']:.0f} s; wall {record['wall_seconds']:.0f} s.",
        ]
    )


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", default=str(data_mod.DEFAULT_DATA))
    ap.add_argument("--limit-conversations", type=int, default=None)
    ap.add_argument("--embedder", default="minilm")
    ap.add_argument("--out", default=str(RESULTS_DIR))
    ap.add_argument("--dump", type=Path, help="write every probe here (JSON lines)")
    args = ap.parse_args(argv)
    with ingested(args.data, args.limit_conversations, args.embedder, "dating") as run:
        probes, skipped = measure(run.mem, run.dataset)
        record = base_record(run, args.data, args.embedder)
    s = summary(probes)
    record.update({"summary": s, "skipped": skipped})
    if args.dump:
        with args.dump.open("w", encoding="utf-8") as fh:
            for p in probes:
                row = {
                    "sample": p.sample_id,
                    "q": p.index,
                    "question": p.question,
                    "answer": p.answer,
                    "gold": [p.gold[0].isoformat(), p.gold[1].isoformat()],
                    "session": p.session_day.isoformat(),
                    "verdict": p.verdict,
                    "said": [[t, a.isoformat(), b.isoformat()] for t, (a, b) in p.said],
                }
                fh.write(json.dumps(row) + "\n")
    write_result(args.out, "locomo-dating", record, render(s, skipped, record))
    return 0


if __name__ == "__main__":
    sys.exit(main())
