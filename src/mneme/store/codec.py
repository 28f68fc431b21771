"""Encoding shared by the backends: times as sortable UTC text, JSON columns, vectors as bytes."""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

import numpy as np

from mneme.core.model import ClaimRecord, ConflictRecord, Unit


def utc_now() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


def ts(value: dt.datetime | None) -> str | None:
    """UTC text with a fixed width, so string order is time order inside SQL."""
    if value is None:
        return None
    return _ts(value)


@lru_cache(maxsize=4096)
def _ts(value: dt.datetime) -> str:
    # Memoized: one write formats the same few instants (the source's time, the clock's)
    # dozens of times, and strftime is the slow part.
    if value.tzinfo is None:
        value = value.replace(tzinfo=dt.UTC)
    v = value.astimezone(dt.UTC)
    # Written field by field: strftime's %Y does not pad a year before 1000 ("1-01-01"),
    # which would break both the fixed width and the read back.
    return (
        f"{v.year:04d}-{v.month:02d}-{v.day:02d}T{v.hour:02d}:{v.minute:02d}:{v.second:02d}"
        f".{v.microsecond:06d}Z"
    )


def parse_ts(value: str | None) -> dt.datetime | None:
    if value is None:
        return None
    # fromisoformat reads our fixed format ("...Z") two hundred times faster than strptime,
    # and every unit, claim and event read parses several of these.
    return _parse_ts(value)


@lru_cache(maxsize=8192)
def _parse_ts(value: str) -> dt.datetime:
    try:
        return dt.datetime.fromisoformat(value)
    except ValueError:
        # A row written before the year was padded ("1-01-01T00:00:00.000000Z"): read it.
        m = _UNPADDED.match(value)
        if m is None:
            raise
        return dt.datetime.fromisoformat(m.group(1).zfill(4) + m.group(2))


#: A year of one to three digits at the start of a stored time (schema 12 repairs them).
_UNPADDED = re.compile(r"^(\d{1,3})(-\d\d-\d\dT.*)$")


#: One encoder for every JSON column: ``json.dumps`` with these options builds a new encoder
#: per call, which cost more than encoding an audit entry's small dict.
_ENCODER = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


def dumps(value: Any) -> str:
    # The empty list and object are most JSON columns of most rows.
    if type(value) is list and not value:
        return "[]"
    if type(value) is dict and not value:
        return "{}"
    return _ENCODER.encode(value)


def loads(value: str | None, default: Any = None) -> Any:
    if value is None or value == "":
        return default
    # The empty list and object are most JSON columns of most rows: no parser for them.
    if value == "[]":
        return []
    if value == "{}":
        return {}
    return json.loads(value)


def vector_bytes(vector: Sequence[float] | np.ndarray) -> bytes:
    return np.asarray(vector, dtype=np.float32).tobytes()


def vector_from(blob: bytes) -> np.ndarray:
    return np.frombuffer(blob, dtype=np.float32)


def unit_summary(unit: Unit) -> Mapping[str, Any]:
    """What the audit log keeps of a unit: enough to rebuild its state, not its embedding."""
    return {
        "id": unit.id,
        "text": unit.text,
        "type": unit.type.value,
        "network": unit.network.value,
        "status": unit.status.value,
        "confidence": unit.confidence,
        "agent_id": unit.agent_id,
        "visibility": unit.visibility.value,
        "valid_from": ts(unit.valid_from),
        "valid_until": ts(unit.valid_until),
        "superseded_by": unit.superseded_by,
    }


def claim_summary(c: ClaimRecord) -> dict[str, Any]:
    return {
        "id": c.id,
        "subject": c.subject,
        "attribute": c.attribute,
        "value": c.value,
        "negated": c.negated,
        "status": c.status.value,
        "review_status": c.review_status.value,
        "evidence_count": c.evidence_count,
        "superseded_by": c.superseded_by,
    }


def conflict_summary(c: ConflictRecord) -> dict[str, Any]:
    return {
        "id": c.id,
        "kind": c.kind,
        "a_unit": c.a_unit,
        "b_unit": c.b_unit,
        "status": c.status,
        "resolution": c.resolution.value if c.resolution else None,
        "winner": c.winner,
        "scope_a": c.scope_a,
        "scope_b": c.scope_b,
    }
