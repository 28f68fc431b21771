"""The LoCoMo events bench: diaries read from event summaries (no model, no store)."""

from __future__ import annotations

import datetime as dt
import sys
from pathlib import Path

_ROOT = str(Path(__file__).resolve().parents[2])
if _ROOT not in sys.path:
    sys.path.insert(0, _ROOT)

from bench.locomo.events import _text, diaries, render  # noqa: E402


def test_a_diary_holds_each_speakers_events_in_session_order_with_the_sessions_date():
    conv = {
        "event_summary": {
            "events_session_10": {"Ann": ["Ann adopts a cat."], "Bo": [], "date": "20 July, 2023"},
            "events_session_2": {
                "Ann": ["Ann moves house.", " "],
                "Bo": ["Bo runs."],
                "date": "8 May, 2023",
            },
        }
    }
    got = diaries(conv)
    may, july = dt.datetime(2023, 5, 8, tzinfo=dt.UTC), dt.datetime(2023, 7, 20, tzinfo=dt.UTC)
    # session 2 before session 10 (numeric order), blank events dropped
    assert got == {
        "Ann": [(may, "Ann moves house."), (july, "Ann adopts a cat.")],
        "Bo": [(may, "Bo runs.")],
    }
    assert _text("Ann", may, "Ann moves house.") == "Ann: On 8 May, 2023, Ann moves house."


def test_every_change_verdict_is_reported_as_destructive():
    record = {
        "date": "2026-12-05",
        "events": 2,
        "conversations": 1,
        "verdicts": {"ADD": 1, "SUPERSEDE": 1},
        "destructive": [{"verdict": "SUPERSEDE", "new": "b", "old": "a", "reason": "r"}],
        "seconds": 1.0,
    }
    md = render(record)
    assert "| ADD 1, SUPERSEDE 1 | 1 |" in md
    assert '- SUPERSEDE: "b" -> "a" (r)' in md
