"""Phrases cut off the end of a value: a situational context, a time, a change word.

"I drink tea in the morning" puts ``tea`` in ``drinks@in the morning`` (the context becomes part
of the attribute); "I moved to Porto last year" and "I drink tea now" leave ``porto`` and ``tea``.
"""

from __future__ import annotations

import re

_CHANGE_TAIL = re.compile(
    r"(?:\s+(?:instead|anymore|any\s+more|now|these\s+days|nowadays|again|too|as\s+well|"
    r"instead\s+of\s+.*))+$"
)

_CONTEXT = re.compile(
    r"\s+((?:in\s+the\s+(?:morning|mornings|afternoon|afternoons|evening|evenings)|"
    r"at\s+(?:night|work|home|weekends|the\s+weekend)|"
    r"on\s+(?:weekends|weekdays|\w+days|long\s+flights|flights|trips|holiday|holidays|"
    r"vacation|workdays)|"
    r"for\s+(?:breakfast|lunch|dinner|dessert|work|fun)|"
    r"every\s+\w+(?:\s+\w+)?|during\s+\w+(?:\s+\w+)?|(?:before|after)\s+work|"
    r"when\s+\w+ing(?:\s+\w+)?))$"
)
CONTEXT_FORMS = {
    "every morning": "in the morning",
    "in the mornings": "in the morning",
    "every evening": "in the evening",
    "in the evenings": "in the evening",
    "every night": "at night",
    "at the weekend": "on weekends",
    "every weekend": "on weekends",
}
_TIME_TAIL = re.compile(
    r"\s+(?:(?:last|next|this)\s+(?:week|month|year|spring|summer|autumn|fall|winter|"
    r"monday|tuesday|wednesday|thursday|friday|saturday|sunday)|yesterday|today|tomorrow|"
    r"recently|lately|(?:in|since|from)\s+(?:(?:early|late|mid)\s+)?"
    r"(?:january|february|march|april|may|june|july|august|september|october|november|"
    r"december|\d{4})(?:\s+\d{4})?|\d+\s+(?:days|weeks|months|years)\s+ago)$"
)


def split_context(value: str) -> tuple[str, str]:
    """The value and its trailing situational phrase ("tea", "in the morning"), else (value, "")."""
    m = _CONTEXT.search(" " + value)
    if not m or m.start() == 0:
        return value, ""
    return (" " + value)[: m.start()].strip(), m.group(1)


def strip_time_tail(value: str) -> str:
    """The value without trailing time phrases ("porto last year" -> "porto")."""
    while True:
        m = _TIME_TAIL.search(" " + value)
        if not m or m.start() == 0:
            return value
        value = (" " + value)[: m.start()].strip()


def strip_change_tail(value: str) -> str:
    """The value without trailing change words ("tea instead" -> "tea", "tea now" -> "tea")."""
    return _CHANGE_TAIL.sub("", " " + value).strip()
