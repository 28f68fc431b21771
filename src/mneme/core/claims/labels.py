"""Labels before a colon: "Status: blocked" (the label's value), "Key log: the key is with
Priya" (a clause under a label), and labels that name an event ("Incident 6068: ...").

A label that names an event by an identifier opens the subject (``incident 6068 service``), so
two incidents of one service are two subjects.
"""

from __future__ import annotations

import re

from mneme.core.claims.amounts import IDENTIFIER
from mneme.core.claims.clauses import read_clause, split_fronted
from mneme.core.claims.dates import DATE
from mneme.core.claims.normal_forms import clean_value, normal_words
from mneme.core.claims.predicates import Draft
from mneme.core.claims.subjects import names_a_subject, subject_name
from mneme.core.wordlists import (
    AUX,
    COPULAS,
    ID_NOUNS,
    MONTHS,
    NOT_EVENT_LABELS,
    RELATIVE_TIME,
    WEEKDAYS,
)

_COLON = re.compile(r"^([^:]{2,60}?)\s*:\s+(.+)$")
#: "Status: blocked", "Owner: Priya Nair": a label's value is a few words, not a clause.
_LABEL_VALUE_WORDS = 6


def colon_claim(low: str, speaker: str | None) -> tuple[str, Draft] | None:
    """ "Status: blocked", "Incident 6068: resolved": the label is the subject, the few words
    after the colon its value; None for anything else (a clause after a label:
    :func:`labelled_clause`)."""
    m = _COLON.match(low)
    if not m:
        return None
    left = normal_words(m.group(1))
    if not _is_label(left):
        return None
    right = normal_words(m.group(2))
    label = _event_label(left)
    clause = (
        len(right) > _LABEL_VALUE_WORDS
        or any(w in COPULAS or w in AUX for w in right)
        or (bool(right) and right[0].endswith("ed"))
    )
    if label is None and clause:
        # "log: restarted the ingest worker after OOM": a label on a line says what kind of
        # line follows, not that the line is the label's value.
        return None
    name = label or subject_name(left, speaker)[0]
    return name, Draft("is", clean_value(right))


def _is_label(left: list[str]) -> bool:
    """A few words before a colon that name a label, not a clause ("Key log", "Status")."""
    return bool(left) and len(left) <= 6 and not any(w in COPULAS or w in AUX for w in left)


def _event_label(left: list[str]) -> str | None:
    """ "Incident 6068", "Ticket OPS-12", "Order #7", "INC-1234": a label that names one event
    or item by an identifier, normalized ("order 7"); None for any other label, and for labels
    that say when ("May 3", "Week 2", "2024-05-03") or what kind of text follows ("Update 2",
    "Note 3": wordlists.NOT_EVENT_LABELS). The label is part of the subject of the clause after
    it, so that two incidents of one service never share a slot."""
    if not left or len(left) > 3:
        return None
    *head, ident = left
    if not any(ch.isdigit() for ch in ident):
        return None
    if DATE.fullmatch(ident) and not (head and head[-1] in ID_NOUNS):
        return None  # "2024-05-03", "10:30", "Summer 2023"; but "Incident 1989" is a name
    if not head:
        return ident.lstrip("#") if IDENTIFIER.match(ident) else None
    timely = MONTHS | WEEKDAYS | RELATIVE_TIME | NOT_EVENT_LABELS
    if not all(w.isalpha() and w not in timely for w in head):
        return None
    return " ".join([*head, ident.lstrip("#")])


def labelled_clause(low: str, speaker: str | None) -> tuple[str, Draft] | None:
    """ "Key log: the master key is with Priya": a label, then a whole clause; the clause's
    claim (the label says where it comes from, not what it is about)."""
    m = _COLON.match(low)
    if not m or not _is_label(normal_words(m.group(1))):
        return None
    rest = m.group(2)
    if _COLON.match(rest):
        return None
    words, _ = split_fronted(normal_words(rest))
    found = read_clause(words, speaker, False)
    if found is None or not names_a_subject(found[0]):
        return None
    label = _event_label(normal_words(m.group(1)))
    if label is not None and not found[0].startswith(label):
        return f"{label} {found[0]}", found[1]  # "incident 6068 heron-72 service"
    return found
