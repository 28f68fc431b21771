"""Verb forms: a verb's base and its third person, so "does not eat" and "eats" meet."""

from __future__ import annotations

from mneme.core.wordlists import (
    AUX,
    BASE_VERBS,
    COPULAS,
    ING_NOT_VERBS,
    IRREGULAR_PAST,
    THIRD_IRREGULAR,
)


def third_person(verb: str) -> str:
    """Third-person singular of a verb given in base or third-person form."""
    if verb in THIRD_IRREGULAR:
        return verb
    if verb == "have":
        return "has"
    if verb in {"do", "go"}:
        return verb + "es"
    if verb.endswith("s") and not verb.endswith("ss") and len(verb) > 3:
        stem = verb[:-1]
        if stem in BASE_VERBS or verb[:-2] in BASE_VERBS or not verb.endswith("us"):
            return verb
    if verb.endswith(("s", "sh", "ch", "x", "z")):
        return verb + "es"
    if verb.endswith("y") and len(verb) > 2 and verb[-2] not in "aeiou":
        return verb[:-1] + "ies"
    return verb + "s"


def base_of(word: str) -> str | None:
    """The base form of a present, past or -ing verb form in the word lists, else None."""
    if word in BASE_VERBS:
        return word
    candidates = []
    if word.endswith("ies"):
        candidates.append(word[:-3] + "y")
    if word.endswith("es"):
        candidates.append(word[:-2])
    if word.endswith("s"):
        candidates.append(word[:-1])
    if word.endswith("ed"):
        candidates += [word[:-2], word[:-1], word[:-3] if word[-3:-2] == word[-4:-3] else ""]
    if word.endswith("ing"):
        candidates += [word[:-3], word[:-3] + "e"]
    for c in candidates:
        if c and c in BASE_VERBS:
            return c
    return None


def is_verb(word: str) -> bool:
    """Whether a word is a verb form: a copula, an auxiliary, or a verb the word lists know."""
    return (
        word in COPULAS
        or word in AUX
        or word in {"has", "have", "had", "cannot", "never", "not"}
        or word in IRREGULAR_PAST
        or word in THIRD_IRREGULAR
        or base_of(word) is not None
    )


def ing_base(word: str) -> str | None:
    """The base of an "-ing" verb form the word lists do not know ("mentoring" -> "mentor",
    "hiring" -> "hire", "planning" -> "plan"), or None for a word that is no verb form
    ("nothing", "amazing": wordlists.ING_NOT_VERBS). The base only names the attribute, which
    :func:`third_person` makes the same for "is mentoring" and "mentors"."""
    if not word.endswith("ing") or word in ING_NOT_VERBS or not word.isalpha():
        return None
    stem = word[:-3]
    if len(stem) < 2:
        return None
    if len(stem) >= 3 and stem[-1] == stem[-2] and stem[-1] not in "aeioulsz":
        return stem[:-1]  # "planning", "running" (not "telling", "passing", "buzzing")
    if _dropped_e(stem):
        return stem + "e"  # "hiring", "using", "making", "organizing"
    return stem


def _dropped_e(stem: str) -> bool:
    """Whether an "-ing" stem lost a final "e" ("hir"-ing, "us"-ing, "mak"-ing, "danc"-ing)."""
    vowels = "aeiouy"
    last, before = stem[-1], stem[-2]
    if last in "vzcu" or (last == "g" and before != "n"):
        return True  # "serving", "organizing", "dancing", "arguing", "charging"
    if last == "s" and before in vowels and (len(stem) < 3 or stem[-3] not in vowels):
        return True  # "using", "supervising", "raising"
    if len(stem) >= 5 and stem.endswith("at") and stem[-3] not in vowels:
        return True  # "creating", "migrating"
    if len(stem) < 3 or before not in "aiou" or stem[-3] in vowels:
        return False  # "cooking", "leading", "clearing"
    # "making", "coding", "deciding"; "hiring", "sharing", "storing" (not "mentoring")
    return last in "kd" or (last == "r" and len(stem) <= 4)
