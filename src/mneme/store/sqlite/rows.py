"""Row <-> model conversions for the SQLite backend."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Any

import numpy as np

from mneme.core.model import Unit
from mneme.store.codec import loads, parse_ts, vector_from
from mneme.store.sqlite.vectors import IndexRow


def from_storage(kind: str, value: Any) -> Any:
    """A stored value in the portable form of ``mneme.store.tables`` (export, row seals)."""
    if value is None:
        return None
    if kind == "ts":
        return parse_ts(value)
    if kind == "json":
        return loads(value)
    if kind == "bool":
        return bool(value)
    if kind == "vector":
        return [float(x) for x in vector_from(value)]
    if kind == "float":
        return float(value)
    return value


def epoch() -> dt.datetime:
    return dt.datetime(1970, 1, 1, tzinfo=dt.UTC)


def index_row(unit: Unit, vector: np.ndarray, knowers: Sequence[str]) -> IndexRow:
    return IndexRow(
        unit_id=unit.id,
        vector=vector,
        author=unit.agent_id,
        visibility=unit.visibility,
        status=unit.status,
        type=unit.type,
        occurred_start=unit.occurred_start,
        occurred_end=unit.occurred_end,
        valid_from=unit.valid_from,
        valid_until=unit.valid_until,
        knowers=knowers,
    )
