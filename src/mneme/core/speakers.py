"""Transcript speakers: the ``Name: ...`` prefix of a line, who it names, the line without it.

A conversation reaches the write path as lines such as "Dana: I moved to Porto." The prefix says
who spoke, not what was said: atomization puts it back on every atom of the line, a claim's
first person becomes the speaker, and neither entity mentions nor classification read it as part
of the text. A label such as "Note:" or "Update:" looks the same and names no one
(:data:`mneme.core.wordlists.NON_NAMES`).
"""

from __future__ import annotations

import re

from mneme.core.wordlists import NON_NAMES

SPEAKER = re.compile(r"^\s*(?P<name>[A-Z][a-z][\w'’-]*(?:\s+[A-Z][a-z][\w'’-]*){0,2}):\s+")


def split_speaker(text: str) -> tuple[str | None, str]:
    """The speaker of a transcript line ``Name: ...`` and the line after the prefix.

    ``(None, text)`` when the line has no speaker (labels like "Note:" excluded).
    """
    m = SPEAKER.match(text)
    if not m or any(w.casefold() in NON_NAMES for w in m.group("name").split()):
        return None, text
    return m.group("name"), text[m.end() :]


def speaker_of(text: str) -> str | None:
    """The speaker of a transcript line ``Name: ...``, or None (labels like "Note:" excluded)."""
    return split_speaker(text)[0]


def strip_speaker(text: str) -> str:
    """The line without its speaker prefix (the line itself when it has none)."""
    return split_speaker(text)[1]
