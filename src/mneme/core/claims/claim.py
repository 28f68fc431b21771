"""The claim: the slot a sentence fills (subject and attribute) and the value it puts there."""

from __future__ import annotations

from dataclasses import dataclass

from mneme.core.wordlists import STOPWORDS


@dataclass(frozen=True)
class Claim:
    """One subject-attribute-value claim read from an atom.

    ``numbers`` holds every amount in the atom as digits (number words and ordinals included;
    identifiers such as "heron-72" or "ticket 42" are names, not amounts: see
    :func:`is_identifier`); ``dates`` the date and time expressions (normalized text).
    ``change`` is true when the atom says something changed ("moved to", "now", "no longer",
    "switched to", "instead").
    """

    subject: str
    attribute: str
    value: str
    negated: bool
    numbers: tuple[str, ...]
    dates: tuple[str, ...]
    change: bool
    text: str


def claim_slot(claim: Claim) -> tuple[str, str]:
    """The slot a claim fills: (subject, attribute). Same slot, other value: a conflict."""
    return claim.subject, claim.attribute


def same_value(a: Claim, b: Claim) -> bool:
    """Whether two claims put the same value in their slot (word order and articles ignored)."""
    if a.value == b.value:
        return True
    wa, wb = value_words(a.value), value_words(b.value)
    return bool(wa) and wa == wb


def value_words(value: str) -> frozenset[str]:
    """Content words of a value: stopwords dropped, numbers kept."""
    return frozenset(w for w in value.split() if w not in STOPWORDS or w[:1].isdigit())
