"""Categories (Clotho): every memory tagged from a controlled, growing vocabulary per bank.

A bank's vocabulary is a list of categories, each a canonical name ("corn harvest") and the
near-synonyms folded into it as aliases ("corn crop"). Tagging one memory, in order:

1. **Phrases.** The offline noun-phrase rule (``phrases``): maximal runs of content words
   (no stopword, no number, no name the memory mentions as an entity, no word in verb
   position right after a pronoun, an auxiliary or "to"), with leading and trailing words that
   end like a participle or an adverb (-ing, -ed, -ly) trimmed off; of each run, its last two
   words (a head noun and its modifier: "syrup prices" in "corn syrup prices") and, for a run
   of three or more, its first two ("corn syrup"). Each word is singularised by a plain rule.
2. **Match.** Each phrase is looked up in the vocabulary's embedding space (``Space``: the
   service embeds names, aliases and phrases; this module only compares). The nearest entry
   at or above ``VocabularyPolicy.match_floor`` (cosine) is the phrase's category; a phrase
   that is not yet a name or alias of it is folded in as an alias, so the next spelling
   matches it too.
3. **Mint.** A phrase that matches nothing mints a category named after it, while the
   vocabulary is below ``VocabularyPolicy.cap``.
4. **Cap.** At the cap a phrase that matches nothing is assigned the nearest category
   whatever its score (a memory is never left untagged because the vocabulary is full), and
   the miss is recorded (phrase, nearest category, score), so a person sees what the cap cost.

A memory takes at most ``VocabularyPolicy.per_memory`` categories: its two-word phrases
first, then single words, each in text order. The result is deterministic for the same
memories in the same order and the same space.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from mneme.core.wordlists import STOPWORDS

_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*|\d[\d.,:%]*|[.;:!?,()\"]")
#: Words after which the next word is in verb position ("they *harvest*", "to *raise*").
_VERB_POSITION = frozenset(
    (
        "i", "you", "he", "she", "we", "they", "it", "to", "will", "would", "can", "could",
        "should", "may", "might", "must", "shall", "has", "have", "had", "do", "does", "did",
        "don't", "doesn't", "didn't", "not", "never", "also", "just",
    )
)  # fmt: skip
#: Prepositions and conjunctions the stopword list leaves out: never part of a noun phrase.
_FUNCTION = frozenset(
    (
        "since", "among", "across", "per", "via", "unless", "though", "although", "despite",
        "near", "beside", "besides", "onto", "whose", "within", "throughout", "beyond",
    )
)  # fmt: skip
#: Endings of words that are rarely the head or the first modifier of a noun phrase.
_EDGE_ENDINGS = ("ing", "ed", "ly")
_NEVER_SINGULAR = ("ss", "us", "is", "ics", "news")


@dataclass(frozen=True, slots=True)
class VocabularyPolicy:
    """How a bank's vocabulary grows: ``match_floor`` (the cosine at which a phrase is an
    existing category), ``cap`` (the most categories a bank holds), ``per_memory`` (the most
    categories one memory takes)."""

    match_floor: float = 0.8
    cap: int = 2000
    per_memory: int = 6

    def __post_init__(self) -> None:
        if not 0.0 < self.match_floor <= 1.0:
            raise ValueError(f"match_floor must be in (0, 1], not {self.match_floor}")
        if not 1 <= self.cap <= 100_000:
            raise ValueError(f"cap must be between 1 and 100000, not {self.cap}")
        if not 1 <= self.per_memory <= 16:
            raise ValueError(f"per_memory must be between 1 and 16, not {self.per_memory}")


class Space(Protocol):
    """The embedding space of a vocabulary, as the service holds it: names and aliases, each
    pointing at its category's name. ``nearest`` answers the best entry for a phrase and its
    cosine (None when the space is empty); ``add`` puts a phrase under a category."""

    def nearest(self, phrase: str) -> tuple[str, float] | None: ...
    def add(self, category: str, phrase: str) -> None: ...


@dataclass(frozen=True, slots=True)
class Term:
    """One category of a vocabulary: its name and the phrases folded into it."""

    name: str
    aliases: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Miss:
    """A phrase that matched no category while the vocabulary was at its cap."""

    unit_id: str
    phrase: str
    assigned: str
    score: float


@dataclass(frozen=True, slots=True)
class Tagging:
    """What tagging some memories decided: categories per memory, categories minted (name ->
    the memory it was minted from), aliases folded (name -> new aliases), misses at the cap."""

    tags: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    minted: Mapping[str, str] = field(default_factory=dict)
    aliases: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    misses: tuple[Miss, ...] = ()


def singular(word: str) -> str:
    """A plain singular: "prices" -> "price", "harvests" -> "harvest", "cities" -> "city"."""
    if len(word) <= 3 or word.endswith(_NEVER_SINGULAR):
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("ches", "shes", "xes", "sses")):
        return word[:-2]
    if word.endswith("s"):
        return word[:-1]
    return word


def _runs(text: str, names: frozenset[str]) -> list[list[str]]:
    runs: list[list[str]] = []
    run: list[str] = []
    previous = ""
    for token in _WORD.findall(text):
        low = token.lower().strip("'-")
        content = (
            token[0].isalpha()
            and len(low) > 2
            and low not in STOPWORDS
            and low not in _FUNCTION
            and low not in names
            and previous not in _VERB_POSITION
            and "'" not in low
        )
        if content:
            run.append(low)
        elif run:
            runs.append(run)
            run = []
        previous = low
    if run:
        runs.append(run)
    return runs


def _trim(run: list[str]) -> list[str]:
    start, end = 0, len(run)
    while start < end and run[start].endswith(_EDGE_ENDINGS):
        start += 1
    while end > start and run[end - 1].endswith(_EDGE_ENDINGS):
        end -= 1
    return run[start:end]


def phrases(text: str, entities: Iterable[str] = ()) -> list[str]:
    """The candidate category phrases of a memory without repeats: the phrases of two words
    first (a modifier and its head say more than a word alone), each kind in text order."""
    names = frozenset(w.lower() for name in entities for w in re.findall(r"[A-Za-z']+", name))
    out: list[str] = []
    for raw in _runs(text, names):
        run = [singular(w) for w in _trim(raw)]
        if not run:
            continue
        found = [" ".join(run[-2:])]
        if len(run) >= 3:
            found.insert(0, " ".join(run[:2]))
        out.extend(p for p in found if p not in out)
    return sorted(out, key=lambda p: " " not in p)


def tag(
    memories: Sequence[tuple[str, Sequence[str]]],
    vocabulary: Sequence[Term],
    space: Space,
    policy: VocabularyPolicy,
) -> Tagging:
    """Categories for each memory (unit id, its phrases), matching, folding and minting
    against the vocabulary as it grows. ``space`` must hold the vocabulary's names and
    aliases already; it is extended with what this call mints and folds."""
    known: dict[str, set[str]] = {t.name: {t.name, *t.aliases} for t in vocabulary}
    size = len(known)
    tags: dict[str, tuple[str, ...]] = {}
    minted: dict[str, str] = {}
    aliases: dict[str, list[str]] = {}
    misses: list[Miss] = []
    said = Counter(p for _, found in memories for p in set(found) if " " in p)
    for unit_id, found in memories:
        chosen: list[str] = []
        for phrase in found:
            if len(chosen) >= policy.per_memory:
                break
            near = space.nearest(phrase)
            if (near is None or near[1] < policy.match_floor) and said[phrase] < 2:
                # A compound said once names nothing another memory says: its head does.
                phrase = phrase.rsplit(" ", 1)[-1]
                near = space.nearest(phrase)
            if near is not None and near[1] >= policy.match_floor:
                category = near[0]
                if phrase not in known[category]:
                    known[category].add(phrase)
                    aliases.setdefault(category, []).append(phrase)
                    space.add(category, phrase)
            elif size < policy.cap and phrase not in known:
                category = phrase
                known[category] = {phrase}
                minted[category] = unit_id
                size += 1
                space.add(category, phrase)
            elif near is not None:
                category = near[0]
                misses.append(Miss(unit_id, phrase, category, round(near[1], 4)))
            else:
                continue
            if category not in chosen:
                chosen.append(category)
        tags[unit_id] = tuple(chosen)
    return Tagging(tags, minted, {k: tuple(v) for k, v in aliases.items()}, tuple(misses))
