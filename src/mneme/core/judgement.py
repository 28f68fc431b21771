"""The write-time decision engine: what one new atom means against what is already known.

Pure and offline. The write path hands :func:`judge` the new atom (with its claim) and the
neighbours recall found for it in the same bank (each with its cosine similarity to the new atom
and its claim); the judge answers one :class:`Judgement`. It never writes anything: the write path
applies the verdict, and the charter decides whether a person must be asked first.

The same-subject gate: a destructive verdict (SUPERSEDE, UPDATE, CONTRADICT) needs both claims to
fill the same slot (subject and attribute). Shared keywords or a high similarity alone never
overwrite anything: "My cat is black" never supersedes "My dog is black". The only exception is
a pair whose words are identical except for numbers or dates ("... 64 GB ..." / "... 32 GB ..."):
that is a conflict on numbers even when no claim could be read, and it is never merged.

Two readings of one subject count as one slot: a bare "is" whose value is only a date and a
"when" ("the deadline is 6 October" / "the deadline moved to 6 June"), and an adjective's
complement and a bare "is" whose values include one another ("the release is blocked" / "the
release is blocked by the test"); see :func:`_bridge`. In a claim's value an identifier
("the Quarry-338 rollout", "ticket 42": :func:`mneme.core.claims.is_identifier`) is a word, not
a number: two values that differ in one name two things, which a many-valued attribute holds
side by side ("owns the Quarry-338 rollout" and "owns the Tessel-564 rollout").

Rules for a pair with the same slot, in order:

=========================================  ===================================================
pair                                        verdict
=========================================  ===================================================
same value, negation differs                CONTRADICT ``negation``; SUPERSEDE when the new
                                            atom says the old one stopped ("no longer")
same value, numbers or dates differ         CONTRADICT ``numbers`` (SUPERSEDE with a change
                                            word such as "now"); never a merge
same value, all numbers and dates equal     NOOP with target (evidence); LINK_EXISTING when
                                            another agent said it
value differs only in numbers or dates      like "numbers differ" above; in a one-valued
                                            slot any change word ("the deadline moved to 6
                                            June") makes it a SUPERSEDE
new value refines the old ("Berlin" ->      UPDATE
"Berlin Mitte")
new value is a part of the old              NOOP / LINK_EXISTING (nothing new)
other value, change word ("moved to",       SUPERSEDE
"now", "joined", "instead")
other value, multi-valued attribute         ADD, related ("likes tea" and "likes jazz")
(likes, eats, plays ...)
other value, one-valued attribute           CONTRADICT ``cross_agent`` (another agent),
                                            ``preference`` (a taste or plan) or ``value``
=========================================  ===================================================

Neighbours are live statements, and the author's statements of the conversation retired for a
change of one of their values (``Neighbour.holds``): such a one is judged only as the author's
latest word on the values it still holds, so a change of one of them retires it for that value
too (ADR 0076).

Confidence, in [0, 1]: each rule has a base certainty (``_BASE`` below: how often the rule is right
when it fires, set from the decision benchmark in ``bench/decisions``); the final confidence is
``base * (0.75 + 0.25 * s)`` where ``s`` is the neighbour's cosine similarity clipped to [0, 1],
so a rule firing on two texts the embedder also finds close is trusted more. An exact repeat is
always 1.0. For ADD the confidence is ``1 - 0.5 * s_max`` (how sure we are it is new).
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import TypeVar

from mneme.core.charter import REWRITES
from mneme.core.claims import (
    REPLACING,
    STRONG_CHANGE,
    Claim,
    claim_slot,
    copula_view,
    extract_claim,
    is_identifier,
    is_preference,
    is_single_valued,
    normalize_word,
    same_value,
    time_view,
    value_words,
)
from mneme.core.keys import normalize_text
from mneme.core.language import tokens
from mneme.core.model import UnitStatus, UnitType, Verdict
from mneme.core.slots import (
    Context,
    Latest,
    SlotConfig,
    SlotRelation,
    answering,
    kinds_in_roles,
    relate,
    role_of,
)
from mneme.core.statements import Statement, analyze, analyze_knowing, in_turn, wonders
from mneme.core.topics import (
    Introduction,
    Mention,
    Said,
    brought_up,
    introductions,
    mentions,
    returned_to,
)
from mneme.core.values import MASK_WORD, MEASURES, MONTH_NAMES, Kind
from mneme.core.wordlists import ARTICLES, STOPWORDS

DESTRUCTIVE: frozenset[Verdict] = frozenset({Verdict.SUPERSEDE, Verdict.UPDATE, Verdict.CONTRADICT})

#: Statuses a neighbour must have to be judged against: superseded, rejected and archived units
#: are history (a rejected value is the tombstone's business, not the judge's).
JUDGED_STATUSES: frozenset[str] = frozenset(
    {UnitStatus.ACTIVE.value, UnitStatus.PROPOSED.value, UnitStatus.CONFLICTED.value}
)


@dataclass(frozen=True)
class JudgeConfig:
    """Thresholds of the judge.

    ``paraphrase_similarity``: cosine (all-MiniLM-L6-v2) at or above which two texts with the
    same numbers may be one memory; ``related_similarity``: cosine at or above which an ADD links
    the neighbour as related; ``paraphrase_overlap``: content-word Jaccard that a claimless pair
    needs on top of the similarity to merge; ``max_related``: cap on ``relates_to``.
    """

    paraphrase_similarity: float = 0.80
    related_similarity: float = 0.55
    paraphrase_overlap: float = 0.6
    max_related: int = 5
    slots: SlotConfig = field(default_factory=SlotConfig)


@dataclass(frozen=True)
class Candidate:
    """The new atom: its text, type, author and claim (None when no rule read one)."""

    text: str
    type: UnitType
    agent_id: str
    claim: Claim | None
    session: str | None = None  # the conversation it was said in
    when: dt.datetime | None = None  # when it was said
    turn: str | None = None  # the whole input it is one atom of
    #: The other speaker's question just before it in its conversation, when it is a bare
    #: answer (``mneme.core.slots.answering``).
    answers: str | None = None
    #: The other speaker's question just before it, whatever the atom (read only when a value
    #: would change): what the answer changes is what that question asked about.
    prompt: str | None = None
    #: Its conversation's earlier statements, oldest first, and its own turn last (read only
    #: when a value would change): a value said after its author brought up a new thing is
    #: that thing's (``mneme.core.topics``).
    conversation: tuple[Said, ...] | None = None


@dataclass(frozen=True)
class Neighbour:
    """An existing unit recall found for the new atom, with its cosine similarity to it."""

    unit_id: str
    text: str
    type: UnitType
    agent_id: str
    status: str
    similarity: float
    claim: Claim | None
    knowers: tuple[str, ...] = ()
    session: str | None = None
    when: dt.datetime | None = None
    answers: str | None = None  # the question it answered, as for a Candidate
    #: For a retired (superseded) neighbour: the kinds of value, in their roles, it still
    #: holds, no successor in its line having said them (``mneme.core.succession``): a
    #: statement retired for its destination still holds where from. A later change of one of
    #: them by its author is judged against it; nothing else is.
    holds: frozenset[tuple[Kind, str | None]] = frozenset()
    #: The transcript speakers (case-folded) of the sources it rests on, when read: another
    #: speaker's restatement merged into it as evidence ("Okay, Hellboy will do." into "There
    #: is 1 movie you might enjoy, it is Hellboy.") makes it theirs too.
    voices: frozenset[str] = frozenset()

    @property
    def retired(self) -> bool:
        """Whether it is history (superseded, rejected, archived), not a live statement."""
        return self.status not in JUDGED_STATUSES


@dataclass(frozen=True)
class Judgement:
    """The verdict for one atom, the unit it was judged against, and why."""

    verdict: Verdict
    target_id: str | None
    reason: str
    confidence: float
    conflict_type: str | None = None  # value | negation | numbers | preference | cross_agent
    relates_to: tuple[str, ...] = ()
    #: For a SUPERSEDE: the other live statements of the old value in the conversation (its
    #: author's own, or another speaker's restatement of it), retired with the target.
    also: tuple[str, ...] = ()
    #: For an ADD that corroborates its target: the other live units it restates too, each
    #: counted as evidence like the target (a confirmation says back several statements).
    supports: tuple[str, ...] = ()
    #: For a slot rule's SUPERSEDE or UPDATE: the value that stops holding, normalized.
    old_value: str | None = None

    @property
    def destructive(self) -> bool:
        """Whether applying the verdict changes or disputes what is already held."""
        return self.verdict in DESTRUCTIVE


# Base certainty of each rule (see the module docstring).
_BASE = {
    "exact": 1.0,
    "paraphrase": 0.9,
    "subsumed": 0.75,
    "negation": 0.85,
    "stopped": 0.8,
    "numbers": 0.9,
    "change": 0.8,
    "refine": 0.7,
    "value": 0.7,
    "text_paraphrase": 0.7,
    "text_numbers": 0.8,
    "slot_update": 0.85,
    "slot_value": 0.75,
    "slot_negation": 0.85,
    "same_values": 0.9,
    "support": 0.8,
}


@dataclass(frozen=True)
class _Pair:
    """What one neighbour says about the new atom: a verdict and how strongly to prefer it."""

    verdict: Verdict
    rule: str
    reason: str
    conflict_type: str | None = None
    #: For a slot rule: the value that stops holding (or is disputed), normalized.
    old_value: str | None = None
    #: For a slot rule: the kind of the value that changed (or is disputed).
    kind: Kind | None = None


# Order in which pair outcomes win when several neighbours answer: an exact repeat first, then
# a disagreement (never hide one behind a merge), then a merge, then a refinement.
_RULE_RANK = {
    "exact": 0,
    "negation": 1,
    "numbers": 1,
    "text_numbers": 1,
    "stopped": 2,
    "change": 2,
    "value": 3,
    "paraphrase": 4,
    "text_paraphrase": 5,
    "subsumed": 5,
    "refine": 6,
    "slot_update": 2,
    "slot_value": 1,
    "slot_negation": 1,
    "same_values": 4,
    "support": 7,
}


def judge(new: Candidate, neighbours: Sequence[Neighbour], config: JudgeConfig) -> Judgement:
    """Decide what the new atom is against its neighbours (see the module docstring)."""
    best: tuple[tuple[int, bool, float, float], _Pair, Neighbour] | None = None
    related: list[tuple[float, str]] = []
    names = _names(new, neighbours)
    statement = answering(
        in_turn(analyze_knowing(new.text, names), new.turn), _question(new.answers)
    )
    latest = _latest_of_kind(new, statement, neighbours)
    # The author's statements in the conversation (live, or retired with a value still held)
    # and every kind in a role they said, whether or not a later one said the kind since (a
    # statement retired for its destination still says where from): whether a role has a
    # statement of its own for a cued value to correct (ADR 0077).
    own = tuple(analyze(nb.text) for nb in neighbours if nb.unit_id in latest)
    roles_said = frozenset().union(*(kinds_in_roles(s) for s in own))
    talking = _participants(new, statement, neighbours)
    # What the author brought up in the conversation, once for every neighbour.
    things = (
        introductions(new.conversation, statement.author) if new.conversation is not None else None
    )
    named = mentions(new.conversation, statement.author) if new.conversation is not None else ()
    pairs: list[tuple[_Pair, Neighbour]] = []
    for nb in neighbours:
        if nb.retired and not nb.holds:
            continue
        pair = _slot_pair(
            new, statement, nb, latest.get(nb.unit_id, Latest()), config, talking, things,
            roles_said, own, names, named,
        )  # fmt: skip
        if nb.retired:
            # A statement already retired for another value is judged only as the author's
            # latest word on a value it still holds: a change of that value retires it for
            # that one too ("Can you change the date?" after the time changed).
            if pair is not None and _changes_held(pair, nb):
                pairs.append((pair, nb))
            continue
        if pair is _UNDECIDED:
            pair = _compare(new, nb, config)
        if pair is None:
            if _is_related(new, nb, config):
                related.append((nb.similarity, nb.unit_id))
            continue
        pairs.append((pair, nb))
    if wonders(statement):
        # "Does the office open at 9am?" asks: it disputes nothing, changes nothing and is no
        # evidence for what it asks about (merged, its asker would count as a knower).
        related += [(nb.similarity, nb.unit_id) for _, nb in pairs]
        pairs = []
    pairs, also = _echoes(new, statement, pairs)
    for pair, nb in pairs:
        # A correction points at the latest statement it corrects: recency breaks the tie;
        # but one that names what no longer holds ("moved *from 12 September* to ...")
        # points at the statement of that value first, however old.
        says_gone = pair.rule == "slot_update" and pair.kind is None and pair.old_value is not None
        recency = -_epoch(nb.when) if pair.rule == "slot_update" else 0.0
        key = (_RULE_RANK[pair.rule], not says_gone, recency, -nb.similarity)
        if best is None or key < best[0]:
            best = (key, pair, nb)
    if best is not None:
        _, pair, nb = best
        j = _judgement(pair, nb, tuple(u for u in also if u != nb.unit_id))
        if pair.rule == "support" or j.verdict in REWRITES:
            # A restatement is evidence for every statement it says back ("Please confirm: a cab
            # for 1 to Willard Hicks" restates "a cab for one" and "headed to Willard Hicks"),
            # not only for the closest one; so is a statement that retires one value and says
            # back another ("Please confirm: a shared ride to Egg Roll King" retires the
            # confirmation of the old address and restates "could I go to Egg Roll King
            # instead?").
            gone = {nb.unit_id, *j.also}
            more = sorted(
                (
                    (-o.similarity, o.unit_id)
                    for p, o in pairs
                    if p.rule == "support" and o.unit_id not in gone
                ),
            )
            j = replace(j, supports=tuple(u for _, u in more[: config.max_related]))
        return j
    related.sort(reverse=True)
    ids = tuple(uid for _, uid in related[: config.max_related])
    top = max((s for s, _ in related), default=0.0)
    return Judgement(
        Verdict.ADD,
        None,
        _add_reason(new, neighbours, ids),
        _round(1.0 - 0.5 * _clip(top)),
        None,
        ids,
    )


def _echoes(
    new: Candidate, statement: Statement, pairs: list[tuple[_Pair, Neighbour]]
) -> tuple[list[tuple[_Pair, Neighbour]], tuple[str, ...]]:
    """When the new atom's author changes a value, every live statement of that value in the
    conversation goes with it: another speaker who restated it ("Please confirm: the alarm at
    5:15 pm") was repeating the author, not disagreeing with the correction, and the author's
    own earlier statement of it must not stay current. Returns the pairs left to rank (those
    echoes dropped) and the units to retire with the target, oldest first."""
    # The old values the author changes, each with when the author first said it and how the
    # change is typed.
    changed: dict[str, tuple[float, str | None]] = {}
    for p, nb in pairs:
        if (
            p.rule == "slot_update"
            and p.old_value is not None
            and _same_conversation(new, nb)
            and _same_author(new, statement, nb)
        ):
            said = changed.get(p.old_value, (float("inf"), None))[0]
            changed[p.old_value] = (min(said, _epoch(nb.when)), p.conflict_type)
    if not changed:
        return pairs, ()
    keep: list[tuple[_Pair, Neighbour]] = []
    also: list[tuple[float, str]] = []
    for p, nb in pairs:
        # An echo follows what it echoes: a value someone said before the author did is theirs.
        first = changed.get(p.old_value or "")
        echo = (
            first is not None
            and p.rule in ("slot_update", "slot_value")
            and _same_conversation(new, nb)
            and _epoch(nb.when) >= first[0]
        )
        if first is None or not echo:
            keep.append((p, nb))
            continue
        also.append((_epoch(nb.when), nb.unit_id))
        if p.rule == "slot_update":
            # The author changes their own value, whoever said it last: the charter reads it
            # as the author's correction.
            keep.append((replace(p, conflict_type=first[1]), nb))
    return keep, tuple(u for _, u in sorted(also))


def _add_reason(new: Candidate, neighbours: Sequence[Neighbour], related: tuple[str, ...]) -> str:
    """Why an ADD: another value of a slot that holds several, related by topic, or new."""
    claim = new.claim
    if claim is not None and any(
        nb.claim is not None
        and nb.status in JUDGED_STATUSES
        and (nb.claim.subject, nb.claim.attribute) == (claim.subject, claim.attribute)
        for nb in neighbours
    ):
        slot = f"{claim.subject} / {claim.attribute.replace('_', ' ')}"
        return f"another value of {slot}, which holds several: kept beside the others"
    said = analyze(new.text)
    if said.asks or wonders(said):
        return "a question: kept as what was asked; it states nothing to judge"
    if related:
        n = len(related)
        return (
            f"new claim; related to {n} existing memor{'y' if n == 1 else 'ies'} "
            "by topic, not the same subject and attribute"
        )
    return "new claim: nothing close is known"


#: Claim subjects that only point at someone ("user" is the speaker): two of them, or one
#: and a name, may be one subject.
_DEICTIC_SUBJECTS = frozenset({"user", "you", "we", "it", "they", "he", "she", "this", "that"})

#: A neighbour the slot rules cannot judge (no values on one side): the text rules decide.
_UNDECIDED = _Pair(Verdict.NOOP, "undecided", "")


def is_held(unit_type: UnitType) -> bool:
    """Whether a memory of this type is held (a belief, an opinion) rather than stated."""
    return unit_type in (UnitType.BELIEF, UnitType.OPINION)


def _epoch(when: dt.datetime | None) -> float:
    return when.timestamp() if when is not None else float("-inf")


def _same_author(new: Candidate, statement: Statement, nb: Neighbour) -> bool:
    return new.agent_id == nb.agent_id and analyze(nb.text).author == statement.author


def _same_conversation(new: Candidate, nb: Neighbour) -> bool:
    """Both said in one session, the new one later. Without sessions nothing says it is one
    conversation, and two statements of one moment (one input that contradicts itself) say
    nothing changed: a new value from the same author is then a question, not an update."""
    later = new.when is not None and nb.when is not None and nb.when < new.when
    return new.session is not None and new.session == nb.session and later


def _other_conversation(new: Candidate, nb: Neighbour) -> bool:
    """Both said in a known session, and not the same one: a reply cue in one conversation
    answers that conversation, not the other's value (ADR 0106 amendment)."""
    return new.session is not None and nb.session is not None and new.session != nb.session


def _latest_of_kind(
    new: Candidate, statement: Statement, neighbours: Sequence[Neighbour]
) -> dict[str, Latest]:
    """For each neighbour, the kinds of value it is the latest statement of, the kinds in a
    role ("in Napa": a name in "in"), and whether it is of the author's last turn, among what
    the new atom's author said earlier in the same conversation: where a correction points."""
    mine = [
        nb
        for nb in neighbours
        if (not nb.retired or nb.holds)
        and _same_conversation(new, nb)
        and _same_author(new, statement, nb)
        and (new.when is None or nb.when is None or nb.when <= new.when)
    ]
    mine.sort(key=lambda nb: _epoch(nb.when), reverse=True)
    kinds = _latest_keys(mine, lambda nb, s: _held(nb, s.kinds()))
    roles = _latest_keys(
        mine,
        lambda nb, s: frozenset(r for r in kinds_in_roles(s) if not nb.retired or r in nb.holds),
    )
    last = mine[0].when if mine else None
    return {
        nb.unit_id: Latest(
            kinds.get(nb.unit_id, frozenset()),
            roles.get(nb.unit_id, frozenset()),
            said_last=nb.when == last,
        )
        for nb in mine
    }


_K = TypeVar("_K")


def _held(nb: Neighbour, kinds: Iterable[Kind]) -> frozenset[Kind]:
    """Of these kinds, those the neighbour holds: all of its own when live, else those its
    line has not said since (in some role)."""
    if not nb.retired:
        return frozenset(kinds)
    held = {k for k, _ in nb.holds}
    return frozenset(k for k in kinds if k in held)


def _latest_keys(
    newest_first: Sequence[Neighbour], keys: Callable[[Neighbour, Statement], frozenset[_K]]
) -> dict[str, frozenset[_K]]:
    """For each neighbour, the keys no later one has."""
    out: dict[str, frozenset[_K]] = {}
    seen: set[_K] = set()
    for nb in newest_first:
        fresh = keys(nb, analyze(nb.text)) - seen
        if fresh:
            out[nb.unit_id] = fresh
            seen |= fresh
    return out


def _question(text: str | None) -> Statement | None:
    return analyze(text) if text else None


def _names(new: Candidate, neighbours: Sequence[Neighbour]) -> frozenset[str]:
    """The names the new atom's conversation wrote with capitals, as far as its neighbours
    show (normal forms): one said there in lower case is the same name ("What about
    Hackers?" / "Sure, let's go with hackers."). A one-word name that is a function word
    ("After", a film) is one only when two speakers write it so (``_titles``), and only
    where it is written with its capital."""
    if new.session is None:
        return frozenset()
    texts = [new.text] + [nb.text for nb in neighbours if nb.session == new.session]
    said = [analyze(t) for t in texts]
    return frozenset(
        v.norm
        for s in said
        for v in s.values
        if v.kind == Kind.NAME
        and v.text != v.text.casefold()
        and not _opens_sentence(s.body, v.start)
        and (" " in v.norm or v.norm not in STOPWORDS)
    ) | _titles(said)


_CAPITALIZED = re.compile(r"\b[A-Z][a-z]+\b")


def _titles(said: Sequence[Statement]) -> frozenset[str]:
    """Function words that two speakers of a conversation each write with a capital inside a
    sentence ("I've located 1 movie, called After." / "let's go with After."): a title.
    Either one alone may capitalize loosely ("Ok, Shall I get bus"); two agreeing do not."""
    writers: dict[str, set[str | None]] = {}
    for s in said:
        for m in _CAPITALIZED.finditer(s.body):
            word = m.group(0).casefold()
            if word in STOPWORDS and not _opens_sentence(s.body, m.start()):
                writers.setdefault(word, set()).add(s.speaker)
    return frozenset(w for w, who in writers.items() if len(who) > 1)


def _opens_sentence(body: str, start: int) -> bool:
    """Whether a word at ``start`` opens a sentence, where any word has a capital ("Dance is
    my passion."): a capital there says nothing of a name."""
    before = body[:start].rstrip()
    return not before or before[-1] in ".!?:;\"'([-"


def _participants(
    new: Candidate, statement: Statement, neighbours: Sequence[Neighbour]
) -> frozenset[str]:
    """Who speaks in the new atom's conversation, as far as its neighbours show: the names of
    the people talking are who is spoken to or about ("I'm so happy for you, Caroline."),
    never a slot's value (ADR 0039)."""
    if new.session is None:
        return frozenset()
    names = [statement.speaker]
    names += [analyze(nb.text).speaker for nb in neighbours if nb.session == new.session]
    return frozenset(n.casefold() for n in names if n)


def _slot_pair(
    new: Candidate,
    statement: Statement,
    nb: Neighbour,
    latest: Latest,
    config: JudgeConfig,
    participants: frozenset[str] = frozenset(),
    things: Sequence[Introduction] | None = None,
    roles_said: frozenset[tuple[Kind, str | None]] = frozenset(),
    own: tuple[Statement, ...] = (),
    names: frozenset[str] = frozenset(),
    named: Sequence[Mention] = (),
) -> _Pair | None:
    """What the slot rules say of one neighbour (``mneme.core.slots``); ``_UNDECIDED`` when
    they cannot tell (then the text and claim rules below decide)."""
    if normalize_text(new.text) == normalize_text(nb.text):
        return _merge(new, nb, "exact", "the same text")
    old = answering(analyze_knowing(nb.text, names), _question(nb.answers))
    same_author = _same_author(new, statement, nb)
    # What the author brought up, or came back to, in the conversation they both belong to.
    talk = things if same_author and _same_conversation(new, nb) else None
    a, b = nb.claim, new.claim
    one_slot = a is not None and b is not None and claim_slot(a) == claim_slot(b)
    many = one_slot and a is not None and not is_single_valued(a)
    ctx = Context(
        participants=participants,
        similarity=nb.similarity,
        same_author=same_author,
        same_conversation=_same_conversation(new, nb),
        other_conversation=_other_conversation(new, nb),
        heard_others=statement.author is not None and bool(nb.voices - {statement.author}),
        asks_back=(new.turn or "").rstrip().endswith("?"),
        latest_of_kind=latest.kinds,
        latest_in_role=latest.roles,
        roles_said=roles_said,
        own_statements=own,
        said_last=latest.said_last,
        many_valued=many,
        same_claim_slot=one_slot,
        same_day=new.when is None or nb.when is None or new.when.date() == nb.when.date(),
        new_at=new.when,
        old_at=nb.when,
        prompt=_question(new.prompt),
        brought_up=brought_up(talk, nb.when) if talk is not None else (),
        returned_to=returned_to(talk, named, nb.when) if talk is not None else (),
        sibling_subjects=a is not None and b is not None and _siblings(a.subject, b.subject),
        other_subjects=a is not None
        and b is not None
        and a.subject != b.subject
        and not ({a.subject, b.subject} & _DEICTIC_SUBJECTS)
        and not _within(a.subject, b.subject),
    )
    j = relate(statement, old, ctx, config.slots)
    rel = j.relation
    if rel == SlotRelation.UNKNOWN:
        return _UNDECIDED
    if rel == SlotRelation.DIFFERENT:
        return None
    if rel == SlotRelation.SAME:
        if is_held(new.type) != is_held(nb.type):
            # "I believe the launch is on 3 May" and "The launch is on 3 May": one is held,
            # the other stated; they corroborate, they are not one memory.
            return _Pair(Verdict.ADD, "support", f"{j.reason}, one as a belief: kept apart")
        return _merge(new, nb, "same_values", j.reason)
    if rel == SlotRelation.SUPPORT:
        return _Pair(Verdict.ADD, "support", f"{j.reason}: kept, and counted as evidence for it")
    if rel == SlotRelation.REFINE:
        if not same_author:
            # "You arrive at Fresno Station." after the user's "I would like to go to Fresno,
            # CA.": a fuller value from another speaker says what the older one says, and
            # more; it corroborates, it does not retire another's statement (ADR 0101).
            return _Pair(Verdict.ADD, "support", f"{j.reason}, said by another: kept beside it")
        return _Pair(Verdict.UPDATE, "refine", j.reason)
    if rel == SlotRelation.UPDATE:
        kind = None
        if same_author and statement.cue:
            kind = "own_correction"  # the author says it changed
        elif same_author and ctx.same_conversation:
            kind = "own_update"  # a new value from the author later in the conversation
        return _Pair(Verdict.SUPERSEDE, "slot_update", j.reason, kind, j.old_value, j.kind)
    if rel == SlotRelation.NEGATION:
        kind = "cross_agent" if _another_agent(new, nb) else "negation"
        return _Pair(Verdict.CONTRADICT, "slot_negation", j.reason, kind)
    if _another_agent(new, nb):
        kind = "cross_agent"
    elif j.kind in MEASURES:
        kind = "numbers"
    else:
        kind = "value" if same_author else "source"
    return _Pair(Verdict.CONTRADICT, "slot_value", j.reason, kind, j.old_value, j.kind)


def _changes_held(pair: _Pair, nb: Neighbour) -> bool:
    """Whether the pair is the new atom's author changing a value the retired neighbour
    still holds (an own correction or update of a value in a role ``nb.holds`` names; a
    value not found as said, a date read as a calendar day, by its kind)."""
    if pair.rule != "slot_update" or pair.conflict_type not in ("own_correction", "own_update"):
        return False
    said = analyze(nb.text)
    roles = {
        (v.kind, role_of(said, i)) for i, v in enumerate(said.values) if v.norm == pair.old_value
    }
    if roles:
        return bool(roles & nb.holds)
    return any(k == pair.kind for k, _ in nb.holds)


def _within(a: str, b: str) -> bool:
    """One subject says all the other does and more only by naming the kind of value said of
    it ("orion launch" / "orion launch date"): one thing, not two. Any other word makes
    another thing ("alice" / "alice sister")."""
    wa, wb = set(a.split()), set(b.split())
    return (wa <= wb or wb <= wa) and (wa ^ wb) <= _KIND_WORDS


#: The words that name a kind of value (``values.MASK_WORD``): "date", "time", "number"...
_KIND_WORDS = frozenset(w.split()[-1] for w in MASK_WORD.values())


def _siblings(a: str, b: str) -> bool:
    """Two subjects of one kind: they share a word and each has one the other lacks."""
    wa, wb = set(a.split()), set(b.split())
    return bool(wa & wb) and bool(wa - wb) and bool(wb - wa)


def _judgement(pair: _Pair, nb: Neighbour, also: tuple[str, ...] = ()) -> Judgement:
    if pair.rule == "exact":
        confidence = 1.0
    else:
        confidence = _BASE[pair.rule] * (0.75 + 0.25 * _clip(nb.similarity))
    return Judgement(
        pair.verdict,
        nb.unit_id,
        pair.reason,
        _round(confidence),
        pair.conflict_type,
        also=also,
        old_value=pair.old_value if pair.verdict in REWRITES else None,
    )


def _clip(x: float) -> float:
    return min(1.0, max(0.0, x))


def _round(x: float) -> float:
    return round(x, 3)


def _another_agent(new: Candidate, nb: Neighbour) -> bool:
    return new.agent_id != nb.agent_id and new.agent_id not in nb.knowers


def _merge(new: Candidate, nb: Neighbour, rule: str, why: str) -> _Pair:
    if _another_agent(new, nb):
        return _Pair(Verdict.LINK_EXISTING, rule, f"{why}; another agent already holds it")
    return _Pair(Verdict.NOOP, rule, f"{why}; kept as more evidence")


def _compare(new: Candidate, nb: Neighbour, config: JudgeConfig) -> _Pair | None:
    """What one neighbour says about the new atom, or None when it says nothing (ADD)."""
    if normalize_text(new.text) == normalize_text(nb.text):
        return _merge(new, nb, "exact", "the same text")
    a, b = nb.claim, new.claim
    if a is not None and b is not None:
        if (a.subject, a.attribute) == (b.subject, b.attribute):
            return _same_slot(new, nb, a, b)
        # The same-subject gate: different slots never merge and never overwrite ("Server 1 has
        # 64 GB" and "Server 2 has 64 GB" are two facts). With one subject read two ways, a pair
        # identical but for its numbers is still a conflict.
        if a.subject != b.subject:
            return None
        bridged = _bridge(a, b)
        if bridged is not None:
            return _same_slot(new, nb, *bridged)
        return _text_numbers(new, nb, config)
    return _text_rules(new, nb, config)


def _bridge(old: Claim, cur: Claim) -> tuple[Claim, Claim] | None:
    """Both claims read as plain "is" claims, when one is an adjective's complement and the
    other a bare "is" whose value one includes the other's: "the release is blocked" and "the
    release is blocked by the test" (a refinement), "Ana is CEO of Acme" and "Ana is the CEO of
    Acme" (one claim). A bare "is" whose value is only a date is a "when" ("the deadline is 6
    October" and "the deadline moved to 6 June" fill one slot). Any other pair of slots stays
    apart: "is allergic to sesame" never clashes with "is a painter"."""
    if old.attribute == cur.attribute:
        return None
    to, tc = time_view(old), time_view(cur)
    if to.attribute == tc.attribute:
        return to, tc  # "the deadline is 6 October" and "the deadline moved to 6 June"
    vo, vc = copula_view(old), copula_view(cur)
    if (vo.attribute, vc.attribute) != ("is", "is"):
        return None
    wo, wc = value_words(vo.value), value_words(vc.value)
    if not wo or not wc or not (wo <= wc or wc <= wo):
        return None
    return vo, vc


def _same_slot(new: Candidate, nb: Neighbour, old: Claim, cur: Claim) -> _Pair | None:
    slot = f"{cur.subject} / {cur.attribute.replace('_', ' ')}"
    qo, qc = _qualifier(old.value), _qualifier(cur.value)
    if qo and qc and not qo & qc:
        # "In staging, the log level is debug." / "In production, the log level is warn.": the
        # situation each is said of is part of the slot (issue 15 item 1): two slots.
        return None
    if same_value(old, cur):
        if old.negated != cur.negated:
            return _negation(new, nb, cur, slot)
        if _adds_numbers(old, cur):
            return _Pair(Verdict.UPDATE, "refine", f"adds a number or date to {slot}")
        if not _same_numbers(old, cur):
            return _numbers(new, nb, cur, slot)
        return _merge(new, nb, "paraphrase", f"the same claim ({slot}: {cur.value})")
    if old.negated != cur.negated:
        return None  # "has no bathtub" vs "has a shower": different values, no clash
    if _differs_only_in_numbers(old, cur) and not _adds_numbers(old, cur):
        return _numbers(new, nb, cur, slot, moved_value=is_single_valued(old))
    wo, wn = value_words(old.value), value_words(cur.value)
    if wo and wo < wn and is_preference(old) and not is_single_valued(old):
        # "I love your icecream so much!" / "I love it when you make coconut milk icecream":
        # a taste or a plan, which may be several, keeps the shorter one beside the fuller.
        return _Pair(Verdict.ADD, "support", f"says more of {slot}: '{old.value}': kept beside it")
    if wo and wo < wn:
        return _Pair(Verdict.UPDATE, "refine", f"refines {slot}: '{old.value}' -> '{cur.value}'")
    if wn and wn < wo:
        return _merge(new, nb, "subsumed", f"says less than what is known ({slot}: {old.value})")
    single = is_single_valued(old)
    if cur.change and (single or REPLACING.search(new.text.casefold())):
        return _Pair(
            Verdict.SUPERSEDE,
            "change",
            f"{slot} changed: '{old.value}' -> '{cur.value}' (the new atom says it changed)",
        )
    if not single:
        return None
    return _Pair(
        Verdict.CONTRADICT,
        "value",
        f"{slot} holds one value: '{old.value}' vs '{cur.value}'",
        _conflict_type(new, nb, cur, "value"),
    )


#: A situation a claim's value is said of, at its end: the claim rules move a fronted one there
#: ("In staging, the log level is debug." -> "debug in staging").
_QUALIFIER = re.compile(r"\b(?:in|at|for|on|during)\s+((?:[\w'-]+\s*){1,4})$")


def _qualifier(value: str) -> frozenset[str]:
    m = _QUALIFIER.search(value)
    if m is None:
        return frozenset()
    return frozenset(w for w in m.group(1).split() if w not in ARTICLES)


def _conflict_type(new: Candidate, nb: Neighbour, claim: Claim, default: str) -> str:
    if _another_agent(new, nb):
        return "cross_agent"
    if is_preference(claim) or new.type in {UnitType.PREFERENCE, UnitType.GOAL, UnitType.OPINION}:
        return "preference"
    return default


def _negation(new: Candidate, nb: Neighbour, cur: Claim, slot: str) -> _Pair:
    if cur.change and (cur.negated or STRONG_CHANGE.search(new.text.casefold())):
        return _Pair(Verdict.SUPERSEDE, "stopped", f"{slot}: no longer '{cur.value}'")
    kind = "cross_agent" if _another_agent(new, nb) else "negation"
    said = "denies" if cur.negated else "affirms"
    return _Pair(Verdict.CONTRADICT, "negation", f"the new atom {said} {slot}: '{cur.value}'", kind)


def _numbers(
    new: Candidate, nb: Neighbour, cur: Claim, slot: str, *, moved_value: bool = False
) -> _Pair:
    """Numbers or dates differ: a conflict, or a supersession when the new atom says so.

    A strong change word ("now", "instead") always says so; any change word ("moved to")
    does when the slot's one value is the number or date that moved ("the deadline moved to 6
    June" after "the deadline is 6 October"), as for any other one-valued slot. A change word
    around the same value ("I moved to Berlin in 2021" / "in 2019") is a conflict on the date.
    """
    if cur.change and (moved_value or STRONG_CHANGE.search(new.text.casefold())):
        return _Pair(Verdict.SUPERSEDE, "change", f"{slot} changed to '{cur.value}'")
    kind = "cross_agent" if _another_agent(new, nb) else "numbers"
    return _Pair(Verdict.CONTRADICT, "numbers", f"{slot}: the numbers or dates differ", kind)


# ---------------------------------------------------------------------------------------------
# Numbers and words
# ---------------------------------------------------------------------------------------------

_DIGITS = re.compile(r"\d")


def _same_numbers(a: Claim, b: Claim) -> bool:
    return sorted(a.numbers) == sorted(b.numbers) and sorted(a.dates) == sorted(b.dates)


def _adds_numbers(old: Claim, new: Claim) -> bool:
    """Whether the new claim gives numbers or dates where the old one had none (a refinement)."""
    return not old.numbers and not old.dates and bool(new.numbers or new.dates)


def _is_numeric(word: str) -> bool:
    return bool(_DIGITS.search(word))


def _split_numbers(words: Sequence[str]) -> tuple[list[str], list[str]]:
    """(plain words, amounts and date words), in order. An identifier ("heron-72", the 42 of
    "ticket 42") is a plain word: two values that differ in one name two things."""
    plain: list[str] = []
    amounts: list[str] = []
    prev = ""
    for w in words:
        if w in _DATE_WORDS or (_is_numeric(w) and not is_identifier(w, prev)):
            amounts.append(w)
        else:
            plain.append(w)
        prev = w
    return plain, amounts


_DATE_WORDS = frozenset(
    [
        *MONTH_NAMES,
        "jan",
        "feb",
        "mar",
        "apr",
        "jun",
        "jul",
        "aug",
        "sep",
        "sept",
        "oct",
        "nov",
        "dec",
        "monday",
        "tuesday",
        "wednesday",
        "thursday",
        "friday",
        "saturday",
        "sunday",
        "am",
        "pm",
    ]
)


def _differs_only_in_numbers(a: Claim, b: Claim) -> bool:
    """Whether two values are the same words around different numbers or dates (identifiers
    count as words: "the Quarry-338 rollout" and "the Tessel-564 rollout" differ in words)."""
    wa, _ = _split_numbers(a.value.split())
    wb, _ = _split_numbers(b.value.split())
    return wa == wb and not _same_numbers(a, b)


@lru_cache(maxsize=16384)
def content_words(text: str) -> tuple[str, ...]:
    """Normalized content words of a text (spelling, number words), stopwords dropped.

    Memoized: the write path compares each new atom with up to a dozen neighbours, and the
    same neighbour texts come back atom after atom.
    """
    out: list[str] = []
    for tok in tokens(text):
        w = normalize_word(tok)
        if w not in STOPWORDS or w[:1].isdigit():
            out.append(w)
    return tuple(out)


_NEGATORS = frozenset({"not", "no", "never", "nor", "t", "doesn", "don", "isn", "aren", "didn"})
_NEGATOR_RE = re.compile(r"\b(?:not|no|never|cannot|n't)\b|n't\b")


def _negative(text: str) -> bool:
    return _NEGATOR_RE.search(text.casefold().replace("’", "'")) is not None


def _numbers_of(words: Sequence[str]) -> list[str]:
    return sorted(w for w in words if _is_numeric(w) or w in _DATE_WORDS)


@dataclass(frozen=True, slots=True)
class _Words:
    """What the text rules read of one text, computed once per text."""

    plain: tuple[str, ...]  # content words that are no number or date word, sorted
    numbers: tuple[str, ...]  # the numbers and date words among the content words, sorted
    unique: frozenset[str]  # the content words, once each
    unique_numbers: tuple[str, ...]  # the numbers and date words among ``unique``, sorted
    negative: bool


@lru_cache(maxsize=16384)
def _words_of(text: str) -> _Words:
    """Memoized like ``content_words``: a neighbour's text comes back atom after atom."""
    words = content_words(text)
    unique = frozenset(words)
    return _Words(
        plain=tuple(sorted(w for w in words if not _is_numeric(w) and w not in _DATE_WORDS)),
        numbers=tuple(_numbers_of(words)),
        unique=unique,
        unique_numbers=tuple(_numbers_of(sorted(unique))),
        negative=_negative(text),
    )


def _text_numbers(new: Candidate, nb: Neighbour, config: JudgeConfig) -> _Pair | None:
    """Words identical but for numbers and dates, and close in meaning: a numbers conflict."""
    wn, wo = _words_of(new.text), _words_of(nb.text)
    if not wn.plain or wn.plain != wo.plain:
        return None
    if wn.numbers == wo.numbers or nb.similarity < config.paraphrase_similarity:
        return None
    if not wn.numbers or not wo.numbers:
        # Other numbers need numbers on both sides: "That one sounds great." says no other
        # number than "That sounds great." (SGD: two such chatter pairs were conflicts).
        return None
    if wn.negative != wo.negative:
        return None
    kind = "cross_agent" if _another_agent(new, nb) else "numbers"
    return _Pair(
        Verdict.CONTRADICT, "text_numbers", "the same statement with other numbers or dates", kind
    )


def _text_rules(new: Candidate, nb: Neighbour, config: JudgeConfig) -> _Pair | None:
    """Rules for a pair where a claim is missing on one side: words, numbers and similarity."""
    numbers = _text_numbers(new, nb, config)
    if numbers is not None:
        return numbers
    tn, to = _words_of(new.text), _words_of(nb.text)
    wn, wo = tn.unique, to.unique
    if not wn or not wo or tn.negative != to.negative:
        return None
    if tn.unique_numbers != to.unique_numbers:
        return None
    if wn == wo:
        return _merge(new, nb, "text_paraphrase", "the same words in another order")
    overlap = len(wn & wo) / len(wn | wo)
    if nb.similarity >= config.paraphrase_similarity and overlap >= config.paraphrase_overlap:
        return _merge(
            new,
            nb,
            "text_paraphrase",
            f"a paraphrase (similarity {nb.similarity:.2f}, word overlap {overlap:.2f})",
        )
    return None


def _is_related(new: Candidate, nb: Neighbour, config: JudgeConfig) -> bool:
    if nb.similarity >= config.related_similarity:
        return True
    return len(_words_of(new.text).unique & _words_of(nb.text).unique) >= 2


# ---------------------------------------------------------------------------------------------
# Questions for a person
# ---------------------------------------------------------------------------------------------

QUESTION_TEMPLATES: dict[str, str] = {
    "preference": "You said {old}; now {new_value}. Which holds?",
    "value": 'Earlier: "{old_text}". Now: "{new_text}". Did it change, or is one wrong?',
    "negation": 'Earlier: "{old_text}". Now: "{new_text}". Which is true?',
    "numbers": (
        'The numbers differ: "{old_text}" vs "{new_text}". Which is right, or did it change?'
    ),
    "cross_agent": ('Two agents disagree: "{old_text}" vs "{new_text}". Which holds?'),
    "supersede": 'Should "{new_text}" replace "{old_text}"?',
    "update": 'Should "{old_text}" become "{new_text}"?',
    "default": 'Is "{new_text}" consistent with "{old_text}"?',
}

_SECOND_PERSON = (
    (re.compile(r"\bI am\b|\bI'm\b"), "you are"),
    (re.compile(r"\bI was\b"), "you were"),
    (re.compile(r"\bI\b"), "you"),
    (re.compile(r"\b[Mm]y\b"), "your"),
    (re.compile(r"\b[Mm]e\b"), "you"),
    (re.compile(r"\b[Mm]ine\b"), "yours"),
)


def second_person(text: str) -> str:
    """A first-person atom addressed back to its speaker: "I prefer tea" -> "you prefer tea"."""
    out = text.strip().rstrip(".!")
    for pattern, repl in _SECOND_PERSON:
        out = pattern.sub(repl, out)
    return out[:1].lower() + out[1:] if out[:4] in {"You ", "Your"} else out


def suggest_question(judgement: Judgement, new_text: str, old_text: str) -> str:
    """The question a person is asked about a judgement, in plain words."""
    kind = judgement.conflict_type or {
        Verdict.SUPERSEDE: "supersede",
        Verdict.UPDATE: "update",
    }.get(judgement.verdict, "default")
    template = QUESTION_TEMPLATES.get(kind, QUESTION_TEMPLATES["default"])
    new_claim = extract_claim(new_text)
    new_value = new_claim.value if new_claim else new_text.strip().rstrip(".")
    return template.format(
        old=second_person(old_text),
        new_value=new_value,
        old_text=old_text.strip(),
        new_text=new_text.strip(),
    )
