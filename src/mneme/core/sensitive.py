"""Sensitive data on write: what was found, the bank's policy, and what the write does (ADR 0034).

Pure: the detectors that find things live at the write path's boundary
(``mneme.write.detector``, which wraps the libraries); this module holds the vocabulary they
answer in, the per-bank policy (store | redact | refuse, per category or per kind), the
redaction of spans, and the audit summary, which names kinds and counts and never a value.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any


class Kind(StrEnum):
    """What a finding is. The first five are secrets, the last two personal data."""

    API_KEY = "api_key"
    TOKEN = "token"
    PRIVATE_KEY = "private_key"
    PASSWORD = "password"
    CARD_NUMBER = "card_number"
    EMAIL = "email"
    PHONE = "phone"


class Action(StrEnum):
    STORE = "store"  # kept as given; the finding is audited
    REDACT = "redact"  # the span becomes "[redacted:<kind>]" before anything is stored
    REFUSE = "refuse"  # nothing is stored; the caller gets InvalidInput naming the kinds


#: Secrets give access or pay (a card number is a payment credential: PCI DSS forbids keeping
#: it in the clear). Personal data is often what a memory is for ("Alice's email is ...").
CATEGORIES: Mapping[str, frozenset[Kind]] = {
    "secret": frozenset(
        {Kind.API_KEY, Kind.TOKEN, Kind.PRIVATE_KEY, Kind.PASSWORD, Kind.CARD_NUMBER}
    ),
    "personal": frozenset({Kind.EMAIL, Kind.PHONE}),
}
CATEGORY_OF: Mapping[Kind, str] = {k: c for c, kinds in CATEGORIES.items() for k in kinds}

#: Secrets never land in memory by default; personal data is kept, and audited.
DEFAULT_POLICY: Mapping[str, Action] = {"secret": Action.REDACT, "personal": Action.STORE}

#: How strict each action is: when spans of several kinds overlap, the strictest one wins.
_RANK = {Action.STORE: 0, Action.REDACT: 1, Action.REFUSE: 2}


@dataclass(frozen=True, slots=True)
class Finding:
    """One thing found in a text: its kind, where it is (``text[start:end]``) and a short
    label that says what it is without saying what it holds ("AWS access key")."""

    kind: Kind
    start: int
    end: int
    label: str


#: A keyed tag of a redacted value (the hex digits it keeps): two different secrets of one
#: kind stay two values, the same secret stays one, and without the key the tag says nothing.
Tagger = Callable[[Kind, str], str]


def placeholder(kind: Kind, tag: str = "") -> str:
    return f"[redacted:{kind.value}#{tag}]" if tag else f"[redacted:{kind.value}]"


#: A placeholder as :func:`placeholder` writes it: one value where a secret was.
PLACEHOLDER = re.compile(
    r"\[redacted:(?:" + "|".join(k.value for k in Kind) + r")(?:#[0-9a-f]+)?\]"
)


@dataclass(frozen=True, slots=True)
class Policy:
    """A bank's rules: an action per category, and per kind where a kind differs from its
    category. ``rules`` holds only what was set; the rest comes from ``DEFAULT_POLICY``."""

    rules: Mapping[str, Action]

    def action(self, kind: Kind) -> Action:
        if kind.value in self.rules:
            return self.rules[kind.value]
        category = CATEGORY_OF[kind]
        return self.rules.get(category, DEFAULT_POLICY[category])

    def effective(self) -> dict[str, str]:
        """Every category and kind with the action it gets: what a person reads."""
        out = {c: self.rules.get(c, DEFAULT_POLICY[c]).value for c in CATEGORIES}
        out.update({k.value: self.action(k).value for k in Kind})
        return out

    def to_json(self) -> dict[str, str]:
        return {k: v.value for k, v in sorted(self.rules.items())}


def parse_policy(value: Any, base: Policy | None = None) -> Policy:
    """A policy from a mapping of category or kind to action (``{"secret": "refuse",
    "email": "redact"}``), laid over ``base``. ``"default"`` as an action drops a rule.

    Raises:
        ValueError: not a mapping, an unknown category or kind, or an unknown action.
    """
    if value is None:
        return base or Policy({})
    if not isinstance(value, Mapping):
        raise ValueError(
            "a sensitive-data policy is a mapping of category or kind to action, "
            f"not {type(value).__name__}"
        )
    names = [*CATEGORIES, *(k.value for k in Kind)]
    actions = [a.value for a in Action]
    rules: dict[str, Action] = dict(base.rules) if base else {}
    for key, action in value.items():
        if key not in names:
            raise ValueError(
                f"unknown category or kind {key!r} in the sensitive-data policy; "
                f"use one of {', '.join(names)}"
            )
        if action == "default":
            rules.pop(key, None)
            continue
        if action not in actions:
            raise ValueError(
                f"unknown action {action!r} for {key} in the sensitive-data policy; "
                f"use one of {', '.join(actions)} (or default)"
            )
        rules[key] = Action(action)
    return Policy(rules)


@dataclass(frozen=True, slots=True)
class Screening:
    """What the write-time defence decided for one text: the findings by kind (counts), the
    action taken for each kind, and the text to store. ``text`` equals the input unless
    something was redacted. Never holds a found value except inside ``text`` under STORE."""

    text: str
    counts: Mapping[str, int]
    actions: Mapping[str, str]

    @property
    def found(self) -> bool:
        return bool(self.counts)

    @property
    def refused(self) -> tuple[str, ...]:
        return tuple(k for k, a in self.actions.items() if a == Action.REFUSE.value)

    @property
    def redacted(self) -> bool:
        return any(a == Action.REDACT.value for a in self.actions.values())

    def summary(self) -> dict[str, Any]:
        """The audit payload: kinds, counts and actions; no value, no span, no label."""
        return {"found": dict(self.counts), "actions": dict(self.actions)}

    @classmethod
    def from_summary(cls, text: str, summary: Mapping[str, Any]) -> Screening:
        return cls(text, dict(summary.get("found", {})), dict(summary.get("actions", {})))


def _merged(findings: Iterable[Finding], policy: Policy) -> list[tuple[int, int, Kind, Action]]:
    """Overlapping spans joined into one, taking the strictest action among them (a card
    number inside a keyword assignment is redacted whole, once)."""
    spans: list[tuple[int, int, Kind, Action]] = []
    for f in sorted(findings, key=lambda f: (f.start, -f.end)):
        action = policy.action(f.kind)
        if spans and f.start < spans[-1][1]:
            start, end, kind, held = spans[-1]
            if _RANK[action] > _RANK[held]:
                kind, held = f.kind, action
            spans[-1] = (start, max(end, f.end), kind, held)
        else:
            spans.append((f.start, f.end, f.kind, action))
    return spans


def _distinct(findings: Iterable[Finding]) -> list[tuple[Kind, int]]:
    """Findings with overlapping spans of the same kind joined: (kind, start) each."""
    out: list[tuple[Kind, int]] = []
    ends: dict[Kind, int] = {}
    for f in sorted(findings, key=lambda f: (f.start, -f.end)):
        if f.kind in ends and f.start < ends[f.kind]:
            ends[f.kind] = max(ends[f.kind], f.end)
            continue
        ends[f.kind] = f.end
        out.append((f.kind, f.start))
    return out


def screen(
    text: str, findings: Sequence[Finding], policy: Policy, tag: Tagger | None = None
) -> Screening:
    """Apply the policy to what was found: the text to store and the decision to audit.

    A refusal is reported (``Screening.refused``), not raised: the caller raises it after
    auditing it. Redaction replaces each span (overlaps joined) with ``[redacted:<kind>]``,
    or ``[redacted:<kind>#<tag>]`` with a ``tag`` of the span's value (ADR 0034).
    """
    if not findings:
        return Screening(text, {}, {})
    # One thing found twice (two plugins, one span) is counted once.
    counts = Counter(kind.value for kind, _ in _distinct(findings))
    actions = {k: policy.action(Kind(k)).value for k in sorted(counts)}
    pieces: list[str] = []
    at = 0
    for start, end, kind, action in _merged(findings, policy):
        if action == Action.STORE:
            continue
        pieces.extend(
            (text[at:start], placeholder(kind, tag(kind, text[start:end]) if tag else ""))
        )
        at = end
    pieces.append(text[at:])
    return Screening("".join(pieces), dict(sorted(counts.items())), actions)


def refusal(screening: Screening, bank: str) -> str:
    """The words of a refused write: the kinds and counts, never what was found."""
    found = ", ".join(f"{screening.counts[k]} {k}" for k in screening.refused)
    return (
        f"the text holds sensitive data that bank {bank}'s policy refuses ({found}); "
        "nothing was stored. Remove it, or ask an admin to set the bank's policy to "
        "redact or store"
    )
