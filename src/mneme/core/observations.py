"""Observations: evidence consolidated per entity, topic and facet, by offline rules (issue 19).

An observation is what reflect writes into the ``observation`` network: one text about one
entity ("Oliver"), one topic (a claims-layer slot whose subject names an entity: Caroline's
``plans``) or one facet of an entity (its statements about one kind of thing, across
sessions), citing the units it rests on. This module decides, from the evidence alone, which
observations a bank holds and what each says; the service (``background/reflect.py``) reads
the evidence, compares with what is stored and writes the difference.

The rules, in order:

1. **Groups.** Each evidence unit joins the group of every entity it names (``entity:<key>``)
   and, when the claims layer reads a slot from it whose subject is one of the bank's entities,
   the group of that slot (``topic:<subject>|<attribute>``). A slot whose subject is no entity
   ("what is", "we has") is no topic: a pronoun or a question is not something to know about.
2. **Time order.** A group's members are ordered by when they happened (occurred, else said,
   else recorded), then by id, so the same evidence always composes the same text.
3. **Cap.** An observation cites at most ``Disposition.max_cited`` units. A larger group is cut
   into consecutive periods of near-equal size (``#1``, ``#2``...): each is an observation of
   its own, so no observation stands for everything said about a person.
4. **Skepticism.** A group (or a period) with fewer than ``Disposition.skepticism`` units is no
   observation: one statement is already in memory as itself. It is reported as skipped.
5. **One evidence set, one observation.** A topic with the same members as an entity's
   observation says nothing the entity's does not: the first key in sorted order keeps it
   (facets after entities and topics).
6. **Questions are no evidence.** A statement that asks ("Do you like to paint too?") says
   nothing about what holds: it joins no group (its last sentence ends with "?"; a trailing
   bracketed aside, such as a shared photo's caption, is not part of the sentence).
7. **Facets.** Besides its time periods, an entity's group is cut by what its statements are
   about: in time order, each member with a vector joins the facet whose running centroid is
   nearest, when the cosine is at least ``FACET_SIMILARITY``, else starts a facet of its own.
   A facet of at least ``FACET_MIN`` members (and the disposition's skepticism) is a group of
   its own (``facet:<entity>~<first member>``), cut into periods under the cap like any
   group: one person's instances of one kind of thing across sessions ("Melanie: camping at
   the beach, in the mountains, in the forest"), which time periods scatter. A smaller facet
   is no group (its members stay in their entity's periods).
8. **Text.** ``literalism`` keeps each statement verbatim; without it each is compressed to its
   claim's normal form (subject, attribute, value), else its first words. Each carries its
   date; the header names the entity or topic (a facet: the entity and the content words
   most of its members share, "Melanie: camping, around, campfire"), the span and the proof
   count.

The content key changes exactly when the evidence set or the text changes: the service writes a
new version (superseding the old) only then, so a second pass over unchanged evidence writes
nothing.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from mneme.core.claims import extract_claim
from mneme.core.language import entity_key, tokens
from mneme.core.statements import ASIDE
from mneme.core.wordlists import STOPWORDS

#: Words a compressed statement keeps when no claim is read from it.
COMPRESSED_WORDS = 12
#: The cosine at which a statement joins a facet's running centroid (rule 7; ADR 0051, fifth
#: sitting: chosen on LoCoMo dev among 0.5, 0.55, 0.6, 0.7).
FACET_SIMILARITY = 0.6
#: The fewest statements a facet needs to be a group (rule 7; chosen on LoCoMo dev, 2 or 3).
FACET_MIN = 3
#: The most shared words a facet's label names (rule 8).
FACET_LABEL_WORDS = 3


@dataclass(frozen=True, slots=True)
class Disposition:
    """A bank's disposition towards its own evidence: what reflect keeps (bank config
    ``reflect``). ``skepticism``: the fewest evidence units an observation rests on;
    ``literalism``: statements verbatim (True) or compressed; ``max_cited``: the most units one
    observation may cite."""

    skepticism: int = 2
    literalism: bool = True
    max_cited: int = 8

    def __post_init__(self) -> None:
        if not 1 <= self.skepticism <= self.max_cited:
            raise ValueError(
                f"skepticism must be between 1 and max_cited ({self.max_cited}), "
                f"not {self.skepticism}"
            )
        if not 1 <= self.max_cited <= 64:
            raise ValueError(f"max_cited must be between 1 and 64, not {self.max_cited}")

    @classmethod
    def from_config(cls, config: Mapping[str, object]) -> Disposition:
        """The disposition a bank's ``reflect`` config names (unknown keys refused)."""
        unknown = set(config) - {"skepticism", "literalism", "max_cited"}
        if unknown:
            raise ValueError(f"unknown disposition keys: {sorted(unknown)}")
        base = cls()
        skepticism = config.get("skepticism", base.skepticism)
        literalism = config.get("literalism", base.literalism)
        max_cited = config.get("max_cited", base.max_cited)
        if not isinstance(skepticism, int) or isinstance(skepticism, bool):
            raise ValueError("skepticism must be a whole number")
        if not isinstance(max_cited, int) or isinstance(max_cited, bool):
            raise ValueError("max_cited must be a whole number")
        if not isinstance(literalism, bool):
            raise ValueError("literalism must be true or false")
        return cls(skepticism=skepticism, literalism=literalism, max_cited=max_cited)

    def as_dict(self) -> dict[str, object]:
        return {
            "skepticism": self.skepticism,
            "literalism": self.literalism,
            "max_cited": self.max_cited,
        }


@dataclass(frozen=True, slots=True)
class Evidence:
    """One live unit reflect may consolidate."""

    unit_id: str
    text: str
    when: dt.datetime
    entities: tuple[str, ...] = ()  # entity names the unit mentions
    sources: tuple[str, ...] = ()  # its evidence source ids
    type: str = "fact"
    #: Its stored vector (unit length) of the embedder's model, when it has one: what the
    #: facets of rule 7 compare. A unit without one is in no facet.
    vector: Sequence[float] | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class Observation:
    """What one observation says and rests on."""

    key: str  # the group: entity:<key>, topic:<subject>|<attribute> or facet:<key>~<id>; [#n]
    label: str  # what it is about, for people ("Caroline", "Caroline: plans")
    text: str
    evidence_ids: tuple[str, ...]  # in time order
    source_ids: tuple[str, ...]  # the evidence's sources, first-unique in time order
    first_at: dt.datetime
    last_at: dt.datetime
    type: str  # the commonest type among the evidence (ties: the first in time order)
    content_key: str

    @property
    def proof_count(self) -> int:
        return len(self.evidence_ids)


@dataclass(frozen=True, slots=True)
class Skip:
    key: str
    reason: str


@dataclass(frozen=True, slots=True)
class Consolidation:
    observations: tuple[Observation, ...] = ()
    skipped: tuple[Skip, ...] = field(default_factory=tuple)


def _order(e: Evidence) -> tuple[dt.datetime, str]:
    return (e.when, e.unit_id)


def is_question(text: str) -> bool:
    """Whether a statement asks rather than states (rule 6): its last sentence, a trailing
    bracketed aside left out, ends with a question mark."""
    return ASIDE.sub("", text).rstrip().endswith("?")


def groups(evidence: Sequence[Evidence]) -> dict[str, tuple[str, list[Evidence]]]:
    """Group key -> (label, members): per entity, per slot whose subject is an entity, and
    per facet of an entity (rule 7). A question is in no group (rule 6)."""
    evidence = [e for e in evidence if not is_question(e.text)]
    names: dict[str, str] = {}
    for e in evidence:
        for name in e.entities:
            key = entity_key(name)
            if key:
                # The shortest spelling labels the entity ("Caroline" over "Caroline's").
                names[key] = min(names.get(key, name), name, key=lambda n: (len(n), n))
    out: dict[str, tuple[str, list[Evidence]]] = {}
    for e in sorted(evidence, key=_order):
        for key in dict.fromkeys(entity_key(n) for n in e.entities):
            if key:
                out.setdefault(f"entity:{key}", (names[key], []))[1].append(e)
        claim = extract_claim(e.text)
        if claim is not None and claim.subject in names:
            label = f"{names[claim.subject]}: {claim.attribute.replace('_', ' ')}"
            out.setdefault(f"topic:{claim.subject}|{claim.attribute}", (label, []))[1].append(e)
    for key in [k for k in out if k.startswith("entity:")]:
        label, members = out[key]
        for seed, facet in facets(members):
            out[f"facet:{key[len('entity:') :]}~{seed}"] = (facet_label(label, facet), facet)
    return out


def facets(
    members: Sequence[Evidence], similarity: float = FACET_SIMILARITY, least: int = FACET_MIN
) -> list[tuple[str, list[Evidence]]]:
    """One entity's statements cut by what they are about (rule 7): (the first member's id,
    the facet's members in time order), each facet of at least ``least`` members. In the
    given (time) order, a member with a vector joins the facet whose running centroid is
    nearest by cosine when it reaches ``similarity``, else starts one; deterministic for the
    same members in the same order."""
    ordered = [e for e in members if e.vector is not None]
    if len(ordered) < least:
        return []
    rows = [_unit(e.vector) for e in ordered if e.vector is not None]
    sums: list[list[float]] = []  # per facet, the sum of its members' vectors
    centroids: list[list[float]] = []
    made: list[list[int]] = []
    for i, row in enumerate(rows):
        if made:
            sims = [math.fsum(a * b for a, b in zip(c, row, strict=True)) for c in centroids]
            best = max(range(len(sims)), key=sims.__getitem__)
            if sims[best] >= similarity:
                made[best].append(i)
                sums[best] = [a + b for a, b in zip(sums[best], row, strict=True)]
                centroids[best] = _unit(sums[best])
                continue
        sums.append(list(row))
        centroids.append(list(row))
        made.append([i])
    return [
        (ordered[idx[0]].unit_id, [ordered[i] for i in idx]) for idx in made if len(idx) >= least
    ]


def facet_label(entity: str, members: Sequence[Evidence]) -> str:
    """What a facet is about, for people: the entity, then the (at most ``FACET_LABEL_WORDS``)
    content words the most of its members share, each in at least two of them, in order of
    how many share it, then of first use ("Melanie: camping, kids, nature"); "<entity>:
    facet" when no word is shared."""
    own = set(tokens(entity))
    counts: dict[str, int] = {}
    for e in members:
        for word in dict.fromkeys(tokens(e.text)):
            if word not in STOPWORDS and word not in own and len(word) > 2 and word.isalpha():
                counts[word] = counts.get(word, 0) + 1
    order = {w: i for i, w in enumerate(counts)}
    shared = sorted((w for w, n in counts.items() if n >= 2), key=lambda w: (-counts[w], order[w]))
    words = shared[:FACET_LABEL_WORDS]
    return f"{entity}: {', '.join(words)}" if words else f"{entity}: facet"


def _unit(vector: Sequence[float]) -> list[float]:
    """The vector scaled to unit length (a zero vector stays zero)."""
    values = [float(x) for x in vector]
    norm = math.sqrt(math.fsum(x * x for x in values))
    return [x / norm for x in values] if norm else values


def periods(members: Sequence[Evidence], cap: int) -> list[list[Evidence]]:
    """Consecutive runs of at most ``cap`` members, of near-equal size, in time order."""
    n = len(members)
    if n <= cap:
        return [list(members)]
    parts = math.ceil(n / cap)
    size, extra = divmod(n, parts)
    out, at = [], 0
    for i in range(parts):
        step = size + (1 if i < extra else 0)
        out.append(list(members[at : at + step]))
        at += step
    return out


_MONTHS = (
    "January", "February", "March", "April", "May", "June",
    "July", "August", "September", "October", "November", "December",
)  # fmt: skip


def _day(when: dt.datetime) -> str:
    # Not strftime: month names follow the process locale there.
    return f"{when.day} {_MONTHS[when.month - 1]} {when.year}"


def _statement(e: Evidence, literal: bool) -> str:
    text = " ".join(e.text.split())
    if literal:
        return text
    claim = extract_claim(e.text)
    if claim is not None:
        neg = "not " if claim.negated else ""
        return f"{claim.subject} {claim.attribute.replace('_', ' ')} {neg}{claim.value}".strip()
    words = text.split()
    return " ".join(words[:COMPRESSED_WORDS]) + (" ..." if len(words) > COMPRESSED_WORDS else "")


def compose(label: str, members: Sequence[Evidence], disposition: Disposition) -> str:
    """The text of one observation: header (what, when, how many), then each statement."""
    first, last = members[0].when, members[-1].when
    span = _day(first) if _day(first) == _day(last) else f"{_day(first)} to {_day(last)}"
    body = "; ".join(f"[{_day(e.when)}] {_statement(e, disposition.literalism)}" for e in members)
    return f"About {label} ({span}, {len(members)} statements): {body}"


def observation_key(key: str, evidence_ids: Iterable[str], text: str) -> str:
    """Changes exactly when the group, its evidence set or its text changes."""
    payload = "\x1f".join(["observation", key, ",".join(sorted(evidence_ids)), text])
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()[:32]


def _commonest_type(members: Sequence[Evidence]) -> str:
    counts: dict[str, int] = {}
    for e in members:
        counts[e.type] = counts.get(e.type, 0) + 1
    best = max(counts.values())
    return next(e.type for e in members if counts[e.type] == best)


def observe(evidence: Sequence[Evidence], disposition: Disposition) -> Consolidation:
    """The observations a bank's evidence supports, sorted by key, and what was skipped."""
    made: list[Observation] = []
    skipped: list[Skip] = []
    seen: dict[frozenset[str], str] = {}
    # Facets last: a facet with the same evidence as an entity or a topic is that one.
    ordered = sorted(groups(evidence).items(), key=lambda kv: (kv[0].startswith("facet:"), kv[0]))
    for key, (label, members) in ordered:
        runs = periods(members, disposition.max_cited)
        for i, run in enumerate(runs, start=1):
            run_key = key if len(runs) == 1 else f"{key}#{i}"
            if len(run) < disposition.skepticism:
                skipped.append(
                    Skip(run_key, f"{len(run)} evidence, fewer than {disposition.skepticism}")
                )
                continue
            ids = tuple(e.unit_id for e in run)
            same = seen.get(frozenset(ids))
            if same is not None:
                skipped.append(Skip(run_key, f"same evidence as {same}"))
                continue
            seen[frozenset(ids)] = run_key
            text = compose(label, run, disposition)
            made.append(
                Observation(
                    key=run_key,
                    label=label,
                    text=text,
                    evidence_ids=ids,
                    source_ids=tuple(dict.fromkeys(s for e in run for s in e.sources)),
                    first_at=run[0].when,
                    last_at=run[-1].when,
                    type=_commonest_type(run),
                    content_key=observation_key(run_key, ids, text),
                )
            )
    return Consolidation(tuple(made), tuple(skipped))


def from_claims(
    obs: Observation, members: Sequence[Evidence], claims: Sequence[str]
) -> Observation:
    """The observation ``obs`` composed instead from checked claims (ADR 0058): it rests on
    ``members``, the evidence the claims cite (time order), and keeps ``obs``'s group key and
    content key, so a later pass over the same evidence sees it unchanged and asks no one."""
    first, last = members[0].when, members[-1].when
    span = _day(first) if _day(first) == _day(last) else f"{_day(first)} to {_day(last)}"
    body = "; ".join(c.rstrip(" .") for c in claims)
    return Observation(
        key=obs.key,
        label=obs.label,
        text=f"About {obs.label} ({span}, {len(members)} statements): {body}.",
        evidence_ids=tuple(e.unit_id for e in members),
        source_ids=tuple(dict.fromkeys(s for e in members for s in e.sources)),
        first_at=first,
        last_at=last,
        type=_commonest_type(members),
        content_key=obs.content_key,
    )
