"""Subjects: where a clause's subject noun phrase ends, and its normal form.

First person ("I", "me", "my X") is ``user`` / ``user X``, or the transcript speaker's name;
articles and possessive markers are dropped ("Tom's brother" -> ``tom brother``) and "the A of
the B" becomes ``b a``.
"""

from __future__ import annotations

from dataclasses import dataclass

from mneme.core.claims.verb_forms import base_of, is_verb
from mneme.core.wordlists import (
    ADVERBS,
    ARTICLES,
    AUX,
    BASE_VERBS,
    COPULAS,
    INTERJECTIONS,
    NOT_NOUNS,
    POSSESSIVE_DETS,
    PRONOUNS,
    RELATIONS,
    SUBJECT_PREPS,
    VAGUE_SUBJECTS,
)

#: The longest subject noun phrase read ("the combination of the red cargo bike lock"); one
#: longer than _SHORT_SUBJECT words is read only before a copula.
MAX_SUBJECT_WORDS = 10
_SHORT_SUBJECT = 7


#: Coordinating conjunctions, which may open a sentence but never a subject.
_CONJUNCTIONS = frozenset(["and", "but", "or", "so", "yet", "nor"])


@dataclass(frozen=True)
class Subject:
    """A clause's subject: its normal form, whether it names a person, and where it ends."""

    name: str
    person: bool
    end: int  # index of the first word after the subject


def _is_noun_modifier(word: str, nxt: str) -> bool:
    """Whether a verb-looking word is a noun inside the subject ("the release train leaves").

    It is when the next word is itself a finite verb: a copula, an auxiliary or a verb in the
    third person ("cache lives", "lead is"), or a participle before a copula ("stored ... are").
    """
    if word in COPULAS or word in AUX or word in ADVERBS or word in NOT_NOUNS:
        return False
    if nxt in COPULAS or nxt in AUX or nxt in {"has", "have"}:
        return True
    if word.endswith("s"):
        return False  # "Lena prefers trains": a verb in the third person, then its object
    base = base_of(nxt)
    return base is not None and nxt != base and nxt.endswith("s") and not word.endswith("ed")


def subject_name(np: list[str], speaker: str | None) -> tuple[str, bool]:
    """Normalize a subject noun phrase; second value: whether it names a person."""
    words: list[str] = []
    person = False
    for i, w in enumerate(np):
        if w in {"my", "i", "me"} or (w == "user" and i == 0):
            words.append(speaker or "user")
            person = True
        elif w in ARTICLES and not (i == 0 and len(np) > 1 and np[1] == "user"):
            continue
        elif w.endswith("'s") or w.endswith("s'"):
            words.append(w[:-2] if w.endswith("'s") else w[:-1])
        elif w in PRONOUNS and i == 0:
            words.append(PRONOUNS[w] if w not in {"i", "me"} else speaker or "user")
            person = w != "it"
        elif w not in ARTICLES:
            words.append(w)
    preps = [i for i, w in enumerate(words) if w in SUBJECT_PREPS and 0 < i < len(words) - 1]
    if len(preps) == 1:
        k = preps[0]
        words = words[k + 1 :] + words[:k]
    if words and words[-1] in RELATIONS:
        person = True
    return " ".join(words), person


def find_subject(words: list[str], speaker: str | None, capitalized: bool) -> Subject | None:
    """The subject noun phrase at the start of a clause's words, or None."""
    if not words:
        return None
    first = words[0]
    if first in _CONJUNCTIONS and len(words) > 1:
        # "But it's a dream come true", "And Tom lives in Berlin": a conjunction that opens a
        # sentence joins it to the one before; it is no part of the subject.
        found = find_subject(words[1:], speaker, capitalized)
        return None if found is None else Subject(found.name, found.person, found.end + 1)
    if first in PRONOUNS:
        name, _ = subject_name([first], speaker)
        return Subject(name, first != "it", 1)
    determined = first in ARTICLES or first in {"my", "our", "your"} or first in POSSESSIVE_DETS
    return _subject_from(words, 2 if determined else 1, speaker, capitalized)


def _subject_from(
    words: list[str], start: int, speaker: str | None, capitalized: bool
) -> Subject | None:
    """The subject noun phrase ends at the first verb from ``start`` on (see find_subject)."""
    first = words[0]
    limit = min(len(words), MAX_SUBJECT_WORDS + 1)
    for k in range(start, limit):
        w = words[k]
        nxt = words[k + 1] if k + 1 < len(words) else ""
        if w in ADVERBS or w in {"no", "now"} or is_verb(w) or _past_before_to(w, nxt):
            if _is_noun_modifier(w, nxt) or w.endswith("ing"):
                continue
            if _noun_before_of(words, k):
                # "The Pro plan of Stackly costs ...": a noun, when a verb follows the "of"
                # phrase; otherwise the verb it looked like ("My parents think of moving").
                longer = _subject_from(words, k + 2, speaker, capitalized)
                if longer is not None:
                    return longer
            if k >= _SHORT_SUBJECT and w not in COPULAS:
                return None  # a long subject only before "is" ("the owner of the X Y is")
            np = words[:k]
            name, person = subject_name(np, speaker)
            if not name:
                return None
            if capitalized and first not in ARTICLES and first not in {"my", "our", "your"}:
                person = person or first not in POSSESSIVE_DETS
            return Subject(name, person, k)
    return None


def _past_before_to(word: str, nxt: str) -> bool:
    """A past tense the word lists do not know, before "to": "Dana promised to fix it", "Ravi
    agreed to review it". The subject ends before it."""
    if nxt != "to" or len(word) <= 4 or not word.isalpha() or not word.endswith("ed"):
        return False
    return not word.endswith("eed") and word != "hundred"  # "the upload speed to Oslo"


def _noun_before_of(words: list[str], k: int) -> bool:
    """Whether a verb-looking word in its base form heads an "of" phrase ("the plan of X",
    "the use of Y"): a noun, unless a gerund follows ("think of moving")."""
    w = words[k]
    if w not in BASE_VERBS or w in NOT_NOUNS or words[k + 1 : k + 2] != ["of"]:
        return False
    after = words[k + 2] if k + 2 < len(words) else ""
    return bool(after) and not (after.endswith("ing") and base_of(after) is not None)


def names_a_subject(subject: str) -> bool:
    """Whether a subject names something: no interjection ("wow"), no vague subject ("it")."""
    words = subject.split()
    return bool(words) and words[0] not in INTERJECTIONS and subject not in VAGUE_SUBJECTS
