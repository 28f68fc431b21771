"""The memory charter: human-editable Markdown with machine-checked rules (anti-gaslight).

A person edits the charter file; mneme reads only the lines that start with ``- rule:``::

    - rule: ask_before_rewrite types=preference,goal,opinion  -- never rewritten silently

Everything else in the file is commentary for people. :func:`parse` checks every rule line and
raises :class:`CharterError` naming the line of the first problem, so the caller can keep the
last good charter. :func:`evaluate` tells the write path whether a verdict may be applied or must
become a question for a person.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from mneme.core.model import UnitType, Verdict

#: Verdicts that change or dispute what the owner already holds.
REWRITES: frozenset[Verdict] = frozenset({Verdict.SUPERSEDE, Verdict.UPDATE})

_RULE = re.compile(r"^\s*[-*]\s+rule:\s*(?P<body>.*?)\s*$")
_PARAM = re.compile(r"^(?P<key>[a-z_]+)=(?P<value>\S+)$")


class CharterError(ValueError):
    """A malformed charter: the message names the line."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(f"charter line {line}: {message}")
        self.line = line


@dataclass(frozen=True, slots=True)
class Charter:
    """The checked rules; defaults are the built-in charter's."""

    no_delete: bool = False
    protect_immutable: bool = False
    sources_immutable: bool = False
    ask_types: frozenset[UnitType] = frozenset()
    ask_on_contradiction: bool = False
    own_updates_apply: bool = False
    escalate_below: float | None = None
    rules: tuple[str, ...] = ()  # the rule lines as written, for display
    text: str = ""


@dataclass(frozen=True, slots=True)
class Ruling:
    """What the charter says about one verdict."""

    ask: bool
    rule: str | None = None
    reason: str = ""
    notes: tuple[str, ...] = field(default_factory=tuple)


def _types(value: str, line: int) -> frozenset[UnitType]:
    out = set()
    for name in value.split(","):
        try:
            out.add(UnitType(name.strip()))
        except ValueError as exc:
            known = ", ".join(t.value for t in UnitType)
            raise CharterError(line, f"unknown memory type {name!r} (known: {known})") from exc
    return frozenset(out)


def _params(parts: list[str], line: int) -> dict[str, str]:
    out = {}
    for part in parts:
        m = _PARAM.match(part)
        if not m:
            raise CharterError(line, f"expected key=value, found {part!r}")
        out[m["key"]] = m["value"]
    return out


def _confidence(value: str, line: int) -> float:
    try:
        bar = float(value)
    except ValueError as exc:
        raise CharterError(line, f"confidence must be a number, not {value!r}") from exc
    if not 0.0 <= bar <= 1.0:
        raise CharterError(line, f"confidence must be between 0 and 1, not {bar}")
    return bar


_KNOWN = {
    "no_delete": set(),
    "protect_immutable": set(),
    "sources_immutable": set(),
    "ask_on_contradiction": set(),
    "own_updates_apply": set(),
    "ask_before_rewrite": {"types"},
    "escalate_below": {"confidence"},
}


def parse(text: str) -> Charter:
    """Read a charter; raises CharterError naming the first bad line."""
    values: dict[str, object] = {}
    rules: list[str] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        m = _RULE.match(raw)
        if not m:
            continue
        body = re.split(r"\s+(?:--|—)\s+", m["body"], maxsplit=1)[0].strip()
        if not body:
            raise CharterError(number, "a rule line names no rule")
        name, *rest = body.split()
        if name not in _KNOWN:
            raise CharterError(number, f"unknown rule {name!r} (known: {', '.join(_KNOWN)})")
        params = _params(rest, number)
        unexpected = set(params) - _KNOWN[name]
        missing = _KNOWN[name] - set(params)
        if unexpected or missing:
            raise CharterError(
                number,
                f"rule {name} takes {sorted(_KNOWN[name]) or 'nothing'}, got {sorted(params)}",
            )
        if name == "ask_before_rewrite":
            values["ask_types"] = _types(params["types"], number)
        elif name == "escalate_below":
            values["escalate_below"] = _confidence(params["confidence"], number)
        else:
            values[name] = True
        rules.append(body)
    return Charter(**values, rules=tuple(rules), text=text)  # type: ignore[arg-type]


def evaluate(
    charter: Charter,
    verdict: Verdict,
    confidence: float,
    *,
    new_type: UnitType,
    old_type: UnitType | None,
    old_immutable: bool,
    conflict_type: str | None,
) -> Ruling:
    """May the write path apply this verdict, or must a person be asked first?"""
    if verdict == Verdict.CONTRADICT:
        if charter.ask_on_contradiction:
            return Ruling(
                True,
                "ask_on_contradiction",
                "a contradiction is settled by a person, never silently",
            )
        return Ruling(False)
    if verdict not in REWRITES:
        return Ruling(False)
    if charter.protect_immutable and old_immutable:
        return Ruling(True, "protect_immutable", "the existing memory is marked immutable")
    touched = {new_type} | ({old_type} if old_type else set())
    asked = touched & charter.ask_types
    own = conflict_type in ("own_correction", "own_update")
    if conflict_type == "own_update" and not charter.own_updates_apply:
        return Ruling(
            True,
            "own_updates_apply",
            "a new value without a word that it changed is asked about (own_updates_apply "
            "is not in the charter)",
        )
    if own and charter.own_updates_apply:
        asked = set()  # the author changed their own statement: they decided
    elif asked or (conflict_type == "preference" and charter.ask_types):
        kinds = ", ".join(sorted(t.value for t in asked)) or "preference"
        return Ruling(True, "ask_before_rewrite", f"{kinds} memories are never rewritten silently")
    if charter.escalate_below is not None and confidence < charter.escalate_below:
        return Ruling(
            True,
            "escalate_below",
            f"the rewrite's confidence {confidence:.2f} is below the charter's bar "
            f"{charter.escalate_below:.2f}",
        )
    return Ruling(False)
