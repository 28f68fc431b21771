"""What a conversation brings up: the new things its speakers introduce.

A speaker who asks for "a bus" after talking about a rental car has started on another thing:
a date they say next ("I am departing on the 12th.") is the bus's, not a change of the car's
pickup date, however alike the two statements read. A change of value is a change only within
one thing talked about.

A thing is *brought up* when a speaker introduces it with an indefinite article ("a bus", "an
hotel room", "a one way flight": its head noun, the phrase's last word that is no stop word)
and no one in the conversation has said that word before. Introducing is what the article
says; "the weather" or "that hotel" refers to something (measured: counting definite phrases
too cost three times the updates it saved, ADR 0071). A phrase whose head is a change cue ("a
change of plans") or that counts ("a party of four") brings up nothing. A thing added with
"too" is brought up without an article ("I'll need rental car too", ADR 0079). A value ends a
phrase and is never its head ("a compact car Saturday" brings up a car, "a Psychiatrist" nothing:
the value is what is said of a thing; ADR 0080).

A speaker *comes back* to a thing when they point at one they brought up earlier with a
demonstrative ("let's book that hotel") after talking of another ("the weather on the 9th"):
what they say next is the thing's they came back to (ADR 0082).

Pure: the caller hands over the conversation's statements in time order.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from mneme.core.categories import singular
from mneme.core.statements import CHANGE_MARKER, CUE, analyze
from mneme.core.values import MASK_WORD, NUMBER_WORDS
from mneme.core.wordlists import (
    ADJECTIVE_PREPS,
    ARTICLES,
    ASKING_WORDS,
    AUX,
    COPULAS,
    PRONOUNS,
    STOPWORDS,
    SUBJECT_PREPS,
)

_WORD = re.compile(r"[A-Za-z][A-Za-z'’-]*|\d+|[^\sA-Za-z\d]")
_INDEFINITE = frozenset(("a", "an"))
_DEMONSTRATIVES = frozenset(("that", "this", "those", "these"))
_JOINING = frozenset((
    "they", "it", "him", "them", "us", "and", "or", "but", "so", "if", "because", "than",
    "as", "that", "which", "who", "whom", "where", "when", "there", "here", "then", "please",
))  # fmt: skip
#: Function words that end a noun phrase: prepositions, articles, auxiliaries, pronouns,
#: conjunctions and relatives (closed classes).
_BOUNDARY = (
    ADJECTIVE_PREPS | SUBJECT_PREPS | ARTICLES | COPULAS | AUX | frozenset(PRONOUNS) | _JOINING
)


@dataclass(frozen=True, slots=True)
class Said:
    """One statement of a conversation: its text (with any "Speaker: " prefix) and when."""

    text: str
    when: dt.datetime | None


@lru_cache(maxsize=4096)
def introduced(text: str) -> tuple[str, ...]:
    """The head nouns of the indefinite noun phrases of a text, singular, lower case: "I'd
    like a rental car and a one way flight" gives ("car", "flight"). A phrase runs from the
    article to the first function word (a preposition, an article, a pronoun, an auxiliary,
    a conjunction) or punctuation; its head is its last word that is no stop word ("a one
    way *flight* there")."""
    return tuple(p.head for p in _phrases(text, _INDEFINITE, added=True))


@lru_cache(maxsize=4096)
def named_things(text: str) -> tuple[Phrase, ...]:
    """Every noun phrase of a text opened by an article or a demonstrative ("the weather",
    "a hotel", "that hotel room"), read as :func:`introduced` reads the indefinite ones."""
    return _phrases(text, ARTICLES, added=False)


@dataclass(frozen=True, slots=True)
class Phrase:
    """A noun phrase: its head, its content words (singular, lower case) and whether a
    demonstrative opened it ("that hotel room": pointing back at a thing said before)."""

    head: str
    words: frozenset[str]
    back: bool


def _phrases(text: str, openers: frozenset[str], *, added: bool) -> tuple[Phrase, ...]:
    said = analyze(text)
    found = list(_WORD.finditer(said.body))
    # A word inside a value ("a compact car Saturday", "a Psychiatrist") is no part of a
    # phrase's head: the value is what is said of a thing, not the thing.
    valued = [any(v.start < m.end() and m.start() < v.end for v in said.values) for m in found]
    said_words = [m.group(0) for m in found]
    words = [w if not inside else "," for w, inside in zip(said_words, valued, strict=True)]
    out: list[Phrase] = []
    for i, w in enumerate(words):
        if added and w.casefold() == "too" and i > 1 and _thing_before(words, i):
            # "I'll need rental car too": what is added is a thing of its own, article or not
            head = singular(words[i - 1].casefold())
            out.append(Phrase(head, frozenset((singular(words[i - 2].casefold()), head)), False))
            continue
        if w.casefold() not in openers:
            continue
        run: list[str] = []
        for nxt in words[i + 1 :]:
            low = nxt.casefold()
            if not nxt[:1].isalpha() or low in _BOUNDARY or CHANGE_MARKER.fullmatch(low):
                break  # a change marker ends the phrase: "a round trip instead"
            run.append(low)
        after = [w.casefold() for w in said_words[i + 1 + len(run) : i + 3 + len(run)]]
        if len(after) == 2 and after[0] == "of" and _is_number(after[1]):
            continue  # "a party of four", "a group of 3": how many, not a thing
        content = [singular(r) for r in run if r not in STOPWORDS]
        if content:
            back = w.casefold() in _DEMONSTRATIVES
            out.append(Phrase(content[-1], frozenset(content), back))
    return tuple(out)


def _thing_before(words: list[str], i: int) -> bool:
    """Whether the word before ``words[i]`` ends a noun phrase of two content words ("rental
    car too"), no function word among them."""
    a, b = words[i - 2].casefold(), words[i - 1].casefold()
    return all(w[:1].isalpha() and w not in _BOUNDARY and w not in STOPWORDS for w in (a, b))


def _is_number(word: str) -> bool:
    return word.isdigit() or word in NUMBER_WORDS


def _words(text: str) -> set[str]:
    return {singular(w.casefold()) for w in _WORD.findall(text) if w[:1].isalpha()}


@dataclass(frozen=True, slots=True)
class Introduction:
    """A thing a speaker brought up, and when."""

    head: str
    when: dt.datetime


#: The words for the kinds of value ("a time", "a number"): a phrase they head names a value,
#: not a thing that holds one. "look for a different time, like 14:45" brings up the time it
#: asks for, and "Do you have a contact number for them?" brings up nothing a table's time
#: could be said of.
_KIND_WORDS = frozenset(w.split()[-1] for w in MASK_WORD.values())


def introductions(conversation: Sequence[Said], author: str | None) -> tuple[Introduction, ...]:
    """The things ``author`` brought up in ``conversation`` (time order): heads of the
    indefinite phrases no one had said before, each with when it was said (a statement said at
    an unknown time introduces nothing), but a head that names a kind of value or an asking
    ("take a look at Tiburon": the look is the asking, not a thing the place is of)."""
    seen: set[str] = set()
    out: list[Introduction] = []
    for said in conversation:
        statement = analyze(said.text)
        if said.when is not None and statement.author == author:
            out += [
                Introduction(h, said.when)
                for h in dict.fromkeys(introduced(said.text))
                if h not in seen
                and CUE.fullmatch(h) is None
                and h not in _KIND_WORDS
                and h not in ASKING_WORDS
            ]
        seen |= _words(statement.body)
    return tuple(out)


def brought_up(things: Sequence[Introduction], since: dt.datetime | None) -> tuple[str, ...]:
    """The heads of ``things`` brought up after ``since`` (strictly later), in order; none
    when ``since`` is unknown."""
    return () if since is None else tuple(t.head for t in things if t.when > since)


@dataclass(frozen=True, slots=True)
class Mention:
    """A thing a speaker named with an article or a demonstrative, and when."""

    phrase: Phrase
    when: dt.datetime


def mentions(conversation: Sequence[Said], author: str | None) -> tuple[Mention, ...]:
    """The things ``author`` named in ``conversation`` (time order), each phrase opened by an
    article or a demonstrative; a statement said at an unknown time names nothing."""
    out: list[Mention] = []
    for said in conversation:
        if said.when is not None and analyze(said.text).author == author:
            out += [Mention(p, said.when) for p in named_things(said.text)]
    return tuple(out)


def returned_to(
    things: Sequence[Introduction], named: Sequence[Mention], since: dt.datetime | None
) -> tuple[str, ...]:
    """The things the author brought up by ``since`` and pointed back at after it with a
    demonstrative ("Let's book that hotel."), when the last thing they named by ``since`` was
    another ("the weather"): the author left that thing for one talked about before, so what
    they say next is of the thing they came back to. None when ``since`` is unknown."""
    if since is None:
        return ()
    before = [m for m in named if m.when <= since]
    if not before:
        return ()
    current = before[-1].phrase.head
    earlier = {t.head for t in things if t.when <= since} - {current}
    out: list[str] = []
    for m in named:
        if m.when > since and m.phrase.back and current not in m.phrase.words:
            out += sorted(m.phrase.words & earlier)
    return tuple(dict.fromkeys(out))
