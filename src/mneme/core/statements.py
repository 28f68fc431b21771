"""What one atom says, who says it, and about which slot: the statement under the words.

A statement has a *source* (who or what says it: a transcript speaker "Dana: ...", a
reporting frame "according to the Falcon team calendar, ...", "the signed contract says ..."),
a *body* (what is said), the *values* that fill its slot (:mod:`mneme.core.values`), and the
*frame* left when those values are masked. Structure decides, not a list of cases:

- the speaker prefix and the reporting frame are split off first, so two sources disagreeing
  about one slot are two sources, and "the wiki gives the standup time as 09:15" is a claim
  about the standup time whose source is the wiki;
- each value keeps the preposition that governs it ("leaving *from* a name", "going *to* a
  name", "a table *at* a name"): in one frame, two values under different prepositions fill
  different slots;
- a *change cue* marks a statement that replaces what was held ("changed", "moved", "instead",
  "actually", "no longer", "make it", "how about", "can you try again at ..."...), and the
  values it says no longer hold ("moved *from* Berlin", "*instead of* tea", "*no longer* on
  Falcon") are kept apart;
- a question that asks for something ("What is their phone number?") states nothing; a request
  that names a value ("Can you look at Mai instead?") states a choice.

Every list below is a closed class of English (prepositions, correction markers, reporting
verbs), each entry kept only for a measured gain on public data (``bench/sgd``, ADR 0026).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import lru_cache

from mneme.core.speakers import split_speaker
from mneme.core.values import (
    MEASURES,
    NUMBER_WORDS,
    Kind,
    Value,
    find_values,
    masked,
    with_known_names,
)
from mneme.core.wordlists import ARTICLES, CONTRACTION, SPAN_END_WORDS, STOPWORDS


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


#: Prepositions that govern a value: in one frame they tell its slot ("from" / "to").
PREPOSITIONS = _words(
    "in at on to from for until till by near into onto before after around between through "
    "via toward towards about with within without under over across past since during of "
    "than as per"
)
#: Words that may stand between a preposition and its value ("on *the* 4th", "to *my* flat").
_LINKERS = _words(
    "the a an my our your his her their its this that these those some any every each next "
    "last coming same"
)

#: Change cues that mark the whole statement as a correction: "actually", "instead", "no
#: longer", "make it", "how about", a leading "No," / "Sorry," / "Wait,". "What about you?"
#: turns the talk to the other person and proposes nothing.
_MARKER_WORDS = (
    r"\b(?:no\s+longer|any\s*more|instead|nowadays|these\s+days|actually|make\s+it(?!\s+to\b)|"
    r"rather|(?:how|what)\s+about(?!\s+you\b)|correction|corrected|changed\s+my\s+mind|now|"
    r"on\s+second\s+thoughts?)\b"
)
#: A leading "No" is a correction when it stands alone ("No, the 4th.", "No I want it today"):
#: followed by a mark, the end or a function word. Before a content word it is a determiner
#: ("No problem, please confirm ... at 3 pm": an assistant's confirmation, not a change).
_FUNCTION_WORDS = "|".join(re.escape(w) for w in sorted(STOPWORDS, key=len, reverse=True))
#: Saying what was said back is wrong opens a correction ("That is not right, because I want
#: the reservation for three people"): it denies nothing of what follows.
_SAYS_WRONG = r"(?:that|this)(?:'s|’s|\s+is|\s+was)\s+(?:not\s+(?:right|correct)|wrong|incorrect)\b"
_LEADING_MARKER = (
    rf"^\s*(?:(?:no|nope|nah)\b(?=\s*(?:[^\w\s]|$|(?:{_FUNCTION_WORDS})\b))|(?:sorry|wait|oops)\b|"
    rf"{_SAYS_WRONG})"
)
MARKER_CUE = re.compile(f"{_MARKER_WORDS}|{_LEADING_MARKER}", re.IGNORECASE)
#: The markers alone, wherever they stand ("a round trip *instead*").
CHANGE_MARKER = re.compile(_MARKER_WORDS, re.IGNORECASE)
#: A hand-over ("handed the on-call rota over"): who hands something over no longer holds it.
_HAND_OVER = r"hand(?:ed|s)?\s+(?:[\w'’-]+\s+){0,5}?over"
#: Verbs of change: they mark as changed only the values that follow them ("moved *to
#: Berlin* in 2019" changed where, not when).
VERB_CUE = re.compile(
    r"\b(?:chang(?:e|ed|es|ing)|mov(?:e|ed|es|ing)|relocat\w*|switch(?:ed|es|ing)?|"
    r"updat(?:e|ed|es|ing)|replac(?:e|ed|es|ing)|reschedul\w*|postpon\w*|renam\w*|"
    r"rais(?:e|ed|es|ing)|lower(?:ed|s|ing)?|increas\w*|decreas\w*|reduc\w*|cut|cuts|"
    r"dropp?(?:ed|s|ing)?(?![\s-]+off\b)|bump(?:ed|s)?|"
    rf"{_HAND_OVER}|took\s+over|takes\s+over|taking\s+over)\b",
    re.IGNORECASE,
)
#: One change cue or the other (what a caller may look for).
CUE = re.compile(f"(?:{MARKER_CUE.pattern})|(?:{VERB_CUE.pattern})", re.IGNORECASE)
_CLAUSE_END = re.compile(r"[.;!?]|,\s+(?:and|but)\b")
_HANDED = re.compile(rf"\b{_HAND_OVER}\b", re.IGNORECASE)
#: After a cue, the values a statement says no longer hold: "from Berlin", "instead of X",
#: "no longer X", "rather than X", "not X anymore".
_RETIRED = re.compile(
    r"\b(?:from|instead\s+of|rather\s+than|no\s+longer(?:\s+\w+){0,3}?|not(?:\s+\w+){0,3}?)\s+$",
    re.IGNORECASE,
)

#: Verbal negation ("not", "never", "no longer", "n't"): a determiner "no" negates its noun,
#: not the statement ("rent it with no subtitles").
_NEGATION = re.compile(r"\b(?:not|never|no\s+longer|cannot)\b|n't\b", re.IGNORECASE)
#: A tag question asks for agreement and denies nothing ("Nature is amazing, isn't it?").
_TAG = re.compile(
    r",?\s*(?:is|are|was|were|do|does|did|wo|ca|have|has|had|would|could|should)n't\s+"
    r"(?:it|you|they|we|he|she|there|that|i)\s*\?\s*$",
    re.IGNORECASE,
)
_LEADING_NO = re.compile(rf"^\s*(?:no|nope|nah|{_SAYS_WRONG})\b[\s,.!]*", re.IGNORECASE)

#: Reporting frames: "according to X, S", "S, according to X", "X says (that) S", "X gives Y
#: as V" (then the body is "Y is V").
_REPORT_VERBS = (
    r"(?:say|says|said|state|states|stated|list|lists|listed|show|shows|showed|shown|mark|marks|"
    r"marked|give|gives|gave|report|reports|reported|note|notes|noted|record|records|recorded|"
    r"claim|claims|claimed|put|puts|indicate|indicates|indicated)"
)
_ACCORDING_FRONT = re.compile(r"^\s*according\s+to\s+(?P<src>[^,]{2,80}?),\s*(?P<body>.+)$", re.I)
_ACCORDING_BACK = re.compile(
    r"^(?P<body>.+?),?\s+according\s+to\s+(?P<src>[^,.;]{2,80})[.!]?$", re.I
)
_SOURCE_SAYS = re.compile(
    rf"^\s*(?P<src>(?:the|our|my|a|an|this|that)\s+[^,;:]{{2,70}}?)\s+{_REPORT_VERBS}\s+"
    r"(?:that\s+)?(?P<body>.+)$",
    re.IGNORECASE,
)
_GIVES_AS = re.compile(r"^(?P<what>.+?)\s+as\s+(?P<value>[^,;]+?)[.!]?$", re.IGNORECASE)

_WH = re.compile(
    r"^\s*(?:what|what's|whats|when|where|who|whom|whose|which|why|how|is|are|was|were|do|does|did|"
    r"can|could|will|would|should|shall|may|might|have|has|had)\b",
    re.IGNORECASE,
)
#: A question that offers ("Would you like Sino?", "Shall I book it?") asks the other speaker
#: to decide: it states nothing. (A check that restates what was said, "..., is that right?",
#: restates it.)
_OFFERS = re.compile(
    r"^\s*(?:\w+[,.!]?\s+)?(?:would|do|did)\s+you\s+(?:like|want|prefer|wish|need)\b|"
    r"^\s*(?:\w+[,.!]?\s+)?(?:shall|should|can|may)\s+i\b",
    re.IGNORECASE,
)
_PROPOSES = re.compile(r"^\s*(?:\w+[,!]?\s+)?(?:how|what)\s+about\b", re.IGNORECASE)
_ASKS_WH = re.compile(r"^\s*(?:what|what's|whats|when|where|who|whom|whose|which|why|how)\b", re.I)
_SPACE = re.compile(r"\s+")
_WORD = re.compile(r"[\w'’]+")


@dataclass(frozen=True, slots=True)
class Statement:
    """One atom read as a statement (see the module docstring)."""

    text: str
    speaker: str | None
    source: str | None  # a reporting frame's source, normalized ("the falcon team calendar")
    body: str
    values: tuple[Value, ...]  # positions are in ``body``
    governors: tuple[str | None, ...]  # the preposition governing each value, or None
    counted: tuple[str | None, ...]  # for a number, the noun it counts ("3 *people*"), or None
    #: For each value, whether it is a date or a time its clause says as the end of a span
    #: ("flights that return *on the 10th*", "a *March 7th* return date").
    span_ends: tuple[bool, ...]
    frame: str  # ``body`` with its values masked, case folded
    #: For each value, the frame of its own clause ("I want to fly on *the 10th*. I'll be back
    #: on the 12th." -> "i want to fly on the date"): what that value is said of.
    clauses: tuple[str, ...]
    cue: bool
    cued: frozenset[str]  # normalized values the change cue applies to
    subjects: frozenset[str]  # normalized values in the subject (before the first verb)
    first_person: bool  # about its author ("I ...", "My ...", "We ..."): the speaker is its subject
    retired: tuple[str, ...]  # normalized values the statement says no longer hold
    negated: bool
    asks: bool  # a question asking for something, which states nothing

    norms: frozenset[str]  # the values' normal forms
    kind_set: frozenset[Kind]
    #: For a bare answer ("March 9th." right after the other speaker's "Which day is the
    #: return flight?"): the masked frame of the question it answers, which names its slot.
    #: Set by :func:`mneme.core.slots.answering`; None for everything else.
    answered: str | None = None

    def kinds(self) -> frozenset[Kind]:
        return self.kind_set

    @property
    def author(self) -> str | None:
        """Who says it: the reporting source if any, else the transcript speaker."""
        return self.source or (self.speaker.casefold() if self.speaker else None)

    @property
    def ends_asking(self) -> bool:
        """Whether it ends with a question mark: a question, an offer or a proposal."""
        return self.body.rstrip().endswith("?")


#: A question of whether something holds ("Does the office open at 9am?", "Is the demo on
#: Friday?"): it asks about a fact and asserts nothing. Not a request to the other speaker
#: ("Can you book it for 9am?", "Do you have anything on the 14th?", "Is there a table at
#: 7?"), which in a conversation says what the speaker wants.
_WONDERS = re.compile(
    r"^\s*(?:\w+[,.!]\s+)?(?:is|are|was|were|does|do|did|will|has|have|had)\s+"
    r"(?!(?:you|there|i|we|it\s+possible)\b)",
    re.IGNORECASE,
)


def wonders(statement: Statement) -> bool:
    """Whether a statement only asks whether something holds (see ``_WONDERS``): it may say a
    value back, never change or dispute one."""
    return statement.ends_asking and _WONDERS.match(statement.body) is not None


def asks_about(statement: Statement) -> bool:
    """Whether a statement asks for something of the values it names ("What is the weather in
    Alamo on March 4th?"): the values are what its author asks about, not an offer ("Would you
    like True Grit?") or a request."""
    return (
        statement.asks and statement.ends_asking and bool(statement.values) and asks_wh(statement)
    )


def asks_wh(statement: Statement) -> bool:
    """Whether a statement opens with a wh-word ("What do you think of high life?", "How
    long?"): it asks for something, whatever it says back."""
    return _ASKS_WH.match(statement.body) is not None


def proposes(statement: Statement) -> bool:
    """Whether a statement proposes its values ("How about Psychologist Cassie L. O'Brien in
    Santa Clara", "What about the 14th?"), with or without a question mark."""
    return _PROPOSES.match(statement.body) is not None


@lru_cache(maxsize=32768)
def analyze(text: str) -> Statement:
    """The statement an atom makes. Pure and memoized; never raises on a string."""
    primed = _PRIMED.pop(text, None)
    return primed if primed is not None else _analyze(text, frozenset())


#: Statements computed elsewhere (the same function in another process) on their way into
#: ``analyze``'s memo; see :func:`prime`.
_PRIMED: dict[str, Statement] = {}


def prime(text: str, statement: Statement) -> None:
    """Put ``statement`` in ``analyze``'s memo for ``text``: what ``analyze(text)`` computes,
    computed ahead by another process (``mneme.write.analysis_ahead``). A text already in the
    memo keeps its entry."""
    _PRIMED[text] = statement
    analyze(text)
    _PRIMED.pop(text, None)


@lru_cache(maxsize=8192)
def analyze_knowing(text: str, known: frozenset[str]) -> Statement:
    """The statement an atom makes in a conversation whose names are ``known`` (normal forms
    of the names its statements wrote with capitals): a name said there in lower case is
    still a name ("Sure, let's go with hackers." after "What about Hackers?"). The same
    statement as :func:`analyze` when the text says none of them otherwise."""
    plain = analyze(text)
    if not known or not any(k in plain.body.casefold() for k in known - plain.norms):
        return plain
    return _analyze(text, known)


#: A trailing bracketed aside ("[shares a photo: a photo of three turtles ...]"): what an
#: attachment shows, not what the speaker says; its values fill no slot, and it is no part of
#: the sentence's form (``observations.is_question``).
ASIDE = re.compile(r"\s*\[[^\]]*\]\s*$")


def _analyze(text: str, known: frozenset[str]) -> Statement:
    speaker, body = split_speaker(text)
    body = _SPACE.sub(" ", body).strip()
    source, body = _split_source(body)
    found = with_known_names(body, find_values(body), known) if known else find_values(body)
    aside = ASIDE.search(body)
    values = tuple(
        v for v in found if not _vocative(body, v) and (aside is None or v.start < aside.start())
    )
    low = body.casefold()
    cued = _cued(body, values)
    if not cued and values and _asks_again(body):
        cued = frozenset(v.norm for v in values)
    elif not cued and _RETRY.search(body) is not None:
        cued = frozenset(v.norm for v in values if v.kind in MEASURES)
    cue = bool(cued) or _has_cue(body)
    contrasted = _contrasted(body, values)
    retired = tuple(dict.fromkeys(_retired(body, values) + tuple(v.norm for v in contrasted)))
    question = body.rstrip().endswith("?") or (
        _WH.match(body) is not None and not body.rstrip().endswith(".")
    )
    # "What about the 14th?" proposes a value; "What is their phone number?" asks for one.
    offers = _OFFERS.search(body) is not None
    asks = (
        question
        and (not values or _ASKS_WH.match(body) is not None or offers)
        and not _PROPOSES.match(body)
        # "What would be available if I went to LAX instead?" proposes what it cues.
        and not (cued and MARKER_CUE.search(body) and not offers)
    )
    core = _LEADING_NO.sub("", low)  # a leading "No," corrects; it negates nothing
    if contrasted:  # "Thursday, not Tuesday" affirms Thursday
        for v in contrasted:
            core = core.replace(v.text.casefold(), "")
        core = _CONTRAST_NOT.sub(" ", core)
    negated = _NEGATION.search(_TAG.sub("", core)) is not None
    return Statement(
        text=text,
        speaker=speaker,
        source=source,
        body=body,
        values=values,
        governors=tuple(_governor(body, v) for v in values),
        counted=tuple(_counted(body, v) for v in values),
        span_ends=tuple(_ends_span(body, values, v) for v in values),
        frame=masked(body, values).casefold(),
        clauses=tuple(_clause_frame(body, values, v) for v in values),
        cue=cue,
        cued=cued,
        subjects=frozenset(v.norm for v in values if v.start < subject_end(body)),
        first_person=_FIRST_PERSON.match(_LEADING_NO.sub("", body)) is not None,
        retired=retired,
        negated=negated,
        asks=asks,
        norms=frozenset(v.norm for v in values),
        kind_set=frozenset(v.kind for v in values),
    )


_AFTER_VOCATIVE = re.compile(
    r"^,\s*(?:i|i'm|i'd|i've|i'll|you|you're|we|we're|it|it's|that|that's)\b", re.I
)


def _vocative(body: str, value: Value) -> bool:
    """Whether a name is said *to* someone, not about them: set off by a comma and closing an
    exclamation or a question ("Sounds like fun, Nate!"), or between commas before the
    sentence goes on with its own subject ("Yeah, Maria, I agree."). An address is who is
    talked to; it fills no slot."""
    if value.kind != Kind.NAME or " " in value.text.strip():
        # One is addressed by one name ("Thanks, Mel!"); a name of several words set off
        # by a comma renames what comes before it ("What about the hit, Auntie Mame?").
        return False
    before = body[: value.start].rstrip()
    after = body[value.end :].lstrip()
    if not before.endswith(","):
        # Opening the sentence after at most one word, and set off ("Hey Maria, long time
        # no talk!", "Thanks Tim!"); after an article it is a thing ("The Invisibles, no
        # subtitles: do you confirm?"), after a preposition a place ("In Seattle, WA.").
        opening = _SENTENCE_START.split(before)[-1].split()
        return (
            len(opening) == 1
            and opening[0].isalpha()
            and opening[0].casefold() not in ARTICLES
            and opening[0].casefold() not in PREPOSITIONS
            and after[:1] in (",", "!")
        )
    if _NAME_BEFORE_COMMA.search(before) is not None:
        # A name after another one inside the sentence lists or qualifies it ("in Phoenix,
        # AZ?", "Captain Marvel, Shazam!"); "Nice one, Gina!" opens with its capital.
        return False
    return after[:1] in ("!", "?") or _AFTER_VOCATIVE.match(after) is not None


_SENTENCE_START = re.compile(r"[.!?;:]\s*")
#: A capitalized word just before the comma, not the sentence's first word.
_NAME_BEFORE_COMMA = re.compile(r"(?<![.!?;:])\s+[A-Z][\w'&.-]*,$")


def _may_address(body: str) -> bool:
    """Whether ``body`` may say a name to someone: :func:`_vocative` needs a comma or an
    exclamation mark next to the name, so a text with neither names no one it is said to."""
    return "," in body or "!" in body


def addressees(body: str) -> frozenset[str]:
    """The names the text is said to (see :func:`_vocative`), as written."""
    if not _may_address(body):
        return frozenset()
    return frozenset(v.text for v in find_values(body) if _vocative(body, v))


def unaddressed(body: str) -> str:
    """The text without the names it is said to ("Sounds like fun, Nate!" -> "Sounds like
    fun!"; see :func:`_vocative`)."""
    if not _may_address(body):
        return body
    cut = [v for v in find_values(body) if _vocative(body, v)]
    for v in reversed(cut):
        head = body[: v.start].rstrip()
        tail = body[v.end :].lstrip()
        if head.endswith(","):  # the comma before the name goes with it
            head = head[:-1]
            tail = tail if tail[:1] in ("!", "?") else tail[:1] + " " + tail[1:].lstrip()
        else:  # "Hey Maria, ..." -> "Hey, ..."
            head = head.rstrip()
        body = head + tail
    return body


_LEADING_MARK = re.compile(_LEADING_MARKER + r"[\s,.!]*", re.IGNORECASE)
#: A correction marker that says something changed (not a leading "No," or "Sorry,"); a verb
#: of change is found by :func:`verb_cues`.
_SAYS_CHANGED = re.compile(_MARKER_WORDS, re.IGNORECASE)
_SENTENCE = re.compile(r"(?<=[.!?;])\s+")
#: Words of an apology that are no stop words ("No, again, I'm sorry.").
_APOLOGY = frozenset(("sorry", "i'm"))
#: A change the speaker says they might make ("I might be able to change that if there is
#: nothing available", "we may move it"): a possibility, not a correction. Asked of the other
#: speaker ("Could you change that date?") it is a request, and still one.
_MIGHT_CHANGE = re.compile(
    rf"\b(?:i|we)\s+(?:might|may|could)\b(?:\s+[\w']+){{0,3}}?\s+(?:{VERB_CUE.pattern})",
    re.IGNORECASE,
)
#: Asking for another than what was offered, or for it to be done again ("Anything else?",
#: "What other options are there?", "Can you try again?"): a change of what was asked before
#: when the value to use follows (ADR 0077; SGD dev +21 updates, test +2, LoCoMo unchanged).
_ASKS_OTHER = re.compile(r"\b(?:else|(?:an)?others?|alternatives?|again)\b", re.IGNORECASE)
#: A request to the other speaker, after at most two words ("Yes. Can you ...", "Please ...").
_ASKS_FOR = re.compile(r"^\s*(?:[\w']+[,.!]?\s+){0,2}?(?:please|can|could|would|will|try)\b", re.I)


#: Asking for an attempt ("Try to book a table at 11:00", "Can you retry with 3:30 pm?"), not
#: saying one's own ("I'm trying to stay positive", "we try to walk daily", "I'll try booking
#: it", "you can try for Deardorf"): the time, date, count or amount it names (a measure) is
#: another than the last attempt's. A name it names is what to try, often said for the first
#: time ("Try to book me a table at Tanchito's"). ADR 0084.
_RETRY = re.compile(
    r"(?<!\bi )(?<!\bwe )(?<!\bthey )(?<!\bhe )(?<!\bshe )(?<!\bto )(?<!\bcan )(?<!'ll )"
    r"(?<!\bwill )"
    r"\btry\s+(?:to|for|at|with|and|booking|making|reserving|getting|finding)\b|\bretry\b",
    re.IGNORECASE,
)


def _asks_again(body: str) -> bool:
    """Whether a sentence asks the other speaker to do it again or find another, naming the
    value to use: "Can you try again at 12 in the afternoon?", "Please try again for 7:30"."""
    asking = body.rstrip().endswith("?") or _ASKS_FOR.match(body) is not None
    return asking and _ASKS_OTHER.search(body) is not None


@lru_cache(maxsize=8192)
def turn_corrects(turn: str) -> bool:
    """Whether a turn corrects what came before with a sentence of its own that names no value:
    "I've changed my mind. I want to go to Mister Jiu's.", "No, sorry, I had the address wrong.
    I need to go to 5988 Newpark Mall Road." The cue is said once for the whole turn. A
    question asking for another ("Anything else available? Please find me one ticket to SD.")
    corrects only when a sentence with a value follows it: asked last ("I hiked last week.
    Anything else cool happening?") it asks the other person about their life (ADR 0077)."""
    _, body = split_speaker(turn)
    sentences = [x for x in _SENTENCE.split(_SPACE.sub(" ", body).strip()) if x]
    if len(sentences) < 2:
        return False
    # Only a sentence that says something changed ("I've changed my mind", "a change of
    # plans", "actually"): a leading "No," or "Sorry," answers or apologises in its own
    # sentence ("No, that's all for the flight. Now a hotel in ...").
    said = [bool(find_values(x)) for x in sentences]
    return any(
        not said[i]
        and (
            (_says_changed(_LEADING_MARK.sub("", x)) and not _MIGHT_CHANGE.search(x))
            or ((_asks_again(x) or _only_no(x)) and any(said[i + 1 :]))
        )
        for i, x in enumerate(sentences)
    )


def _only_no(sentence: str) -> bool:
    """Whether a sentence is a "No" and nothing more than an apology ("No, again, I'm
    sorry."): it answers nothing of its own, so the value said next corrects (not "No, that's
    all for the flight.")."""
    if _LEADING_NO.match(sentence) is None:
        return False
    rest = _LEADING_MARK.sub("", _LEADING_NO.sub("", sentence)).casefold()
    return all(w in STOPWORDS or w in _APOLOGY for w in _WORD.findall(rest))


def in_turn(statement: Statement, turn: str | None) -> Statement:
    """The statement as its turn says it: a correction the turn makes in a sentence of its own
    covers every value of the statement (see :func:`turn_corrects`)."""
    if not turn or statement.cued == statement.norms or not statement.values:
        return statement
    if not turn_corrects(turn):
        return statement
    return replace(statement, cue=True, cued=statement.norms)


#: Where a clause ends: a sentence mark, or a comma before a conjunction.
_CLAUSE_MARK = re.compile(r"[.;!?]+(?=\s|$|[A-Z])|,\s+(?:and|but|so)\b|\s+but\b")


def _clause_bounds(body: str, values: tuple[Value, ...], value: Value) -> tuple[int, int]:
    """Where the clause a value sits in starts and ends (marks inside a value do not count)."""
    inside = [(v.start, v.end) for v in values]
    start, end = 0, len(body)
    for m in _CLAUSE_MARK.finditer(body):
        if any(a <= m.start() < b for a, b in inside):
            continue
        if m.end() <= value.start:
            start = m.end()
        elif m.start() >= value.end:
            end = m.start()
            break
    return start, end


def _clause_frame(body: str, values: tuple[Value, ...], value: Value) -> str:
    """The masked, case-folded clause a value sits in (marks inside a value do not count)."""
    start, end = _clause_bounds(body, values, value)
    own = tuple(
        Value(v.kind, v.text, v.start - start, v.end - start, v.norm)
        for v in values
        if start <= v.start and v.end <= end
    )
    return masked(body[start:end], own).casefold()


def _ends_span(body: str, values: tuple[Value, ...], value: Value) -> bool:
    """Whether a date or a time is said as the end of a span: a word of its clause before it
    names an end ("round trip flights that *return* on the 10th"), or the noun right after it
    does ("a March 7th *return* date"). See ``wordlists.SPAN_END_WORDS``."""
    if value.kind not in (Kind.DATE, Kind.TIME):
        return False
    start, end = _clause_bounds(body, values, value)
    if not SPAN_END_WORDS.isdisjoint(_WORD.findall(body[start : value.start].casefold())):
        return True
    # After it, the word names the end only as a noun before the noun it modifies ("the 8th
    # *returning* on ..." is another clause's verb).
    after = _WORD.findall(body[value.end : end].casefold())[:2]
    return len(after) == 2 and after[0] in SPAN_END_WORDS and not after[0].endswith(("ing", "s"))


def names_end(text: str) -> bool:
    """Whether ``text`` names the end of a span ("Which day is the *return* flight?"): what a
    bare answer to it is the date of."""
    return not SPAN_END_WORDS.isdisjoint(_WORD.findall(text.casefold()))


def verb_cues(body: str) -> list[re.Match[str]]:
    """The verbs of change in ``body``, but one in its bare form that ends a compound noun after
    "a" ("a power *cut*", "a price *drop*"): a thing, not a change (LoCoMo events: "John faces
    a power cut" read as changing what John had decided; ADR 0080). Said in a tense it is a
    verb ("A colleague *took over* the critique.")."""
    return [
        m
        for m in VERB_CUE.finditer(body)
        if _INFLECTED.match(m.group(0)) or _COMPOUND_BEFORE.search(body[: m.start()]) is None
    ]


_COMPOUND_BEFORE = re.compile(r"\b(?:a|an)\s+[a-z]+\s+$", re.IGNORECASE)
#: A verb of change said in a tense ("moved", "took over", "changes"): a verb, never a noun.
_INFLECTED = re.compile(r"\w+(?:ed|ing|s)\b|took\b", re.IGNORECASE)


def _cued(body: str, values: tuple[Value, ...]) -> frozenset[str]:
    """The values a change cue applies to: all of them after a correction marker; after a
    verb of change, its target in the clause (the value after "to", else the first value
    after the verb), and for a hand-over the one who handed it over too."""
    if MARKER_CUE.search(body):
        return frozenset(v.norm for v in values)
    out: set[str] = set()
    for m in verb_cues(body):
        end = _CLAUSE_END.search(body, m.end())
        stop = end.start() if end else len(body)
        after = [v for v in values if m.end() <= v.start < stop]
        to = [v for v in after if _governor(body, v) == "to"]
        out.update(v.norm for v in (to or after[:1]))
        if re.match(r"hand|took|take", m.group(0), re.IGNORECASE):
            out.update(v.norm for v in values if v.end <= m.start())
    return frozenset(out)


#: A value set against another of its kind: "Thursday*, not* Tuesday", "*not* Tuesday *but*
#: Thursday". The denied one is what no longer holds; the statement affirms the other.
#: Between the two values, the noun the first one counts may stand before the comma ("seven
#: days, not eight").
_CONTRAST_AFTER = re.compile(
    r"^\s*(?:[^\W\d_]+\s*(?=,))?,?\s*(?:and\s+)?not\s+(?:(?:the|on|at|in|for|to)\s+)?$", re.I
)
_CONTRAST_BEFORE = re.compile(r"\bnot\s+(?:(?:the|on|at|in|for|to)\s+)?$", re.I)
_CONTRAST_BUT = re.compile(r"^\s*,?\s*but\s+(?:(?:the|on|at|in|for|to)\s+)?$", re.I)
_CONTRAST_NOT = re.compile(
    r"\bnot\s*(?:(?:the|on|at|in|for|to)\s*)?(?=[,.;!?]|\bbut\b|$)", re.IGNORECASE
)


def _contrasted(body: str, values: tuple[Value, ...]) -> tuple[Value, ...]:
    """The values a statement denies in favour of another of the same kind (see
    ``_CONTRAST_AFTER``)."""
    out: list[Value] = []
    for i, v in enumerate(values):
        before = values[i - 1] if i > 0 else None
        after = values[i + 1] if i + 1 < len(values) else None
        if (
            before is not None
            and before.kind == v.kind
            and _CONTRAST_AFTER.match(body[before.end : v.start])
        ) or (
            after is not None
            and after.kind == v.kind
            and _CONTRAST_BEFORE.search(body[: v.start])
            and _CONTRAST_BUT.match(body[v.end : after.start])
        ):
            out.append(v)
    return tuple(out)


def _has_cue(text: str) -> bool:
    """Whether ``text`` holds a change cue: a correction marker or a verb of change."""
    return MARKER_CUE.search(text) is not None or bool(verb_cues(text))


def _says_changed(text: str) -> bool:
    """Whether ``text`` says something changed: a correction marker or a verb of change."""
    return _SAYS_CHANGED.search(text) is not None or bool(verb_cues(text))


def _retired(body: str, values: tuple[Value, ...]) -> tuple[str, ...]:
    """Values a change says no longer hold: "moved *from Berlin*", "*instead of* tea", "*no
    longer* on Falcon", "rather than X", "not X anymore", and who handed something over
    ("*Mira* handed the rota over to Dev")."""
    if not _has_cue(body):
        return ()
    out = [v.norm for v in values if _RETIRED.search(body[: v.start]) is not None]
    for m in _HANDED.finditer(body):
        # the giver is said in the hand-over's clause, before it ("took over" names the taker)
        begin = max((e.end() for e in _CLAUSE_END.finditer(body, 0, m.start())), default=0)
        out += [v.norm for v in values if begin <= v.start and v.end <= m.start()]
    return tuple(dict.fromkeys(out))


#: Words that end a subject: auxiliaries and copulas (a closed class); a lowercase word
#: ending in -s or -ed ("lives", "rotates", "failed") ends it too.
_VERB_WORDS = _words(
    "is are was were am be been has have had will would can could should shall may might must "
    "does do did 's 're 'm"
)
_FIRST_PERSON = re.compile(
    r"^\s*(?:(?:yes|yeah|ok|okay|so|and|but|well|oh|actually|sorry|please)\b[\s,]*)*"
    r"(?:i|i'm|i've|i'd|i'll|me|my|mine|we|we're|we've|our|us)\b",
    re.IGNORECASE,
)
_PRONOUN_SUBJECTS = _words("i we you he she they it this that there")
_PERSONS = _words("i we you he she they")
_TOKEN = re.compile(r"[\w'’-]+")


def subject_end(body: str) -> int:
    """Where the subject of a statement ends: before its first verb. A value before that is
    part of what the statement is about ("*Server 1* has 64 GB", "For the *Kepler* bid, the
    deadline is ..."), not what it says of it."""
    # A number not part of a name ("Server 1 runs") counts the -s word after it: "for 3
    # *days*", "five *nights*" (what it counts, not a verb).
    counted, named = False, False
    for i, m in enumerate(_TOKEN.finditer(body)):
        word = m.group(0)
        low = word.casefold()
        after_number = counted
        counted = (low.isdigit() or low in NUMBER_WORDS) and not named
        named = word[:1].isupper() and low not in STOPWORDS
        if low == "please" and (i == 0 or body[: m.start()].rstrip().endswith((",", ":", "."))):
            # "Please confirm Mikey and Nicky with mandarin subtitles.", "No problem, please
            # confirm: ...": a request has no subject but the one it is said to.
            return 0
        if CONTRACTION.sub("", low) in (_PERSONS if i else _PRONOUN_SUBJECTS):
            # A pronoun with a contracted verb ("I'd", "you're", "it's") is the pronoun.
            # "Just to make sure, *you* want to watch Green Book": a person named by a
            # pronoun is the subject, and what follows is what is said of them.
            return m.end()
        if low in _VERB_WORDS or low.endswith(("n't", "n’t")):
            # A negated auxiliary ("wasn't", "don't", "can't") is a verb however it is spelled.
            return m.start()
        plain = word.islower() and "'" not in word and "’" not in word and len(word) > 3
        if (
            i > 0
            and plain
            and (
                low.endswith("ed")
                or (low.endswith("s") and not low.endswith("ss") and not after_number)
            )
        ):
            return m.start()
    return 0


def _split_source(body: str) -> tuple[str | None, str]:
    """(source, what it says) for a reporting frame; (None, body) for anything else."""
    for pattern in (_ACCORDING_FRONT, _ACCORDING_BACK):
        m = pattern.match(body)
        if m:
            return _source_name(m.group("src")), m.group("body").strip()
    m = _SOURCE_SAYS.match(body)
    if m and len(m.group("body").split()) >= 2:
        said = m.group("body").strip()
        gives = _GIVES_AS.match(said)
        if gives:  # "the wiki gives the standup time as 09:15": the standup time is 09:15
            said = f"{gives.group('what').strip()} is {gives.group('value').strip()}."
        return _source_name(m.group("src")), said[:1].upper() + said[1:]
    return None, body


def _source_name(text: str) -> str:
    return " ".join(_WORD.findall(text.casefold()))


def _governor(body: str, value: Value) -> str | None:
    """The preposition right before a value (determiners skipped, and one noun that names
    what the value is: "in *room* Maple"), or None when the value is a subject or a direct
    object."""
    return _governor_before(_WORD.findall(body[: value.start].casefold()))


def _governor_before(words: list[str]) -> str | None:
    """The preposition governing what follows ``words`` (see :func:`_governor`)."""
    noun = False  # one noun that names what the value is may stand between ("in room Maple")
    for i in range(len(words) - 1, max(len(words) - 5, -1), -1):
        w = words[i]
        if w == "of" and i > 0 and words[i - 1] not in _PARTS:
            # "to the city of Atlanta": the noun before "of" names what the value is; the
            # preposition before that noun is the value's. A part of something keeps "of"
            # ("to any of", "in one of": the value is where the part is from).
            outer = _governor_before(words[:i])
            if outer is not None:
                return outer
        if w in PREPOSITIONS:
            return w
        if w in _LINKERS:
            continue
        if noun or w in _VERB_WORDS or not w.isalpha():
            return None
        noun = True
    return None


#: Words that take a part of what follows "of" ("all of", "most of", "one of").
_PARTS = (
    _LINKERS
    | NUMBER_WORDS
    | _words("all most many much none both few several part rest lot lots plenty half")
)


def _counted(body: str, value: Value) -> str | None:
    """The noun a number counts ("for 3 *people*", "2 rooms" -> "room"), or None."""
    if value.kind != Kind.NUMBER:
        return None
    m = _WORD.match(body[value.end :].lstrip())
    if m is None:
        return None
    word = m.group(0).casefold()
    if word in PREPOSITIONS or word in _LINKERS or word in {"and", "or", "but", "is", "are"}:
        return None
    return word[:-1] if word.endswith("s") and len(word) > 3 else word
