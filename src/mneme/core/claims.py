"""Subject-attribute-value claims from one atom, by offline rules.

A :class:`Claim` names the *slot* a sentence fills (subject and attribute) and the value it puts
there, so the write path can tell "the same thing said again" from "the same slot, another value"
from "another subject altogether". Extraction is deliberately shallow: it covers the common shapes
of personal and world facts and returns None for anything else; a None claim only means the judge
falls back to text-level rules.

Normal forms, so that paraphrases land on one slot:

* first person ("I", "me", "my X") is subject ``user`` / ``user X``; a transcript speaker
  ("Dana: I ...") replaces ``user`` with the speaker's name; "the user" is ``user`` too;
* articles and possessive markers are dropped ("Tom's brother" -> ``tom brother``), and
  "the A of the B" becomes ``b a``;
* British spellings become American ones (colour -> color, organise -> organize, centre ->
  center, grey -> gray), number words become digits ("six" -> "6", "third" -> "3rd");
* verbs become their third-person form ("does not eat" -> attribute ``eats``, negated);
* a trailing situational phrase ("in the morning", "on long flights", "every night") becomes part
  of the attribute (``prefers@in the morning``), so tea and coffee in the morning share a slot;
* "is" with a progressive verb is that verb ("is mentoring Dana" -> ``mentors``, like "mentors
  Dana"), and "is" with an adjective and its preposition is the adjective's own attribute ("is
  allergic to sesame" -> ``is_allergic_to``, value ``sesame``), never a bare "is": being
  allergic to sesame and mentoring Dana are two facts, not two values of one slot;
* "was renamed (changed, set ...) to X" is "is X"; "moved to 6 October" (of a thing) is ``when``;
* a label that names an event by an identifier ("Incident 6068: the service was down ...",
  "Ticket 42: ...", "Order #7: ...") opens the subject (``incident 6068 service``), so two
  incidents of one service are two subjects.

Whether a slot holds one value or several is :func:`is_single_valued`'s answer (one home, one
employer, one date, one budget; many allergies, many mentees, many rollouts). Identifiers in a
value ("the Quarry-338 rollout", "ticket 42") are names, not amounts (:func:`is_identifier`).
The word lists live in :mod:`mneme.core.wordlists`.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, replace
from functools import lru_cache

from mneme.core.speakers import speaker_of
from mneme.core.statements import unaddressed
from mneme.core.wordlists import (
    ADJECTIVE_PREPS,
    ADVERBS,
    AMOUNT_STOPS,
    AMOUNT_VERBS,
    ARTICLES,
    AUX,
    BASE_VERBS,
    BRITISH_ISE,
    CHANGED_TO,
    COPULAS,
    ID_NOUNS,
    ING_NOT_VERBS,
    INTERJECTIONS,
    IRREGULAR_PAST,
    MONTHS,
    MOVED_TO,
    MULTI_VALUED_ADJECTIVES,
    NOT_ADJECTIVES,
    NOT_EVENT_LABELS,
    NOT_NOUNS,
    NOT_OWNERS,
    NUMBER_WORDS,
    ORDINALS,
    OWNERS,
    PLAN_VERBS,
    POSSESSIVE_DETS,
    PREFERENCE_VERBS,
    PRICE_NOUNS,
    PRONOUNS,
    RELATIONS,
    RELATIVE_TIME,
    SINGLE_VALUED_ADJECTIVES,
    SPELLING,
    STOPWORDS,
    SUBJECT_PREPS,
    THIRD_IRREGULAR,
    TIME_WORDS,
    VAGUE_SUBJECTS,
    WEEKDAYS,
)

# ---------------------------------------------------------------------------------------------
# The claim
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Claim:
    """One subject-attribute-value claim read from an atom.

    ``numbers`` holds every amount in the atom as digits (number words and ordinals included;
    identifiers such as "heron-72" or "ticket 42" are names, not amounts: see
    :func:`is_identifier`); ``dates`` the date and time expressions (normalized text).
    ``change`` is true when the atom says something changed ("moved to", "now", "no longer",
    "switched to", "instead").
    """

    subject: str
    attribute: str
    value: str
    negated: bool
    numbers: tuple[str, ...]
    dates: tuple[str, ...]
    change: bool
    text: str


def claim_slot(claim: Claim) -> tuple[str, str]:
    """The slot a claim fills: (subject, attribute). Same slot, other value: a conflict."""
    return claim.subject, claim.attribute


def same_value(a: Claim, b: Claim) -> bool:
    """Whether two claims put the same value in their slot (word order and articles ignored)."""
    if a.value == b.value:
        return True
    wa, wb = value_words(a.value), value_words(b.value)
    return bool(wa) and wa == wb


def value_words(value: str) -> frozenset[str]:
    """Content words of a value: stopwords dropped, numbers kept."""
    return frozenset(w for w in value.split() if w not in STOPWORDS or w[:1].isdigit())


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
    if base == "is" and _describes_someone(claim):
        # "Caroline is excited" / "Caroline is tired", "I am a painter" / "I am a mother":
        # descriptions of a person accumulate. A thing's property holds one value ("the
        # launch date is 3 May"), and so does a number or a date about anyone.
        return bool(claim.dates) or _mentions_amount(claim.text)
    if base in SINGLE_VALUED_ATTRIBUTES:
        return True
    return base.startswith("has ") and bool(claim.numbers)


def _describes_someone(claim: Claim) -> bool:
    """The subject is a person (the speaker, "user", or a bare name), not a thing's property."""
    return " " not in claim.subject.strip()


def _mentions_amount(text: str) -> bool:
    """Whether a text has a digit outside identifiers ("Dana-12 is 30": yes; "Dana-12": no)."""
    prev = ""
    for raw in text.casefold().split():
        word = raw.strip(_EDGE)
        if any(ch.isdigit() for ch in word) and not is_identifier(word, prev):
            return True
        prev = word
    return False


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
    if base != "is" or not _names_a_time(claim.value):
        return claim
    return replace(claim, attribute="when" + claim.attribute[len(base) :])


#: An identifier spelled as one word: letters, a hyphen and a number ("hw-579", "heron-72",
#: "eu-west-1", "inc-1234"), or a number after "#" ("#7").
_IDENTIFIER = re.compile(r"^(?:#\w*\d[\w.-]*|[a-z]+(?:[-_][a-z]+)*[-_]\d[\w./-]*)$")


def is_identifier(word: str, previous: str = "") -> bool:
    """Whether a word with digits names one thing rather than giving an amount.

    "heron-72", "hw-579" and "#7" name things; so does a number after a noun that numbers
    things ("incident 6068", "ticket 42", "room 12": see wordlists.ID_NOUNS). Two values that
    differ in an identifier are two values, not one value with other numbers: "owns the
    Quarry-338 rollout" and "owns the Tessel-564 rollout" are two rollouts.
    """
    w = word.casefold().strip(_EDGE + ":")
    if _IDENTIFIER.match(w):
        return True
    return previous.casefold().strip(_EDGE) in ID_NOUNS and any(ch.isdigit() for ch in w)


def is_preference(claim: Claim) -> bool:
    """Whether the claim is about a taste, a preference or a plan (or a favourite thing)."""
    return base_attribute(claim.attribute) in PREFERENCE_ATTRIBUTES or "favorite" in claim.subject


#: An amount moved to a new figure ("raised the Pro plan to 15 dollars", "cut the fee to $5"):
#: the old figure no longer holds.
_AMOUNT_CHANGE = (
    r"\b(?:raised|lowered|increased|decreased|reduced|cut|dropped|bumped|hiked|slashed)\s+"
    r"(?:[^\s.;:]+\s+){1,8}?to\s+[^\s\d]?\d"
)
_CHANGE = re.compile(
    r"\b(?:moved|moving|relocated|relocating|now|no\s+longer|switched|switching|changed|"
    r"started|starting|stopped|joined|these\s+days|nowadays|anymore|any\s+more|instead|migrated|"
    r"renamed|got\s+a\s+(?:new\s+)?job|became|quit|correction|corrected)\b|" + _AMOUNT_CHANGE
)
#: Change words a multi-valued attribute needs to let a new value replace an old one: "I play
#: golf" then "I started tennis" adds a hobby, "I drink tea instead" replaces the coffee.
STRONG_CHANGE = re.compile(
    r"\b(?:no\s+longer|anymore|any\s+more|instead|switched|switching|changed\s+to|replaced|stopped|"
    r"these\s+days|nowadays|now|correction|corrected)\b|" + _AMOUNT_CHANGE
)
#: What a multi-valued attribute needs to let a new value *replace* one it holds ("I drink tea
#: instead"): a word of replacement. A word of time ("now", "these days") does not say that:
#: "I'm learning German now" adds to "I'm learning the violin" (on LoCoMo, 12 of the 21
#: supersessions were such a "now"; ADR 0039).
REPLACING = re.compile(
    r"\b(?:no\s+longer|anymore|any\s+more|instead|switched|switching|changed\s+to|replaced|"
    r"stopped|correction|corrected)\b"
)
_CHANGE_TAIL = re.compile(
    r"(?:\s+(?:instead|anymore|any\s+more|now|these\s+days|nowadays|again|too|as\s+well|"
    r"instead\s+of\s+.*))+$"
)

_CONTEXT = re.compile(
    r"\s+((?:in\s+the\s+(?:morning|mornings|afternoon|afternoons|evening|evenings)|"
    r"at\s+(?:night|work|home|weekends|the\s+weekend)|"
    r"on\s+(?:weekends|weekdays|\w+days|long\s+flights|flights|trips|holiday|holidays|"
    r"vacation|workdays)|"
    r"for\s+(?:breakfast|lunch|dinner|dessert|work|fun)|"
    r"every\s+\w+(?:\s+\w+)?|during\s+\w+(?:\s+\w+)?|(?:before|after)\s+work|"
    r"when\s+\w+ing(?:\s+\w+)?))$"
)
_CONTEXT_FORMS = {
    "every morning": "in the morning",
    "in the mornings": "in the morning",
    "every evening": "in the evening",
    "in the evenings": "in the evening",
    "every night": "at night",
    "at the weekend": "on weekends",
    "every weekend": "on weekends",
}
_TIME_TAIL = re.compile(
    r"\s+(?:(?:last|next|this)\s+(?:week|month|year|spring|summer|autumn|fall|winter|"
    r"monday|tuesday|wednesday|thursday|friday|saturday|sunday)|yesterday|today|tomorrow|"
    r"recently|lately|(?:in|since|from)\s+(?:(?:early|late|mid)\s+)?"
    r"(?:january|february|march|april|may|june|july|august|september|october|november|"
    r"december|\d{4})(?:\s+\d{4})?|\d+\s+(?:days|weeks|months|years)\s+ago)$"
)
_DATE = re.compile(
    r"\b(?:\d{1,2}(?:st|nd|rd|th)?\s+(?:of\s+)?(?:january|february|march|april|may|june|july|"
    r"august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|"
    r"dec)(?:\s+\d{4})?|(?:january|february|march|april|may|june|july|august|september|october|"
    r"november|december)\s+\d{1,2}(?:st|nd|rd|th)?(?:,?\s+\d{4})?|\d{4}-\d{2}-\d{2}|"
    r"(?:19|20)\d\d|\d{1,2}:\d{2}(?:\s*(?:am|pm))?|\d{1,2}\s*(?:am|pm)|"
    r"monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b"
)
_NUMBER = re.compile(r"(?<![\w.])\d+(?:[.,:]\d+)*(?:st|nd|rd|th)?%?")
_DIGIT = re.compile(r"\d")
#: (literal, pattern, replacement): each pattern matches only where its literal occurs, and
#: no replacement writes an apostrophe, so a text without the literal is left as it is.
_CONTRACTIONS: tuple[tuple[str, re.Pattern[str], str], ...] = tuple(
    (lit, re.compile(p), r)
    for lit, p, r in (
        ("can't", r"\bcan't\b", "cannot"),
        ("won't", r"\bwon't\b", "will not"),
        ("n't", r"\b(\w+)n't\b", r"\1 not"),
        ("i'm", r"\bi'm\b", "i am"),
        ("'ve", r"\b(i|you|we|they)'ve\b", r"\1 have"),
        ("'d", r"\b(i|you|we|they|he|she)'d\b", r"\1 would"),
        ("'ll", r"\b(\w+)'ll\b", r"\1 will"),
        ("'re", r"\b(you|we|they)'re\b", r"\1 are"),
        ("'s", r"\b(he|she|it|that|there|what|who)'s\b", r"\1 is"),
    )
)
_COLON = re.compile(r"^([^:]{2,60}?)\s*:\s+(.+)$")
#: "Status: blocked", "Owner: Priya Nair": a label's value is a few words, not a clause.
_LABEL_VALUE_WORDS = 6
#: A fronted reason or circumstance ("Because of the strike, ...", "After the audit, ..."):
#: the claim is the main clause after the comma. Conditions ("if", "when") are not dropped.
_FRONTED_CLAUSE = re.compile(
    r"^(?:because|since|although|though|given|due\s+to|following|according\s+to|after|before)"
    r"\b[^,;:]{1,80},\s+(?=\S)"
)
#: The longest subject noun phrase read ("the combination of the red cargo bike lock"); one
#: longer than _SHORT_SUBJECT words is read only before a copula.
MAX_SUBJECT_WORDS = 10
_SHORT_SUBJECT = 7
_EDGE = "\"'“”‘’()[]{}.,;!?"


# ---------------------------------------------------------------------------------------------
# Normalization
# ---------------------------------------------------------------------------------------------


@lru_cache(maxsize=32768)
def normalize_word(word: str) -> str:
    """One lowercase word in its canonical spelling (American, digits for number words).

    Memoized: every claim and every text rule normalizes the same common words."""
    w = SPELLING.get(word, word)
    m = BRITISH_ISE.match(w)
    if m:
        w = f"{m.group(1)}iz{m.group(2)}"
    return NUMBER_WORDS.get(w) or ORDINALS.get(w) or w


@lru_cache(maxsize=4096)
def _prepare(text: str) -> tuple[str, bool]:
    """Lowercase, contractions expanded, edge punctuation dropped; and the original casing hint.

    The hint says whether the atom opened with a capitalized non-pronoun word (a name).
    Memoized: a claim reads both the atom and its body, most often the same text.
    """
    t = unicodedata.normalize("NFKC", text).replace("’", "'").replace("‘", "'")
    t = t.replace("“", '"').replace("”", '"')
    t = " ".join(t.split()).strip(_EDGE + " ")
    capitalized = bool(t[:1].isupper()) and not re.match(r"^(?:I|I'\w+)\b", t)
    low = t.casefold()
    if "'" in low:
        for literal, pattern, repl in _CONTRACTIONS:
            if literal in low:
                low = pattern.sub(repl, low)
    low = re.sub(r"(\d)\s*(am|pm)\b", r"\1 \2", low)
    return low, capitalized


def _words(text: str) -> list[str]:
    out: list[str] = []
    for raw in text.split():
        w = raw.strip(_EDGE)
        if w:
            out.append(normalize_word(w))
    return out


def _numbers(words: list[str]) -> tuple[str, ...]:
    """The amounts among the words: numbers, but not identifiers ("heron-72", "ticket 42")."""
    out: list[str] = []
    prev = ""
    for w in words:
        # A word without a digit holds no amount (_NUMBER starts with one): not read further.
        if _DIGIT.search(w) and not is_identifier(w, prev):
            out += [re.sub(r"(st|nd|rd|th)$", "", m.group(0)) for m in _NUMBER.finditer(w)]
        prev = w
    return tuple(out)


def _dates(text: str) -> tuple[str, ...]:
    return tuple(m.group(0) for m in _DATE.finditer(text))


def _clean_value(words: list[str]) -> str:
    """Join value words; articles are dropped later, after context and time phrases are cut."""
    return " ".join(words)


def _drop_articles(value: str) -> str:
    kept = [w for w in value.split() if w not in ARTICLES and w not in POSSESSIVE_DETS]
    return " ".join(kept)


def _third_person(verb: str) -> str:
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


def _base_of(word: str) -> str | None:
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


def _is_verb(word: str) -> bool:
    return (
        word in COPULAS
        or word in AUX
        or word in {"has", "have", "had", "cannot", "never", "not"}
        or word in IRREGULAR_PAST
        or word in THIRD_IRREGULAR
        or _base_of(word) is not None
    )


# ---------------------------------------------------------------------------------------------
# Subjects
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Subject:
    name: str
    person: bool
    end: int  # index of the first word after the subject


def _is_noun_modifier(word: str, nxt: str) -> bool:
    """Whether a verb-looking word is a noun inside the subject ("the release train leaves").

    It is when the next word is itself a finite verb: a copula, an auxiliary or a verb in the
    third person ("cache lives", "lead is"), or a participle before a copula ("stored ... are").
    """
    if word in COPULAS or word in AUX or word in ADVERBS or word in NOT_NOUNS:
        return False
    if nxt in COPULAS or nxt in AUX or nxt in {"has", "have"}:
        return True
    if word.endswith("s"):
        return False  # "Lena prefers trains": a verb in the third person, then its object
    base = _base_of(nxt)
    return base is not None and nxt != base and nxt.endswith("s") and not word.endswith("ed")


def _subject_name(np: list[str], speaker: str | None) -> tuple[str, bool]:
    """Normalize a subject noun phrase; second value: whether it names a person."""
    words: list[str] = []
    person = False
    for i, w in enumerate(np):
        if w in {"my", "i", "me"} or (w == "user" and i == 0):
            words.append(speaker or "user")
            person = True
        elif w in ARTICLES and not (i == 0 and len(np) > 1 and np[1] == "user"):
            continue
        elif w.endswith("'s") or w.endswith("s'"):
            words.append(w[:-2] if w.endswith("'s") else w[:-1])
        elif w in PRONOUNS and i == 0:
            words.append(PRONOUNS[w] if w not in {"i", "me"} else speaker or "user")
            person = w != "it"
        elif w not in ARTICLES:
            words.append(w)
    preps = [i for i, w in enumerate(words) if w in SUBJECT_PREPS and 0 < i < len(words) - 1]
    if len(preps) == 1:
        k = preps[0]
        words = words[k + 1 :] + words[:k]
    if words and words[-1] in RELATIONS:
        person = True
    return " ".join(words), person


def _find_subject(words: list[str], speaker: str | None, capitalized: bool) -> _Subject | None:
    if not words:
        return None
    first = words[0]
    if first in PRONOUNS:
        name, _ = _subject_name([first], speaker)
        return _Subject(name, first != "it", 1)
    determined = first in ARTICLES or first in {"my", "our", "your"} or first in POSSESSIVE_DETS
    return _subject_from(words, 2 if determined else 1, speaker, capitalized)


def _subject_from(
    words: list[str], start: int, speaker: str | None, capitalized: bool
) -> _Subject | None:
    """The subject noun phrase ends at the first verb from ``start`` on (see _find_subject)."""
    first = words[0]
    limit = min(len(words), MAX_SUBJECT_WORDS + 1)
    for k in range(start, limit):
        w = words[k]
        nxt = words[k + 1] if k + 1 < len(words) else ""
        if w in ADVERBS or w in {"no", "now"} or _is_verb(w) or _past_before_to(w, nxt):
            if _is_noun_modifier(w, nxt) or w.endswith("ing"):
                continue
            if _noun_before_of(words, k):
                # "The Pro plan of Stackly costs ...": a noun, when a verb follows the "of"
                # phrase; otherwise the verb it looked like ("My parents think of moving").
                longer = _subject_from(words, k + 2, speaker, capitalized)
                if longer is not None:
                    return longer
            if k >= _SHORT_SUBJECT and w not in COPULAS:
                return None  # a long subject only before "is" ("the owner of the X Y is")
            np = words[:k]
            name, person = _subject_name(np, speaker)
            if not name:
                return None
            if capitalized and first not in ARTICLES and first not in {"my", "our", "your"}:
                person = person or first not in POSSESSIVE_DETS
            return _Subject(name, person, k)
    return None


def _past_before_to(word: str, nxt: str) -> bool:
    """A past tense the word lists do not know, before "to": "Dana promised to fix it", "Ravi
    agreed to review it". The subject ends before it."""
    if nxt != "to" or len(word) <= 4 or not word.isalpha() or not word.endswith("ed"):
        return False
    return not word.endswith("eed") and word != "hundred"  # "the upload speed to Oslo"


def _noun_before_of(words: list[str], k: int) -> bool:
    """Whether a verb-looking word in its base form heads an "of" phrase ("the plan of X",
    "the use of Y"): a noun, unless a gerund follows ("think of moving")."""
    w = words[k]
    if w not in BASE_VERBS or w in NOT_NOUNS or words[k + 1 : k + 2] != ["of"]:
        return False
    after = words[k + 2] if k + 2 < len(words) else ""
    return bool(after) and not (after.endswith("ing") and _base_of(after) is not None)


# ---------------------------------------------------------------------------------------------
# Verb phrases
# ---------------------------------------------------------------------------------------------


@dataclass
class _Draft:
    attribute: str
    value: str
    negated: bool = False
    subject: str | None = None  # when the verb names another subject than the sentence's


@dataclass
class _VerbPhrase:
    words: list[str]
    negated: bool


def _strip_modifiers(words: list[str]) -> _VerbPhrase:
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
    return _VerbPhrase(words[i:], negated)


def _split_context(value: str) -> tuple[str, str]:
    m = _CONTEXT.search(" " + value)
    if not m or m.start() == 0:
        return value, ""
    return (" " + value)[: m.start()].strip(), m.group(1)


def _strip_time_tail(value: str) -> str:
    while True:
        m = _TIME_TAIL.search(" " + value)
        if not m or m.start() == 0:
            return value
        value = (" " + value)[: m.start()].strip()


def _strip_change_tail(value: str) -> str:
    return _CHANGE_TAIL.sub("", " " + value).strip()


def _copula(rest: list[str], subject: _Subject) -> _Draft | None:
    vp = _strip_modifiers(rest)
    comp = vp.words
    if not comp:
        return None
    head = comp[0]
    two = " ".join(comp[:2])
    if two in {"based in", "living in", "residing in"}:
        attr = "lives_in" if subject.person else "location"
        return _Draft(attr, _clean_value(comp[2:]), vp.negated)
    if two in {"works at", "works for"} or (head == "works" and len(comp) > 1):
        return _Draft("works_at", _clean_value(comp[2:]), vp.negated)
    if two in {"born on", "born in"}:
        value = _clean_value(comp[2:])
        attr = "birthday" if two == "born on" or _DATE.search(value) else "born_in"
        return _Draft(attr, value, vp.negated)
    if head in {"called", "named"}:
        return _Draft("name", _clean_value(comp[1:]), vp.negated)
    if two in {"located in", "located at", "located on", "stored on", "stored in", "kept in"}:
        return _Draft("location", _clean_value(comp[2:]), vp.negated)
    if head in {"in", "at", "on", "near", "upstairs", "downstairs", "inside", "outside"}:
        value = _clean_value(comp[1:] if head in {"in", "at", "on"} else comp)
        attr = "when" if _is_time_only(value) else "location"
        return _Draft(attr, value, vp.negated)
    if head in {"planning", "going", "hoping"} and len(comp) > 1 and comp[1] == "to":
        return _Draft("plans", _clean_value(comp[2:]), vp.negated)
    if head.endswith("ing") and _base_of(head) is not None:
        return _verb(head, comp[1:], subject, vp.negated)  # "is learning X": the verb's slot
    if len(comp) > 1:
        base = _ing_base(head)
        if base is not None:
            # "is mentoring Dana": the verb "mentor" the word lists do not know, the verb's slot
            return _verb(head, comp[1:], subject, vp.negated, base)
        if len(comp) > 2 and comp[1] == "to" and head in CHANGED_TO | MOVED_TO:
            return _changed_to(head, _clean_value(comp[2:]), subject, vp.negated)
        if len(comp) > 2 and comp[1] in ADJECTIVE_PREPS and _adjective_head(head):
            # "is allergic to sesame": the adjective's slot, not "is" (see is_single_valued)
            return _Draft(f"is_{head}_{comp[1]}", _clean_value(comp[2:]), vp.negated)
    return _Draft("is", _clean_value(comp), vp.negated)


def _changed_to(head: str, value: str, subject: _Subject, negated: bool) -> _Draft:
    """ "was renamed to main": the thing is main now; "was moved to Friday": it is on Friday
    ("when"), "was moved to Ghent": it is in Ghent ("location")."""
    if head in MOVED_TO and _names_a_time(value):
        return _Draft("when", value, negated)
    if head in MOVED_TO and not subject.person:
        return _Draft("location", value, negated)
    return _Draft("is", value, negated)


def _ing_base(word: str) -> str | None:
    """The base of an "-ing" verb form the word lists do not know ("mentoring" -> "mentor",
    "hiring" -> "hire", "planning" -> "plan"), or None for a word that is no verb form
    ("nothing", "amazing": wordlists.ING_NOT_VERBS). The base only names the attribute, which
    :func:`_third_person` makes the same for "is mentoring" and "mentors"."""
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


def _names_a_time(value: str) -> bool:
    """Whether a value is only a date or a time ("6 october", "friday at 10:00")."""
    return bool(value) and _DATE.search(value) is not None and _is_time_only(value)


def _is_time_only(value: str) -> bool:
    """Whether a complement only says when ("on Thursday at 4 pm"), not where."""
    rest = _DATE.sub(" ", value).split()
    return all(w in TIME_WORDS or w[:1].isdigit() or w in ARTICLES for w in rest)


def _verb(
    head: str, rest: list[str], subject: _Subject, negated: bool, base: str | None = None
) -> _Draft | None:
    base = base or _base_of(head) or head
    obj = rest
    if base in PREFERENCE_VERBS:
        attr, neg = PREFERENCE_VERBS[base]
        if obj[:1] == ["to"] and base != "prefer":
            obj = obj[1:]
        return _Draft(attr, _clean_value(obj), negated != neg)
    if base in PLAN_VERBS and obj[:1] == ["to"]:
        return _Draft("plans", _clean_value(obj[1:]), negated)
    home = _home(head, base, obj, subject, negated)
    if home is not None:
        return home
    if base == "work" and obj[:1] in (["at"], ["for"]):
        return _Draft("works_at", _clean_value(obj[1:]), negated)
    if base == "work" and obj[:1] == ["as"]:
        return _Draft("is", _clean_value(obj[1:]), negated)
    employer_at = _employer_skip(base, obj) if subject.person else None
    if employer_at is not None:
        return _Draft("works_at", _clean_value(obj[employer_at:]), negated)
    if head == "got" and obj[:3] == ["a", "job", "at"]:
        return _Draft("works_at", _clean_value(obj[3:]), negated)
    moved = _moved_to(base, obj, subject, negated)
    if moved is not None:
        return moved
    if base in {"stop", "quit"} and obj and obj[0].endswith("ing") and _base_of(obj[0]):
        return _verb(obj[0], obj[1:], subject, not negated)  # "stopped drinking X"
    if base == "have" or head in {"has", "have", "had"}:
        return _has(obj, negated)
    if head in IRREGULAR_PAST or (head.endswith("ed") and head not in BASE_VERBS):
        return _Draft(head, _clean_value(obj), negated)
    return _Draft(_third_person(base), _clean_value(obj), negated)


def _home(head: str, base: str, obj: list[str], subject: _Subject, negated: bool) -> _Draft | None:
    """ "lives in X", "moved to X": where someone lives or where (or when) a thing is."""
    if base in {"live", "reside"} and obj[:1] in (["in"], ["on"], ["at"], ["with"]):
        past = head.endswith("ed")
        if not subject.person and obj[0] in {"in", "on", "at"}:
            return _Draft("location", _clean_value(obj[1:]), negated)
        attr = "lived_in" if past else "lives_in"
        return _Draft(attr, _clean_value(obj[1:] if obj[0] != "with" else obj), negated)
    if (base in {"move", "moved", "relocate"} and obj[:1] == ["to"]) or obj[:2] == ["back", "to"]:
        skip = 2 if obj[0] == "back" else 1
        value = _clean_value(obj[skip:])
        if subject.person:
            return _Draft("lives_in", value, negated)
        # "The deadline moved to 6 October": a date, the slot "the deadline is 6 October" fills
        return _Draft("when" if _names_a_time(value) else "location", value, negated)
    return None


def _moved_to(base: str, obj: list[str], subject: _Subject, negated: bool) -> _Draft | None:
    """ "switched to X" (what is used now) and "raised Y to V" (Y's amount now)."""
    if base in {"switch", "migrate"} and obj[:1] == ["to"]:
        return _Draft("uses", _clean_value(obj[1:]), negated)
    draft = _amount(obj, subject) if base in AMOUNT_VERBS else None
    if draft is not None:
        draft.negated = negated
    return draft


def _amount(obj: list[str], subject: _Subject) -> _Draft | None:
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
    name, _ = _subject_name(thing, None)
    words = _without_price_noun(name.split())
    if not words:
        return None
    owned = bool(thing) and (
        thing[0] in OWNERS or any(w.endswith("'s") or w == "of" for w in thing)
    )
    agent = subject.name
    if not owned and agent not in NOT_OWNERS and not set(agent.split()) <= set(words):
        words = [*agent.split(), *words]
    return _Draft("costs", _clean_value(figure), subject=" ".join(words))


def _without_price_noun(words: list[str]) -> list[str]:
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


def _has(obj: list[str], negated: bool) -> _Draft:
    if obj[:1] == ["no"]:
        return _Draft("has", _clean_value(obj[1:]), True)
    if obj and obj[0][:1].isdigit():
        amount, rest = obj[0], obj[1:]
        if "of" in rest:
            k = rest.index("of")
            unit, thing = rest[:k], rest[k + 1 :]
            return _Draft(f"has {' '.join(unit)} of {_clean_value(thing)}".strip(), amount, negated)
        return _Draft(f"has {_clean_value(rest)}".strip(), amount, negated)
    return _Draft("has", _clean_value(obj), negated)


# ---------------------------------------------------------------------------------------------
# Extraction
# ---------------------------------------------------------------------------------------------


def _front(words: list[str]) -> tuple[list[str], list[str]]:
    """Move a fronted situational phrase ("In the morning I ...") behind the clause."""
    if not words or words[0] not in {"in", "on", "at", "during", "every", "for", "these"}:
        return words, []
    for p in range(1, min(len(words), 6)):
        opener = p >= 2 and words[p] in ARTICLES | {"my", "our", "his", "her", "their"}
        if words[p] in {"i", "we", "he", "she", "they", "you"} or opener:
            phrase = words[:p]
            if phrase[:2] == ["these", "days"]:
                return words[p:], []
            return words[p:], phrase
    return words, []


def _colon_claim(low: str, speaker: str | None) -> tuple[str, _Draft] | None:
    m = _COLON.match(low)
    if not m:
        return None
    left = _words(m.group(1))
    if not _is_label(left):
        return None
    right = _words(m.group(2))
    label = _event_label(left)
    clause = (
        len(right) > _LABEL_VALUE_WORDS
        or any(w in COPULAS or w in AUX for w in right)
        or (bool(right) and right[0].endswith("ed"))
    )
    if label is None and clause:
        # "log: restarted the ingest worker after OOM": a label on a line says what kind of
        # line follows, not that the line is the label's value.
        return None
    name = label or _subject_name(left, speaker)[0]
    return name, _Draft("is", _clean_value(right))


def _is_label(left: list[str]) -> bool:
    """A few words before a colon that name a label, not a clause ("Key log", "Status")."""
    return bool(left) and len(left) <= 6 and not any(w in COPULAS or w in AUX for w in left)


def _event_label(left: list[str]) -> str | None:
    """ "Incident 6068", "Ticket OPS-12", "Order #7", "INC-1234": a label that names one event
    or item by an identifier, normalized ("order 7"); None for any other label, and for labels
    that say when ("May 3", "Week 2", "2024-05-03") or what kind of text follows ("Update 2",
    "Note 3": wordlists.NOT_EVENT_LABELS). The label is part of the subject of the clause after
    it, so that two incidents of one service never share a slot."""
    if not left or len(left) > 3:
        return None
    *head, ident = left
    if not any(ch.isdigit() for ch in ident):
        return None
    if _DATE.fullmatch(ident) and not (head and head[-1] in ID_NOUNS):
        return None  # "2024-05-03", "10:30", "Summer 2023"; but "Incident 1989" is a name
    if not head:
        return ident.lstrip("#") if _IDENTIFIER.match(ident) else None
    timely = MONTHS | WEEKDAYS | RELATIVE_TIME | NOT_EVENT_LABELS
    if not all(w.isalpha() and w not in timely for w in head):
        return None
    return " ".join([*head, ident.lstrip("#")])


_APPOSITIVE = re.compile(
    r"^(?P<head>[^,:;]{2,60}),\s+(?P<name>(?:[A-Z][\w'’.-]*\s+){0,3}[A-Z][\w'’.-]*),\s+"
    r"(?P<rest>[a-z].*)$"
)


def _appositive_name(text: str) -> str:
    """ "Our contact at Norrby Foods, Elin Berg, lives in Uppsala." -> "Elin Berg lives in
    Uppsala.": a name set off by commas after a description is the subject it describes."""
    m = _APPOSITIVE.match(text.strip())
    if not m or not _is_verb(normalize_word(m.group("rest").split()[0].strip(_EDGE).casefold())):
        return text
    return f"{m.group('name')} {m.group('rest')}"


def _labelled_clause(low: str, speaker: str | None) -> tuple[str, _Draft] | None:
    """ "Key log: the master key is with Priya": a label, then a whole clause; the clause's
    claim (the label says where it comes from, not what it is about)."""
    m = _COLON.match(low)
    if not m or not _is_label(_words(m.group(1))):
        return None
    rest = m.group(2)
    if _COLON.match(rest):
        return None
    words, _ = _front(_words(rest))
    found = _draft(words, speaker, False)
    if found is None or not _names_a_subject(found[0]):
        return None
    label = _event_label(_words(m.group(1)))
    if label is not None and not found[0].startswith(label):
        return f"{label} {found[0]}", found[1]  # "incident 6068 heron-72 service"
    return found


def _canonical(subject: str, draft: _Draft) -> tuple[str, _Draft]:
    """Fold "X location is Y" into (X, location) and "X's birthday is D" into (X, birthday)."""
    for noun, attr in (("location", "location"), ("birthday", "birthday"), ("address", "lives_in")):
        if draft.attribute in {"is", "when"} and subject.endswith(" " + noun):
            subject = subject[: -len(noun) - 1]
            draft = _Draft(attr, draft.value, draft.negated)
    priced = subject.split()[-1:] in (["price"], ["cost"], ["fee"])
    if draft.attribute == "is" and priced and any(ch.isdigit() for ch in draft.value):
        # "The price of the Pro plan is 12 dollars": the plan costs 12 dollars.
        subject = " ".join(_without_price_noun(subject.split()))
        draft = _Draft("costs", draft.value, draft.negated)
    if draft.attribute in {"birthday", "when", "location", "lives_in", "works_at"}:
        words = draft.value.split()
        if words[:1] and words[0] in {"on", "in", "at"} and len(words) > 1:
            draft = _Draft(draft.attribute, " ".join(words[1:]), draft.negated)
    return subject, draft


def _draft(words: list[str], speaker: str | None, capitalized: bool) -> tuple[str, _Draft] | None:
    subject = _find_subject(words, speaker, capitalized)
    if subject is None:
        return None
    vp = _strip_modifiers(words[subject.end :])
    if not vp.words:
        return None
    head, rest = vp.words[0], vp.words[1:]
    if head in COPULAS:
        draft = _copula(rest, subject)
    elif head in AUX:
        inner = _strip_modifiers(rest)
        if not inner.words:
            return None
        draft = _verb(inner.words[0], inner.words[1:], subject, inner.negated)
    else:
        draft = _verb(head, rest, subject, False)
    if draft is None:
        return None
    draft.negated = draft.negated != vp.negated
    return draft.subject or subject.name, draft


@lru_cache(maxsize=32768)
def extract_claim(text: str) -> Claim | None:
    """The subject-attribute-value claim of one atom, or None when no rule matches.

    Never raises: arbitrary text either yields a claim or None. Memoized (a Claim is frozen):
    the write path reads the claim of every neighbour of every new atom, and the same
    neighbours come back atom after atom.
    """
    try:
        claim = _extract(text)
    except (ValueError, IndexError, KeyError, AttributeError, TypeError):  # pragma: no cover
        return None
    if claim is None or not _names_a_subject(claim.subject) or _refers_elsewhere(claim.value):
        return None
    return claim


#: Pronouns that stand for a thing named elsewhere.
_OBJECT_PRONOUNS = frozenset(["it", "them", "that", "this", "these", "those", "him", "her", "one"])


def _refers_elsewhere(value: str) -> bool:
    """Whether a claim's value only points at something named elsewhere ("I was in *it*",
    "I'd love to see *them*"): there is nothing in it to compare with another value."""
    words = value.split()
    return 0 < len(words) <= 2 and words[-1] in _OBJECT_PRONOUNS


def _names_a_subject(subject: str) -> bool:
    words = subject.split()
    return bool(words) and words[0] not in INTERJECTIONS and subject not in VAGUE_SUBJECTS


def _extract(text: str) -> Claim | None:
    if not isinstance(text, str) or not text.strip():
        return None
    speaker = speaker_of(text)
    body = text
    if speaker:
        body = text.split(":", 1)[1]
        speaker = " ".join(_words(speaker.casefold()))
    body = _appositive_name(unaddressed(body))
    low, capitalized = _prepare(body)
    # A change word anywhere counts, a label a speaker-like prefix took too ("Correction: ...").
    change = _CHANGE.search(_prepare(text)[0]) is not None
    fronted_clause = _FRONTED_CLAUSE.match(low)
    if fronted_clause:
        low, capitalized = low[fronted_clause.end() :], False
    words = _words(low)
    numbers = _numbers(words)
    dates = _dates(" ".join(words))
    found = _labelled_clause(low, speaker)
    if found is None:
        found = _colon_claim(low, speaker)
    if found is None:
        words, fronted = _front(words)
        found = _draft(words, speaker, capitalized)
        if found is None:
            return None
        if fronted:
            found[1].value = f"{found[1].value} {' '.join(fronted)}".strip()
    subject, draft = found
    subject, draft = _canonical(subject, draft)
    value = _strip_change_tail(draft.value)
    value = _strip_time_tail(value) or value
    attribute = draft.attribute
    if attribute not in {"is", "location", "when", "birthday", "name", "lives_in", "works_at"}:
        value, context = _split_context(value)
        if context:
            attribute = f"{attribute}@{_CONTEXT_FORMS.get(context, context)}"
    value = _drop_articles(value)
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
