"""Values in a statement, found by their shape: times, dates, amounts, numbers, codes, names.

A statement fills a slot with a value ("the review deadline is *4 June*", "a table at *Sino*",
"rotates every *30* days"). What a value looks like is a closed grammar, not a list of cases:
clock times and parts of the day, calendar dates and weekdays, ordinals of a month, money and
percentages, counts (digits or number words), identifiers (letters and digits: "RX-5531",
"408-247-8880", "#7"), and named things (capitalized runs, quoted titles, street addresses).

A spelled-out cardinal is one number however many words it takes ("one thousand four hundred
and seventy" is 1470, not four numbers), and money is one amount however it is written:
"$780", "780 dollars", "$780.00" and "seven hundred and eighty bucks" all have the norm "$780".

:func:`find_values` returns the spans, longest first where two overlap; :func:`masked` writes
the statement with each value replaced by its kind ("a table at a name for a time"), which is
the statement's *frame*: two statements with close frames say the same kind of thing about
the same kind of slot, whatever values they put in it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from decimal import Decimal
from enum import StrEnum
from functools import lru_cache
from itertools import chain

from mneme.core.language import entity_mentions
from mneme.core.sensitive import PLACEHOLDER
from mneme.core.wordlists import STOPWORDS


class Kind(StrEnum):
    TIME = "time"
    DATE = "date"
    AMOUNT = "amount"
    NUMBER = "number"
    CODE = "code"
    NAME = "name"


#: Kinds whose values are amounts or moments: a slot holds one of them at a time.
MEASURES = frozenset({Kind.TIME, Kind.DATE, Kind.AMOUNT, Kind.NUMBER})


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
    # A year is no group of a phone number ("1989" in "707-242-1989").
    rf"(?<!(?<!\d)\d{{3}}[-.])(?:19|20)\d{{2}}(?!\d)"
    rf")",
    re.IGNORECASE,
)
_UNIT_WORD = r"(?:one|two|three|four|five|six|seven|eight|nine)"
_TEEN_WORD = r"(?:ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen)"
_TENS_WORD = r"(?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)"
_SEP = r"(?:\s+|-)"
_AND = rf"(?:{_SEP}and)?{_SEP}"
#: Below a hundred: "seven", "twelve", "eighty", "twenty-five", "twenty five".
_SMALL = rf"(?:{_TENS_WORD}(?:{_SEP}{_UNIT_WORD})?|{_TEEN_WORD}|{_UNIT_WORD})"
#: Below a thousand: "seven hundred and eighty", "a hundred", "twelve hundred", "eighty".
_BELOW_THOUSAND = rf"(?:(?:(?:a|{_SMALL}){_SEP})?hundred(?:{_AND}{_SMALL})?|{_SMALL})"
_BIG = r"(?:thousand|million|billion)"
#: Thousands and up: "four thousand", "a thousand", "thousand", "two million"; not "a million"
#: ("thanks a million"), which is a number only as money ("a million dollars").
_GROUP = rf"(?:{_BELOW_THOUSAND}{_SEP}{_BIG}|(?:a{_SEP})?thousand)"
#: A spelled-out cardinal, one number however many words it takes ("one thousand four hundred
#: and seventy"). Two numbers below a hundred side by side are two numbers ("seven thirty").
_CARDINAL = rf"(?:{_GROUP}(?:{_AND}{_GROUP})*(?:{_AND}{_BELOW_THOUSAND})?|{_BELOW_THOUSAND})"
_FIGURE = r"\d[\d,]*(?:\.\d+)?"
_CURRENCY_WORD = r"(?:dollars?|bucks|euros?|pounds?|usd|eur|gbp|cents?)"
#: Money and percentages: a sign before a figure ("$780", "$5 million", "€20"), or a unit word
#: after a figure or a spelled-out cardinal ("780 dollars", "seven hundred and eighty bucks",
#: "twenty percent").
_FIGURE_AMOUNT = (
    rf"[$€£¥]\s?{_FIGURE}(?:\s?(?:thousand|million|billion|bn|k|m)\b)?|"
    rf"\b{_FIGURE}(?:\s+{_BIG})?\s?(?:%|(?:percent|{_CURRENCY_WORD})\b)"
)
_AMOUNT_DIGITS = re.compile(_FIGURE_AMOUNT, re.IGNORECASE)
_AMOUNT = re.compile(
    rf"{_FIGURE_AMOUNT}|"
    rf"\b(?:a{_SEP}(?:million|billion)|{_CARDINAL}){_SEP}(?:percent|{_CURRENCY_WORD})\b",
    re.IGNORECASE,
)
_CODE = re.compile(
    r"(?<![\w-])(?:#\d[\w-]*|\d{3}[-.\s]\d{3}[-.\s]\d{4}|\d{3}-\d{4}|"
    r"(?=[\w-]*\d)(?=[\w-]*[A-Za-z])[A-Za-z\d]+(?:[-_/.][A-Za-z\d]+)+|"
    r"[A-Za-z]+\d[\w]*|\d+[A-Za-z]{2,}\w*|\d+[A-Z])(?![\w-])"
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


def _may_hold(text: str) -> tuple[bool, bool, bool]:
    """Whether ``text`` may hold a time, a date, and a number word (False only when it
    cannot)."""
    if not text.isascii():
        return True, True, True
    words = _LETTERS.findall(text.lower())
    spelled = not NUMBER_WORDS.isdisjoint(words)
    if _A_DIGIT.search(text) is not None:
        return True, True, spelled
    return (
        any(w.startswith(_TIME_STARTS) for w in words),
        any(w.startswith(_DATE_STARTS) for w in words),
        spelled,
    )


_DIGIT_NUMBER = rf"(?<![\w.,])\d[\d,]*(?:\.\d+)?(?![\w.,]?\d)(?:\s+{_BIG}\b)?"
_NUMBER_DIGITS = re.compile(_DIGIT_NUMBER, re.IGNORECASE)
_NUMBER = re.compile(
    rf"{_DIGIT_NUMBER}|\b(?:half\s+a\s+dozen|a\s+dozen|dozen|{_CARDINAL})\b",
    re.IGNORECASE,
)
#: Gate for the number words (the word alternatives of _AMOUNT and _NUMBER are slow): a text
#: none of whose letter runs is one of these words holds none, and is read for digits only.
NUMBER_WORDS = frozenset((
    "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
    "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen",
    "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety",
    "hundred", "thousand", "million", "billion", "dozen",
))  # fmt: skip
#: A character of an address word: a letter, a digit, an apostrophe, a hyphen, or a dot that
#: abbreviates ("St.", "Ave."). A dot right before a capital ends the sentence even when no space
#: follows it ("... to 2100 Avy Avenue.The cab would be ..."): the word stops there.
_ADDRESS_CHAR = r"(?:[\w'’-]|\.(?![A-Z]))"
#: A street address: a house number, then capitalized words ("544 Central Avenue #90").
_ADDRESS = re.compile(
    rf"\b\d{{1,6}}\s+(?=[^\d]*?[A-Z][a-z])(?:[A-Z]{_ADDRESS_CHAR}*\s+){{0,4}}"
    rf"[A-Z]{_ADDRESS_CHAR}*(?:\s+#\s?\d+)?"
)
#: Network addresses by their shape: an IPv4 address (with a prefix length or a port), a MAC
#: address, an IPv6 address (hex groups, at least three colons or a "::"), and a phone number
#: in international form ("+44 20 7946 0321"). Each is one identifier; read for its figures,
#: "192.168.1.10" and "192.168.1.53" held no value at all and "+44 20 7946 0321" four numbers.
_INTERNATIONAL_PHONE = r"\+\d{1,3}(?:[\s.-]?\(?\d{2,5}\)?){2,5}(?![\w-])"
_INTERNATIONAL = re.compile(_INTERNATIONAL_PHONE)
_NETWORK = (
    r"(?<![\w.:])(?:\d{1,3}\.){3}\d{1,3}(?:/\d{1,2}|:\d{1,5})?(?![\w.]*\w)|"
    r"(?<![\w:-])[0-9A-Fa-f]{2}(?:([:-])[0-9A-Fa-f]{2})(?:\1[0-9A-Fa-f]{2}){4}(?![\w:-])|"
    r"(?<![\w:])(?=[0-9A-Fa-f:]*::|(?:[0-9A-Fa-f]{0,4}:){3})"
    r"(?:[0-9A-Fa-f]{1,4}|:)(?::[0-9A-Fa-f]{0,4}){2,7}(?:/\d{1,3})?(?![\w:])|"
    r"(?<![\w+])" + _INTERNATIONAL_PHONE
)
#: E-mail and web addresses, and host names ("staging.acme.io": lower-case labels joined by
#: dots, the last one of letters), and network addresses: identifiers by their shape.
_ADDRESSED = re.compile(
    r"(?<![\w.+-])[\w.+-]+@[\w-]+(?:\.[\w-]+)+(?<!\.)|\bhttps?://[^\s<>\"']+[^\s<>\"'.,;:!?)]|"
    r"(?<![\w.@/-])(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+[a-z]{2,24}(?![\w-]|\.\w)"
    r"(?:/[^\s<>\"']*[^\s<>\"'.,;:!?)])?|" + _NETWORK
)
_SIGNS = frozenset("$€£¥")
#: A number right after a name is part of the name ("Big 4", "Server 1 has", "PostgreSQL 14
#: for staging", "Ubuntu 20.04", "Room 4B") unless a noun it counts follows ("Anna 3 times").
_NAME_NUMBER = re.compile(
    r"\s\d{1,4}(?:\.\d+)*[A-Z]?(?=\s*(?:[.,;:!?)](?!\d)|$)|\s+(?:is|are|was|were|has|have|had|will|would|can|and|or|"
    r"but|in|on|at|to|from|for|with|by|of|as|since|until|instead|now)\b)"
)
_MERIDIEM = re.compile(r"(\d)\s*([ap])\.?\s?m\b\.?")
_ORDINAL_SUFFIX = re.compile(r"(\d)(?:st|nd|rd|th)\b")
_SPACE = re.compile(r"\s+")
_DETERMINER_END = re.compile(r"\b(?:the|a|an|this|that|my|our|your|his|her|their|its)\s+$", re.I)
_EDGE = "\"'“”‘’()[]{}.,;:!?"
#: Determiners: "one" after one of them (a word between allowed: "a great one", "my 4th one")
#: stands for a noun said elsewhere ("that one.", "the one with a pool"), unless a noun
#: follows it ("that one room").
_DETERMINERS = frozenset((
    "the", "a", "an", "this", "that", "these", "those", "which", "each", "any", "every",
    "another", "some", "my", "your", "his", "her", "our", "their", "its",
))  # fmt: skip
#: "a one way flight", "no one": never a count.
_NEVER_ONE = frozenset(("a", "an", "no"))
_WORDS = re.compile(r"[A-Za-z0-9']+")


def _number_spans(numbers: re.Pattern[str], text: str) -> Iterator[tuple[int, int]]:
    """Where the numbers are; "one" as a pronoun ("that one", "the one with a pool") or in a
    compound ("a one way flight") counts nothing."""
    for m in numbers.finditer(text):
        if m.group().casefold() != "one" or not _pronoun_one(text, m.start(), m.end()):
            yield m.start(), m.end()


def _pronoun_one(text: str, start: int, end: int) -> bool:
    """Whether the word "one" at ``start`` is a pronoun or part of a compound, not a count."""
    before = [w.casefold() for w in _WORDS.findall(text, max(0, start - 40), start)[-2:]]
    if before and before[-1] in _NEVER_ONE:
        return True
    if _DETERMINERS.isdisjoint(before):
        return False
    after = _WORDS.match(text, end + 1) if text[end : end + 1] == " " else None
    return after is None or after.group().casefold() in STOPWORDS


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
_WORD_VALUES = {w: int(d) for w, d in _DIGITS.items() if w != "zero"}
_WORD_VALUES.update({"seventy": 70, "eighty": 80, "ninety": 90})
_SCALE_VALUES = {
    "hundred": 100,
    "thousand": 1000,
    "k": 1000,
    "million": 10**6,
    "m": 10**6,
    "billion": 10**9,
    "bn": 10**9,
}
_CARDINAL_WORDS = re.compile(rf"\b{_CARDINAL}\b")
_WORD_SPLIT = re.compile(r"[\s-]+")
_NUMBER_HYPHEN = re.compile(r"\b(twenty|thirty|forty|fifty|sixty)-(?=[a-z])")
_TENS_UNITS = re.compile(r"\b([2-6]0) ([1-9])\b")
_HOUR_ZERO = re.compile(r"(?<![\d:.])0(\d)(?=[:.]\d\d)")


def cardinal(words: str) -> int:
    """The number a spelled-out cardinal says ("seven hundred and eighty" -> 780, "a thousand"
    -> 1000); the words are one match of the cardinal grammar, case folded."""
    total = current = 0
    for w in _WORD_SPLIT.split(words):
        if w in _WORD_VALUES:
            current += _WORD_VALUES[w]
        elif w == "hundred":
            current = (current or 1) * 100
        elif w in _SCALE_VALUES:
            total += (current or 1) * _SCALE_VALUES[w]
            current = 0
    return total + current


def normalize_value(text: str) -> str:
    """A value's comparable form: case folded, articles and edge punctuation dropped, number
    words as digits ("two" -> "2", "seven hundred and eighty" -> "780", "the 4th" -> "4")."""
    t = _SPACE.sub(" ", text.casefold()).strip(_EDGE + " ")
    t = re.sub(r"^(?:the|a|an)\s+", "", t)
    t = _NUMBER_HYPHEN.sub(r"\1 ", t)  # "twenty-first" is "twenty first"
    t = _CARDINAL_WORDS.sub(lambda m: str(cardinal(m.group(0))), t)
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


_FIGURE_PARTS = re.compile(
    rf"^(?P<sign>[$€£¥])?\s?(?P<figure>{_FIGURE}|{_CARDINAL}|a(?=\s))"
    rf"(?:\s?(?P<scale>thousand|million|billion|bn|k|m))?"
    rf"(?:{_SEP}?(?P<unit>%|percent|{_CURRENCY_WORD}))?$"
)
_THOUSANDS = re.compile(r"^\d{1,3}(?:,\d{3})+(?:\.\d+)?$")
#: The sign an amount is compared under, by the word that names its unit.
_UNIT_SIGN = {
    "dollar": "$",
    "dollars": "$",
    "bucks": "$",
    "usd": "$",
    "euro": "€",
    "euros": "€",
    "eur": "€",
    "pound": "£",
    "pounds": "£",
    "gbp": "£",
}
_UNIT_SUFFIX = {"%": "%", "percent": "%", "cent": "¢", "cents": "¢"}


def _figure(text: str) -> tuple[str, str, str] | None:
    """A number or an amount as (sign, digits, suffix): "$1,470" -> ("$", "1470", ""), "seven
    hundred and eighty bucks" -> ("$", "780", ""), "5 million" -> ("", "5000000", ""), "20
    percent" -> ("", "20", "%"); None when the text is no figure ("a dozen")."""
    t = _SPACE.sub(" ", text.casefold()).strip(_EDGE + " ")
    m = _FIGURE_PARTS.match(t)
    if m is None:
        return None
    figure = m.group("figure")
    if figure[0].isdigit():
        if "," in figure and _THOUSANDS.match(figure) is None:
            return None  # "1,2,3" is a list, not one figure
        number = Decimal(figure.replace(",", ""))
    else:
        number = Decimal(cardinal(figure) or 1)  # "a million dollars"
    if m.group("scale"):
        number *= _SCALE_VALUES[m.group("scale")]
    if number != number.to_integral_value():
        digits = format(number.normalize(), "f")
    else:
        digits = str(int(number))  # exact for any length: "%" fails beyond the context precision
    unit = m.group("unit") or ""
    sign = m.group("sign") or _UNIT_SIGN.get(unit, "")
    return sign, digits, _UNIT_SUFFIX.get(unit, "")


def _norm(kind: Kind, text: str) -> str:
    if kind in (Kind.AMOUNT, Kind.NUMBER):
        parts = _figure(text)
        if parts is not None:
            return "".join(parts)  # "$780": every form of one amount has one norm
    if kind == Kind.CODE and _INTERNATIONAL.fullmatch(text):
        return "+" + re.sub(r"\D", "", text)  # "+44 20 7946 0321" and "+442079460321"
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


def _time_spans(text: str) -> Iterator[tuple[int, int]]:
    """Where the times are; a figure after a currency sign is money ("$12.00"), and a figure
    with a dot is a time only as one is said (see :func:`_dotted_time`)."""
    for m in _TIME.finditer(text):
        if text[max(0, m.start() - 1) : m.start()] in _SIGNS:
            continue
        if _DOTTED.fullmatch(m.group(0)) and not _dotted_time(text, m):
            continue
        yield m.start(), m.end()


#: A range's end after a dotted figure: "9.30-10.30", "9.30 – 11:00".
_RANGE_AFTER = re.compile(r"\s*[-–]\s*\d{1,2}[.:]\d{2}\b")
#: A figure with a dot and two digits and nothing else ("9.30", "20.04", "12.50").
_DOTTED = re.compile(r"\d{1,2}\.\d{2}")
#: What a clock time with a dot is said after ("at 9.30", "until 14.05", "9.30-10.30").
_BEFORE_DOTTED_TIME = re.compile(
    r"(?:\b(?:at|by|until|till|from|to|before|after|around|about|since|between)\s+|\d\s*[-–]\s*)$",
    re.IGNORECASE,
)


def _dotted_time(text: str, m: re.Match[str]) -> bool:
    """Whether a dotted figure ("9.30") is a clock time: said after a preposition of time or
    as the end of a range, and not part of a longer figure. The same shape is a decimal ("12.50
    euros", "a rating of 4.50", "3.12 miles") or a version ("Ubuntu 20.04", "Python 3.12",
    "18.17.1"), which no clock reads; a colon ("9:30") or a meridiem ("9.30 pm") is a time
    wherever it stands. Neither public data set here writes a time with a dot (SGD: 125
    dotted figures, all after "$"; LoCoMo: none), so nothing measured there moves."""
    if re.match(r"[.,]?\d", text[m.end() :]):
        return False
    if _RANGE_AFTER.match(text, m.end()):
        return True
    return _BEFORE_DOTTED_TIME.search(text, 0, m.start()) is not None


def with_known_names(
    text: str, values: tuple[Value, ...], known: frozenset[str]
) -> tuple[Value, ...]:
    """``values`` and every name of ``known`` (normal forms of names said in the conversation,
    as someone wrote them with capitals) that ``text`` says in other case where no value is
    read ("let's go with hackers" after "What about Hackers?"), in order; a name that is a
    function word ("After") only where it is written with its capital."""
    low = text.casefold()
    extra: list[Value] = []
    for name in sorted(known, key=len, reverse=True):
        for m in re.finditer(rf"(?<![\w'’-]){re.escape(name)}(?![\w'’-])", low):
            if name in STOPWORDS and not text[m.start()].isupper():
                continue  # a title that is a function word ("After") is one only in capitals
            if any(m.start() < v.end and v.start < m.end() for v in (*values, *extra)):
                continue
            extra.append(Value(Kind.NAME, text[m.start() : m.end()], m.start(), m.end(), name))
    if not extra:
        return values
    return tuple(sorted((*values, *extra), key=lambda v: v.start))


_SPELLED_ORDINAL = re.compile(rf"the\s+{_ORDINAL_WORD}", re.IGNORECASE)
#: What a day of the month is said after when it is spelled out: "on the fifth", "for the
#: third", "until the tenth".
_DAY_BEFORE = re.compile(
    r"\b(?:on|by|for|to|until|till|before|after|from|since)\s+$", re.IGNORECASE
)
_NEXT_WORD = re.compile(r"\s*([A-Za-z][\w'’-]*)")


def _ordinal_of_a_thing(text: str, m: re.Match[str]) -> bool:
    """Whether a date match is a spelled-out ordinal that counts things, not a day: "the
    third floor", "the first one", "for the first time", "It was the first." A spelled ordinal
    with no month is a day only after a preposition of time and before no noun of its own ("on
    the fifth", "until the tenth at noon"). Measured: of the spelled ordinals without a month
    read as dates, none is a day in SGD (37, both speakers: "the first one", "the first day",
    "the second flight") nor in LoCoMo dev (8: "the first time", "the third time"); digit
    ordinals ("on the 12th", "the 3rd going to Toronto") are days there and stay dates."""
    if not _SPELLED_ORDINAL.fullmatch(m.group(0)):
        return False
    if not _DAY_BEFORE.search(text, 0, m.start()):
        return True
    after = _NEXT_WORD.match(text, m.end())
    if after is None:
        return False
    word = after.group(1)
    folded = word.casefold()
    return folded in ("one", "ones") or (word[0].islower() and folded not in STOPWORDS)


#: What a thing is called, after "called" / "named" / "titled", up to a mark or a word that
#: goes on to say something else of it ("an alarm called *music practice* set for 4:15 pm").
_CALLED = re.compile(
    r"\b(?:called|named|titled)\s+"
    r"(?!(?:me|him|her|us|them|it|you|back|off|out|up|in|on|for|to|about|a|an)\b)"
    r"(?:the\s+)?(?P<name>[\w'’&-]+(?:\s+(?!(?:at|on|for|in|and|or|but|with|set|that|which|"
    r"who|is|was|are|were|will|would|to|from|by|near|please|today|tomorrow)\b)[\w'’&-]+){0,5})",
    re.IGNORECASE,
)
#: Who calls someone ("I called my sister") is no naming.
_CALLER = re.compile(r"\b(?:i|we|you|he|she|they|who|just|also|already|never|then)\s+$", re.I)


def _called(text: str) -> Iterator[tuple[int, int]]:
    """The spans of what the text says a thing is called when no capital marks it ("an alarm
    called cleaning", "a hotel called the argonaut hotel"). Measured on SGD (every speaker):
    368 of the 390 phrases after these words are the annotated span of a slot, 36 of them read
    as no value before (lower case: "cleaning", "music practice"); LoCoMo dev's 13 are names
    in capitals or quotes, left to the name reader."""
    for m in _CALLED.finditer(text):
        # A name in capitals is the name reader's ("a film called The Man Who Knew Too Much"):
        # this reads what no capital marks.
        if m.group("name")[:1].islower() and _CALLER.search(text, 0, m.start()) is None:
            yield m.start("name"), m.end("name")


def _read_dates(text: str) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """The date matches of ``text`` in one pass: (the spans that name days, the spelled
    ordinals that count the thing named right after them: "the *third* floor", a number of
    floors). See ``_ordinal_of_a_thing``."""
    days: list[tuple[int, int]] = []
    counts: list[tuple[int, int]] = []
    for m in _DATE.finditer(text):
        if not _ordinal_of_a_thing(text, m):
            days.append((m.start(), m.end()))
            continue
        after = _NEXT_WORD.match(text, m.end())
        if after is None or not after.group(1)[0].islower():
            continue
        word = _ORDINAL_IN.search(m.group(0))
        if after.group(1).casefold() not in STOPWORDS and word is not None:
            counts.append((m.start() + word.start(), m.start() + word.end()))
    return days, counts


_ORDINAL_IN = re.compile(_ORDINAL_WORD, re.IGNORECASE)


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

    # A redacted secret ("[redacted:password#7ca1]"), an e-mail address or a web address is
    # one code.
    for m in chain(PLACEHOLDER.finditer(text), _ADDRESSED.finditer(text)):
        add(Kind.CODE, m.start(), m.end())
    times, dates, spelled = _may_hold(text)
    for start, end in _time_spans(text) if times else ():
        add(Kind.TIME, start, end)
    amounts, numbers = (_AMOUNT, _NUMBER) if spelled else (_AMOUNT_DIGITS, _NUMBER_DIGITS)
    for m in amounts.finditer(text):  # before dates: "$2000" is money, not a year
        add(Kind.AMOUNT, m.start(), m.end())
    days, counts = _read_dates(text) if dates else ([], [])
    for start, end in days:
        add(Kind.DATE, start, end)
    for start, end in chain(((m.start(), m.end()) for m in _ADDRESS.finditer(text)), _called(text)):
        add(Kind.NAME, start, end)
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
    for start, end in chain(counts, _number_spans(numbers, text)):
        add(Kind.NUMBER, start, end)
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
