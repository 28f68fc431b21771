"""Input validation shared by the write and read paths: every bad input gets a clear error."""

from __future__ import annotations

import datetime as dt
import decimal
import enum
import json
import re
import unicodedata
import uuid
from collections.abc import Mapping
from pathlib import PurePath
from typing import Any

from mneme.core.model import Scope, Visibility
from mneme.core.timeexpr import parse_datetime
from mneme.errors import InvalidInput

_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:@/+-]{0,127}$")


def text(value: Any, *, what: str = "text", max_chars: int) -> str:
    if isinstance(value, bytes):
        try:
            value = value.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InvalidInput(f"{what} is not valid UTF-8 (byte {exc.start})") from exc
    if not isinstance(value, str):
        raise InvalidInput(f"{what} must be a string, not {type(value).__name__}")
    if "\x00" in value:
        raise InvalidInput(f"{what} contains a NUL byte at position {value.index(chr(0))}")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        # Python holds undecodable input bytes as lone surrogates (surrogateescape: a
        # command-line argument or stdin that is not UTF-8), so name both causes.
        raise InvalidInput(
            f"{what} is not valid UTF-8 at character {exc.start} (a byte that is not UTF-8, "
            "or a lone surrogate)"
        ) from exc
    if not value.strip():
        raise InvalidInput(f"{what} is empty")
    if not any(unicodedata.category(c)[0] not in "ZC" for c in value):
        # Zero-width spaces, joiners, direction marks: nothing anyone could read.
        raise InvalidInput(f"{what} has no visible characters")
    if len(value) > max_chars:
        # Only a memory's text has a setting for its limit (max_text_chars); a query's, a
        # name's or a thought's is fixed.
        advice = (
            "split it into smaller pieces or raise max_text_chars"
            if what == "text"
            else ("shorten it")
        )
        raise InvalidInput(
            f"{what} is {len(value):,} characters, over the limit of {max_chars:,}; {advice}"
        )
    return value


def ident(value: Any, what: str) -> str:
    if not isinstance(value, str) or not _ID.match(value):
        raise InvalidInput(
            f"{what} {value!r} is not a valid id: 1-128 characters of letters, digits and "
            "_ . : @ / + -, starting with a letter or digit"
        )
    return value


def optional_ident(value: Any, what: str) -> str | None:
    return None if value is None else ident(value, what)


def when(value: Any, what: str) -> dt.datetime | None:
    if value is None:
        return None
    try:
        return parse_datetime(value)
    except (ValueError, TypeError) as exc:
        raise InvalidInput(f"{what} is not a valid time: {value!r} ({exc})") from exc


def visibility(value: Any) -> Visibility:
    try:
        return Visibility(value)
    except ValueError as exc:
        raise InvalidInput(f"visibility must be 'shared' or 'private', not {value!r}") from exc


def scope(value: Any) -> Scope:
    if value not in (Scope.PERSONAL, Scope.COLLECTIVE, "personal", "collective"):
        raise InvalidInput(f"scope must be 'personal' or 'collective', not {value!r}")
    return Scope(value)


def trust(value: Any) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
        raise InvalidInput(f"trust must be a number from 0 to 1, not {value!r}")
    return float(value)


def fraction(value: Any, what: str) -> float | None:
    """An optional number from 0 to 1 (a bar such as ``min_relevance``)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
        raise InvalidInput(f"{what} must be a number from 0 to 1, not {value!r}")
    return float(value)


def metadata(value: Any) -> Mapping[str, Any]:
    """A JSON object every backend stores alike: no NaN or infinity, no NUL, not too deep."""
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise InvalidInput(f"metadata must be a mapping, not {type(value).__name__}")
    _json_depth(value, 1)
    try:
        encoded = json.dumps(value, allow_nan=False, default=_json_scalar)
    except ValueError as exc:
        raise InvalidInput(f"metadata must be plain JSON (no NaN or infinity): {exc}") from exc
    except TypeError as exc:
        raise InvalidInput(f"metadata must be plain JSON: {exc}") from exc
    if "\\u0000" in encoded:
        raise InvalidInput("metadata contains a NUL character")
    return dict(value)


def _json_scalar(value: Any) -> Any:
    """What metadata may hold besides JSON: values with one obvious text (a date, a UUID, a
    decimal, a path, an enum member), stored as that text. Anything else would be stored as
    its ``repr`` ("<object object at 0x...>"): refused instead."""
    if isinstance(value, dt.date | dt.time):
        return value.isoformat()
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, uuid.UUID | decimal.Decimal | PurePath):
        return str(value)
    raise TypeError(f"a value of type {type(value).__name__!r} is not JSON")


def offset(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise InvalidInput(f"offset must be a whole number from 0, not {value!r}")
    return value


#: How deep metadata may nest (PostgreSQL's jsonb and every reader stay well clear of limits).
MAX_METADATA_DEPTH = 32


def _json_depth(value: Any, depth: int) -> None:
    if depth > MAX_METADATA_DEPTH:
        raise InvalidInput(f"metadata nests deeper than {MAX_METADATA_DEPTH} levels")
    if isinstance(value, Mapping):
        for k, v in value.items():
            if not isinstance(k, str):
                raise InvalidInput(f"metadata keys must be strings, not {type(k).__name__}")
            _json_depth(v, depth + 1)
    elif isinstance(value, list | tuple):
        for v in value:
            _json_depth(v, depth + 1)


def positive_int(value: Any, what: str, *, high: int, low: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise InvalidInput(f"{what} must be a whole number from {low} to {high}, not {value!r}")
    return value
