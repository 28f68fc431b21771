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

One concept per module, each importing only the ones listed before it:

========================  =========================================================================
``normal_forms``          text and words in their normal form (contractions, spelling, numbers)
``verb_forms``            a verb's base and its third person
``amounts``               numbers, and the words with digits that name things (identifiers)
``dates``                 date and time expressions; values that only say when
``change``                words that say something changed
``tails``                 situational, time and change phrases cut off a value's end
``claim``                 the :class:`Claim` and how two values compare
``attributes``            what an attribute holds (one value or many), and the claim read as "is"
                          or "when"
``subjects``              where the subject ends, and its normal form
``predicates``            the attribute and value a verb phrase gives
``clauses``               a subject and its predicate read from one clause
``labels``                "Label: value", "Label: clause", event labels ("Incident 6068: ...")
``extraction``            :func:`extract_claim`: all of the above, for one atom
========================  =========================================================================

This package exports the names below; the modules' other public names are the package's own.
"""

from mneme.core.claims.amounts import is_identifier
from mneme.core.claims.attributes import (
    PREFERENCE_ATTRIBUTES,
    SINGLE_VALUED_ATTRIBUTES,
    base_attribute,
    complement_adjective,
    copula_view,
    is_preference,
    is_single_valued,
    time_view,
)
from mneme.core.claims.change import REPLACING, STRONG_CHANGE
from mneme.core.claims.claim import Claim, claim_slot, same_value, value_words
from mneme.core.claims.extraction import extract_claim
from mneme.core.claims.normal_forms import normalize_word
from mneme.core.claims.subjects import MAX_SUBJECT_WORDS

__all__ = [
    "MAX_SUBJECT_WORDS",
    "PREFERENCE_ATTRIBUTES",
    "REPLACING",
    "SINGLE_VALUED_ATTRIBUTES",
    "STRONG_CHANGE",
    "Claim",
    "base_attribute",
    "claim_slot",
    "complement_adjective",
    "copula_view",
    "extract_claim",
    "is_identifier",
    "is_preference",
    "is_single_valued",
    "normalize_word",
    "same_value",
    "time_view",
    "value_words",
]
