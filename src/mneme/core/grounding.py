"""Grounding: is a claim an LLM wrote about some evidence supported by the evidence it cites?

Reflect may ask an LLM to compose an observation as short claims, each naming the evidence
units it rests on (ADR 0058). Nothing the model says is taken on its word: each claim is
checked here, deterministically, against the text of the units it cites, and a claim that
fails is dropped with the reason. The rules, in order:

1. **Cites something.** A claim that cites no unit is dropped.
2. **Cites only the group.** A claim citing a unit outside the group it was asked about is
   dropped (the model may not borrow evidence, nor invent an id).
3. **Names and numbers.** Every number and every capitalized word of the claim (its first
   word too, unless it is a stopword: "The", "She") must occur in the cited evidence: a wrong
   person, place, date or amount is the costliest thing a summary can invent, and the easiest
   to check.
4. **Content words.** The share of the claim's content words (no stopword, three letters or
   more, compared by a plain stem) found in the cited evidence must reach a floor: all of them
   for a literal bank (``literalism``: the model may select and order the evidence's words but
   not add its own), ``PARAPHRASE_FLOOR`` otherwise (a compressing bank lets it paraphrase a
   little).

What survives is the observation; the units the surviving claims cite are its evidence.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from mneme.core.categories import singular
from mneme.core.wordlists import STOPWORDS

#: The share of a claim's content words its cited evidence must hold when the bank is not
#: literal: most of what it says is the evidence's, a word or two of glue is the model's.
PARAPHRASE_FLOOR = 0.6
#: The longest claim kept, in characters: a claim is one statement, not a second summary.
MAX_CLAIM_CHARS = 300

_TOKEN = re.compile(r"[A-Za-z][A-Za-z'-]*|\d+(?:[.,:]\d+)*")


@dataclass(frozen=True, slots=True)
class Claim:
    """One claim as the model gave it: its text and the unit ids it cites."""

    text: str
    cites: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Dropped:
    claim: Claim
    why: str


@dataclass(frozen=True, slots=True)
class Grounding:
    kept: tuple[Claim, ...] = ()
    dropped: tuple[Dropped, ...] = ()

    @property
    def cited(self) -> tuple[str, ...]:
        """The units the kept claims cite, first-unique in claim order."""
        return tuple(dict.fromkeys(uid for c in self.kept for uid in c.cites))


def stem(word: str) -> str:
    """A plain stem: lower case, singular, and an -ing or -ed ending cut off a long word."""
    w = singular(word.lower().strip("'-"))
    for ending in ("ing", "ed"):
        if w.endswith(ending) and len(w) - len(ending) >= 4:
            return w[: -len(ending)]
    return w


def _content(tokens: Sequence[str]) -> set[str]:
    return {stem(t) for t in tokens if t[0].isalpha() and len(t) > 2 and t.lower() not in STOPWORDS}


def check(claims: Sequence[Claim], evidence: Mapping[str, str], *, literal: bool) -> Grounding:
    """The claims supported by the evidence they cite (``evidence``: the group's unit id ->
    text), and the others with why they were dropped. Repeats of a kept claim are dropped."""
    floor = 1.0 if literal else PARAPHRASE_FLOOR
    kept: list[Claim] = []
    dropped: list[Dropped] = []
    seen: set[str] = set()
    for claim in claims:
        why = _why_not(claim, evidence, floor)
        normal = " ".join(claim.text.lower().split())
        if why is None and normal in seen:
            why = "repeats a claim already kept"
        if why is None:
            seen.add(normal)
            kept.append(claim)
        else:
            dropped.append(Dropped(claim, why))
    return Grounding(tuple(kept), tuple(dropped))


def _why_not(claim: Claim, evidence: Mapping[str, str], floor: float) -> str | None:
    text = " ".join(claim.text.split())
    if not text:
        return "the claim is empty"
    if len(text) > MAX_CLAIM_CHARS:
        return f"the claim is longer than {MAX_CLAIM_CHARS} characters"
    if not claim.cites:
        return "it cites no evidence"
    outside = [uid for uid in claim.cites if uid not in evidence]
    if outside:
        return f"it cites {outside}, not evidence of this group"
    said = " ".join(evidence[uid] for uid in claim.cites)
    said_tokens = _TOKEN.findall(said)
    said_lower = {t.lower() for t in said_tokens}
    said_stems = {stem(t) for t in said_tokens if t[0].isalpha()}
    tokens = _TOKEN.findall(text)
    missing = [
        t
        for i, t in enumerate(tokens)
        if (t[0].isdigit() or (t[0].isupper() and (i > 0 or t.lower() not in STOPWORDS)))
        and t.lower() not in said_lower
        and stem(t) not in said_stems
    ]
    if missing:
        return f"names or numbers its evidence does not hold: {missing}"
    content = _content(tokens)
    if not content:
        return "it says nothing but function words"
    found = len(content & said_stems) / len(content)
    if found < floor:
        unsupported = sorted(
            {t for t in tokens if t[0].isalpha() and stem(t) in content - said_stems}
        )
        return (
            f"{found:.0%} of its content words are in its evidence, below {floor:.0%} "
            f"(unsupported: {unsupported})"
        )
    return None
