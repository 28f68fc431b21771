"""The behaviour suite's vocabulary: cases, predictions, loading and validation.

A case (see ``schema.json``) is a list of events, the actions a person takes afterwards, one
query and the expected answer. The dataset is ``cases/*.jsonl``, one file per dimension, each
pinned by its SHA-256 in :data:`PINS`: :func:`load_dataset` refuses a file that was modified,
added or removed, so a score can only move when the system (or a reviewed pin change) does.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jsonschema

HERE = Path(__file__).resolve().parent
SCHEMA_PATH = HERE / "schema.json"
CASES_DIR = HERE / "cases"

#: The dimensions, in report order.
DIMENSIONS: tuple[str, ...] = (
    "provenance",
    "contradiction",
    "long_horizon",
    "cross_session",
    "stale_belief",
    "temporal",
    "scope_isolation",
    "tombstone",
    "reconsolidation",
)

#: SHA-256 of every dataset file. A changed case needs a reviewed change of its pin.
PINS: Mapping[str, str] = {
    "provenance.jsonl": "0afc41ea37e3c34661705507df9e73970b7d78584960d6e6bfd02bdc594f09e2",
    "contradiction.jsonl": "bdf608b975587dfa727b4c1f3350309aaa6981984154b2220528c5b4b963d273",
    "long_horizon.jsonl": "f4da137931d8b5de25679d161e0f0968e987d323163afb959031aea2284c15ee",
    "cross_session.jsonl": "701cd9a6ba2f7d6113685858518820d50544b18ef3755d09b1e057845cb69c89",
    "stale_belief.jsonl": "b891510e3b2f3bdb606265b1995aaae8d47330cb5579213954ff1986f10596e7",
    "temporal.jsonl": "ebf088689b685c6a92ab3e101665334600a35b8e0ea8a4fa0d263b6ee29e4051",
    "scope_isolation.jsonl": "2c680f6cc33a780a4dd229afc56557d5309c2f5b71db010e25c409633f3a05b2",
    "tombstone.jsonl": "824feb866d5682d3e5522dbb526d712bb34f8f603b613e2136f2cb08f1464a3d",
    "reconsolidation.jsonl": "3fd653f088a09abfda9cd1964c33169afac881dfe8fd96e7a9e1544d7d8e9906",
}

#: The agent events and queries belong to when a case names none.
DEFAULT_AGENT = "assistant"


class CaseError(ValueError):
    """A case file or case that does not follow the format (the message says where)."""


@dataclass(frozen=True, slots=True)
class Event:
    event_id: str
    session_id: str
    time: dt.datetime
    kind: str  # remember | correct
    content: str
    source_kind: str
    trust: float
    supersedes: tuple[str, ...] = ()
    because: tuple[str, ...] = ()
    agent: str = DEFAULT_AGENT
    visibility: str = "shared"


@dataclass(frozen=True, slots=True)
class Action:
    do: str  # reject | restore | retract_belief
    event: str
    reason: str = ""
    actor: str = "reviewer"
    because: tuple[str, ...] = ()
    time: dt.datetime | None = None


@dataclass(frozen=True, slots=True)
class Query:
    session: str
    time: dt.datetime
    text: str
    agent: str = DEFAULT_AGENT
    as_of: dt.datetime | None = None


@dataclass(frozen=True, slots=True)
class Expected:
    answer: tuple[str, ...]
    forbidden: tuple[str, ...]
    citations: frozenset[str] | None  # None: not scored
    contradictions: tuple[frozenset[str], ...] | None  # None: not scored


@dataclass(frozen=True, slots=True)
class Case:
    id: str
    dimension: str
    description: str
    events: tuple[Event, ...]
    actions: tuple[Action, ...]
    query: Query
    expected: Expected
    raw: Mapping[str, Any] = field(repr=False, compare=False, default_factory=dict)

    def events_in_order(self) -> list[Event]:
        """Events by time; ties keep file order."""
        return sorted(self.events, key=lambda e: e.time)

    def timeline(self) -> list[tuple[dt.datetime, Event | Action]]:
        """Events and actions in the order a system must apply them.

        A timed action takes its place among the events (after an event of the same time);
        an untimed one comes after everything before it, one minute apart.
        """
        steps: list[tuple[dt.datetime, int, Event | Action]] = [
            (e.time, 0, e) for e in self.events_in_order()
        ]
        steps.sort(key=lambda s: s[0])
        for a in self.actions:
            if a.time is not None:
                steps.append((a.time, 1, a))
                steps.sort(key=lambda s: (s[0], s[1]))
            else:
                steps.append((steps[-1][0] + dt.timedelta(minutes=1), 1, a))
        return [(t, item) for t, _, item in steps]


@dataclass(frozen=True, slots=True)
class Prediction:
    """What a system answered for one case.

    ``unsupported`` lists case features the system could not apply (an action it has no
    mechanism for): a prediction with any scores 0 on that case, whatever it answered.
    """

    answer: str
    citations: tuple[str, ...] = ()
    contradictions: tuple[tuple[str, ...], ...] = ()
    unsupported: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "answer": self.answer,
            "citations": list(self.citations),
            "contradictions": [list(g) for g in self.contradictions],
            "unsupported": list(self.unsupported),
            "notes": list(self.notes),
        }


def prediction_from_json(obj: Any) -> Prediction:
    """A prediction from its JSON form (what the command adapter reads on stdout).

    Raises:
        CaseError: not an object with a string ``answer`` and lists of ids.
    """
    if not isinstance(obj, dict) or not isinstance(obj.get("answer"), str):
        raise CaseError('a prediction is an object with a string "answer"')

    def ids(value: Any, what: str) -> tuple[str, ...]:
        if not isinstance(value, list) or not all(isinstance(x, str) for x in value):
            raise CaseError(f'prediction "{what}" must be a list of strings')
        return tuple(value)

    groups = obj.get("contradictions", [])
    if not isinstance(groups, list):
        raise CaseError('prediction "contradictions" must be a list of lists of event ids')
    return Prediction(
        answer=obj["answer"],
        citations=ids(obj.get("citations", []), "citations"),
        contradictions=tuple(ids(g, "contradictions[]") for g in groups),
        unsupported=ids(obj.get("unsupported", []), "unsupported"),
        notes=ids(obj.get("notes", []), "notes"),
    )


def schema() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    return data


_VALIDATOR: jsonschema.Draft202012Validator | None = None


def _validator() -> jsonschema.Draft202012Validator:
    global _VALIDATOR
    if _VALIDATOR is None:
        spec = schema()
        jsonschema.Draft202012Validator.check_schema(spec)
        _VALIDATOR = jsonschema.Draft202012Validator(spec)
    return _VALIDATOR


def _time(text: str) -> dt.datetime:
    value = dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    return value.astimezone(dt.UTC)


def validate_case(obj: Any) -> list[str]:
    """Every problem with one case object: schema errors, then cross-reference errors."""
    errors = [
        f"{'/'.join(str(p) for p in e.absolute_path) or '<case>'}: {e.message}"
        for e in sorted(_validator().iter_errors(obj), key=lambda e: list(e.absolute_path))
    ]
    if errors:
        return errors
    events = obj["events"]
    ids = [e["event_id"] for e in events]
    if len(set(ids)) != len(ids):
        errors.append("events: event ids are not unique")
    times = {e["event_id"]: _time(e["time"]) for e in events}
    errors += _event_refs(events, times)
    errors += _action_refs(obj.get("actions", ()), times)
    q = obj["query"]
    last = max(
        [*times.values(), *(_time(a["time"]) for a in obj.get("actions", ()) if "time" in a)]
    )
    if _time(q["time"]) < last:
        errors.append("query: asked before the last event or action")
    if "as_of" in q and _time(q["as_of"]) > _time(q["time"]):
        errors.append("query: as_of is after the query time")
    return errors + _expected_refs(obj["expected"], set(times))


def _event_refs(events: list[dict[str, Any]], times: Mapping[str, dt.datetime]) -> list[str]:
    errors = []
    for e in events:
        for ref in (*e.get("supersedes", ()), *e.get("because", ())):
            if ref not in times:
                errors.append(f"event {e['event_id']}: names unknown event {ref}")
            elif times[ref] >= times[e["event_id"]]:
                errors.append(f"event {e['event_id']}: {ref} is not earlier")
        if e.get("supersedes") and e["kind"] != "correct":
            errors.append(f"event {e['event_id']}: only a correct event supersedes")
    return errors


def _action_refs(actions: Iterable[dict[str, Any]], times: Mapping[str, dt.datetime]) -> list[str]:
    errors = []
    for i, a in enumerate(actions):
        for ref in (a["event"], *a.get("because", ())):
            if ref not in times:
                errors.append(f"actions/{i}: names unknown event {ref}")
            elif "time" in a and _time(a["time"]) <= times[ref]:
                errors.append(f"actions/{i}: happens before event {ref}")
    return errors


def _expected_refs(exp: Mapping[str, Any], known: set[str]) -> list[str]:
    named = list(exp.get("citations") or ())
    named += [ref for group in exp.get("contradictions") or () for ref in group]
    errors = [f"expected: names unknown event {ref}" for ref in named if ref not in known]
    scored = (
        exp["answer"]
        or exp["forbidden"]
        or exp.get("citations") is not None
        or exp.get("contradictions") is not None
    )
    if not scored:
        errors.append("expected: nothing is scored")
    return errors


def parse_case(obj: Mapping[str, Any]) -> Case:
    """A validated case object as a Case (call :func:`validate_case` first)."""
    events = tuple(
        Event(
            event_id=e["event_id"],
            session_id=e["session_id"],
            time=_time(e["time"]),
            kind=e["kind"],
            content=e["content"],
            source_kind=e["source"]["kind"],
            trust=float(e["source"]["trust"]),
            supersedes=tuple(e.get("supersedes", ())),
            because=tuple(e.get("because", ())),
            agent=e.get("agent", DEFAULT_AGENT),
            visibility=e.get("visibility", "shared"),
        )
        for e in obj["events"]
    )
    actions = tuple(
        Action(
            do=a["do"],
            event=a["event"],
            reason=a.get("reason", ""),
            actor=a.get("actor", "reviewer"),
            because=tuple(a.get("because", ())),
            time=_time(a["time"]) if "time" in a else None,
        )
        for a in obj.get("actions", ())
    )
    q = obj["query"]
    query = Query(
        session=q["session"],
        time=_time(q["time"]),
        text=q["text"],
        agent=q.get("agent", DEFAULT_AGENT),
        as_of=_time(q["as_of"]) if "as_of" in q else None,
    )
    exp = obj["expected"]
    cites = exp.get("citations")
    groups = exp.get("contradictions")
    expected = Expected(
        answer=tuple(exp["answer"]),
        forbidden=tuple(exp["forbidden"]),
        citations=None if cites is None else frozenset(cites),
        contradictions=None if groups is None else tuple(frozenset(g) for g in groups),
    )
    return Case(
        id=obj["id"],
        dimension=obj["dimension"],
        description=obj["description"],
        events=events,
        actions=actions,
        query=query,
        expected=expected,
        raw=obj,
    )


def parse_lines(text: str, where: str) -> list[Case]:
    """Cases from JSONL text; every error of every line, or none.

    Raises:
        CaseError: a line is not JSON or not a valid case.
    """
    cases: list[Case] = []
    problems: list[str] = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            problems.append(f"{where}:{n}: not JSON ({exc})")
            continue
        errs = validate_case(obj)
        problems.extend(f"{where}:{n} ({obj.get('id', '?')}): {e}" for e in errs)
        if not errs:
            cases.append(parse_case(obj))
    if problems:
        raise CaseError("\n".join(problems))
    return cases


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def check_pins(directory: Path = CASES_DIR, pins: Mapping[str, str] = PINS) -> None:
    """Refuse a dataset whose files are not exactly the pinned ones.

    Raises:
        CaseError: a file was modified, added or removed.
    """
    present = {p.name for p in directory.glob("*.jsonl")}
    problems = [f"{name}: not pinned (add its SHA-256 to PINS)" for name in present - set(pins)]
    problems += [f"{name}: missing" for name in set(pins) - present]
    for name in sorted(present & set(pins)):
        digest = sha256(directory / name)
        if digest != pins[name]:
            problems.append(f"{name}: modified (sha256 {digest}, pinned {pins[name] or '-'})")
    if problems:
        raise CaseError(
            "the behaviour dataset is not the pinned one; a changed case needs a reviewed "
            "change of its pin in bench/behaviour/model.py:\n  " + "\n  ".join(problems)
        )


def load_dataset(directory: Path = CASES_DIR, pins: Mapping[str, str] | None = PINS) -> list[Case]:
    """Every case of the dataset, checked against the pins (``pins=None`` skips that).

    Raises:
        CaseError: a modified file, a bad case, or a duplicate case id.
    """
    if pins is not None:
        check_pins(directory, pins)
    cases: list[Case] = []
    for path in sorted(directory.glob("*.jsonl")):
        cases.extend(parse_lines(path.read_text(encoding="utf-8"), path.name))
    seen: set[str] = set()
    for c in cases:
        if c.id in seen:
            raise CaseError(f"case id {c.id} is used twice")
        seen.add(c.id)
    return sorted(cases, key=lambda c: (DIMENSIONS.index(c.dimension), c.id))


def by_dimension(cases: Iterable[Case]) -> dict[str, list[Case]]:
    out: dict[str, list[Case]] = {d: [] for d in DIMENSIONS}
    for c in cases:
        out[c.dimension].append(c)
    return out


def case_ids(cases: Sequence[Case]) -> list[str]:
    return [c.id for c in cases]
