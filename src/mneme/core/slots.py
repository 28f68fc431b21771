"""Whether two statements fill one slot, and what the newer one does to the older one.

Pure. :func:`relate` compares two :class:`~mneme.core.statements.Statement` objects by their
values and frames, with what the write path knows around them (:class:`Context`: the cosine of
the two texts, whether one author said both in one conversation, and whether the older one is
that author's latest statement of the value's kind there). The answer is one
:class:`SlotRelation`:

- ``SAME``: the same values, the newer one saying nothing the older one does not (a
  restatement: "So you'd like to go to 899 Sir Francis Drake Boulevard."), and no statement
  of what a proposal only offered: corroboration, merged (ADR 0078);
- ``SUPPORT``: it restates a value of the older one and adds more, or takes up a named value
  the other speaker's question offered ("Would you like True Grit?" / "I'll go with True
  Grit."): corroboration, kept apart;
- ``REFINE``: the new value says more of the old one ("Berlin" -> "Berlin Mitte");
- ``UPDATE``: one slot, a new value, and either a change cue ("moved from Berlin", "change it
  to Big 4") or the same author later in the same conversation: the older one is retired;
- ``CONFLICT``: one slot, another value, from another author or source, with no cue: a question;
- ``NEGATION``: the same values, one denies what the other affirms: a question (or an UPDATE
  when the newer one says it stopped);
- ``DIFFERENT``: different slots: nothing to decide ("for the Kepler bid ... 4 June" and "for
  the Tycho bid ... 9 June" differ in two values: two bids, not one deadline); also one
  author's same date or count said of another thing, or given for another question, which
  is neither a restatement nor evidence (ADR 0081);
- ``UNKNOWN``: no values to compare; the text rules decide.

One slot is one frame: the values that differ are of one kind and sit under the same
preposition ("leaving *from* X" is not "going *to* Y"), and everything else the two say agrees;
a change cue lets the preposition change ("the 14th would be ideal" / "change it *to* Tuesday")
when the older one is the author's latest statement of that kind, which is where a correction
points. The thresholds are set on the SGD dev split (``bench/sgd/decisions.py``; ADR 0026).
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from functools import lru_cache

from mneme.core.statements import (
    PREPOSITIONS,
    Statement,
    analyze,
    asks_about,
    asks_wh,
    names_end,
    proposes,
    subject_end,
    verb_cues,
    wonders,
)
from mneme.core.timeexpr import single_day
from mneme.core.values import MEASURES, Kind, is_relative
from mneme.core.wordlists import ASKING_WORDS, AUX, COPULAS, IRREGULAR_PAST, STOPWORDS


class SlotRelation(StrEnum):
    SAME = "same"
    SUPPORT = "support"
    UPDATE = "update"
    REFINE = "refine"
    CONFLICT = "conflict"
    NEGATION = "negation"
    DIFFERENT = "different"
    UNKNOWN = "unknown"


@dataclass(frozen=True, slots=True)
class SlotConfig:
    """Cosines (all-MiniLM-L6-v2, the two texts) each rule needs; see the module docstring."""

    #: One frame, the changed value under the same preposition.
    same_frame: float = 0.45
    #: A change cue pointing at the author's latest statement of the value's kind.
    cue_latest: float = 0.2
    #: Near-identical statements whatever their prepositions.
    near: float = 0.8
    #: A restatement of the same values merges as evidence.
    same: float = 0.3
    #: Statements that share only their subject are one fact only when this close.
    same_subject: float = 0.6
    #: Every value of a rejected statement said again this close is that value back (ADR 0062).
    said_again: float = 0.2


@dataclass(frozen=True, slots=True)
class Context:
    similarity: float  # cosine of the two texts
    same_author: bool  # one agent, one speaker, one source
    same_conversation: bool  # one session
    latest_of_kind: frozenset[Kind] = frozenset()  # kinds the older one is the latest of
    #: Kinds in a role the older one is the latest of ("in Napa": a name in "in"), among the
    #: author's statements in the conversation.
    latest_in_role: frozenset[tuple[Kind, str | None]] = frozenset()
    #: Every kind in a role the author said earlier in the conversation ("from Los Angeles":
    #: a name in "from"): a cued value in a role that has its own statement points there.
    roles_said: frozenset[tuple[Kind, str | None]] = frozenset()
    #: The older one is of the author's last turn before the newer one: the other speaker's
    #: question in between, if any, answered it ("you'd like to view it on March 14th?").
    said_last: bool = False
    #: The claim rules read both as one attribute that holds several values ("is fluent in",
    #: "likes"): another name there adds one, unless a cue says it replaced one.
    many_valued: bool = False
    #: The claim rules read both as one subject and attribute ("lives in" / "moved to").
    same_claim_slot: bool = False
    #: The claim rules read two different subjects ("my cat" / "the staging server").
    other_subjects: bool = False
    #: The claim rules read two subjects of one kind: a shared word and another beside it in
    #: each ("the API timeout" / "the database timeout", "my flight out" / "my flight back").
    sibling_subjects: bool = False
    #: Both said on one day (or when is unknown): relative dates ("yesterday") compare.
    same_day: bool = True
    #: The names of the people talking in the conversation (besides the two authors): who is
    #: spoken to or about, not a value.
    participants: frozenset[str] = frozenset()
    #: When each was said, if known: statements said on two days compare their relative dates
    #: ("Thursday", "tomorrow") as the calendar days they name then (ADR 0064).
    new_at: dt.datetime | None = None
    old_at: dt.datetime | None = None
    #: The other speaker's question the newer one answers, if known ("Would you like to visit
    #: on March 6th?" before "No, the 7th."): what that question asked about is what changes.
    prompt: Statement | None = None
    #: What the newer one's author brought up since the older one, in the same conversation
    #: ("is there a bus from Vancouver?" after the car's dates): their next value is its.
    brought_up: tuple[str, ...] = ()
    #: What the newer one's author came back to since the older one, leaving what they talked
    #: of then ("the weather" ... "Let's book that hotel."): their next value is its.
    returned_to: tuple[str, ...] = ()
    #: The author's earlier statements in the conversation (live, or retired with a value
    #: still held): a cued value whose clause says what one of them says of its value points
    #: there, not at the author's latest value of the kind.
    own_statements: tuple[Statement, ...] = ()
    #: The older one rests on the word of someone besides the newer one's author too (another
    #: speaker's restatement was merged into it): said back by its author, it is said back to
    #: them ("Okay, Hellboy will do." merged into "... it is Hellboy." / "You want to rent
    #: Hellboy with no subtitles, correct?").
    heard_others: bool = False
    #: The newer one's turn ends asking the other speaker ("So I'll rent Little, and play it
    #: with no subtitles, okay?", "... Is this correct?"): what it says is put to them.
    asks_back: bool = False
    #: Each said in a session of its own (two known sessions): two conversations.
    other_conversation: bool = False


@dataclass(frozen=True, slots=True)
class SlotJudgement:
    relation: SlotRelation
    reason: str
    kind: Kind | None = None
    old_value: str | None = None
    new_value: str | None = None


@dataclass(frozen=True, slots=True)
class Latest:
    """What an earlier statement of the author is the latest of in the conversation: kinds of
    value, kinds in a role (see :func:`kinds_in_roles`), and the author's last turn."""

    kinds: frozenset[Kind] = frozenset()
    roles: frozenset[tuple[Kind, str | None]] = frozenset()
    said_last: bool = False  # of the author's last turn before the newer one


def kinds_in_roles(statement: Statement) -> frozenset[tuple[Kind, str | None]]:
    """Each value's kind with its role (:func:`role_of`): "in Napa" is a name in "in"."""
    return frozenset((v.kind, role_of(statement, i)) for i, v in enumerate(statement.values))


def relate(
    new: Statement, old: Statement, ctx: Context, config: SlotConfig = SlotConfig()
) -> SlotJudgement:
    """What ``new`` does to ``old`` (see the module docstring)."""
    # What one author asks in a conversation ("What is the weather in Alamo on March 4th?")
    # states the values it asks about; their next question or proposal with another value
    # ("What about in Hayward?") moves what they ask about.
    asked = ctx.same_author and ctx.same_conversation and asks_about(old) and new.ends_asking
    if _says_words_back(new, old, ctx, config):
        # Grounding: the other speaker's read-back of what was said, in its words.
        return SlotJudgement(SlotRelation.SUPPORT, "the other speaker says its words back")
    if new.asks and not (asked and asks_about(new)):
        return SlotJudgement(SlotRelation.DIFFERENT, "a question states nothing")
    # Who talks and who is talked to ("Caroline: Thanks, Melanie!") is not what is said.
    speakers = frozenset(s.casefold() for s in (new.speaker, old.speaker) if s)
    speakers |= ctx.participants
    new, old = _without(new, speakers), _without(old, speakers)
    new, old = _one_name(new, old)
    if (new.cue or ctx.same_day) and ctx.new_at is not None and ctx.old_at is not None:
        # Dates compare as the calendar days they name. Said on one day, "Wednesday next week"
        # and "next Wednesday" (or "tomorrow" and "March 2nd") are one day, not two values.
        # A correction said days later ("The demo is on Friday instead.") names the days its
        # relative dates meant then, and so does what it corrects. Without a cue two relative
        # dates told on two days stay apart: "I went to a support group yesterday" and "Last
        # Friday, I went to a workshop" are two events (LoCoMo: 4 more open conflicts when
        # every such pair compared as days).
        new, old = on_days(new, ctx.new_at), on_days(old, ctx.old_at)
    if (old.asks and not asked) or (wonders(old) and not ctx.same_author):
        # A question states nothing, whether it asks for a value or whether one holds: the
        # other speaker's "0 checked bags are allowed." answers "Are two checked bags
        # allowed?", it does not contradict it. The author's own "Is Monday next week good?"
        # proposes a value their next word may change.
        if _takes_up(new, old, ctx):
            # "Would you like to watch True Grit?" / "I'll go with True Grit.": the question
            # stated nothing, the answer takes up the value it offered: evidence, kept apart.
            return SlotJudgement(SlotRelation.SUPPORT, "takes up a value the other speaker offered")
        if _put_back(new, old, ctx) and not _changes(new, old):
            # "Can I have the movie Auntie Mame?" / "Please confirm that you wish to rent the
            # movie Auntie Mame, right?": a request put as a question, read back for
            # confirmation with every value it named.
            return SlotJudgement(SlotRelation.SUPPORT, "says every value back for confirmation")
        return SlotJudgement(SlotRelation.DIFFERENT, "a question states nothing")
    unread = [r for r in new.retired if r not in old.norms and _says(old.body, r)]
    if (
        unread
        and not (old.norms - new.norms)
        and ctx.similarity >= config.same_frame
        and _held_moved(new, old, unread[0], ctx)
    ):
        # "Dev took over the billing service from Marta." / "Marta owns the billing service.":
        # the name the older one opens with is no value of its own (a capital at a sentence's
        # start says nothing), but the newer one names it as what no longer holds.
        return SlotJudgement(
            SlotRelation.UPDATE, f"says '{unread[0]}' no longer holds", old_value=unread[0]
        )
    if not new.values or not old.values:
        return SlotJudgement(SlotRelation.UNKNOWN, "no values to compare")
    if (
        new.first_person
        and old.first_person
        and not ctx.same_author
        and _each_own(new, old)
        and not _says_back_to(new, old, ctx)
    ):
        # "Caroline: I went to Sweden" and "Melanie: I went to Paris": two people, each
        # speaking of themselves.
        return SlotJudgement(SlotRelation.DIFFERENT, "two authors, each about themselves")
    shared = new.norms & old.norms
    shared -= _day_and_count(new, old, shared)
    retired = set(new.retired) & old.norms
    if (
        retired
        and not _kinds_of(old, old.norms - new.norms - retired) & _kinds_of(old, retired)
        and _held_moved(new, old, sorted(retired)[0], ctx)
    ):
        value = sorted(retired)[0]
        return SlotJudgement(
            SlotRelation.UPDATE, f"says '{value}' no longer holds", old_value=value
        )
    changes = _changes(new, old)
    if not changes:
        return _same_values(new, old, shared, ctx, config)
    if len(changes) > 1 and not _changed_together(changes, new, old, ctx):
        return SlotJudgement(
            SlotRelation.DIFFERENT, "more than one value differs: another subject or slot"
        )
    found = _one_change(new, old, changes[0], ctx, config)
    if found.relation not in (SlotRelation.UPDATE, SlotRelation.CONFLICT):
        return found
    why = _no_change(found, new, old, changes[0], ctx)
    if why:
        return replace(found, relation=SlotRelation.DIFFERENT, reason=f"{why}: {found.reason}")
    return found


def _says_words_back(new: Statement, old: Statement, ctx: Context, config: SlotConfig) -> bool:
    """Whether the other speaker, in one conversation, says back two content words of a
    statement that names no value, naming none either, affirming or denying as it did, with
    no change cue and not asking for something ("I want auntie mame" / "auntie mame no
    subtitles", "body double is my first choice" / "you want me to rent body double"):
    grounding what was said, the words for a value the analyzer cannot tell (a title in lower
    case). With a value on either side the value rules decide."""
    if ctx.same_author or not ctx.same_conversation or old.values or new.values:
        return False
    if old.ends_asking or new.cue or new.negated != old.negated or asks_wh(new):
        return False
    if ctx.similarity < config.same:
        return False
    return len(frame_words(new.body.casefold()) & frame_words(old.body.casefold())) >= 2


def _kinds_of(statement: Statement, norms: Iterable[str]) -> frozenset[Kind]:
    """The kinds of the statement's values among ``norms``."""
    wanted = frozenset(norms)
    return frozenset(v.kind for v in statement.values if v.norm in wanted)


def _held_moved(new: Statement, old: Statement, value: str, ctx: Context) -> bool:
    """Whether what ``old`` holds of a value ``new`` says no longer holds is what ``new``
    moved. Its holder ("*Marta* owns the billing service") leaves what it held, so ``new``
    names that ("Dev took over the *billing service* from Marta"; not "Marta is on the
    platform team"); a place or thing left ("Alice lives in *Berlin*") is left by what
    ``old`` is about, so ``new`` names that too, and no other subject ("Alice moved from
    Berlin"; not "Alice's sister moved from Berlin", nor "We moved the offsite from Berlin"
    for "The meetup is in Berlin")."""
    end = subject_end(old.body)
    held_by_value = value not in old.norms or any(
        v.norm == value and v.start < end for v in old.values
    )
    if held_by_value:
        verb = re.match(r"\s*\S+", old.body[end:])
        held = _words_between(old, end + (verb.end() if verb else 0), len(old.body))
        return held <= frame_words(new.frame)
    held = _words_between(old, 0, end)
    if ctx.other_subjects:
        # Another subject moved from it ("Alice's sister"), unless what ``old`` is about is
        # what ``new`` says moved ("Karl took over as *release manager* from Sara").
        return bool(held) and held <= _words_between(new, subject_end(new.body), len(new.body))
    return held <= frame_words(new.frame)


def _words_between(statement: Statement, start: int, end: int) -> frozenset[str]:
    """The content words of a stretch of a statement's body, its values left out."""
    text = statement.body[start:end]
    for v in sorted(statement.values, key=lambda v: -v.start):
        if start <= v.start and v.end <= end:
            text = text[: v.start - start] + " " + text[v.end - start :]
    return frame_words(text.casefold())


def _other_subjects(new: Statement, old: Statement) -> bool:
    """Whether two statements name what they are about in words that share nothing ("*My
    dentist appointment* is on 14 May" / "*The launch* is on 14 May"): the same value said of
    two things. A pronoun ("I", "it") or a subject left unsaid names nothing to compare."""
    a, b = _subject_words(new), _subject_words(old)
    return bool(a) and bool(b) and a.isdisjoint(b)


_LEAD_IN = re.compile(r"[,:;]\s*")


def _subject_words(statement: Statement) -> frozenset[str]:
    """The content words of a statement's subject, its values left out, after any lead-in
    set off by a comma or a colon ("Just to confirm, *you* ...", "For the Kepler bid, *the
    deadline* is ..."): a lead-in says how or of what, not who."""
    end = subject_end(statement.body)
    start = max((m.end() for m in _LEAD_IN.finditer(statement.body, 0, end)), default=0)
    return _words_between(statement, start, end)


def _changed_together(
    changes: Sequence[_Change], new: Statement, old: Statement, ctx: Context
) -> bool:
    """Whether several changed values are one change of one statement: each new value is cued,
    or one author gives each in the role its old value had in one conversation, none of them a
    name ("change that to a table for 1 at half past 12" after "a table for 2 at 6 in the
    evening"; ADR 0080). A changed name with another value is another thing ("For the Tycho
    bid, the review deadline is 9 June." after the Kepler bid's); so are two records said
    outside any conversation whose values all differ ("log: db-1 disk usage at 19% at
    2026-11-18 03:23" / "... 63% at 2026-11-22 02:48": two readings, ADR 0083)."""
    if all(c.new in new.cued for c in changes):
        return True
    return (
        ctx.same_author
        and ctx.same_conversation
        and all(
            c.same_role and c.kind != Kind.NAME and not _of_subjects(c, new, old) for c in changes
        )
    )


def _first_verb(statement: Statement) -> str | None:
    """The word right after the statement's subject, as written (lower case only)."""
    end = subject_end(statement.body)
    verb = re.match(r"\s*([a-z]+)\b", statement.body[end:]) if end else None
    return verb.group(1) if verb is not None else None


def _reports_past(statement: Statement) -> bool:
    """Whether a statement reports what happened: its first verb, right after its subject, is
    a regular past ("web-1 *restarted* at 22:38", "the certificate *renewed*")."""
    verb = _first_verb(statement)
    return verb is not None and len(verb) > 4 and verb.endswith("ed")


def _tells_past(statement: Statement) -> bool:
    """Whether a statement tells what happened, in a regular or an irregular past ("I *went*
    to a concert in Paris", "we *hiked* around Lake Tahoe")."""
    verb = _first_verb(statement)
    return _reports_past(statement) or verb in IRREGULAR_PAST or verb in ("was", "were")


def _of_subjects(change: _Change, new: Statement, old: Statement) -> bool:
    """Whether a changed value is what each statement is about ("*Service 3* runs on host h3"
    / "*Service 4* runs on host h4"): another subject, as for one changed value."""
    return change.old in old.subjects and change.new in new.subjects


def _no_change(
    found: SlotJudgement, new: Statement, old: Statement, change: _Change, ctx: Context
) -> str | None:
    """Why a change or a dispute of one value, read in its conversation, is neither, if it is."""
    if not ctx.said_last and _asked_elsewhere(ctx.prompt, old, change, ctx):
        # "Would you like to visit on March 6th?" / "No, I'd like to see it on the 7th.": the
        # answer changes what the other speaker's question asked about (the visit), not the
        # author's "I want to pick it up on the 6th", said turns before of something else. A
        # question right after the older one says it back ("You'd like to view it on March
        # 14th?" / "Actually, the 7th."): the answer changes it.
        return "answers another question"
    if not ctx.same_author and _requests(new) and not old.ends_asking:
        # "You have an alarm named Wake up set for 6 am." / "Set it for the afternoon 3:45.":
        # asking the other speaker for a value says what the author wants, not that what the
        # other one reported is wrong, nor that it changed, cue or not ("Please add another
        # alarm for 4 pm."): the report holds until they report again.
        return "a request"
    if found.relation != SlotRelation.CONFLICT:
        return None
    if _offered(old, ctx):
        # "Are you wanting to check in on March 11th?" / "I'd like to check in on the 12th.":
        # another value than the one a question offered declines the offer; it disputes
        # nothing (a request the author put as a question, "Can you book it for the 4th?",
        # is still corroborated by a read-back of the same value).
        return "declines"
    return None


#: A request to the other speaker: "can / could / would / will you ...", or an imperative, a
#: first word that is no pronoun, article or auxiliary followed by its object ("Set it for
#: 3:45", "Please add another alarm", "Book me a table"), after at most a short opener
#: ("Good, ", "I see, "). Closed classes only.
_REQUEST = re.compile(
    r"^\s*(?:[\w' ]{1,20}[,.!]\s+)?(?:please\s+)?(?:(?:can|could|would|will)\s+you\b|"
    r"(?!(?:i|you|we|they|he|she|it|there|that|this|the|a|an|my|our|your|is|are|was|were|"
    r"thanks|thank)\b)[a-z]+\s+(?:it|me|us|them|the|a|an|this|that|my|one|another)\b)",
    re.IGNORECASE,
)


def _requests(statement: Statement) -> bool:
    """Whether a statement asks the other speaker to do something (see ``_REQUEST``)."""
    return _REQUEST.match(statement.body) is not None


def _offered(old: Statement, ctx: Context) -> bool:
    """Whether ``old`` is the other speaker's question: it offered what it says."""
    return not ctx.same_author and old.ends_asking


_WE = re.compile(r"^\s*(?:\w+[,.!]?\s+)?(?:we|we're|we've|we'll|we'd|our|ours|us)\b", re.I)


_YOU = frozenset({"you", "your", "you're", "you'd", "you'll", "yours"})


def _says_back_to(new: Statement, old: Statement, ctx: Context) -> bool:
    """Whether ``new`` speaks to the older one's author about what they said: the other
    speaker in the same conversation, addressing them ("you") where it says a value of theirs
    again, with no change cue and no value changed ("I need a cab to 1200 Callowhill
    Street." / "I'll get you a shared ride cab to 1200 Callowhill Street"): one person's plan
    said back, not two people's own."""
    if new.cue or _changes(new, old):
        return False
    if _put_back(new, old, ctx):
        # Every value of theirs said again in a turn put to them for confirmation ("I'd like
        # to rent Little" / "So I'll rent Little, and play it with no subtitles, okay?").
        return True
    if ctx.same_author or not ctx.same_conversation:
        return False
    body = new.body.casefold()
    for v in new.values:
        if v.norm not in old.norms:
            continue
        # The value's own stretch of the sentence speaks to them: not "I went to Sweden
        # too, did you like it?".
        start = max(body.rfind(",", 0, v.start), body.rfind(";", 0, v.start)) + 1
        ends = [i for i in (body.find(",", v.end), body.find(";", v.end)) if i >= 0]
        if not _YOU.isdisjoint(re.findall(r"[\w']+", body[start : min(ends, default=len(body))])):
            return True
    return False


def _put_back(new: Statement, old: Statement, ctx: Context) -> bool:
    """Whether the other speaker, in one conversation, says every value of the older one
    again in a turn that asks them back (``ctx.asks_back``): a read-back for confirmation."""
    return (
        ctx.asks_back
        and not ctx.same_author
        and ctx.same_conversation
        and bool(old.norms)
        and old.norms <= new.norms
    )


def _each_own(new: Statement, old: Statement) -> bool:
    """Whether two authors' first persons are two people: a transcript's speakers ("Caroline:
    I went to Sweden" / "Melanie: I went to Paris") or anyone's "I". Two agents writing "our
    SLA" into one bank speak of one organisation's SLA."""
    return bool(new.speaker or old.speaker) or not (_WE.match(new.body) and _WE.match(old.body))


def _one_change(
    new: Statement, old: Statement, change: _Change, ctx: Context, config: SlotConfig
) -> SlotJudgement:
    """One value differs: the same slot changed (or disputed), or another slot."""
    kind, old_value, new_value = change.kind, change.old, change.new
    said = f"'{old_value}' -> '{new_value}'"
    if _denied(old, old_value) or _denied(new, new_value):
        # "The codename is not Bluebird." and "The codename is Kestrel." agree: denying one
        # value says nothing against another.
        return SlotJudgement(SlotRelation.DIFFERENT, f"a denied value and another ({said})")
    deictic = is_relative(old_value) or is_relative(new_value)
    if kind == Kind.DATE and not ctx.same_day and deictic:
        # "yesterday" said on one day and "last Friday" on another are told from two days:
        # not two values of one date.
        return SlotJudgement(SlotRelation.DIFFERENT, f"dates told from other days ({said})")
    if _of_subjects(change, new, old):
        return SlotJudgement(SlotRelation.DIFFERENT, f"another subject ({said})")
    if (
        kind == Kind.TIME
        and not ctx.same_conversation
        and change.new not in new.cued
        and _reports_past(new)
        and _reports_past(old)
    ):
        # "log: web-1 rotated logs at 2026-11-09 00:40" / "... at 03:29": what happened,
        # said again at another time of day outside any conversation, happened again; a
        # schedule ("The standup is at 9:15") or a conversation's plans change instead, and
        # "I moved to Berlin in 2019" / "... in 2021" still disagree (ADR 0083).
        return SlotJudgement(SlotRelation.DIFFERENT, f"another occurrence ({said})")
    if _extends(new_value, old_value) and (
        frames_agree(new, old) or ctx.similarity >= config.near or ctx.same_claim_slot
    ):
        # A refinement says the same thing of a fuller value ("I live in Berlin" / "I live in
        # Berlin Mitte"); the fuller name in another frame is talk of something else ("the
        # props for the Harry Potter films" / "'Harry Potter and the Philosopher's Stone' is
        # special to me").
        return SlotJudgement(
            SlotRelation.REFINE, f"refines {kind.value} {said}", kind, old_value, new_value
        )
    if _extends(old_value, new_value):
        return SlotJudgement(SlotRelation.SAME, f"says less than what is held ({said})")
    cued = new_value in new.cued
    apart = _roles_apart(change, cued, new, old) or _brought_up(ctx)
    if apart:
        return SlotJudgement(SlotRelation.DIFFERENT, f"{apart} ({said})")
    own = ctx.same_author and ctx.same_conversation
    framed, pointed = _lands_or_points(new, old, change, ctx, config, cued)
    near = ctx.similarity >= config.near and not ctx.other_subjects
    # The claim rules read one slot ("I live in Paris" / "I moved to Berlin") and a cue
    # covers the new value: however unlike the texts, the value moved.
    claimed = ctx.same_claim_slot and cued
    if not (framed or pointed or near or claimed):
        return SlotJudgement(SlotRelation.DIFFERENT, f"another {kind.value} in another frame")
    if (
        kind not in MEASURES
        and not cued
        and (ctx.many_valued or (change.role is None and not ctx.same_claim_slot))
    ):
        # A name or an identifier as a plain object, or in a slot that holds several, adds
        # to what is held ("owns the Tessel-564 rollout", "is fluent in Portuguese").
        return SlotJudgement(
            SlotRelation.DIFFERENT, f"another {kind.value} beside the others: nothing replaced"
        )
    if not cued and not claimed and ctx.sibling_subjects:
        # "The API timeout is 30 seconds." / "The database timeout is 5 seconds.", "The
        # staging server has 16 GB of RAM." / (another agent) "The production server has 64
        # GB of RAM.": without a cue, a value said of another subject is another slot, whoever
        # says it.
        return SlotJudgement(SlotRelation.DIFFERENT, f"another {kind.value} of another subject")
    if own and not cued and not claimed and not _asked_alike(new, old, change.new, change.old):
        # A bare answer fills the slot its question asks for: "Thursday next week." to "What
        # date?" and "March 9th." to "Which day is the return flight?" are two slots.
        return SlotJudgement(
            SlotRelation.DIFFERENT, f"another {kind.value} asked for by another question"
        )
    if (
        own
        and not cued
        and not (claimed or _in_one_role(change, new, old) or clauses_agree(new, old, change))
    ):
        # No cue, and each value said of something else in its own clause ("I want to fly
        # this Saturday" / "I want to return next Monday"), however alike the texts: two
        # slots of one plan, not a change.
        return SlotJudgement(SlotRelation.DIFFERENT, f"another {kind.value} said of another thing")
    if cued or own:
        why = "a change cue" if cued else "the same author later in the conversation"
        return SlotJudgement(
            SlotRelation.UPDATE, f"{kind.value} changed {said} ({why})", kind, old_value, new_value
        )
    if not (frames_agree(new, old) or ctx.similarity >= config.near):
        # Another source's value in a frame that says something else around it: talk about
        # another thing, not a disagreement ("Caroline: the show is on 3 May" / "Melanie:
        # we hiked on 10 May").
        return SlotJudgement(SlotRelation.DIFFERENT, f"another source's {kind.value} elsewhere")
    return SlotJudgement(
        SlotRelation.CONFLICT,
        f"another {kind.value} for the same slot {said}"
        + ("" if ctx.same_author else " from another source"),
        kind,
        old_value,
        new_value,
    )


def _lands_or_points(
    new: Statement, old: Statement, change: _Change, ctx: Context, config: SlotConfig, cued: bool
) -> tuple[bool, bool]:
    """Whether the new value is said in ``old``'s frame (it lands there), and whether its cue
    points at ``old``."""
    # A correction that says nothing but the new value ("change it to Big 4", "what about the
    # 14th?") points at the author's latest statement of that kind, however unlike it reads.
    # Neither a cue nor the author's habit of going on about one thing carries a value across
    # two statements that name their own subjects in words sharing nothing: "Recycling pickup
    # moved from Tuesday to Wednesday." moves the pickup, not "Invoice batches for the
    # Nordics go out on the 3rd working day." said before it (ADR 0105). A request or a
    # question names no subject of its own ("Look for one in Novato." / "What about a
    # psychologist in Lafayette?"): what it seeks is the conversation's.
    apart = _other_subjects(new, old) and not any(s.ends_asking or _requests(s) for s in (new, old))
    pointed = (
        cued
        and change.kind in ctx.latest_of_kind
        and (ctx.similarity >= config.cue_latest or _thin(new))
        and not _role_has_its_own(change, ctx)
        and not apart
    )
    # The author's own latest statement of the kind, in the same role, is where a new value of
    # theirs lands however unlike the texts read ("I would like to book at Rosie Mccann's for
    # March 2nd" / "I want to eat there on the 4th"); the clause test still tells two things
    # said apart (ADR 0039).
    # Across two conversations the frame must be near-identical, or the claim rules read one
    # slot: a cue answers its own conversation ("No, please look for a table on the 5th of
    # March." in a restaurant booking moves no visit date said in another), and two tasks'
    # frames share their prepositions (ADR 0106: SGD shared banks, retirements across two
    # dialogues 11 -> 1 distinct pairs; resumed updates top-1 0.547 -> 0.623).
    bar = config.near if ctx.other_conversation else config.same_frame
    framed = change.same_role and (
        ctx.similarity >= bar
        or ctx.same_claim_slot
        or (
            ctx.same_author
            and ctx.same_conversation
            and not apart
            and _lands(new, old, change, ctx)
        )
    )
    if (pointed or framed) and _said_of_another(new, old, change, ctx):
        # A value whose clause says what another of the author's statements says of its value
        # is that one's: it neither lands nor points here (ADR 0077).
        return False, False
    return framed, pointed


def _in_one_role(change: _Change, new: Statement, old: Statement) -> bool:
    """Whether both values fill one named role: a name governed by one preposition that ends
    its phrase ("a therapist *in* El Cerrito" / "a Family Counselor *in* Santa Rosa"). What is
    said around it names what is sought, and that changes with the search; the role is what
    the value is. A name that modifies the noun after it ("to a Study Abroad program", "to
    explore Irish music") names a kind of that thing, not the role's value. Only what is asked
    for moves so: one of the two asks or requests. Where one works and where one lives ("I
    work in Berlin" / "I live in Potsdam") are two slots, and two things that happened in two
    places ("I went to a concert in Paris" / "I had dinner in London") two events."""
    return (
        change.kind == Kind.NAME
        and change.same_role
        and change.role is not None
        and _ends_phrase(new, change.new)
        and _ends_phrase(old, change.old)
        and any(s.ends_asking or _requests(s) for s in (new, old))
        and not (_tells_past(new) or _tells_past(old))
    )


_NEXT_WORD = re.compile(r"\s*([A-Za-z][\w'’-]*)")


def _ends_phrase(statement: Statement, norm: str) -> bool:
    """Whether each place the statement says the value ends its phrase: no content word
    follows it ("in Santa Rosa, so ...", "around New York.", not "Irish music")."""
    for v in statement.values:
        if v.norm != norm:
            continue
        m = _NEXT_WORD.match(statement.body, v.end)
        if m is not None and m.group(1).casefold() not in STOPWORDS:
            return False
    return True


def _roles_apart(change: _Change, cued: bool, new: Statement, old: Statement) -> str | None:
    """Why a changed date or time in another role is another slot, if it is: a start and an
    end whatever the cue or the claim rules ("until March 9th" / "but make it from the 7th");
    a moment and an end a word of its clause names, whatever the cue ("I need to leave on the
    8th" / "How about round trip flights that return on the 10th?", ADR 0088); a moment and
    any other end (or a start) unless a cue says the value moved ("I will need the car on the
    13th" / "I need the car until the 14th", but "Likely from the 7th" / "for pickup on
    Wednesday next week instead")."""
    if {change.role, change.old_role} == {"start", "end"}:
        return "a start and an end"
    if change.kind in (Kind.DATE, Kind.TIME) and not change.same_role and not cued:
        return f"a {change.old_role} and a {change.role}"
    if {change.role, change.old_role} == {"point", "end"} and (
        _said_as_end(new, change.new) or _said_as_end(old, change.old)
    ):
        # A moment is when a thing starts. An end read from "to" alone keeps the rule above
        # ("No, I meant to say the 14th").
        return "a moment and an end"
    return None


def _said_as_end(statement: Statement, norm: str) -> bool:
    """Whether a word of the value's clause names it the end of a span ("return on the 10th"):
    ``Statement.span_ends``."""
    return any(
        v.norm == norm and end for v, end in zip(statement.values, statement.span_ends, strict=True)
    )


def _role_has_its_own(change: _Change, ctx: Context) -> bool:
    """Whether a cued value in a named role ("How about something *from* San Francisco?") has
    a statement of its kind in that role to correct ("On the 5th *from* Los Angeles"), other
    than the older one in another role ("That would be Phoenix."): the cue points there, not
    at the author's latest value of the kind."""
    return (
        change.role is not None
        and not change.same_role
        and (change.kind, change.role) in ctx.roles_said
    )


def _said_of_another(new: Statement, old: Statement, change: _Change, ctx: Context) -> bool:
    """Whether the cued value's clause says what another of the author's statements says of a
    value of its kind in its role, while the older one's says something else ("I want to pick
    it up on the 7th." after "I want to pick it up on March 9th." and "I will return it March
    13th."): the cue points at that one, not at the author's latest value of the kind."""
    words = _clause_words(new, change.new)
    if not words or clauses_agree(new, old, change):
        return False
    return any(
        v.kind == change.kind
        and role_of(s, i) == change.role
        and _agrees_with(_clause_words(s, v.norm), words)
        for s in ctx.own_statements
        if s.body != old.body
        for i, v in enumerate(s.values)
    )


def _agrees_with(said: frozenset[str], words: frozenset[str]) -> bool:
    """Whether a clause that says something of its value says what ``words`` say."""
    return bool(said) and _words_agree(said, words)


def _brought_up(ctx: Context) -> str | None:
    """Why a value is another thing's, if it is: its author brought up something new since the
    older one ("I need it for March 3rd." for the car, "is there a bus from Vancouver?",
    "Actually, the 2nd of this month."), cue or not (ADR 0071)."""
    if ctx.brought_up:
        return f"said after bringing up {', '.join(ctx.brought_up)}"
    if ctx.returned_to:
        return f"said after coming back to {', '.join(ctx.returned_to)}"
    return None


def _asked_elsewhere(
    prompt: Statement | None, old: Statement, change: _Change, ctx: Context
) -> bool:
    """Whether the question an answer follows asks about values of the changed kind, each said
    of something other than what ``old`` says its value of (both clauses name something the
    other does not): the answer is about that, not about ``old``. Not when the question reads
    the author's plan back, ``old``'s value with another of theirs ("okay so you want 1 room
    for 4 days ... on march 4th?" after "i want to check in on the 4th"): it asks about
    ``old``, in its own words."""
    if prompt is None or not prompt.ends_asking:
        return False
    if ctx.new_at is not None:
        prompt = on_days(prompt, ctx.new_at)
    theirs = old.norms.union(*(s.norms for s in ctx.own_statements))
    if change.old in prompt.norms and len(prompt.norms & theirs) > 1:
        return False
    b = _clause_words(old, change.old)
    asked = [_clause_words(prompt, v.norm) for v in prompt.values if v.kind == change.kind]
    return bool(asked) and not any(_words_agree(a, b) for a in asked)


def _lands(new: Statement, old: Statement, change: _Change, ctx: Context) -> bool:
    """Whether the author's new value lands on ``old`` as their latest statement of the kind
    (or of the kind in the value's role: "in Napa" / "in Santa Rosa"). Not when ``old`` says
    nothing but its value and ``new`` names what its value is of: the older one took its slot
    from the conversation around it ("From Philadelphia." to "Where from?"), which the newer
    one, about something named ("a rental car from SD"), may have left. A request that says
    only what to do with its value ("Search in Oakland.") is no bare answer: it asked for the
    value itself, and the newer request lands on it ("Can you find me some therapists in
    Santa Rosa?"; ADR 0070, amended in the thirteenth sitting)."""
    if is_bare(old) and not _thin(new):
        return False
    return change.kind in ctx.latest_of_kind or (change.kind, change.role) in ctx.latest_in_role


#: Kinds whose digits alone do not say what a value is: "3" is a day in "it's the 3rd" and a
#: count in "3 are more than enough".
_DAY_OR_COUNT = frozenset({Kind.DATE, Kind.NUMBER})


def _day_and_count(new: Statement, old: Statement, shared: frozenset[str]) -> frozenset[str]:
    """Of the values both statements say, the ones that are a day in one and a count in the
    other: two values, not one said twice (SGD test: "3 are more than enough" was counted as
    evidence for "it's the 3rd", and held back when that day was rejected)."""
    out: set[str] = set()
    for norm in shared:
        a, b = _kinds_of(new, (norm,)), _kinds_of(old, (norm,))
        if a <= _DAY_OR_COUNT and b <= _DAY_OR_COUNT and not a & b:
            out.add(norm)
    return frozenset(out)


def _same_values(
    new: Statement, old: Statement, shared: frozenset[str], ctx: Context, config: SlotConfig
) -> SlotJudgement:
    """No value changed: a restatement, a denial, or nothing in common."""
    # Sharing only what the statements are about ("Hana is mentoring Dana" / "Hana is allergic
    # to shellfish") is the same subject, not the same fact.
    about = shared - (new.subjects & old.subjects)
    if not about and ctx.similarity < config.same_subject:
        return SlotJudgement(SlotRelation.UNKNOWN, "only the subject in common")
    moved_on = (
        new.cue
        and old.norms < new.norms
        and ctx.similarity >= config.cue_latest
        and not new.ends_asking
        and not (proposes(new) and not ctx.same_author)
        and all(_held_moved(new, old, r, ctx) for r in set(new.retired) & old.norms)
    )
    denies = new.negated != old.negated and _denies_in_clause(new, old, about)
    if denies:
        if moved_on and new.negated:
            # "We renamed the puppy Waffles, Biscuit didn't suit him.": what it held is denied
            # and what holds now is named.
            return SlotJudgement(SlotRelation.UPDATE, "says what it held changed")
        one_thing = bool(about) and _same_roles(new, old, about)
        if one_thing or _negation_frames_agree(new, old):
            if new.cue and new.negated:
                return SlotJudgement(SlotRelation.UPDATE, "says it no longer holds")
            return SlotJudgement(SlotRelation.NEGATION, "one affirms what the other denies")
        if not about or _denied_before(new, about) or _denied_before(old, about):
            # "Can't wait to hear about it" does not deny "Missed you", however alike two
            # short greetings read to the embedder: a denial says the same thing, of the same
            # value in the same role, with a "not".
            return SlotJudgement(SlotRelation.UNKNOWN, "a denial of something else")
        # A "not" only after the shared value denies what follows it ("You want to watch
        # Captain Marvel and don't mind no subtitles?" / "Captain Marvel is good."): what the
        # two share is compared below; no merge may lose the denial.
    agree = frames_agree(new, old)
    if ctx.same_author and ctx.same_conversation and _asked_apart(new, old, about):
        # "march 13th works" to "what date then?" (the car) and "yes march 13th" to "wanna
        # visit it?" (the flat): one author's one value given for two questions is two slots,
        # not one fact said twice; merged, a later change of either retires both (ADR 0081).
        return SlotJudgement(SlotRelation.DIFFERENT, "the same value for another question")
    if (
        not denies
        and new.norms <= old.norms
        and frame_words(new.frame) <= frame_words(old.frame)
        and (new.ends_asking or not old.ends_asking)
        and ctx.similarity >= config.same
    ):
        # Merged as evidence only when it says nothing the older one does not: one that says
        # more ("For now just find me a one way flight" after "That one sounds great") is
        # kept, or what it adds is lost; and a statement asserts what a proposal ("What
        # about Dumbo?") only offered.
        return SlotJudgement(SlotRelation.SAME, "the same values, restated")
    if moved_on:
        # "Lena handed the Thursday critique over to Marco" after "Lena runs the Thursday
        # critique": everything the older one said, and what changed.
        return SlotJudgement(SlotRelation.UPDATE, "says what it held changed")
    if (
        about
        and ctx.same_author
        and ctx.same_conversation
        and _said_of_other_things(new, old, about)
    ):
        # "I would like to check the weather on 8th of March." / "... and will fly out on 8th
        # of March.": one author's date or number again, said of something else in each
        # clause, is a coincidence of values, not the same fact said twice (ADR 0081).
        return SlotJudgement(SlotRelation.DIFFERENT, "the same value said of another thing")
    if about and (agree or _same_roles(new, old, about)) and not _other_subjects(new, old):
        # One value restated in its role, in other words or with more ("I'm headed to Willard
        # Hicks" / "So a shared cab for 1 to Willard Hicks?"): evidence, kept apart.
        return SlotJudgement(SlotRelation.SUPPORT, "restates a value")
    if _grounds(new, old, about, ctx):
        # The other speaker, later in the same conversation, says back a named thing the
        # first one said, with nothing changed ("I want to see Dogman." / "Please confirm:
        # watch Dogman with no subtitles."): grounding, evidence kept apart.
        return SlotJudgement(SlotRelation.SUPPORT, "the other speaker restates a named value")
    if _put_back(new, old, ctx):
        # Every value said again, in other words, in a turn put to its author for confirmation
        # ("Can you instead make the reservation at 1:15 pm for 3 people?" / "You would rather
        # book at table for 3 at 1:15 pm?"): a read-back, whatever the words around.
        return SlotJudgement(SlotRelation.SUPPORT, "says every value back for confirmation")
    return SlotJudgement(SlotRelation.UNKNOWN, "the same values, said of other things")


#: Values that name one thing: two speakers saying the same one are talking of one thing
#: (a shared count, date or time may be chance).
_NAMING = frozenset({Kind.NAME, Kind.CODE})


def _grounds(new: Statement, old: Statement, about: frozenset[str], ctx: Context) -> bool:
    """Whether ``new`` says back, in one conversation and from the other speaker, a named value
    of what was said before (with no value changed: see :func:`relate`); a statement of its
    own that the other speaker's word was merged into is theirs too."""
    if (ctx.same_author and not ctx.heard_others) or not ctx.same_conversation or not about:
        return False
    # Who the older one is about is not what it said of them: "I love Lena's cooking." names
    # Lena and grounds nothing of "Lena moved from Berlin to Munich.". A statement whose only
    # value is its subject says that thing is the one ("Viva Las Vegas sounds appealing."):
    # naming it back grounds that (SGD decisions: 3 read-backs of dev lost without this).
    who = old.subjects if old.norms - old.subjects else frozenset()
    return any(v.norm in about and v.norm not in who and v.kind in _NAMING for v in new.values)


def _takes_up(new: Statement, old: Statement, ctx: Context) -> bool:
    """Whether ``new`` answers the other speaker's question ``old`` by saying back a named
    value it offered, in one conversation, with no value changed and the value not denied
    ("Do you like Dogman, Hackers, or High Life?" / "Dogman will work for me."). The question
    states nothing; the answer says which of its values holds (see :func:`_grounds`). A
    question back ("Is Dogman in English?") takes nothing up."""
    if ctx.same_author or not ctx.same_conversation or _changes(new, old):
        return False
    if new.ends_asking:
        return False
    named = frozenset(v.norm for v in new.values if v.kind in _NAMING) & old.norms
    return bool(named) and not _clause_negated(new, named)


def says_again(
    new: Statement,
    old: Statement,
    similarity: float,
    config: SlotConfig = SlotConfig(),
    *,
    new_when: dt.datetime | None = None,
    old_when: dt.datetime | None = None,
) -> bool:
    """Whether ``new`` says every value of ``old`` again, in any words ("We call the release
    Bluebird." / "The release codename is Bluebird."), none of them denied, and reads close
    enough to be about the same thing (the cosine of the two texts, ``config.said_again``).

    Looser than a merge on purpose: it decides whether a value a person *rejected* is being
    asserted again, where a false match costs a review card and a miss lets the rejected value
    back in (issue 15 item 5; measured in ``bench/sgd/tombstones.py``, ADR 0062). A question
    asserts nothing; who speaks is not a value. With both said-at times known, dates compare
    as calendar days (:func:`on_days`)."""
    if new.asks or old.asks or not old.values:
        return False
    speakers = frozenset(s.casefold() for s in (new.speaker, old.speaker) if s)
    new, old = _one_name(_without(new, speakers), _without(old, speakers))
    if new_when is not None and old_when is not None:
        new, old = on_days(new, new_when), on_days(old, old_when)
    # A bare number names nothing ("search for one in Santa Rosa" / "may be a good one"): what
    # must come back is every other value, and there must be one.
    wanted = frozenset(
        v.norm
        for i, (v, c) in enumerate(zip(old.values, old.counted, strict=True))
        if not (v.kind == Kind.NUMBER and c is None) and not _region_of(old, i)
    )
    if not wanted or similarity < config.said_again:
        return False
    # A name the value finder cannot see as one where it stands (a capital opening the
    # sentence: "Dell supplies our laptops.") is still said again when its words are.
    named = frozenset(v.norm for v in old.values if v.kind in _NAMING)
    unread = wanted - new.norms
    if unread - named or not all(_says_alone(new, n) for n in unread):
        return False
    denied = _clause_negated(new, wanted & new.norms) or (bool(unread) and new.negated)
    return not denied or _clause_negated(old, wanted)


def _says_alone(statement: Statement, norm: str) -> bool:
    """Whether the statement says a value's words somewhere that is not inside another of its
    values: "Paris" in "the AC Hotel by Marriott Paris Porte Maillot" names the hotel, not
    Paris."""
    for m in _as_words(norm).finditer(statement.body.casefold()):
        if not any(
            v.start <= m.start() and m.end() <= v.end and v.norm != norm for v in statement.values
        ):
            return True
    return False


def _region_of(statement: Statement, i: int) -> bool:
    """Whether the statement's ``i``-th value is a name set after another by a comma, ending
    the phrase: the region of a place ("Long Beach*, CA*", "Nairobi*, Kenya*"), which says
    where the place is, not another value; the place said again without it is said again."""
    if i == 0:
        return False
    v, before = statement.values[i], statement.values[i - 1]
    return (
        v.kind == Kind.NAME
        and before.kind == Kind.NAME
        and statement.body[before.end : v.start].strip() == ","
        and _ends_phrase(statement, v.norm)
    )


def _says(text: str, norm: str) -> bool:
    """Whether ``text`` says the words of a value's normal form, as words."""
    return _as_words(norm).search(text.casefold()) is not None


def _as_words(norm: str) -> re.Pattern[str]:
    """A value's normal form matched as whole words (lower case)."""
    return re.compile(rf"(?<!\w){re.escape(norm)}(?!\w)")


def _denies_in_clause(new: Statement, old: Statement, about: frozenset[str]) -> bool:
    """Whether the denial is said of the shared values: a "not" in another clause ("Haven't
    talked in a bit, but I read a book about castles in the UK") denies something else. With
    no shared value to place, the whole statements' negation counts."""
    if not about:
        return True
    return _clause_negated(new, about) != _clause_negated(old, about)


def _denied(statement: Statement, norm: str) -> bool:
    """Whether the clause a value is said in denies it ("is not Bluebird"); an answer's "No,"
    ("No, the 4th.") denies what was offered, not its own value."""
    for v in statement.values:
        if v.norm != norm:
            continue
        before = re.split(r"[,;.!?]", statement.body[: v.start])[-1]
        if _DENIES.search(before) is not None:
            return True
    return False


#: A denial just before a value, within its phrase: "is not *Bluebird*", "isn't on *Monday*".
_DENIES = re.compile(r"(?:\b(?:not|never|no\s+longer)\b|n't\b)(?:\s+[\w'-]+){0,3}\s*$")


def _denied_before(statement: Statement, norms: frozenset[str]) -> bool:
    """Whether a "not" stands before one of these values in its clause ("I don't want Captain
    Marvel"); one after it ("Captain Marvel and don't mind no subtitles") denies what follows."""
    body = statement.body.casefold()
    return any(
        _NOT.search(_CLAUSE_SPLIT.split(body[: v.start])[-1]) is not None
        for v in statement.values
        if v.norm in norms
    )


_CLAUSE_SPLIT = re.compile(r"[.;:!?,]|\b(?:and|but|or)\b")


def _clause_negated(statement: Statement, norms: frozenset[str]) -> bool:
    return any(
        _NOT.search(clause) is not None
        for v, clause in zip(statement.values, statement.clauses, strict=True)
        if v.norm in norms
    )


def _said_of_other_things(new: Statement, old: Statement, norms: frozenset[str]) -> bool:
    """Whether every shared value is a count, date, time or amount (no name: one name said
    twice is one thing talked of) that each statement's clause says something else of (the
    clause test of :func:`clauses_agree`, for a value that did not change)."""
    if any(v.norm in norms and v.kind in _NAMING for v in new.values):
        return False
    for n in norms:
        a, b = _clause_words(new, n), _clause_words(old, n)
        if not a or not b or _words_agree(a, b):
            return False
    return True


def _same_roles(new: Statement, old: Statement, norms: frozenset[str]) -> bool:
    """Whether each of these values plays one named role in both statements ("to X" and
    "to X")."""
    roles_new = {v.norm: role_of(new, i) for i, v in enumerate(new.values)}
    roles_old = {v.norm: role_of(old, i) for i, v in enumerate(old.values)}
    # A name as a bare subject or object names what is talked about, not what is said of it
    # ("Use Kestrel for billing" / "Kestrel missed two windows"): no role, no restatement.
    return all(roles_new.get(n) is not None and roles_new.get(n) == roles_old.get(n) for n in norms)


def frames_agree(new: Statement, old: Statement) -> bool:
    """Whether the two frames say one thing, one of them perhaps less ("So you'd like to go
    to X" / "I'm going to X"); not when each says something the other does not ("allergic
    to shellfish" / "allergic to pollen")."""
    a, b = frame_words(new.frame), frame_words(old.frame)
    return not (a - b) or not (b - a)


def clauses_agree(new: Statement, old: Statement, change: _Change) -> bool:
    """Whether the changed values are said of one thing in their own clauses, one clause
    perhaps saying less; requests and corrections ("try", "make it", "sorry") say nothing of
    it."""
    return _words_agree(_clause_words(new, change.new), _clause_words(old, change.old))


def _clause_words(statement: Statement, norm: str) -> frozenset[str]:
    """What a value's clause says of it: its words but those of asking and its prepositions
    (the values' roles, compared on their own). A value its statement judges ("2 in the
    afternoon is perfect for us", :func:`_judged`) has its clause say how it suits, nothing of
    another thing: no words."""
    if _judged(statement, norm):
        return frozenset()
    return _clause_content(statement, norm) - _SAY_NOTHING - _ROLE_WORDS


def _judged(statement: Statement, norm: str) -> bool:
    """Whether a value opens its statement as the subject of a copula or an auxiliary ("2 in
    the afternoon is perfect for us", "4:30 pm would be wonderful"): the rest says how it
    suits."""
    for v in statement.values:
        if v.norm == norm and not statement.body[: v.start].strip(" ,.!"):
            after = statement.body[v.end :].split()
            return bool(after) and after[0].casefold() in COPULAS | AUX
    return False


def _words_agree(a: frozenset[str], b: frozenset[str]) -> bool:
    """Whether two clauses' words say one thing, one perhaps less (a verb done again said as
    the verb)."""
    a, b = _again(a, b), _again(b, a)
    return not (a - b) or not (b - a)


def _again(words: frozenset[str], other: frozenset[str]) -> frozenset[str]:
    """``words`` with a verb done again said as the verb ("reassign" beside "assign",
    "rebook" beside "book")."""
    return frozenset(w[2:] if w.startswith("re") and w[2:] in other else w for w in words)


def answering(statement: Statement, question: Statement | None) -> Statement:
    """``statement`` as the answer to ``question`` (the other speaker's turn just before it):
    a bare value ("March 9th.", "In Sunnyvale please") says which slot it fills only through
    the question it answers. Anything else is returned as it is."""
    if question is None or not question.asks:
        return statement
    statement = _in_asked_span(statement, question)
    if not is_bare(statement):
        return statement
    if names_end(question.body):
        # "March 9th." to "Which day is the return flight?" is the trip's end.
        ends = tuple(v.kind in (Kind.DATE, Kind.TIME) for v in statement.values)
        statement = replace(statement, span_ends=ends)
    return replace(statement, answered=question.frame)


#: The words a question asks for one end of a span with ("When do you want it from?", "And
#: until when?"); "to" is left out, being also the infinitive's.
_SPAN_ASKED = re.compile(r"\b(from|since|until|till|through)\b", re.IGNORECASE)


def _in_asked_span(statement: Statement, question: Statement) -> Statement:
    """An answer's date or time said as a point ("I need it on the 9th") takes the end of the
    span its question asked for ("When do you want it from?"): the start, or the end ("until
    when?")."""
    if any(v.kind in (Kind.DATE, Kind.TIME) for v in question.values):
        return statement
    asked = {m.group(1).casefold() for m in _SPAN_ASKED.finditer(question.body)}
    if len(asked) != 1:
        return statement
    (word,) = asked
    governors = tuple(
        word if v.kind in (Kind.DATE, Kind.TIME) and gov not in _STARTS | _ENDS else gov
        for v, gov in zip(statement.values, statement.governors, strict=True)
    )
    return replace(statement, governors=governors)


def is_bare(statement: Statement) -> bool:
    """Whether a statement says nothing but its values ("March 9th.", "In Sunnyvale please"):
    the shape of an answer. A request ("Try to book for the 14th") says something: it asks
    for the value, unprompted."""
    return bool(statement.values) and not _said_besides(statement, ())


def _asked_apart(new: Statement, old: Statement, norms: frozenset[str]) -> bool:
    """Whether a bare answer and another statement of the same values fill other slots as far
    as the questions they answer tell (:func:`_asked_alike`, for a value that did not
    change)."""
    return not all(_asked_alike(new, old, n, n) for n in norms)


def _asked_alike(new: Statement, old: Statement, new_norm: str, old_norm: str) -> bool:
    """Whether two statements of one author fill one slot as far as the questions they answer
    tell: when either is a bare answer, what its question asks (its content words) must be
    what the other's question asks, or what the other says of its value, one perhaps saying
    more. An empty question ("What date?") is no wildcard beside one that names its slot
    ("Which day is the return flight?")."""
    if new.answered is None and old.answered is None:
        return True
    counts = _counted_as(new, new_norm)
    if counts is not None and counts == _counted_as(old, old_norm):
        # Two counts of one thing ("for 4 days" to "How long?" / "five days stay"): what is
        # counted is the slot, whatever was asked.
        return True
    a = _slot_words(new, new_norm)
    b = _slot_words(old, old_norm)
    if a == b:
        return True
    return bool(a) and bool(b) and (a <= b or b <= a)


def _counted_as(statement: Statement, norm: str) -> str | None:
    """What a number of the statement counts ("4 days": "day"), or None."""
    for v, counted in zip(statement.values, statement.counted, strict=True):
        if v.norm == norm:
            return counted
    return None


def _slot_words(statement: Statement, norm: str) -> frozenset[str]:
    if statement.answered is not None:
        return frame_words(statement.answered) - _SAY_NOTHING
    return _clause_content(statement, norm) - _SAY_NOTHING


def _clause_content(statement: Statement, norm: str) -> frozenset[str]:
    for v, clause in zip(statement.values, statement.clauses, strict=True):
        if v.norm == norm:
            return frame_words(clause)
    return frozenset()


def _negation_frames_agree(new: Statement, old: Statement) -> bool:
    """One frame, once the words of denial and change are set aside ("the gate is not open"
    / "the gate is open"); a frame with nothing in it says nothing to deny."""
    a = frame_words(_NOT.sub(" ", new.frame)) - _SAY_NOTHING
    b = frame_words(_NOT.sub(" ", old.frame)) - _SAY_NOTHING
    if a == b:
        return bool(a)
    # One frame says a verb more ("Ivan is not on the payments team anymore" / "Ivan works on
    # the payments team"): the same thing when at least two content words are shared.
    return len(a & b) >= 2 and (a <= b or b <= a)


_NOT = re.compile(r"\b(?:not|never|no\s+longer|any\s*more|cannot|no)\b|n't\b")


def _without(statement: Statement, norms: frozenset[str]) -> Statement:
    """The statement without these values (what stays is compared)."""
    keep = [i for i, v in enumerate(statement.values) if v.norm not in norms]
    if len(keep) == len(statement.values):
        return statement
    values = tuple(statement.values[i] for i in keep)
    return replace(
        statement,
        values=values,
        governors=tuple(statement.governors[i] for i in keep),
        counted=tuple(statement.counted[i] for i in keep),
        span_ends=tuple(statement.span_ends[i] for i in keep),
        clauses=tuple(statement.clauses[i] for i in keep),
        cued=statement.cued - norms,
        subjects=statement.subjects - norms,
        retired=tuple(r for r in statement.retired if r not in norms),
        norms=frozenset(v.norm for v in values),
        kind_set=frozenset(v.kind for v in values),
    )


def _one_name(new: Statement, old: Statement) -> tuple[Statement, Statement]:
    """Both statements with a name said in full in one and by its last words in the other
    compared as the shorter ("Customer Acme" / "Acme", "Ticket PROJ-118" / "PROJ-118": a
    capital opening a sentence joins the noun before the name), and a name said by its short
    form compared as the full one ("SF" / "San Francisco", "San Fran" / "San Francisco")."""
    into_new: dict[int, str] = {}
    into_old: dict[int, str] = {}
    for i, a in enumerate(new.values):
        for j, b in enumerate(old.values):
            if a.kind not in _NAMING or b.kind not in _NAMING:
                continue
            if _ends_with(a.norm, b.norm) and b.norm not in new.norms:
                into_new[i] = b.norm
            elif _ends_with(b.norm, a.norm) and a.norm not in old.norms:
                into_old[j] = a.norm
            elif _abbreviates(a.norm, b.norm) and b.norm not in new.norms:
                into_new[i] = b.norm
            elif _abbreviates(b.norm, a.norm) and a.norm not in old.norms:
                into_old[j] = a.norm
    return _renamed(new, into_new), _renamed(old, into_old)


def _abbreviates(short: str, full: str) -> bool:
    """Whether a name is another's short form: its initials ("sf" / "san francisco"), a code
    built on them ("sfo"), or each of its words the start of the other's ("san fran" / "san
    francisco")."""
    s, f = short.split(), full.split()
    if len(f) < 2 or s == f:
        return False
    if len(s) == 1 and 2 <= len(s[0]) <= 4 and s[0].isalpha():
        initials = "".join(w[0] for w in f)
        # A code of three letters that extends a two-word name's initials by one names a
        # place of it ("SFO" / "San Francisco", "LAX" / "Los Angeles", "SJC" / "San Jose").
        return s[0] == initials or (len(f) == 2 and len(s[0]) == 3 and s[0][:2] == initials)
    return len(s) == len(f) and all(
        len(a) >= 2 and b.startswith(a) for a, b in zip(s, f, strict=True)
    )


def _ends_with(longer: str, shorter: str) -> bool:
    a, b = longer.split(), shorter.split()
    return len(a) > len(b) and a[-len(b) :] == b


def _renamed(statement: Statement, norms: dict[int, str]) -> Statement:
    """The statement with these values (by position) compared under other norms; an old norm
    another value still has (a count "8" beside "the 8th") stays as well."""
    if not norms:
        return statement
    moved = {statement.values[i].norm: n for i, n in norms.items()}
    values = tuple(
        replace(v, norm=norms[i]) if i in norms else v for i, v in enumerate(statement.values)
    )
    kept = frozenset(v.norm for i, v in enumerate(statement.values) if i not in norms)

    def remap(found: Iterable[str]) -> list[str]:
        out: list[str] = []
        for n in found:
            if n not in moved or n in kept:
                out.append(n)
            if n in moved:
                out.append(moved[n])
        return out

    return replace(
        statement,
        values=values,
        cued=frozenset(remap(statement.cued)),
        subjects=frozenset(remap(statement.subjects)),
        retired=tuple(dict.fromkeys(remap(statement.retired))),
        norms=frozenset(v.norm for v in values),
    )


def on_days(statement: Statement, said_at: dt.datetime) -> Statement:
    """The statement with each date that names one calendar day, read as said at ``said_at``,
    compared as that day ("the 8th of this month", "March 8th" and "next Friday" said on
    Friday 1 March 2019 are all "2019-03-08"; "today" said on two days is two values). Dates
    that name no single day ("next week", "2019") keep their words."""
    days = {
        i: day.isoformat()
        for i, v in enumerate(statement.values)
        if v.kind == Kind.DATE and (day := single_day(v.text, said_at)) is not None
    }
    if not days:
        return statement
    return _renamed(statement, days)


_CONTENT = re.compile(r"[a-z]+")
_LIGHT = frozenset(
    [
        "name",
        "date",
        "time",
        "number",
        "code",
        "amount",
        "actually",
        "instead",
        "please",
        "so",
        "yes",
        "yeah",
        "okay",
        "ok",
        "sure",
        "just",
        "confirm",
        "confirming",
        "correct",
        "right",
        "would",
        "want",
        "need",
        "like",
        "sounds",
        "good",
        "great",
    ]
)


#: A verb of asking with a particle whose object is no named place is another verb: "check in
#: on a date" and "check out" are arriving and leaving, "find out" learns, where "check in a
#: name" and "look in a name" ask to look somewhere (``_SAY_NOTHING``); hyphened, the same
#: ("the check-in on March 5th").
_PHRASAL = re.compile(r"\b([a-z]+)(?:\s+(?:it\s+|them\s+)?|-)(in|out|up|off)\b(?!\s+a name\b)")


def _particle(m: re.Match[str]) -> str:
    verb = _stem(m.group(1))
    return verb + m.group(2) if verb in _SAY_NOTHING else m.group(0)


@lru_cache(maxsize=32768)
def frame_words(frame: str) -> frozenset[str]:
    """A frame's content words, crudely stemmed ("going" / "go"), light words dropped; a verb
    and its particle are one word ("check in on a date": "checkin")."""
    out = set()
    for w in _CONTENT.findall(_PHRASAL.sub(_particle, frame)):
        if w in STOPWORDS or w in _LIGHT or len(w) < 3:
            continue
        stem = _stem(w)
        if stem in _LIGHT:
            continue  # "wanted", "needs", "liked" say no more than "want"
        out.add(stem)
    return frozenset(out)


def said_alike(a: str, b: str) -> bool:
    """Whether two statements say the same words around their values: their frames' content
    words agree ("Dan lives in Berlin." / "Dan lives in Munich.")."""
    words = frame_words(analyze(a).frame)
    return bool(words) and words == frame_words(analyze(b).frame)


def _stem(word: str) -> str:
    """Crude: "going" / "go", "leaving" / "leave", "returns" / "return"."""
    for suffix in ("ing", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)]
            break
    return word[:-1] if word.endswith("e") and len(word) > 3 else word


#: What a bare correction says besides its value: verbs of asking and changing.
_CORRECTION_WORDS = ASKING_WORDS


_SAY_NOTHING = frozenset(_stem(w) for w in _CORRECTION_WORDS)
_ROLE_WORDS = frozenset(_stem(w) for w in PREPOSITIONS)


def _thin(statement: Statement) -> bool:
    """A statement with nothing to say but its values: a bare correction or answer."""
    return not _said_besides(statement, _CORRECTION_WORDS)


def _said_besides(statement: Statement, words: Iterable[str]) -> frozenset[str]:
    """The content words of a statement's frame beyond ``words`` and what its numbers count."""
    said = " ".join([*words, *(c for c in statement.counted if c)])
    return frame_words(statement.frame) - frame_words(said)


def _extends(new_value: str, old_value: str) -> bool:
    """ "berlin mitte" extends "berlin", "postgres 16" extends "postgres": a refinement."""
    o, n = old_value.split(), new_value.split()
    return len(n) > len(o) and n[: len(o)] == o


@dataclass(frozen=True, slots=True)
class _Change:
    kind: Kind
    old: str
    new: str
    role: str | None  # the new value's role (its preposition, or point/start/end, or count)
    old_role: str | None
    same_role: bool


def _changes(new: Statement, old: Statement) -> list[_Change]:
    """Aligned differences: per kind, the old and new values the other lacks, each new value
    paired with the old one in the same role first. A kind only one side has is more said,
    not a change."""
    out: list[_Change] = []
    for kind in sorted(new.kinds() & old.kinds()):
        olds = [(v.norm, role_of(old, i)) for i, v in enumerate(old.values) if v.kind == kind]
        news = [(v.norm, role_of(new, i)) for i, v in enumerate(new.values) if v.kind == kind]
        gone = [(n, r) for n, r in olds if n not in new.norms and n not in new.retired]
        came = [(n, r) for n, r in news if n not in old.norms]
        if not gone or not came:
            continue
        for (o, ro), (n, rn) in _by_role(gone, came):
            if ro != rn and _counts(ro) and _counts(rn):
                # "only one help" / "for 2 persons": counts of two things are no change of
                # one; what else the two say decides (SGD dev 14_00085).
                continue
            out.append(_Change(kind, o, n, rn, ro, ro == rn))
    return out


def _counts(role: str | None) -> bool:
    return role is not None and role.startswith("count:")


#: For a time or a date, the prepositions that place it (on, at, for, by ...) are one role;
#: a start (from, since, after) and an end (until, to, before) are others.
_STARTS = frozenset({"from", "since", "after"})
_ENDS = frozenset({"until", "till", "to", "before", "through"})


def role_of(statement: Statement, i: int) -> str | None:
    """What a value does in its statement: its governing preposition; for a time or a date,
    point, start or end; for a number, the noun it counts when there is one."""
    v = statement.values[i]
    gov = statement.governors[i]
    if gov == "to" and _goal_of_change(statement, i):
        # "raised the budget *to* $45,000", "postponed the launch *to* May 3": the value a verb
        # of change goes to is what the slot now holds, the role a copula gives ("the budget
        # is $40,000"), not a destination.
        gov = None
    if v.kind in (Kind.DATE, Kind.TIME):
        if gov in _STARTS:
            return "start"
        if gov in _ENDS:
            return "end"
        return "end" if statement.span_ends[i] else "point"
    if v.kind == Kind.NUMBER and statement.counted[i] is not None:
        return "count:" + str(statement.counted[i])
    return gov


def _goal_of_change(statement: Statement, i: int) -> bool:
    """Whether value ``i`` is what a verb of change said before it goes to ("raised ... to")."""
    v = statement.values[i]
    if v.norm not in statement.cued:
        return False
    return any(m.end() <= v.start for m in verb_cues(statement.body))


def _by_role(
    gone: list[tuple[str, str | None]], came: list[tuple[str, str | None]]
) -> list[tuple[tuple[str, str | None], tuple[str, str | None]]]:
    """Each old value paired with a new one: a new value that says an old one in part ("True
    grit", read as "True", for "True Grit") meets that one first; then one in an old one's
    role meets that one, whatever comes before it ("a Family Counselor located in Gilroy"
    after "someone in Santa Rosa": Gilroy meets Santa Rosa, not the counselor; "from A to B"
    after "from C": A meets C); the rest meet in order. Pairs come in the new values' order.
    (A fuller value first, "Fresno Station" for "in Fresno", made another speaker's offer
    refine the user's plan: measured on SGD, dev 8_00002.)"""
    left = list(gone)
    met: dict[int, tuple[str, str | None]] = {}
    for alike in (
        lambda o, n: _extends(o[0], n[0]),
        lambda o, n: o[1] == n[1],
    ):
        for j, c in enumerate(came):
            match = next((x for x in left if j not in met and alike(x, c)), None)
            if match is not None:
                left.remove(match)
                met[j] = match
    for j in range(len(came)):
        if j not in met and left:
            met[j] = left.pop(0)
    return [(met[j], came[j]) for j in sorted(met)]
