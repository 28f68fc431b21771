"""Amounts and identifiers: the numbers a text gives, and the words with digits that name things.

Identifiers in a value ("the Quarry-338 rollout", "ticket 42") are names, not amounts
(:func:`is_identifier`): two values that differ in one are two values.
"""

from __future__ import annotations

import re

from mneme.core.claims.normal_forms import EDGE
from mneme.core.wordlists import ID_NOUNS


def mentions_amount(text: str) -> bool:
    """Whether a text has a digit outside identifiers ("Dana-12 is 30": yes; "Dana-12": no)."""
    prev = ""
    for raw in text.casefold().split():
        word = raw.strip(EDGE)
        if any(ch.isdigit() for ch in word) and not is_identifier(word, prev):
            return True
        prev = word
    return False


#: An identifier spelled as one word: letters, a hyphen and a number ("hw-579", "heron-72",
#: "eu-west-1", "inc-1234"), or a number after "#" ("#7").
IDENTIFIER = re.compile(r"^(?:#\w*\d[\w.-]*|[a-z]+(?:[-_][a-z]+)*[-_]\d[\w./-]*)$")


def is_identifier(word: str, previous: str = "") -> bool:
    """Whether a word with digits names one thing rather than giving an amount.

    "heron-72", "hw-579" and "#7" name things; so does a number after a noun that numbers
    things ("incident 6068", "ticket 42", "room 12": see wordlists.ID_NOUNS). Two values that
    differ in an identifier are two values, not one value with other numbers: "owns the
    Quarry-338 rollout" and "owns the Tessel-564 rollout" are two rollouts.
    """
    w = word.casefold().strip(EDGE + ":")
    if IDENTIFIER.match(w):
        return True
    return previous.casefold().strip(EDGE) in ID_NOUNS and any(ch.isdigit() for ch in w)


_NUMBER = re.compile(r"(?<![\w.])\d+(?:[.,:]\d+)*(?:st|nd|rd|th)?%?")
_DIGIT = re.compile(r"\d")


def numbers_of(words: list[str]) -> tuple[str, ...]:
    """The amounts among the words: numbers, but not identifiers ("heron-72", "ticket 42")."""
    out: list[str] = []
    prev = ""
    for w in words:
        # A word without a digit holds no amount (_NUMBER starts with one): not read further.
        if _DIGIT.search(w) and not is_identifier(w, prev):
            out += [re.sub(r"(st|nd|rd|th)$", "", m.group(0)) for m in _NUMBER.finditer(w)]
        prev = w
    return tuple(out)
