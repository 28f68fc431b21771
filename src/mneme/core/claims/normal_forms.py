"""Normal forms of text and words, so that paraphrases land on one slot.

Contractions expanded, edge punctuation dropped, British spellings made American (colour ->
color, organise -> organize), number words made digits ("six" -> "6", "third" -> "3rd").
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from mneme.core.wordlists import (
    ARTICLES,
    BRITISH_ISE,
    NUMBER_WORDS,
    ORDINALS,
    POSSESSIVE_DETS,
    SPELLING,
)

#: (literal, pattern, replacement): each pattern matches only where its literal occurs, and
#: no replacement writes an apostrophe, so a text without the literal is left as it is.
_CONTRACTIONS: tuple[tuple[str, re.Pattern[str], str], ...] = tuple(
    (lit, re.compile(p), r)
    for lit, p, r in (
        ("can't", r"\bcan't\b", "cannot"),
        ("won't", r"\bwon't\b", "will not"),
        ("n't", r"\b(\w+)n't\b", r"\1 not"),
        ("i'm", r"\bi'm\b", "i am"),
        ("'ve", r"\b(i|you|we|they)'ve\b", r"\1 have"),
        ("'d", r"\b(i|you|we|they|he|she)'d\b", r"\1 would"),
        ("'ll", r"\b(\w+)'ll\b", r"\1 will"),
        ("'re", r"\b(you|we|they)'re\b", r"\1 are"),
        ("'s", r"\b(he|she|it|that|there|what|who)'s\b", r"\1 is"),
    )
)


EDGE = "\"'“”‘’()[]{}.,;!?"


@lru_cache(maxsize=32768)
def normalize_word(word: str) -> str:
    """One lowercase word in its canonical spelling (American, digits for number words).

    Memoized: every claim and every text rule normalizes the same common words."""
    w = SPELLING.get(word, word)
    m = BRITISH_ISE.match(w)
    if m:
        w = f"{m.group(1)}iz{m.group(2)}"
    return NUMBER_WORDS.get(w) or ORDINALS.get(w) or w


@lru_cache(maxsize=4096)
def prepare(text: str) -> tuple[str, bool]:
    """Lowercase, contractions expanded, edge punctuation dropped; and the original casing hint.

    The hint says whether the atom opened with a capitalized non-pronoun word (a name).
    Memoized: a claim reads both the atom and its body, most often the same text.
    """
    t = unicodedata.normalize("NFKC", text).replace("’", "'").replace("‘", "'")
    t = t.replace("“", '"').replace("”", '"')
    t = " ".join(t.split()).strip(EDGE + " ")
    capitalized = bool(t[:1].isupper()) and not re.match(r"^(?:I|I'\w+)\b", t)
    low = t.casefold()
    if "'" in low:
        for literal, pattern, repl in _CONTRACTIONS:
            if literal in low:
                low = pattern.sub(repl, low)
    low = re.sub(r"(\d)\s*(am|pm)\b", r"\1 \2", low)
    return low, capitalized


def normal_words(text: str) -> list[str]:
    """The words of a text, edge punctuation dropped, each in its normal form."""
    out: list[str] = []
    for raw in text.split():
        w = raw.strip(EDGE)
        if w:
            out.append(normalize_word(w))
    return out


def clean_value(words: list[str]) -> str:
    """Join value words; articles are dropped later, after context and time phrases are cut."""
    return " ".join(words)


def drop_articles(value: str) -> str:
    """The value without articles and possessive determiners ("the red bike" -> "red bike")."""
    kept = [w for w in value.split() if w not in ARTICLES and w not in POSSESSIVE_DETS]
    return " ".join(kept)
