"""What a question asks for: the kind of value that answers it, and whether it asks about now.

Pure. Answer typing is the oldest idea in question answering: "when" asks for a date or a time,
"how many" for a number, "where" for a place. :func:`answer_kinds` reads it off the question
word and the noun it asks about ("what is the current *date* of the appointment"), in the
order below; a question it cannot type asks for no kind (then recall does not type its hits).
:func:`about_present` tells a question about what holds now ("current", "now", "still", or a
present-tense question with no time in it) from one about the past or a moment.
"""

from __future__ import annotations

import re

from mneme.core.values import Kind

_RULES: tuple[tuple[re.Pattern[str], frozenset[Kind]], ...] = tuple(
    (re.compile(p, re.IGNORECASE), frozenset(k))
    for p, k in (
        (r"\bphone\b|\bcode\b|\bpart\s+number\b|\bid\b|\bidentifier\b|\bserial\b", {Kind.CODE}),
        (
            r"\bhow\s+much\b|\bprice\b|\bcost\b|\bfare\b|\brent\b|\bfee\b|\bbalance\b|"
            r"\bamount\b|\bbudget\b|\bsalary\b",
            {Kind.AMOUNT, Kind.NUMBER},
        ),
        (r"\bhow\s+many\b|\bnumber\s+of\b|\bhow\s+long\b|\bcount\b|\blength\b", {Kind.NUMBER}),
        (r"\bwhat\s+time\b|\btime\b", {Kind.TIME}),
        (r"\bwhat\s+day\b|\bwhich\s+day\b|\bdate\b|\bday\b|\bdeadline\b", {Kind.DATE}),
        (r"\bwhen\b", {Kind.DATE, Kind.TIME}),
        (
            r"\bwhere\b|\bcity\b|\blocation\b|\baddress\b|\bdestination\b|\bplace\b|\barea\b|"
            r"\bwho\b|\bwhom\b|\bname\b|\bcalled\b",
            {Kind.NAME},
        ),
    )
)

_NOW = re.compile(
    r"\b(?:current|currently|now|still|latest|presently|these\s+days|nowadays|at\s+the\s+moment|"
    r"right\s+now|today)\b",
    re.IGNORECASE,
)
_PAST = re.compile(
    r"\b(?:did|was|were|had|used\s+to|before|previously|originally|first|earlier|ago|last|"
    r"yesterday|former|formerly|old)\b",
    re.IGNORECASE,
)
_PRESENT = re.compile(
    r"^\s*(?:what|what's|whats|where|where's|who|who's|which|how|when|whose)\b[^?]*?\b"
    r"(?:is|are|does|do|'s|has|have|runs|owns|lives|works|holds|leads)\b|"
    r"^\s*(?:is|are|does|do|has|have)\b",
    re.IGNORECASE,
)


def answer_kinds(question: str) -> frozenset[Kind]:
    """The kinds of value that answer ``question`` (empty when it cannot tell)."""
    for pattern, kinds in _RULES:
        if pattern.search(question):
            return kinds
    return frozenset()


def without_now(question: str) -> str:
    """The question without the words that ask about now ("current", "still", ...): what is
    left names what it asks about."""
    return _NOW.sub(" ", question)


def about_present(question: str) -> bool:
    """Whether the question asks what holds now."""
    if _NOW.search(question):
        return True
    if _PAST.search(question):
        return False
    return _PRESENT.search(question) is not None
