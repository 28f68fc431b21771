"""What an attribute holds: one value or many, a preference, and the claim read another way.

An attribute may carry a situational context after ``@`` (``prefers@in the morning``): the
attribute without it is its base. Whether a slot holds one value or several is
:func:`is_single_valued`'s answer (one home, one employer, one date, one budget; many
allergies, many mentees, many rollouts).
"""

from __future__ import annotations

import re
from dataclasses import replace

from mneme.core.claims.amounts import mentions_amount
from mneme.core.claims.claim import Claim
from mneme.core.claims.dates import names_a_time
from mneme.core.claims.verb_forms import ing_base
from mneme.core.speakers import split_speaker
from mneme.core.wordlists import MULTI_VALUED_ADJECTIVES, SINGLE_VALUED_ADJECTIVES

#: Attributes that hold one value at a time: another value in the slot is a conflict.
#: Every other attribute (likes, eats, plays, has ...) may hold many values at once.
SINGLE_VALUED_ATTRIBUTES: frozenset[str] = frozenset(
    {"is", "lives_in", "works_at", "birthday", "born_in", "prefers", "location", "when", "name"}
)
#: Attributes that carry a preference, a taste or a plan (the charter escalates these).
PREFERENCE_ATTRIBUTES: frozenset[str] = frozenset({"prefers", "likes", "plans"})


def base_attribute(attribute: str) -> str:
    """The attribute without its situational context: ``prefers@in the morning`` -> ``prefers``."""
    return attribute.split("@", 1)[0]


def is_single_valued(claim: Claim) -> bool:
    """Whether the claim's attribute holds one value at a time (see SINGLE_VALUED_ATTRIBUTES).

    A "has" attribute with a number in it ("has gb of ram") counts as single-valued: the server
    has one amount of RAM. An adjective's complement (``is_allergic_to``, ``is_married_to``)
    holds what its adjective says (wordlists.MULTI_VALUED_ADJECTIVES and SINGLE_VALUED_ADJECTIVES:
    one is allergic to several things and married to one person); an adjective in neither list
    reads like "is" does.
    """
    base = base_attribute(claim.attribute)
    adjective = complement_adjective(base)
    if adjective is not None:
        if adjective in MULTI_VALUED_ADJECTIVES:
            return False
        if adjective in SINGLE_VALUED_ADJECTIVES:
            return True
        base = "is"
    if base == "is" and (_describes_someone(claim) or _names_an_activity(claim)):
        # "Caroline is excited" / "Caroline is tired", "I am a painter" / "I am a mother":
        # descriptions of a person accumulate, and so do judgements of something done
        # ("Losing my job was hard" / "... was a bummer"). A thing's property holds one value ("the
        # launch date is 3 May"), and so does a number or a date about anyone.
        return bool(claim.dates) or mentions_amount(claim.text)
    if base in SINGLE_VALUED_ATTRIBUTES:
        return True
    return base.startswith("has ") and bool(claim.numbers)


def _names_an_activity(claim: Claim) -> bool:
    """The subject is something done, a gerund that opens the statement with what it acts on
    ("Losing my job was hard", "Finding the right balance is key"), perhaps after an opener;
    not a noun that happens to end in -ing after an article ("The meeting room is Orion")."""
    words = claim.subject.split()
    if len(words) < 2 or ing_base(words[0]) is None:
        return False
    body = split_speaker(claim.text)[1].casefold()
    return re.search(rf"(?:^|[,.!?]\s+)[\"'(]?{re.escape(words[0])}\b", body) is not None


def _describes_someone(claim: Claim) -> bool:
    """The subject is a person (the speaker, "user", or a bare name), not a thing's property."""
    return " " not in claim.subject.strip()


#: The attribute of an adjective with its complement: ``is_<adjective>_<preposition>``.
_COMPLEMENT = re.compile(r"^is_([^_@\s]+)_([a-z]+)$")


def complement_adjective(attribute: str) -> str | None:
    """The adjective of an ``is_<adjective>_<preposition>`` attribute, else None."""
    m = _COMPLEMENT.match(base_attribute(attribute))
    return m.group(1) if m else None


def copula_view(claim: Claim) -> Claim:
    """The claim read as a plain "is" claim: ``(release, is_blocked_by, test)`` is ``(release,
    is, blocked by test)``; any other claim is itself. The judge compares such a claim with a
    plain "is" claim about the same subject when one value includes the other ("the release is
    blocked" -> "the release is blocked by the test": a refinement)."""
    base = base_attribute(claim.attribute)
    m = _COMPLEMENT.match(base)
    if not m:
        return claim
    context = claim.attribute[len(base) :]
    value = f"{m.group(1)} {m.group(2)} {claim.value}".strip()
    return replace(claim, attribute="is" + context, value=value)


def time_view(claim: Claim) -> Claim:
    """The claim read as a "when" claim when it is a plain "is" whose value is only a date or a
    time: "the deadline is 6 October" says when the deadline is, like "the deadline moved to 6
    October" and "the sync is on Fridays"; any other claim is itself."""
    base = base_attribute(claim.attribute)
    if base != "is" or not names_a_time(claim.value):
        return claim
    return replace(claim, attribute="when" + claim.attribute[len(base) :])


def is_preference(claim: Claim) -> bool:
    """Whether the claim is about a taste, a preference or a plan (or a favourite thing)."""
    return base_attribute(claim.attribute) in PREFERENCE_ATTRIBUTES or "favorite" in claim.subject
