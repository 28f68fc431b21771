"""Values in a statement, found by their shape: times, dates, amounts, numbers, codes, names.

A statement fills a slot with a value ("the review deadline is *4 June*", "a table at *Sino*",
"rotates every *30* days"). What a value looks like is a closed grammar, not a list of cases:
clock times and parts of the day, calendar dates and weekdays, ordinals of a month, money and
percentages, counts (digits or number words), identifiers (letters and digits: "RX-5531",
"408-247-8880", "#7"), and named things (capitalized runs, quoted titles, street addresses).

:func:`find_values` returns the spans, longest first where two overlap; :func:`masked` writes
the statement with each value replaced by its kind ("a table at a name for a time"), which is
the statement's *frame*: two statements with close frames say the same kind of thing about
the same kind of slot, whatever values they put in it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache

from mneme.core.language import entity_mentions


class Kind(StrEnum):
    TIME = "time"
    DATE = "date"
    AMOUNT = "amount"
    NUMBER = "number"
    CODE = "code"
    NAME = "name"


#: The word a masked frame puts where a value of each kind was.
MASK_WORD: dict[Kind, str] = {
    Kind.TIME: "a time",
    Kind.DATE: "a date",
    Kind.AMOUNT: "an amount",
    Kind.NUMBER: "a number",
    Kind.CODE: "a code",
    Kind.NAME: "a name",
}


@dataclass(frozen=True, slots=True)
class Value:
    kind: Kind
    text: str  # as written
    start: int
    end: int
    norm: str = ""  # the comparable form (normalize_value), set by find_values


_MONTH = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
    r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
)
_WEEKDAY = r"(?:mon|tues|wednes|thurs|fri|satur|sun)day"
_NUM_WORD = (
    r"(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|"
    r"fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|"
    r"eighty|ninety|hundred|a\s+hundred|a\s+thousand|thousand|dozen|a\s+dozen|half\s+a\s+dozen)"
    r"(?:[\s-](?:one|two|three|four|five|six|seven|eight|nine))?"
)
_ORDINAL_WORD = (
    r"(?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|"
    r"thirteenth|fourteenth|fifteenth|sixteenth|seventeenth|eighteenth|nineteenth|twentieth|"
    r"twenty[\s-](?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth)|thirtieth|"
    r"thirty[\s-]first)"
)
_ORD = rf"(?:\d{{1,2}}(?:st|nd|rd|th)|{_ORDINAL_WORD})"
_HOUR = rf"(?:\d{{1,2}}|{_NUM_WORD})"
_PART = r"(?:in\s+the\s+(?:morning|afternoon|evening|night)|at\s+night|tonight)"
_AMPM = r"(?:[ap]\.?\s?m\b\.?)"

_TIME = re.compile(
    rf"\b(?:(?:morning|afternoon|evening|night)\s+)?(?:"
    rf"\d{{1,2}}[:.]\d{{2}}(?:\s*{_AMPM})?|"
    rf"{_HOUR}\s*{_AMPM}|"
    rf"(?:half|quarter)\s+(?:past|to)\s+{_HOUR}|"
    rf"{_HOUR}\s+o['\"’]?\s?clock|"
    rf"{_HOUR}(?:\s+(?:thirty|fifteen|forty[\s-]five))?(?=\s+{_PART})|"
    rf"noon|midnight|midday|"
    rf"(?<=morning\s|evening\s)(?:\d{{1,2}}|{_NUM_WORD})(?![:\d])|"
    rf"(?<=afternoon\s)(?:\d{{1,2}}|{_NUM_WORD})(?![:\d])"
    rf")(?:\s+{_PART})?",
    re.IGNORECASE,
)
_DATE = re.compile(
    rf"\b(?:"
    rf"\d{{4}}-\d{{2}}-\d{{2}}|"
    rf"\d{{1,2}}/\d{{1,2}}(?:/\d{{2,4}})?|"
    rf"(?:the\s+)?{_ORD}\s+(?:of\s+)?(?:{_MONTH}|this\s+month|next\s+month)\b(?:,?\s+\d{{4}})?|"
    rf"{_MONTH}\s+(?:the\s+)?(?:{_ORD}|\d{{1,2}})\b(?:,?\s+\d{{4}})?|"
    rf"\d{{1,2}}\s+{_MONTH}\b(?:\s+\d{{4}})?|"
    rf"{_MONTH}\s+\d{{4}}|"
    rf"(?:(?:next|this|last|coming)\s+)?{_WEEKDAY}(?:\s+(?:next|this)\s+week)?|"
    rf"the\s+{_ORD}\b|"
    rf"(?:the\s+)?day\s+after\s+tomorrow|today|tomorrow|tonight|yesterday|"
    rf"(?:next|last|this)\s+(?:week(?:end)?|month|year)|"
    rf"(?:19|20)\d{{2}}"
    rf")",
    re.IGNORECASE,
)
_AMOUNT = re.compile(
    r"(?:[$€£¥]\s?\d[\d,]*(?:\.\d+)?(?:\s?(?:k|m|bn|million|billion|thousand))?|"
    r"\b\d[\d,]*(?:\.\d+)?\s?(?:%|percent\b|dollars?\b|bucks\b|euros?\b|pounds?\b|usd\b|eur\b|"
    r"gbp\b|cents?\b))",
    re.IGNORECASE,
)
_CODE = re.compile(
    r"(?<![\w-])(?:#\d[\w-]*|\d{3}[-.\s]\d{3}[-.\s]\d{4}|"
    r"(?=[\w-]*\d)(?=[\w-]*[A-Za-z])[A-Za-z\d]+(?:[-_/.][A-Za-z\d]+)+|"
    r"[A-Za-z]+\d[\w]*|\d+[A-Za-z]{2,}\w*)(?![\w-])"
)
#: Gates for the two slow patterns (each tries a long alternation at every word start): a
#: time needs a digit or a word that starts like one of its words (an hour word, "half",
#: "quarter", "noon", "mid..."); a date a digit or a word that starts like an ordinal, a month,
#: a weekday, "today"... or "week"/"month"/"year". A word a match starts with begins a letter
#: run, so a text none of whose letter runs starts so, and that has no digit, holds no match.
#: Only for ASCII text: IGNORECASE folds a few other letters onto ASCII ones ("ſ", "K").
_TIME_STARTS = (
    "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
    "twelve", "thirteen", "fifteen", "twenty", "thirty", "forty", "fifty", "hundred",
    "thousand", "dozen", "half", "quarter", "noon", "midnight", "midday",
)  # fmt: skip
_DATE_STARTS = (
    "first", "second", "third", "four", "fif", "six", "seven", "eight", "nin", "ten",
    "eleven", "twel", "thirt", "twent",
    "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
    "mon", "tues", "wednes", "thurs", "fri", "satur", "sun",
    "today", "tomorrow", "tonight", "yesterday", "week", "month", "year",
)  # fmt: skip
_LETTERS = re.compile(r"[a-z]+")
_A_DIGIT = re.compile(r"\d")


def _may_hold(text: str) -> tuple[bool, bool]:
    """Whether ``text`` may hold a time, and a date (False only when it cannot)."""
    if not text.isascii() or _A_DIGIT.search(text) is not None:
        return True, True
    words = _LETTERS.findall(text.lower())
    return (
        any(w.startswith(_TIME_STARTS) for w in words),
        any(w.startswith(_DATE_STARTS) for w in words),
    )


_NUMBER = re.compile(
    rf"(?<![\w.,])\d[\d,]*(?:\.\d+)?(?![\w.,]\d)|\b{_NUM_WORD}\b",
    re.IGNORECASE,
)
#: A character of an address word: a letter, a digit, an apostrophe, a hyphen, or a dot that
#: abbreviates ("St.", "Ave."). A dot right before a capital ends the sentence even when no space
#: follows it ("... to 2100 Avy Avenue.The cab would be ..."): the word stops there.
_ADDRESS_CHAR = r"(?:[\w'’-]|\.(?![A-Z]))"
#: A street address: a house number, then capitalized words ("544 Central Avenue #90").
_ADDRESS = re.compile(
    rf"\b\d{{1,6}}\s+(?=[^\d]*?[A-Z][a-z])(?:[A-Z]{_ADDRESS_CHAR}*\s+){{0,4}}"
    rf"[A-Z]{_ADDRESS_CHAR}*(?:\s+#\s?\d+)?"
)
#: A number right after a name is part of the name ("Big 4", "Server 1 has", "PostgreSQL 14
#: for staging") unless a noun it counts follows ("Anna 3 times").
_NAME_NUMBER = re.compile(
    r"\s\d{1,4}(?=\s*(?:[.,;:!?)]|$)|\s+(?:is|are|was|were|has|have|had|will|would|can|and|or|"
    r"but|in|on|at|to|from|for|with|by|of|as|since|until|instead|now)\b)"
)
_MERIDIEM = re.compile(r"(\d)\s*([ap])\.?\s?m\b\.?")
_ORDINAL_SUFFIX = re.compile(r"(\d)(?:st|nd|rd|th)\b")
_SPACE = re.compile(r"\s+")
_DETERMINER_END = re.compile(r"\b(?:the|a|an|this|that|my|our|your|his|her|their|its)\s+$", re.I)
_EDGE = "\"'“”‘’()[]{}.,;:!?"


_DIGITS = {
    w: str(i)
    for i, w in enumerate(
        [
            "zero",
            "one",
            "two",
            "three",
            "four",
            "five",
            "six",
            "seven",
            "eight",
            "nine",
            "ten",
            "eleven",
            "twelve",
            "thirteen",
            "fourteen",
            "fifteen",
            "sixteen",
            "seventeen",
            "eighteen",
            "nineteen",
            "twenty",
        ]
    )
}
_ORDINAL_DIGITS = {
    w: str(i)
    for i, w in enumerate(
        [
            "zeroth",
            "first",
            "second",
            "third",
            "fourth",
            "fifth",
            "sixth",
            "seventh",
            "eighth",
            "ninth",
            "tenth",
            "eleventh",
            "twelfth",
            "thirteenth",
            "fourteenth",
            "fifteenth",
            "sixteenth",
            "seventeenth",
            "eighteenth",
            "nineteenth",
            "twentieth",
        ]
    )
}


_DIGITS.update(
    {w: str(10 * i) for i, w in enumerate(["thirty", "forty", "fifty", "sixty"], start=3)}
)
_NUMBER_HYPHEN = re.compile(r"\b(twenty|thirty|forty|fifty|sixty)-(?=[a-z])")
_TENS_UNITS = re.compile(r"\b([2-6]0) ([1-9])\b")
_HOUR_ZERO = re.compile(r"(?<![\d:.])0(\d)(?=[:.]\d\d)")


def normalize_value(text: str) -> str:
    """A value's comparable form: case folded, articles and edge punctuation dropped, number
    words as digits ("two" -> "2", "the 4th" -> "4")."""
    t = _SPACE.sub(" ", text.casefold()).strip(_EDGE + " ")
    t = re.sub(r"^(?:the|a|an)\s+", "", t)
    t = _NUMBER_HYPHEN.sub(r"\1 ", t)  # "twenty-one" is "twenty one"
    t = " ".join(_DIGITS.get(w, _ORDINAL_DIGITS.get(w, w)) for w in t.split())
    t = _TENS_UNITS.sub(lambda m: str(int(m.group(1)) + int(m.group(2))), t)  # "twenty first"
    if t.isdigit():
        t = str(int(t))  # "07" is 7
    t = _MERIDIEM.sub(r"\1 \2m", t)  # "9am", "9 a.m." and "9 am" are one time
    t = _HOUR_ZERO.sub(r"\1", t)  # "09:15" is 9:15
    return _ORDINAL_SUFFIX.sub(r"\1", t)


_CLOCK = re.compile(
    r"^(?:(?P<lead>morning|afternoon|evening|night)\s+)?(?:"
    r"(?P<h>\d{1,2})(?:[:.](?P<m>\d{2}))?(?:\s+(?P<words>30|15|45|thirty|fifteen|forty[\s-]five))?"
    r"(?:\s*o['\"’]?\s?clock)?|"
    r"(?P<frac>half|quarter)\s+(?P<dir>past|to)\s+(?P<fh>\d{1,2})|"
    r"(?P<named>noon|midday|midnight))"
    r"(?:\s+(?P<ap>[ap]m))?(?:\s+(?P<part>in the (?:morning|afternoon|evening|night)|at night|"
    r"tonight))?$"
)
_WORD_MINUTES = {"30": 30, "15": 15, "45": 45, "thirty": 30, "fifteen": 15}
_DAY_MONTH = re.compile(rf"^(\d{{1,2}}) (?:of )?({_MONTH})\b(.*)$")
_MONTH_DAY = re.compile(rf"^({_MONTH}) (?:the )?(\d{{1,2}})\b(.*)$")
#: The months, in order, in full.
MONTH_NAMES = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
]


def clock_time(norm: str) -> str | None:
    """A time's canonical form, "17:15" when the part of the day tells ("quarter past 5 in the
    evening", "5:15 pm", "17:15"), "5:15" when it does not; None when it is no clock time."""
    m = _CLOCK.match(norm)
    if m is None:
        return None
    if m.group("named"):
        return "0:00" if m.group("named") == "midnight" else "12:00"
    if m.group("frac"):
        hour, minute = int(m.group("fh")), 30 if m.group("frac") == "half" else 15
        if m.group("dir") == "to":
            hour, minute = (hour - 1) % 12 or 12, 60 - minute
    else:
        hour = int(m.group("h"))
        minute = int(m.group("m")) if m.group("m") else 0
        words = m.group("words")
        if words:
            minute = _WORD_MINUTES.get(words, 45)
    if hour > 23 or minute > 59:
        return None
    part = " ".join(filter(None, (m.group("lead"), m.group("ap"), m.group("part"))))
    if hour <= 12 and part:
        after_noon = any(w in part for w in ("pm", "afternoon", "evening", "night", "tonight"))
        if after_noon and hour < 12:
            hour += 12
        elif hour == 12 and (not after_noon or "night" in part):
            hour = 0  # "12 am", "half past 12 at night"
    # Without a part of the day, "5:15" stays "5:15": morning or evening is not told.
    return f"{hour}:{minute:02d}"


def calendar_date(norm: str) -> str:
    """A date's canonical form: day and month in one order ("4 of march", "march the 4th" and
    "march 4" are "march 4"), month names in full; anything else as it is."""
    m = _DAY_MONTH.match(norm)
    if m:
        day, month, rest = m.group(1), m.group(2), m.group(3)
    else:
        m = _MONTH_DAY.match(norm)
        if m is None:
            return norm
        month, day, rest = m.group(1), m.group(2), m.group(3)
    full = next(n for n in MONTH_NAMES if n.startswith(month[:3]))
    return f"{full} {int(day)}{rest.replace(',', '')}"


def _norm(kind: Kind, text: str) -> str:
    norm = normalize_value(text)
    if kind == Kind.TIME:
        return clock_time(norm) or norm
    if kind == Kind.DATE:
        return calendar_date(norm)
    return norm


_ABSOLUTE = re.compile(rf"\d{{4}}|\d/\d|\b{_MONTH}\b", re.IGNORECASE)


def is_relative(norm: str) -> bool:
    """Whether a date is told from when it is said ("yesterday", "last Friday", "the 4th",
    "next week"), not on a calendar ("4 June", "2023-05-04")."""
    return _ABSOLUTE.search(norm) is None


@lru_cache(maxsize=32768)
def find_values(text: str) -> tuple[Value, ...]:
    """The values of one statement, in order; overlapping spans keep the earlier-listed kind,
    then the longer span (a time beats the number inside it, an address the number before it).
    """
    found: list[Value] = []

    def add(kind: Kind, start: int, end: int) -> None:
        raw = text[start:end]
        stripped = raw.rstrip(_EDGE + " ")
        lead = len(raw) - len(raw.lstrip(_EDGE + " "))
        start, end = start + lead, start + len(stripped)
        if end <= start:
            return
        for v in found:
            if start < v.end and v.start < end:
                return
        found.append(Value(kind, text[start:end], start, end, _norm(kind, text[start:end])))

    times, dates = _may_hold(text)
    for m in _TIME.finditer(text) if times else ():
        add(Kind.TIME, m.start(), m.end())
    for m in _DATE.finditer(text) if dates else ():
        add(Kind.DATE, m.start(), m.end())
    for m in _AMOUNT.finditer(text):
        add(Kind.AMOUNT, m.start(), m.end())
    for m in _ADDRESS.finditer(text):
        add(Kind.NAME, m.start(), m.end())
    for start, name in entity_mentions(text):
        end = start + len(name)
        if start < 0 or text[start:end] != name:
            continue
        tail = _NAME_NUMBER.match(text, end)
        if tail:  # "Big 4", "Area 51": the number is part of the name
            end = tail.end()
        # A lone identifier ("RX-5531") is a code; a name that holds one ("Hana Rahman-512")
        # is a name.
        add(Kind.CODE if _CODE.fullmatch(text, start, end) else Kind.NAME, start, end)
    for m in _CODE.finditer(text):
        add(Kind.CODE, m.start(), m.end())
    for m in _NUMBER.finditer(text):
        add(Kind.NUMBER, m.start(), m.end())
    return tuple(sorted(found, key=lambda v: v.start))


def masked(text: str, values: tuple[Value, ...] | None = None) -> str:
    """The statement with each value replaced by the word for its kind (its frame)."""
    vals = find_values(text) if values is None else values
    out: list[str] = []
    at = 0
    for v in vals:
        before = text[at : v.start]
        out.append(before)
        word = MASK_WORD[v.kind]
        if _DETERMINER_END.search(before):
            word = word.split(" ", 1)[1]  # "the Kepler bid" -> "the name bid"
        out.append(word)
        at = v.end
    out.append(text[at:])
    return _SPACE.sub(" ", "".join(out)).strip()
