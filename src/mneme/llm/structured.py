"""Structured output: read one JSON object out of model text and check it against a schema.

Models wrap JSON in code fences, put prose around it, or drift from the schema. This module
is the one place that copes: it strips fences, takes the first balanced JSON object, checks
it against a small JSON-Schema subset, and drives the repair round (a re-ask that shows the
model its own reply and what was wrong with it) shared by every provider client.

The schema subset: ``type`` (object, array, string, number, integer, boolean, null, or a
list of those), ``enum``, ``required``, ``properties``, ``additionalProperties: false``,
``items``, ``minimum``, ``maximum``. Other keywords are ignored. No jsonschema dependency.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from mneme.errors import InvalidInput
from mneme.llm.protocol import LLMInvalid, LLMReply

# Reasoning models served by Ollama, vLLM or DeepSeek may put their thinking, braces and all,
# before the answer.
_THINKING = re.compile(r"<think>.*?</think>", re.DOTALL | re.IGNORECASE)
_FENCE = re.compile(r"```[A-Za-z0-9_-]*[ \t]*\n?(.*?)```", re.DOTALL)
_ERRORS_SHOWN = 8  # validation errors quoted back to the model and into messages
_RAW_SHOWN = 2000  # characters of a bad reply quoted back to the model
_RAW_IN_MESSAGE = 200  # characters of a bad reply quoted in an error message


@dataclass(frozen=True, slots=True)
class Turn:
    """What one provider request produced: the model's text and the model that answered."""

    text: str
    model: str


#: One request to a provider: (system, user, max_tokens) -> the model's text. It raises
#: ``LLMUnavailable`` or ``LLMRefused`` itself; parsing and validation are done here.
Exchange = Callable[[str, str, int], Turn]


def json_instruction(schema: Mapping[str, Any]) -> str:
    """The paragraph appended to every system prompt that asks for structured output."""
    return (
        "Reply with exactly one JSON object and nothing else: no prose, no code fences. "
        "It must satisfy this JSON Schema:\n" + json.dumps(schema, separators=(",", ":"))
    )


def find_json_object(text: str) -> dict[str, Any]:
    """The first JSON object in ``text``: fences stripped, surrounding prose ignored.

    Raises:
        ValueError: no JSON object could be read; the message says why.
    """
    text = _THINKING.sub("", text)
    candidates = [match.group(1) for match in _FENCE.finditer(text)] + [text]
    for candidate in candidates:
        stripped = candidate.strip()
        try:
            value = json.loads(stripped)
        except json.JSONDecodeError:
            pass
        else:
            if isinstance(value, dict):
                return value
        for start in (i for i, ch in enumerate(stripped) if ch == "{"):
            end = _balanced_end(stripped, start)
            if end is None:
                continue
            try:
                value = json.loads(stripped[start:end])
            except json.JSONDecodeError:
                continue
            if isinstance(value, dict):
                return value
    if not text.strip():
        raise ValueError("the reply is empty")
    raise ValueError("no JSON object found in the reply")


def _balanced_end(text: str, start: int) -> int | None:
    """The index just past the brace that closes the ``{`` at ``start``, or None."""
    depth = 0
    in_string = False
    escaped = False
    for i in range(start, len(text)):
        ch = text[i]
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "{[":
            depth += 1
        elif ch in "}]":
            depth -= 1
            if depth == 0:
                return i + 1
    return None


_TYPE_CHECKS: dict[str, Callable[[Any], bool]] = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
    "number": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
    # JSON does not tell 1 from 1.0, and neither does JSON Schema.
    "integer": lambda v: (
        (isinstance(v, int) and not isinstance(v, bool))
        or (isinstance(v, float) and v.is_integer())
    ),
}


def validate(value: Any, schema: Mapping[str, Any], path: str = "$") -> list[str]:
    """Every way ``value`` breaks ``schema`` (the subset above), as ``"<path>: <why>"``."""
    errors: list[str] = []
    expected = schema.get("type")
    if expected is not None:
        names = [expected] if isinstance(expected, str) else list(expected)
        if not any(_TYPE_CHECKS.get(name, lambda _v: True)(value) for name in names):
            return [f"{path}: expected {' or '.join(names)}, got {_json_type(value)}"]
    if "enum" in schema and value not in schema["enum"]:
        errors.append(f"{path}: {value!r} is not one of {list(schema['enum'])}")
    if _TYPE_CHECKS["number"](value):
        if "minimum" in schema and value < schema["minimum"]:
            errors.append(f"{path}: {value} is below the minimum {schema['minimum']}")
        if "maximum" in schema and value > schema["maximum"]:
            errors.append(f"{path}: {value} is above the maximum {schema['maximum']}")
    if isinstance(value, dict):
        properties: Mapping[str, Any] = schema.get("properties", {})
        errors.extend(
            f"{path}: missing required field {name!r}"
            for name in schema.get("required", ())
            if name not in value
        )
        for name, item in value.items():
            if name in properties:
                errors.extend(validate(item, properties[name], f"{path}.{name}"))
            elif schema.get("additionalProperties") is False:
                errors.append(f"{path}: unexpected field {name!r}")
    if isinstance(value, list) and isinstance(schema.get("items"), Mapping):
        for index, item in enumerate(value):
            errors.extend(validate(item, schema["items"], f"{path}[{index}]"))
    return errors


def _json_type(value: Any) -> str:
    for name in ("null", "boolean", "integer", "number", "string", "array", "object"):
        if _TYPE_CHECKS[name](value):
            return name
    return type(value).__name__


def complete_structured(
    exchange: Exchange,
    *,
    provider: str,
    system: str,
    user: str,
    schema: Mapping[str, Any],
    max_tokens: int,
    repair_attempts: int,
) -> LLMReply:
    """Ask, read the JSON object, validate it; re-ask up to ``repair_attempts`` times.

    A repair re-ask is a fresh single-turn request: the original user prompt, the bad reply
    and what was wrong with it. It works the same on every provider, and needs no
    provider-specific multi-turn protocol.

    Raises:
        InvalidInput: the schema's root is not ``{"type": "object"}``.
        LLMInvalid: no attempt produced a schema-valid object.
        LLMUnavailable, LLMRefused: raised by ``exchange``; never retried here.
    """
    if schema.get("type") != "object":
        raise InvalidInput(f'the schema must describe an object (type "object"), got {schema}')
    system_prompt = f"{system.rstrip()}\n\n{json_instruction(schema)}"
    prompt = user
    notes: list[str] = []
    for attempt in range(repair_attempts + 1):
        turn = exchange(system_prompt, prompt, max_tokens)
        try:
            data = find_json_object(turn.text)
        except ValueError as exc:
            problems = [str(exc)]
        else:
            problems = validate(data, schema)
            if not problems:
                return LLMReply(data, provider, turn.model, turn.text, tuple(notes))
        shown = "; ".join(problems[:_ERRORS_SHOWN])
        last = f"{shown} (reply began {turn.text[:_RAW_IN_MESSAGE]!r})"
        notes.append(f"{provider}: LLMInvalid: attempt {attempt + 1}: {last}")
        prompt = _repair_prompt(user, turn.text, problems)
    tries = repair_attempts + 1
    raise LLMInvalid(
        f"no schema-valid JSON object in {tries} attempt{'s' if tries > 1 else ''}: {last}",
        provider=provider,
        trail=tuple(notes),
    )


def _repair_prompt(user: str, bad_reply: str, problems: list[str]) -> str:
    listed = "\n".join(f"- {problem}" for problem in problems[:_ERRORS_SHOWN])
    return (
        f"{user}\n\n"
        "Your previous reply to this request could not be used:\n"
        f"{listed}\n"
        f"Previous reply:\n{bad_reply[:_RAW_SHOWN]}\n\n"
        "Reply again with only the corrected JSON object."
    )
