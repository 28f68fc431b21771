"""Two events of one person are two memories: LoCoMo's event summaries as diaries (issue 15).

SGD serves one task per dialogue, so the SGD decision set (``bench.sgd.decisions``) holds
almost no pair of two different events of one author; a rule that merges such events can
gain there and be wrong everywhere else (ADR 0080). LoCoMo's ``event_summary`` annotates,
per session and speaker, what happened to that speaker ("Caroline attends an LGBTQ support
group for the first time.", with the session's date). Each speaker's events become one diary:
retained in time order through ``Memory.retain`` into the conversation's bank, one session
per speaker, each as "<Speaker>: On <session date>, <event>" at that date. Two annotated
events are two things that happened, so **every** SUPERSEDE, UPDATE or CONTRADICT one event
makes against an earlier one is destructive. The label comes from the data's structure; the
text template is the only thing written here.

    python -m bench.locomo.events [--data PATH] [--out DIR]
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench.locomo import data as data_mod
from bench.locomo.run import RESULTS_DIR, ReplayClock, offline_embedder, write_result

AGENT = "diary"
CHANGES = ("SUPERSEDE", "UPDATE", "CONTRADICT")


def diaries(conversation: dict[str, Any]) -> dict[str, list[tuple[dt.datetime, str]]]:
    """Speaker -> their annotated events in session order: (the session's date, the text)."""
    sessions = sorted(
        conversation.get("event_summary", {}).items(), key=lambda kv: int(kv[0].rsplit("_", 1)[1])
    )
    out: dict[str, list[tuple[dt.datetime, str]]] = {}
    for _, summary in sessions:
        day = dt.datetime.strptime(summary["date"], "%d %B, %Y").replace(tzinfo=dt.UTC)
        for speaker, events in summary.items():
            if speaker == "date":
                continue
            said = [e.strip() for e in events if e.strip()]
            out.setdefault(speaker, []).extend((day, e) for e in said)
    return out


def _text(speaker: str, day: dt.datetime, event: str) -> str:
    when = f"{day.day} {day:%B}, {day.year}"
    return f"{speaker}: On {when}, {event}"


def measure(data: Path) -> dict[str, Any]:
    from mneme import Memory

    conversations = json.loads(data.read_text(encoding="utf-8"))
    clock = ReplayClock()
    verdicts: Counter[str] = Counter()
    destructive: list[dict[str, str]] = []
    events = 0
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        mem = Memory.open(Path(tmp) / "events.db", embedder=offline_embedder("minilm"), clock=clock)
        try:
            for conv in conversations:
                bank = conv["sample_id"]
                for speaker, diary in diaries(conv).items():
                    for n, (day, event) in enumerate(diary):
                        clock.now = day + dt.timedelta(hours=12, minutes=n)
                        text = _text(speaker, day, event)
                        r = mem.retain(
                            text,
                            bank=bank,
                            agent=AGENT,
                            session=f"{bank}:{speaker}",
                            occurred_at=clock.now,
                        )
                        events += 1
                        for d in r.decisions:
                            verdicts[d.verdict.value] += 1
                            if d.verdict.value in CHANGES and d.target_id is not None:
                                destructive.append(
                                    {
                                        "verdict": d.verdict.value,
                                        "new": text,
                                        "old": mem.get(d.target_id).text,
                                        "reason": d.reason,
                                    }
                                )
        finally:
            mem.close()
    return {
        "date": dt.date.today().isoformat(),
        "data": str(data),
        "conversations": len(conversations),
        "events": events,
        "verdicts": dict(sorted(verdicts.items())),
        "destructive": destructive,
        "seconds": time.perf_counter() - started,
    }


def render(record: dict[str, Any]) -> str:
    lines = [
        f"# LoCoMo events as diaries, {record['date']}",
        "",
        f"{record['events']} annotated events (`event_summary`) of {record['conversations']} "
        "conversations, each speaker's retained in time order as one diary (\"<Speaker>: On "
        '<date>, <event>"). Two annotated events are two things that happened: every change '
        "verdict against an earlier one is destructive (target 0).",
        "",
        "| verdicts | destructive |",
        "|---|---|",
        f"| {', '.join(f'{k} {v}' for k, v in record['verdicts'].items())} | "
        f"{len(record['destructive'])} |",
        "",
    ]
    lines.extend(
        f'- {d["verdict"]}: "{d["new"]}" -> "{d["old"]}" ({d["reason"]})'
        for d in record["destructive"]
    )
    lines += ["", f"Wall {record['seconds']:.0f} s."]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.locomo.events", description=__doc__)
    p.add_argument("--data", default=str(data_mod.DEFAULT_DATA))
    p.add_argument("--out", default=str(RESULTS_DIR))
    args = p.parse_args(argv)
    record = measure(Path(args.data))
    write_result(args.out, "locomo-events", record, render(record))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
