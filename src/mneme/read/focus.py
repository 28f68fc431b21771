"""The focus channel: a question about a named entity, asked again without the name, among
what mentions that entity (ADR 0103).

An embedding of "What activities does Melanie partake in?" is dominated by the name: in a bank
where Melanie speaks every other turn, each of her statements is about as near to it as the one
that answers, and the asked-for thing ("activities") barely moves the ranking. The question is
two constraints at once, *about whom* and *what*. The focus channel separates them: the
entities the question names as names (capitalized, not the sentence's opening word, and known
to the bank) restrict the candidates to the units that mention them (inside the store's query),
and those are ranked by the question's vector with the names taken out. It is one more ranked
list for the fusion, beside the semantic channel (which still sees the whole question).

Pure functions: which words of a query may be names, and the query without the ones the bank
knows. The store lookup and the search are the recaller's.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from mneme.core.language import entity_key, tokens
from mneme.core.wordlists import STOPWORDS

#: A run of capitalized words, with an optional possessive: a name as a query writes it.
_RUN = re.compile(r"\b[A-Z][\w’'-]*(?:\s+[A-Z][\w’'-]*)*")
_POSSESSIVE = r"(?:['’]s\b|['’](?!\w))?"
#: The most mentions one named entity lends the channel (its newest ones): a bound on the work
#: one recall does, whatever the bank's size.
MAX_MENTIONS = 4000


def name_keys(text: str) -> dict[str, str]:
    """Entity keys the query may name, each with the words that wrote it.

    A run of capitalized words, less the stopwords that open it ("What", "Did"), is a name; so
    is each of its words alone (the bank may know "Melanie" and not "Melanie Smith"). A run
    that opens a sentence and is one stopword is no name.
    """
    out: dict[str, str] = {}
    for m in _RUN.finditer(text):
        words = [w.rstrip("'’") for w in m.group(0).split()]
        while words and _plain(words[0]).casefold() in STOPWORDS:
            words = words[1:]
        if not words:
            continue
        for surface in (" ".join(words), *(words if len(words) > 1 else ())):
            key = entity_key(surface)
            if key and key not in STOPWORDS:
                out.setdefault(key, _plain(surface))
    return out


def _plain(word: str) -> str:
    return re.sub(r"['’]s$", "", word)


def outermost(found: Iterable[str]) -> list[str]:
    """The keys that are no part of a longer found key ("melanie" inside "melanie smith")."""
    keys = sorted(set(found))
    return [k for k in keys if not any(k != o and f" {k} " in f" {o} " for o in keys)]


def without_names(text: str, surfaces: Mapping[str, str], keys: Iterable[str]) -> str | None:
    """The query with the named entities' words taken out; None when nothing is left to ask
    ("Who is Melanie?"): then there is no second question, only the first."""
    out = text
    for key in keys:
        words = surfaces[key].split()
        pattern = r"\b" + r"\s+".join(re.escape(w) for w in words) + _POSSESSIVE
        out = re.sub(pattern, " ", out)
    out = re.sub(r"\s+([?.!,;:])", r"\1", " ".join(out.split()))
    if not any(len(t) > 1 and t not in STOPWORDS for t in tokens(out)):
        return None
    return out
