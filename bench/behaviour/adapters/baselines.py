"""Reference baselines (labelled reference_baseline_not_a_product): what memory looks like
without a memory system.

- ``transcript``: an append-only log of every event, shared by every agent. The answer is every
  event whose content shares a content word with the query, most recent first, each prefixed with
  its date; the citations are those events; no contradiction is ever reported. Actions (reject,
  restore, retract) cannot be applied to an append-only log and are ignored, and visibility is
  not known to a plain log.
- ``window30``: the same, over the events of the 30 days before the query time only (a
  context-window memory).
"""

from __future__ import annotations

import datetime as dt
import re

from bench.behaviour.adapters import BASELINE
from bench.behaviour.model import Case, Event, Prediction
from bench.behaviour.score import normalize

#: Words too common to count as sharing a topic (the query's question words and glue).
_STOP = """a an and are as at be been but by can could did do does for from had has have he her
his how i if in into is it its me my no not now of on or our she so than that the their them then
there these they this to us was we were what when where which who whom why will with would you
your about any still currently current"""
STOP_WORDS = frozenset(_STOP.split())

_WORD = re.compile(r"\w+")


def content_words(text: str) -> set[str]:
    return {w for w in _WORD.findall(normalize(text)) if w not in STOP_WORDS}


def render(event: Event) -> str:
    return f"[{event.time.date().isoformat()}] {event.content}"


class TranscriptBaseline:
    """Every event that shares a content word with the query, newest first."""

    label = BASELINE

    def __init__(self, name: str = "transcript", window: dt.timedelta | None = None) -> None:
        self.name = name
        self.window = window

    def predict(self, case: Case) -> Prediction:
        words = content_words(case.query.text)
        now = case.query.time
        chosen = [
            e
            for e in case.events
            if e.time <= now
            and (self.window is None or e.time >= now - self.window)
            and words & content_words(e.content)
        ]
        chosen.sort(key=lambda e: e.time, reverse=True)
        return Prediction(
            answer="\n".join(render(e) for e in chosen),
            citations=tuple(e.event_id for e in chosen),
            contradictions=(),
        )

    def close(self) -> None:
        pass


def transcript() -> TranscriptBaseline:
    return TranscriptBaseline("transcript")


def window30() -> TranscriptBaseline:
    return TranscriptBaseline("window30", window=dt.timedelta(days=30))
