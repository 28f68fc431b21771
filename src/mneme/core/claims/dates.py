"""Date and time expressions in a claim's text, and values that only say when."""

from __future__ import annotations

import re

from mneme.core.wordlists import ARTICLES, TIME_WORDS

DATE = re.compile(
    r"\b(?:\d{1,2}(?:st|nd|rd|th)?\s+(?:of\s+)?(?:january|february|march|april|may|june|july|"
    r"august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|"
    r"dec)(?:\s+\d{4})?|(?:january|february|march|april|may|june|july|august|september|october|"
    r"november|december)\s+\d{1,2}(?:st|nd|rd|th)?(?:,?\s+\d{4})?|\d{4}-\d{2}-\d{2}|"
    r"(?:19|20)\d\d|\d{1,2}:\d{2}(?:\s*(?:am|pm))?|\d{1,2}\s*(?:am|pm)|"
    r"monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b"
)


def dates_of(text: str) -> tuple[str, ...]:
    """The date and time expressions in a text, in order."""
    return tuple(m.group(0) for m in DATE.finditer(text))


def names_a_time(value: str) -> bool:
    """Whether a value is only a date or a time ("6 october", "friday at 10:00")."""
    return bool(value) and DATE.search(value) is not None and is_time_only(value)


def is_time_only(value: str) -> bool:
    """Whether a complement only says when ("on Thursday at 4 pm"), not where."""
    rest = DATE.sub(" ", value).split()
    return all(w in TIME_WORDS or w[:1].isdigit() or w in ARTICLES for w in rest)
