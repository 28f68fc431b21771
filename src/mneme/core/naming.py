"""Naming categories with an LLM: what a proposed name must be, and what taking it changes.

The offline rule mints a category named after the phrase that missed the vocabulary ("syrup
price"). With an LLM configured (ADR 0058) the insight pass asks it, in one call per pass, for a
better name for each category it minted, given the phrase and the memory it came from. A
proposal is a name only when it is (``check``):

- a short noun phrase: one to ``MAX_WORDS`` words of letters (a hyphen inside a word allowed),
  at most ``MAX_CHARS`` characters, each word singularised by the vocabulary's rule;
- not only stopwords, and not a broad word (``BROAD``: a name every memory would fit carries no
  information for PMI, and the ADR 0056 amendment measured what broad categories cost);
- grounded: one of its words is in the memory or the phrase (a name says what the memory says,
  not a hypernym of it: "drought", not "weather").

An accepted name that is already a category's name or alias folds the minted category into that
one (the phrase becomes its alias); another one renames it, the phrase kept as an alias, so the
next memory that says the phrase matches it. A refused proposal leaves the offline name, with
the reason.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from mneme.core.categories import Tagging, Term, singular
from mneme.core.wordlists import STOPWORDS

MAX_WORDS = 3
MAX_CHARS = 40
#: Names that fit nearly any memory. Each one is what a model reaches for when it has nothing
#: specific to say; kept short on purpose (a validation list, not a vocabulary).
BROAD = frozenset(
    (
        "thing", "stuff", "topic", "category", "general", "misc", "miscellaneous", "other",
        "information", "info", "memory", "event", "item", "issue", "matter", "people",
        "person", "life", "something", "everything", "activity", "fact", "statement",
        "detail", "update", "note", "news",
    )
)  # fmt: skip
_WORD = re.compile(r"[a-z]+(?:-[a-z]+)*")


@dataclass(frozen=True, slots=True)
class Renaming:
    """What taking the accepted names decided: the new tagging, minted name -> the name it
    became (renamed or folded), and the refused proposals (phrase, why)."""

    tagging: Tagging
    named: Mapping[str, str]
    refused: tuple[tuple[str, str], ...] = ()


def normal(name: str) -> str | None:
    """The name as the vocabulary holds it (lower case, words singular), or None when it is
    not words of letters."""
    words = name.strip().lower().split()
    if not words or not all(_WORD.fullmatch(w) for w in words):
        return None
    return " ".join(singular(w) for w in words)


def check(proposal: str, phrase: str, text: str) -> tuple[str | None, str]:
    """(the name, "") when ``proposal`` may name the category minted from ``phrase`` in a
    memory saying ``text``; else (None, why)."""
    name = normal(proposal)
    if name is None:
        return None, f"{proposal!r} is not words of letters"
    words = name.split()
    if len(words) > MAX_WORDS or len(name) > MAX_CHARS:
        return None, f"{proposal!r} is longer than {MAX_WORDS} words or {MAX_CHARS} characters"
    content = [w for w in words if w not in STOPWORDS]
    if not content:
        return None, f"{proposal!r} is only stopwords"
    if all(w in BROAD for w in content):
        return None, f"{proposal!r} is too broad to tell memories apart"
    said = {singular(w) for w in _WORD.findall(f"{text} {phrase}".lower())}
    if not any(w in said for w in content):
        return None, f"{proposal!r} names nothing the memory says"
    return name, ""


def rename(
    tagging: Tagging,
    vocabulary: Sequence[Term],
    proposals: Mapping[str, str],
    texts: Mapping[str, str],
) -> Renaming:
    """Apply the model's ``proposals`` (minted name -> proposed name) to ``tagging``; ``texts``
    are the memories' texts by unit id. Proposals for names not minted are ignored."""
    owner = {p: t.name for t in vocabulary for p in (t.name, *t.aliases)}
    owner.update({name: name for name in tagging.minted})
    minted = dict(tagging.minted)
    aliases = {k: list(v) for k, v in tagging.aliases.items()}
    for category, extra in aliases.items():
        for p in extra:
            owner.setdefault(p, category)
    named: dict[str, str] = {}
    refused: list[tuple[str, str]] = []
    for phrase in list(tagging.minted):
        proposal = proposals.get(phrase)
        if proposal is None:
            continue
        name, why = check(proposal, phrase, texts.get(tagging.minted[phrase], ""))
        if name is None:
            refused.append((phrase, why))
            continue
        if name == phrase:
            continue
        unit_id = minted.pop(phrase)
        moved = [phrase, *aliases.pop(phrase, [])]
        target = owner.get(name, name)
        if target not in owner.values() and target not in minted:
            minted[target] = unit_id  # a new name: the category is minted under it
        aliases.setdefault(target, [])
        aliases[target].extend(p for p in moved if p != target and p not in aliases[target])
        for p in moved:
            owner[p] = target
        owner[name] = target
        named[phrase] = target
    tags = {
        uid: tuple(dict.fromkeys(named.get(c, c) for c in cats))
        for uid, cats in tagging.tags.items()
    }
    return Renaming(
        replace(
            tagging,
            tags=tags,
            minted=minted,
            aliases={k: tuple(v) for k, v in aliases.items() if v},
        ),
        named,
        tuple(refused),
    )
