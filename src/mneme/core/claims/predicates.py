"""Predicates: the attribute and value a verb phrase gives its subject.

Verbs become their third-person form ("does not eat" -> ``eats``, negated); "is" with a
progressive verb is that verb ("is mentoring Dana" -> ``mentors``); "is" with an adjective and
its preposition is the adjective's own attribute ("is allergic to sesame" -> ``is_allergic_to``);
"was renamed (changed, set ...) to X" is "is X"; "moved to 6 October" (of a thing) is ``when``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from mneme.core.claims.dates import DATE, is_time_only, names_a_time
from mneme.core.claims.normal_forms import clean_value
from mneme.core.claims.subjects import Subject, subject_name
from mneme.core.claims.verb_forms import base_of, ing_base, third_person
from mneme.core.wordlists import (
    ADJECTIVE_PREPS,
    ADVERBS,
    AMOUNT_STOPS,
    AMOUNT_VERBS,
    ARTICLES,
    AUX,
    BASE_VERBS,
    CHANGED_TO,
    COPULAS,
    IRREGULAR_PAST,
    MOVED_TO,
    NOT_ADJECTIVES,
    NOT_OWNERS,
    OWNERS,
    PLAN_VERBS,
    PREFERENCE_VERBS,
    PRICE_NOUNS,
)


@dataclass
class Draft:
    """A claim in the making: the attribute and value a predicate gives, and the subject it
    names when that is not the sentence's."""

    attribute: str
    value: str
    negated: bool = False
    subject: str | None = None  # when the verb names another subject than the sentence's


@dataclass
class VerbPhrase:
    """A verb phrase's words after its leading adverbs and negation, and whether it was negated."""

    words: list[str]
    negated: bool


def strip_modifiers(words: list[str]) -> VerbPhrase:
    """Leading adverbs and negation of a verb phrase ("no longer", "does not", "never")."""
    negated = False
    i = 0
    while i < len(words):
        w = words[i]
        nxt = words[i + 1] if i + 1 < len(words) else ""
        if w == "no" and nxt == "longer":
            negated, i = True, i + 2
        elif w in {"not", "never", "cannot"}:
            negated, i = True, i + 1
        elif w in {"do", "does", "did"} and nxt in {"not", "never"}:
            negated, i = True, i + 2
        elif w in ADVERBS or w == "now" or (w == "these" and nxt == "days"):
            i += 2 if w == "these" else 1
        else:
            break
    return VerbPhrase(words[i:], negated)


def copula_draft(rest: list[str], subject: Subject) -> Draft | None:
    """What "is" and its complement say ("is based in X", "is called X", "is allergic to X")."""
    vp = strip_modifiers(rest)
    comp = vp.words
    if not comp:
        return None
    head = comp[0]
    two = " ".join(comp[:2])
    if two in {"based in", "living in", "residing in"}:
        attr = "lives_in" if subject.person else "location"
        return Draft(attr, clean_value(comp[2:]), vp.negated)
    if two in {"works at", "works for"} or (head == "works" and len(comp) > 1):
        return Draft("works_at", clean_value(comp[2:]), vp.negated)
    if two in {"born on", "born in"}:
        value = clean_value(comp[2:])
        attr = "birthday" if two == "born on" or DATE.search(value) else "born_in"
        return Draft(attr, value, vp.negated)
    if head in {"called", "named"}:
        return Draft("name", clean_value(comp[1:]), vp.negated)
    if two in {"located in", "located at", "located on", "stored on", "stored in", "kept in"}:
        return Draft("location", clean_value(comp[2:]), vp.negated)
    if head in {"in", "at", "on", "near", "upstairs", "downstairs", "inside", "outside"}:
        value = clean_value(comp[1:] if head in {"in", "at", "on"} else comp)
        attr = "when" if is_time_only(value) else "location"
        return Draft(attr, value, vp.negated)
    if head in {"planning", "going", "hoping"} and len(comp) > 1 and comp[1] == "to":
        return Draft("plans", clean_value(comp[2:]), vp.negated)
    if head.endswith("ing") and base_of(head) is not None:
        return verb_draft(head, comp[1:], subject, vp.negated)  # "is learning X": the verb's slot
    if len(comp) > 1:
        base = ing_base(head)
        if base is not None:
            # "is mentoring Dana": the verb "mentor" the word lists do not know, the verb's slot
            return verb_draft(head, comp[1:], subject, vp.negated, base)
        if len(comp) > 2 and comp[1] == "to" and head in CHANGED_TO | MOVED_TO:
            return _changed_to(head, clean_value(comp[2:]), subject, vp.negated)
        if len(comp) > 2 and comp[1] in ADJECTIVE_PREPS and _adjective_head(head):
            # "is allergic to sesame": the adjective's slot, not "is" (see is_single_valued)
            return Draft(f"is_{head}_{comp[1]}", clean_value(comp[2:]), vp.negated)
    return Draft("is", clean_value(comp), vp.negated)


def _changed_to(head: str, value: str, subject: Subject, negated: bool) -> Draft:
    """ "was renamed to main": the thing is main now; "was moved to Friday": it is on Friday
    ("when"), "was moved to Ghent": it is in Ghent ("location")."""
    if head in MOVED_TO and names_a_time(value):
        return Draft("when", value, negated)
    if head in MOVED_TO and not subject.person:
        return Draft("location", value, negated)
    return Draft("is", value, negated)


_ADJECTIVE = re.compile(r"^[a-z]+(?:-[a-z]+)*$")


def _adjective_head(word: str) -> bool:
    """Whether a word after a copula may head an adjective phrase ("allergic", "responsible",
    "left-handed"): a plain word, no function word (wordlists.NOT_ADJECTIVES)."""
    return (
        _ADJECTIVE.match(word) is not None
        and word not in NOT_ADJECTIVES
        and word not in ARTICLES
        and word not in ADJECTIVE_PREPS
        and word not in COPULAS
        and word not in AUX
        and word not in ADVERBS
    )


def verb_draft(
    head: str, rest: list[str], subject: Subject, negated: bool, base: str | None = None
) -> Draft | None:
    """What a verb and its object say ("prefers X", "lives in X", "joined X", "has 16 gb")."""
    base = base or base_of(head) or head
    obj = rest
    if base in PREFERENCE_VERBS:
        attr, neg = PREFERENCE_VERBS[base]
        if obj[:1] == ["to"] and base != "prefer":
            obj = obj[1:]
        return Draft(attr, clean_value(obj), negated != neg)
    if base in PLAN_VERBS and obj[:1] == ["to"]:
        return Draft("plans", clean_value(obj[1:]), negated)
    home = _home(head, base, obj, subject, negated)
    if home is not None:
        return home
    if base == "work" and obj[:1] in (["at"], ["for"]):
        return Draft("works_at", clean_value(obj[1:]), negated)
    if base == "work" and obj[:1] == ["as"]:
        return Draft("is", clean_value(obj[1:]), negated)
    employer_at = _employer_skip(base, obj) if subject.person else None
    if employer_at is not None:
        return Draft("works_at", clean_value(obj[employer_at:]), negated)
    if head == "got" and obj[:3] == ["a", "job", "at"]:
        return Draft("works_at", clean_value(obj[3:]), negated)
    moved = _moved_to(base, obj, subject, negated)
    if moved is not None:
        return moved
    if base in {"stop", "quit"} and obj and obj[0].endswith("ing") and base_of(obj[0]):
        return verb_draft(obj[0], obj[1:], subject, not negated)  # "stopped drinking X"
    if base == "have" or head in {"has", "have", "had"}:
        return _has(obj, negated)
    if head in IRREGULAR_PAST or (head.endswith("ed") and head not in BASE_VERBS):
        return Draft(head, clean_value(obj), negated)
    return Draft(third_person(base), clean_value(obj), negated)


def _home(head: str, base: str, obj: list[str], subject: Subject, negated: bool) -> Draft | None:
    """ "lives in X", "moved to X": where someone lives or where (or when) a thing is."""
    if base in {"live", "reside"} and obj[:1] in (["in"], ["on"], ["at"], ["with"]):
        past = head.endswith("ed")
        if not subject.person and obj[0] in {"in", "on", "at"}:
            return Draft("location", clean_value(obj[1:]), negated)
        attr = "lived_in" if past else "lives_in"
        return Draft(attr, clean_value(obj[1:] if obj[0] != "with" else obj), negated)
    if (base in {"move", "moved", "relocate"} and obj[:1] == ["to"]) or obj[:2] == ["back", "to"]:
        skip = 2 if obj[0] == "back" else 1
        value = clean_value(obj[skip:])
        if subject.person:
            return Draft("lives_in", value, negated)
        # "The deadline moved to 6 October": a date, the slot "the deadline is 6 October" fills
        return Draft("when" if names_a_time(value) else "location", value, negated)
    return None


def _moved_to(base: str, obj: list[str], subject: Subject, negated: bool) -> Draft | None:
    """ "switched to X" (what is used now) and "raised Y to V" (Y's amount now)."""
    if base in {"switch", "migrate"} and obj[:1] == ["to"]:
        return Draft("uses", clean_value(obj[1:]), negated)
    draft = _amount(obj, subject) if base in AMOUNT_VERBS else None
    if draft is not None:
        draft.negated = negated
    return draft


def _amount(obj: list[str], subject: Subject) -> Draft | None:
    """ "X raised (lowered, cut, increased, reduced ...) Y to V": Y's amount is now V, the
    same slot as "Y costs V". Y without an owner of its own is the agent's ("Stackly raised
    the Pro plan" is Stackly's Pro plan); "the price of Y" is Y."""
    if "to" not in obj:
        return None
    k = len(obj) - 1 - obj[::-1].index("to")
    figure = obj[k + 1 :]
    if not figure or not any(ch.isdigit() for ch in figure[0]):
        return None
    thing = obj[:k]
    for i, w in enumerate(thing):
        if w in AMOUNT_STOPS:
            thing = thing[:i]
            break
    head = [w for w in thing if w not in ARTICLES]
    if "of" in head and all(w in PRICE_NOUNS for w in head[: head.index("of")]):
        thing = head[head.index("of") + 1 :]  # "the price of the Pro plan": the plan
    name, _ = subject_name(thing, None)
    words = without_price_noun(name.split())
    if not words:
        return None
    owned = bool(thing) and (
        thing[0] in OWNERS or any(w.endswith("'s") or w == "of" for w in thing)
    )
    agent = subject.name
    if not owned and agent not in NOT_OWNERS and not set(agent.split()) <= set(words):
        words = [*agent.split(), *words]
    return Draft("costs", clean_value(figure), subject=" ".join(words))


def without_price_noun(words: list[str]) -> list[str]:
    """ "pro plan price" -> "pro plan": a thing's price is the thing's amount slot."""
    while len(words) > 1 and words[-1] in PRICE_NOUNS:
        words = words[:-1]
    return words


_NEW_JOB = re.compile(
    r"^(?:(?:a|the|her|his|their|my)\s+)?(?:new\s+)?(?:job|position|role)\s+(?:at|with)\s"
)


def _employer_skip(base: str, obj: list[str]) -> int | None:
    """ "joined X", "started at X", "started working at X", "started (got, took) a new job at
    X": a new employer; how many words come before its name, or None."""
    if base == "join":
        return 0 if obj else None
    if base == "start" and obj[:1] == ["at"]:
        return 1
    if base == "start" and obj[:2] == ["working", "at"]:
        return 2
    m = _NEW_JOB.match(" ".join(obj) + " ") if base in {"start", "get", "take", "land"} else None
    return len(m.group(0).split()) if m else None


def _has(obj: list[str], negated: bool) -> Draft:
    if obj[:1] == ["no"]:
        return Draft("has", clean_value(obj[1:]), True)
    if obj and obj[0][:1].isdigit():
        amount, rest = obj[0], obj[1:]
        if "of" in rest:
            k = rest.index("of")
            unit, thing = rest[:k], rest[k + 1 :]
            return Draft(f"has {' '.join(unit)} of {clean_value(thing)}".strip(), amount, negated)
        return Draft(f"has {clean_value(rest)}".strip(), amount, negated)
    return Draft("has", clean_value(obj), negated)
