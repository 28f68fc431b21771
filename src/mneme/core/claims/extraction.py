"""Extraction: the subject-attribute-value claim of one atom, or None when no rule matches."""

from __future__ import annotations

import re
from functools import lru_cache

from mneme.core.claims.amounts import numbers_of
from mneme.core.claims.attributes import SINGLE_VALUED_ATTRIBUTES
from mneme.core.claims.change import CHANGE
from mneme.core.claims.claim import Claim
from mneme.core.claims.clauses import read_clause, split_fronted
from mneme.core.claims.dates import dates_of
from mneme.core.claims.labels import colon_claim, labelled_clause
from mneme.core.claims.normal_forms import (
    EDGE,
    drop_articles,
    normal_words,
    normalize_word,
    prepare,
)
from mneme.core.claims.predicates import Draft, without_price_noun
from mneme.core.claims.subjects import find_subject, names_a_subject
from mneme.core.claims.tails import CONTEXT_FORMS, split_context, strip_change_tail, strip_time_tail
from mneme.core.claims.verb_forms import is_verb
from mneme.core.speakers import split_speaker
from mneme.core.statements import unaddressed
from mneme.core.wordlists import (
    ARTICLES,
    AUX,
    COPULAS,
    INTERJECTIONS,
    POSSESSIVE_DETS,
    PRONOUNS,
)

#: A fronted reason or circumstance ("Because of the strike, ...", "After the audit, ..."):
#: the claim is the main clause after the comma. Conditions ("if", "when") are not dropped.
_FRONTED_CLAUSE = re.compile(
    r"^(?:because|since|although|though|given|due\s+to|following|according\s+to|after|before)"
    r"\b[^,;:]{1,80},\s+(?=\S)"
)


#: One word set off by a comma where a sentence opens ("Sorry, ...", "Actually, ...",
#: "Melanie, ...", "Yesterday, ..."), or said as a sentence of its own ("Cool! It's ...",
#: "Definitely! It's ..."): a discourse marker, an address or a time, never the start of the
#: subject when a clause follows (see ``_set_off_opener``).
_OPENER_MARK = r"[,!?]"
_SET_OFF_OPENER = re.compile(rf"^[^\W\d][\w-]*{_OPENER_MARK}\s+(?=\S)")


#: Words that open a question or a request: the clause after an opener is no statement.
_ASKING = frozenset(["what", "which", "who", "where", "when", "how", "why", "please", "let"])


#: Words that open a noun phrase besides articles, pronouns and possessive determiners.
_OPENS_NP = frozenset(["my", "our", "there"])


def _set_off_opener(low: str) -> int:
    """Where the clause starts after an opener set off by a comma ("sorry, there was a
    problem", "actually, i need ...", "melanie, that is great"), or 0 when there is none.

    Read as part of the subject, the opener makes "sorry there" or "actually user" a subject
    of its own, so one speaker's statements fall into slots that are not theirs. The opener is
    no subject when it is no verb nor interjection (an interjection opens no claim at all),
    and the rest opens with a pronoun or a determiner, or reads as a clause whose subject is
    not a list ("Tom, Anna and Bob are ..." keeps its first name). A question or a request
    after it ("So, do you ...", "Okay, please ...") is no clause to read.
    """
    m = _SET_OFF_OPENER.match(low)
    if m is None:
        return 0
    opener = normalize_word(low[: m.end()].strip(EDGE + " "))
    if opener in INTERJECTIONS or is_verb(opener):
        return 0
    rest = normal_words(low[m.end() :])
    first = rest[0].removesuffix("'s") if rest else ""
    if not first or first in AUX or first in COPULAS or first in _ASKING:
        return 0
    if first in PRONOUNS or first in ARTICLES or first in POSSESSIVE_DETS or first in _OPENS_NP:
        return m.end()  # no noun phrase goes on past a comma with a pronoun or determiner
    found = find_subject(rest, None, False)
    if found is None or not found.end or {"and", "or", "&"} & set(rest[: found.end]):
        return 0
    return m.end()


_APPOSITIVE = re.compile(
    r"^(?P<head>[^,:;]{2,60}),\s+(?P<name>(?:[A-Z][\w'’.-]*\s+){0,3}[A-Z][\w'’.-]*),\s+"
    r"(?P<rest>[a-z].*)$"
)


def _appositive_name(text: str) -> str:
    """ "Our contact at Norrby Foods, Elin Berg, lives in Uppsala." -> "Elin Berg lives in
    Uppsala.": a name set off by commas after a description is the subject it describes."""
    m = _APPOSITIVE.match(text.strip())
    if not m or not is_verb(normalize_word(m.group("rest").split()[0].strip(EDGE).casefold())):
        return text
    return f"{m.group('name')} {m.group('rest')}"


def _canonical(subject: str, draft: Draft) -> tuple[str, Draft]:
    """Fold "X location is Y" into (X, location) and "X's birthday is D" into (X, birthday)."""
    for noun, attr in (("location", "location"), ("birthday", "birthday"), ("address", "lives_in")):
        if draft.attribute in {"is", "when"} and subject.endswith(" " + noun):
            subject = subject[: -len(noun) - 1]
            draft = Draft(attr, draft.value, draft.negated)
    priced = subject.split()[-1:] in (["price"], ["cost"], ["fee"])
    if draft.attribute == "is" and priced and any(ch.isdigit() for ch in draft.value):
        # "The price of the Pro plan is 12 dollars": the plan costs 12 dollars.
        subject = " ".join(without_price_noun(subject.split()))
        draft = Draft("costs", draft.value, draft.negated)
    if draft.attribute in {"birthday", "when", "location", "lives_in", "works_at"}:
        words = draft.value.split()
        if words[:1] and words[0] in {"on", "in", "at"} and len(words) > 1:
            draft = Draft(draft.attribute, " ".join(words[1:]), draft.negated)
    return subject, draft


@lru_cache(maxsize=32768)
def extract_claim(text: str) -> Claim | None:
    """The subject-attribute-value claim of one atom, or None when no rule matches.

    Never raises: arbitrary text either yields a claim or None. Memoized (a Claim is frozen):
    the write path reads the claim of every neighbour of every new atom, and the same
    neighbours come back atom after atom.
    """
    if isinstance(text, str) and text in _PRIMED:
        return _PRIMED.pop(text, None)
    try:
        claim = _extract(text)
    except (ValueError, IndexError, KeyError, AttributeError, TypeError):  # pragma: no cover
        return None
    if claim is None or not names_a_subject(claim.subject) or _refers_elsewhere(claim.value):
        return None
    return claim


#: Claims computed elsewhere (the same function in another process) on their way into
#: ``extract_claim``'s memo; see :func:`prime`.
_PRIMED: dict[str, Claim | None] = {}


def prime(text: str, claim: Claim | None) -> None:
    """Put ``claim`` in ``extract_claim``'s memo for ``text``: what ``extract_claim(text)``
    computes, computed ahead by another process (``mneme.write.analysis_ahead``). A text
    already in the memo keeps its entry."""
    _PRIMED[text] = claim
    extract_claim(text)
    _PRIMED.pop(text, None)


#: Pronouns that stand for a thing named elsewhere.
_OBJECT_PRONOUNS = frozenset(["it", "them", "that", "this", "these", "those", "him", "her", "one"])


def _refers_elsewhere(value: str) -> bool:
    """Whether a claim's value only points at something named elsewhere ("I was in *it*",
    "I'd love to see *them*"): there is nothing in it to compare with another value."""
    words = value.split()
    return 0 < len(words) <= 2 and words[-1] in _OBJECT_PRONOUNS


def _extract(text: str) -> Claim | None:
    if not isinstance(text, str) or not text.strip():
        return None
    speaker, body = split_speaker(text)
    if speaker:
        speaker = " ".join(normal_words(speaker.casefold()))
    body = _appositive_name(unaddressed(body))
    low, capitalized = prepare(body)
    # A change word anywhere counts, a label a speaker-like prefix took too ("Correction: ...").
    change = CHANGE.search(prepare(text)[0]) is not None
    fronted_clause = _FRONTED_CLAUSE.match(low)
    if fronted_clause:
        low, capitalized = low[fronted_clause.end() :], False
    elif opener := _set_off_opener(low):
        low, capitalized = low[opener:], prepare(re.split(_OPENER_MARK, body, maxsplit=1)[1])[1]
    words = normal_words(low)
    numbers = numbers_of(words)
    dates = dates_of(" ".join(words))
    found = labelled_clause(low, speaker)
    if found is None:
        found = colon_claim(low, speaker)
    if found is None:
        words, fronted = split_fronted(words)
        found = read_clause(words, speaker, capitalized)
        if found is None:
            return None
        if fronted:
            found[1].value = f"{found[1].value} {' '.join(fronted)}".strip()
    subject, draft = found
    subject, draft = _canonical(subject, draft)
    value = strip_change_tail(draft.value)
    value = strip_time_tail(value) or value
    attribute = draft.attribute
    if attribute not in {"is", "location", "when", "birthday", "name", "lives_in", "works_at"}:
        value, context = split_context(value)
        if context:
            attribute = f"{attribute}@{CONTEXT_FORMS.get(context, context)}"
    value = drop_articles(value)
    if not subject or not (value or attribute not in SINGLE_VALUED_ATTRIBUTES):
        return None
    return Claim(
        subject=subject,
        attribute=attribute,
        value=value,
        negated=draft.negated,
        numbers=numbers,
        dates=dates,
        change=change,
        text=text,
    )
