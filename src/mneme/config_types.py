"""The type rules of the configuration, read from the dataclass annotations of ``Config``.

Every field is checked against its annotation, whichever layer it came from (file, environment,
keyword argument): ``int``, ``float``, ``bool``, ``str``, ``Literal[...]``, ``X | None``,
``tuple[X, ...]``, ``Mapping[str, X]``, and a nested dataclass (a section, like ``recall``).
A field's ``metadata={"min": n}`` is a lower bound. An error names the dotted path, what the
field takes and the value it got: ``recall.rrf_k must be a number, got 'abc'``.

Environment values are text: each is parsed by its field's type (``_from_text``). A new field
gets its check, its environment variable and its parsing from its annotation alone.
"""

from __future__ import annotations

import dataclasses
import tomllib
import types
import typing
from collections.abc import Iterator, Mapping
from typing import Any, Literal, Union, get_args, get_origin

from mneme.errors import InvalidInput

ENV_PREFIX = "MNEME_"
#: A section's fields in the environment: ``MNEME_RECALL__RRF_K`` is ``recall.rrf_k``.
ENV_NESTING = "__"
TRUE = frozenset({"1", "true", "yes", "on"})
FALSE = frozenset({"0", "false", "no", "off"})


@dataclasses.dataclass(frozen=True, slots=True)
class Leaf:
    """One setting: its dotted path, its annotation, the field, and its environment variable."""

    path: str
    type: Any
    field: dataclasses.Field[Any]

    @property
    def env(self) -> str:
        return ENV_PREFIX + self.path.replace(".", ENV_NESTING).upper()


def is_section(tp: Any) -> bool:
    return isinstance(tp, type) and dataclasses.is_dataclass(tp)


def hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls)


def leaves(cls: type, prefix: str = "") -> Iterator[Leaf]:
    """Every setting of ``cls`` (sections walked into), in declaration order."""
    types_of = hints(cls)
    for f in dataclasses.fields(cls):
        tp = types_of[f.name]
        if is_section(tp):
            yield from leaves(tp, f"{prefix}{f.name}.")
        else:
            yield Leaf(f"{prefix}{f.name}", tp, f)


def sections(cls: type, prefix: str = "") -> dict[str, type]:
    """Dotted path -> dataclass of every section of ``cls``."""
    found: dict[str, type] = {}
    types_of = hints(cls)
    for f in dataclasses.fields(cls):
        tp = types_of[f.name]
        if is_section(tp):
            found[prefix + f.name] = tp
            found.update(sections(tp, f"{prefix}{f.name}."))
    return found


def describe(tp: Any) -> str:
    """What a field takes, in words (error messages and the reference)."""
    origin = get_origin(tp)
    if origin in (Union, types.UnionType):
        rest = [a for a in get_args(tp) if a is not type(None)]
        words = " or ".join(describe(a) for a in rest)
        return words + (" (or unset)" if len(rest) < len(get_args(tp)) else "")
    if origin is Literal:
        return "one of " + ", ".join(str(a) for a in get_args(tp))
    if tp is bool:
        return "true or false"
    if tp is int:
        return "a whole number"
    if tp is float:
        return "a number"
    if tp is str:
        return "a string"
    if origin is tuple:
        return f"a list of {_plural(describe(get_args(tp)[0]))}"
    if origin in (Mapping, dict) or tp in (Mapping, dict):
        args = get_args(tp)
        return f"a table of {_plural(describe(args[1]))}" if args else "a table"
    if tp is Any:
        return "any value"
    return getattr(tp, "__name__", str(tp))


def _plural(words: str) -> str:
    if words.startswith("one of"):
        return "values " + words
    for article in ("a ", "an "):
        if words.startswith(article):
            words = words[len(article) :]
    if words.startswith("table"):
        return "tables" + words[len("table") :]
    return {"number": "numbers", "string": "strings"}.get(words, words)


def _wrong(path: str, tp: Any, value: Any) -> InvalidInput:
    return InvalidInput(f"{path} must be {describe(tp)}, got {value!r}")


def coerce(value: Any, tp: Any, path: str) -> Any:
    """``value`` as the annotation ``tp`` wants it, or InvalidInput naming ``path``."""
    origin = get_origin(tp)
    if tp is Any:
        return value
    if origin in (Union, types.UnionType):
        args = get_args(tp)
        if value is None and type(None) in args:
            return None
        for option in (a for a in args if a is not type(None)):
            try:
                return coerce(value, option, path)
            except InvalidInput:
                continue
        raise _wrong(path, tp, value)
    if origin is tuple:
        if not isinstance(value, list | tuple):
            raise _wrong(path, tp, value)
        item = get_args(tp)[0]
        return tuple(coerce(v, item, f"{path}[{i}]") for i, v in enumerate(value))
    if origin in (Mapping, dict) or tp in (Mapping, dict):
        if not isinstance(value, Mapping):
            raise _wrong(path, tp, value)
        args = get_args(tp)
        item = args[1] if args else Any
        return {str(k): coerce(v, item, f"{path}.{k}") for k, v in value.items()}
    return _scalar_value(value, tp, path)


def _scalar_value(value: Any, tp: Any, path: str) -> Any:
    origin = get_origin(tp)
    if origin is Literal:
        if value in get_args(tp) and not isinstance(value, bool):
            return value
        raise _wrong(path, tp, value)
    if tp is bool:
        if isinstance(value, bool):
            return value
        raise _wrong(path, tp, value)
    if tp is int:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        raise _wrong(path, tp, value)
    if tp is float:
        if isinstance(value, int | float) and not isinstance(value, bool):
            return float(value)
        raise _wrong(path, tp, value)
    if tp is str:
        if isinstance(value, str):
            return value
        raise _wrong(path, tp, value)
    raise TypeError(f"configuration field {path}: no rule for the type {tp!r}")


def check_bounds(leaf: Leaf, value: Any) -> None:
    low = leaf.field.metadata.get("min")
    if low is not None and value is not None and value < low:
        raise InvalidInput(f"{leaf.path} must be {low} or more, got {value!r}")


def _scalar(tp: Any) -> Any:
    """The annotation without ``| None``."""
    if get_origin(tp) in (Union, types.UnionType):
        rest = [a for a in get_args(tp) if a is not type(None)]
        if len(rest) == 1:
            return rest[0]
    return tp


def from_text(text: str, leaf: Leaf) -> Any:
    """An environment value (or a ``config set`` argument) parsed by the field's type.

    Strings and choices are taken as written; numbers and booleans are parsed; lists of
    strings take ``a,b,c`` or a TOML array; tables and lists of tables take a TOML value
    (``{secret = "refuse"}``, ``[{provider = "openai", model = "m"}]``).
    """
    tp = _scalar(leaf.type)
    raw = text.strip()
    if tp is str or get_origin(tp) is Literal:
        value: Any = text
    elif tp is bool:
        if raw.lower() not in TRUE | FALSE:
            raise _wrong(leaf.path, tp, text)
        value = raw.lower() in TRUE
    elif tp is int:
        try:
            value = int(raw)
        except ValueError:
            raise _wrong(leaf.path, tp, text) from None
    elif tp is float:
        try:
            value = float(raw)
        except ValueError:
            raise _wrong(leaf.path, tp, text) from None
    elif get_origin(tp) is tuple and get_args(tp)[0] is str and not raw.startswith("["):
        value = [part.strip() for part in raw.split(",") if part.strip()]
    else:
        try:
            value = tomllib.loads(f"value = {raw}")["value"]
        except tomllib.TOMLDecodeError as exc:
            raise InvalidInput(
                f"{leaf.path} must be {describe(leaf.type)} written as a TOML value, "
                f"got {text!r} ({exc})"
            ) from None
    value = coerce(value, leaf.type, leaf.path)
    check_bounds(leaf, value)
    return value


def flatten(obj: Any, prefix: str = "") -> dict[str, Any]:
    """Dotted path -> value of every setting of a configuration object."""
    out: dict[str, Any] = {}
    for f in dataclasses.fields(obj):
        value = getattr(obj, f.name)
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            out.update(flatten(value, f"{prefix}{f.name}."))
        else:
            out[prefix + f.name] = value
    return out


def build(cls: type, values: Mapping[str, Any], prefix: str = "") -> Any:
    """An instance of ``cls`` from dotted values (missing ones take their defaults)."""
    types_of = hints(cls)
    kwargs: dict[str, Any] = {}
    for f in dataclasses.fields(cls):
        path = prefix + f.name
        if is_section(types_of[f.name]):
            kwargs[f.name] = build(types_of[f.name], values, path + ".")
        elif path in values:
            kwargs[f.name] = values[path]
    return cls(**kwargs)
