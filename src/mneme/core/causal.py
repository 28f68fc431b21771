"""Causal stitching, offline: BECAUSE edges proposed only where a memory says so explicitly.

A memory that states a cause with an explicit connective ("... *because of* the drought",
"... *due to* the strike", "... *caused by* ...", "... *as a result of* ...", "... *owing
to* ...") names the cause in the clause after it. Another memory of the same bank is that
cause when (a) the two share an entity (the issue's "memories with overlapping entities") and
(b) the cause clause and the other memory share a content word (singular forms, stopwords
left out). The best such memory (most shared words, then the earliest, then the smaller id) is
proposed: ``effect BECAUSE cause``, hypothesis-grade. Nothing else is guessed: "since",
"after" and "so" are often only about time or degree, and are not read as causes.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from mneme.core.categories import singular
from mneme.core.wordlists import STOPWORDS

CONNECTIVES = ("because of", "because", "due to", "caused by", "as a result of", "owing to")
_CONNECTIVE = re.compile(r"\b(" + "|".join(c.replace(" ", r"\s+") for c in CONNECTIVES) + r")\b",
                         re.IGNORECASE)  # fmt: skip
_CLAUSE_END = re.compile(r"[.;:!?]|,\s|\bbut\b|\band\b")


@dataclass(frozen=True, slots=True)
class Said:
    """One memory as stitching reads it."""

    unit_id: str
    text: str
    entities: tuple[str, ...]
    order: tuple[object, ...]  # time, then id


@dataclass(frozen=True, slots=True)
class Because:
    effect: str
    cause: str
    connective: str
    shared: tuple[str, ...]  # the content words the cause clause and the cause share


def words(text: str) -> set[str]:
    return {
        singular(w)
        for w in re.findall(r"[a-z][a-z'-]+", text.lower())
        if w not in STOPWORDS and len(w) > 2
    }


def stitch(memories: Sequence[Said], limit: int) -> list[Because]:
    """At most ``limit`` proposed BECAUSE edges, effects in time order."""
    by_entity: dict[str, list[Said]] = {}
    for m in memories:
        for e in {e.lower() for e in m.entities}:
            by_entity.setdefault(e, []).append(m)
    vocab: Mapping[str, set[str]] = {m.unit_id: words(m.text) for m in memories}
    out: list[Because] = []
    for m in sorted(memories, key=lambda s: s.order):
        if len(out) >= limit:
            break
        found = _CONNECTIVE.search(m.text)
        if found is None:
            continue
        clause = _CLAUSE_END.split(m.text[found.end() :], maxsplit=1)[0]
        wanted = words(clause)
        if not wanted:
            continue
        near = {o.unit_id: o for e in {e.lower() for e in m.entities} for o in by_entity[e]}
        best: tuple[int, tuple[object, ...], str] | None = None
        for uid, other in near.items():
            if uid == m.unit_id:
                continue
            shared = len(wanted & vocab[uid])
            if shared and (best is None or (-shared, other.order, uid) < best):
                best = (-shared, other.order, uid)
        if best is not None:
            cause = best[2]
            shared_words = tuple(sorted(wanted & vocab[cause]))
            connective = " ".join(found.group(1).lower().split())
            out.append(Because(m.unit_id, cause, connective, shared_words))
    return out


@dataclass(frozen=True, slots=True)
class Pair:
    """Two memories an LLM judge may be asked about: ``first`` said before ``second``."""

    first: str
    second: str
    entities: tuple[str, ...]  # the entities both name
    shared: tuple[str, ...]  # the content words both say


def pairs(memories: Sequence[Said], judged: Mapping[str, frozenset[str]], limit: int) -> list[Pair]:
    """At most ``limit`` pairs for the LLM judge (ADR 0058): two memories that name a common
    entity and say a common content word besides its name, not judged before (``judged``: a
    memory's id -> the earlier memories it was judged with). Most shared words first, then
    the later memory's time: the pairs likeliest to be about one thing are asked first."""
    by_entity: dict[str, list[Said]] = {}
    for m in memories:
        for e in {e.lower() for e in m.entities}:
            by_entity.setdefault(e, []).append(m)
    vocab: Mapping[str, set[str]] = {m.unit_id: words(m.text) for m in memories}
    found: dict[tuple[str, str], set[str]] = {}
    for entity, members in by_entity.items():
        ordered = sorted(members, key=lambda s: s.order)
        for j, later in enumerate(ordered):
            done = judged.get(later.unit_id, frozenset())
            for earlier in ordered[:j]:
                if earlier.unit_id in done or earlier.unit_id == later.unit_id:
                    continue
                found.setdefault((earlier.unit_id, later.unit_id), set()).add(entity)
    order = {m.unit_id: m.order for m in memories}
    out: list[tuple[int, tuple[object, ...], Pair]] = []
    for (a, b), names in found.items():
        named = {w for n in names for w in words(n)}
        shared = (vocab[a] & vocab[b]) - named
        if shared:
            pair = Pair(a, b, tuple(sorted(names)), tuple(sorted(shared)))
            out.append((-len(shared), (order[b], order[a]), pair))
    out.sort(key=lambda t: (t[0], t[1]))
    return [p for _, _, p in out[:limit]]
