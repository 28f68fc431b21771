"""Aliases on the read path: a memory that says two names are one thing bridges a query.

"Nnamdi Okafor joined the billing team; everyone calls him Nam." makes "Nam promised to fix
BIL-207" the answer to "Which ticket did Nnamdi Okafor promise to fix?". Recall finds the alias
statement (it names what the query names); this module reads it as two sides around an alias
marker ("calls him", "goes by", "known as", "codename for", "renamed to", "means", "stands for",
a handle that "belongs to" someone, a quoted name "we call"), decides which side the query
names, and rewrites the query with the other side. What the rewritten query finds under the
other name is reached through the alias statement (its parent), so an answer cites both.

Pure functions over text: no store, no model.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from mneme.core.language import tokens
from mneme.core.wordlists import STOPWORDS

#: The words that say two names are one thing. A statement needs one to be an alias.
_MARKER = re.compile(
    r"\b(?:(?:everyone\s+|people\s+|we\s+|they\s+)?calls?\s+(?:him|her|them|it)|"
    r"(?:is|are|was|were)\s+(?:also\s+|now\s+)?called|goes\s+by|go\s+by|"
    r"(?:is\s+|are\s+)?(?:also\s+|better\s+)?known\s+as|a\.?k\.?a\.?|nicknamed|"
    r"(?:is\s+)?(?:the\s+)?(?:internal\s+|new\s+|old\s+|project\s+)?code\s?name(?:d)?(?:\s+(?:for|of))?|"
    r"(?:was\s+|has\s+been\s+)?renamed(?:\s+(?:to|as))?|means|stands\s+for|(?:is\s+)?short\s+for|"
    r"(?:is\s+)?another\s+name\s+for|belongs\s+to|we\s+call|(?:is\s+)?an?\s+alias\s+(?:for|of))\b",
    re.IGNORECASE,
)
#: "belongs to" makes an alias only for an identifier: a handle, an account, a login.
_IDENTIFIER = re.compile(r"@\w|\b(?:handle|account|username|user\s+name|login|alias|email)\b", re.I)
_QUOTED = re.compile(r"[\"'“‘]([^\"'“”‘’]{2,60})[\"'”’]")
_CLAUSE = re.compile(r"[,;:()]|\.(?:\s|$)")
_PREPOSITION = re.compile(r"\s+(?:with|from|in|at|on|for|of|since|until|by)\s+", re.I)
#: A query about names themselves is answered by the alias statement, not through it.
_ASKS_ABOUT_NAMES = re.compile(
    r"\b(?:call|calls|called|name|names|named|nickname|codename|code\s+name|alias|handle|"
    r"known\s+as|stand\s+for|stands\s+for|mean|means)\b",
    re.IGNORECASE,
)
_EDGE_WORDS = STOPWORDS | frozenset({"everyone", "internal", "new", "old"})
MAX_SPAN_WORDS = 8


@dataclass(frozen=True, slots=True)
class Rewrite:
    """A query said with the other name: ``text``; ``name`` is that other name."""

    text: str
    name: str


def sides(statement: str) -> tuple[str, str] | None:
    """The two names an alias statement joins (raw text of each side), or None."""
    m = _MARKER.search(statement)
    if m is None:
        return None
    if m.group(0).casefold().startswith("belongs") and not _IDENTIFIER.search(statement):
        return None
    quoted = _QUOTED.search(statement)
    if quoted is not None:
        rest = statement[: quoted.start()] + " " + statement[quoted.end() :]
        rest = _MARKER.sub(" ", rest)
        return quoted.group(1), " ".join(rest.split())
    left, right = statement[: m.start()], statement[m.end() :]
    if not _content(left) or not _content(right):
        return None
    return left, right


def rewrite(query: str, statement: str) -> Rewrite | None:
    """The query with the name it shares with an alias statement replaced by the other name.

    None when the statement is no alias, the query names neither side, or the query asks
    about the names themselves ("What do we call Nnamdi?").
    """
    if _ASKS_ABOUT_NAMES.search(query):
        return None
    found = sides(statement)
    if found is None:
        return None
    q_words = _content(query)
    overlaps = [len(q_words & _names(s)) for s in found]
    if max(overlaps) == 0 or overlaps[0] == overlaps[1]:
        return None
    named, other = (found[0], found[1]) if overlaps[0] > overlaps[1] else (found[1], found[0])
    phrase = other if _QUOTED.search(statement) and other is found[0] else None
    name = phrase or _core(other, trailing=other is found[1])
    if not name or _content(name) & q_words:
        return None
    span = _span(query, _content(named))
    if span is None:
        return None
    start, end = span
    return Rewrite(" ".join(f"{query[:start]}{name}{query[end:]}".split()), _key(name))


def mentions(text: str, name: str) -> bool:
    """Whether a memory says the (other) name: every content word of it appears."""
    words = _content(name)
    return bool(words) and words <= set(tokens(text))


def _key(name: str) -> str:
    """The distinctive part of a name, what a memory must say to be about it: a handle, else
    its capitalized words ("Finch Reader" of "Finch Reader app"), else the whole phrase."""
    handle = re.search(r"@\w+", name)
    if handle:
        return handle.group(0)
    capitalized = [w for w in name.split() if w[:1].isupper()]
    return " ".join(capitalized) if capitalized else name


def _names(side: str) -> set[str]:
    """The words a query must share with a side to name it: its proper-name words (a handle,
    capitalized or all-caps words past the first), else all its content words."""
    words = side.split()
    proper = [w for i, w in enumerate(words) if w.startswith("@") or (i > 0 and w[:1].isupper())]
    first = words[:1]
    if first and first[0][:1].isupper() and first[0].casefold() not in _EDGE_WORDS:
        proper.append(first[0])
    return _content(" ".join(proper)) if proper else _content(side)


def _content(text: str) -> set[str]:
    return {t for t in tokens(text) if (t not in STOPWORDS and len(t) > 1) or t.isdigit()}


def _core(side: str, *, trailing: bool) -> str:
    """The name on one side: its clause next to the marker, without edge function words."""
    parts = [p for p in _CLAUSE.split(side) if p.strip()]
    if not parts:
        return ""
    clause = parts[0] if trailing else parts[-1]
    if trailing:
        clause = _PREPOSITION.split(clause, maxsplit=1)[0]
    words = clause.split()
    while words and words[0].casefold().strip("'\"") in _EDGE_WORDS:
        words.pop(0)
    while words and words[-1].casefold().strip("'\".") in _EDGE_WORDS:
        words.pop()
    return " ".join(words).strip(" .")


def _span(query: str, named: set[str]) -> tuple[int, int] | None:
    """Character span of the query's words that name the side (function words may sit
    between them), or None when they are too spread out to be one name."""
    hits = [m for m in re.finditer(r"[^\W_]+(?:[’'@.\-][^\W_]+)*", query) if _matches(m, named)]
    if not hits:
        return None
    words_between = len(query[hits[0].start() : hits[-1].end()].split())
    if words_between > MAX_SPAN_WORDS:
        return None
    return hits[0].start(), hits[-1].end()


def _matches(m: re.Match[str], named: set[str]) -> bool:
    return bool(set(tokens(m.group(0))) & named) and m.group(0).casefold() not in STOPWORDS
