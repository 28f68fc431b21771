"""Row <-> model conversions for the SQLite backend."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Any

import numpy as np

from mneme.core.model import Network, Unit, UnitStatus, UnitType, Visibility
from mneme.store.codec import loads, parse_ts, vector_from
from mneme.store.sqlite.vectors import IndexRow

UNIT_COLS = (
    "bank_id, id, text, content_key, network, type, status, confidence, agent_id, visibility, "
    "occurred_start, occurred_end, valid_from, valid_until, recorded_at, retired_at, "
    "mentioned_at, embedding_model, embedding_dim, superseded_by, supersedes, contradictions, "
    "categories, metadata"
)


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


def loads_lenient(value: str | None) -> Any:
    """Audit JSON as stored; a record edited into invalid JSON still reads (verify flags it)."""
    try:
        return loads(value)
    except ValueError:
        return {"unreadable": value}


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


def unit_row(
    r: Sequence[Any], knowers: tuple[str, ...], evidence: tuple[str, ...], entities: tuple[str, ...]
) -> Unit:
    return Unit(
        bank_id=r[0],
        id=r[1],
        text=r[2],
        content_key=r[3],
        network=Network(r[4]),
        type=UnitType(r[5]),
        status=UnitStatus(r[6]),
        confidence=float(r[7]),
        agent_id=r[8],
        visibility=Visibility(r[9]),
        occurred_start=parse_ts(r[10]),
        occurred_end=parse_ts(r[11]),
        valid_from=parse_ts(r[12]),
        valid_until=parse_ts(r[13]),
        recorded_at=parse_ts(r[14]) or epoch(),
        retired_at=parse_ts(r[15]),
        mentioned_at=parse_ts(r[16]),
        embedding_model=r[17],
        embedding_dim=r[18],
        superseded_by=r[19],
        supersedes=tuple(loads(r[20], [])),
        contradictions=tuple(loads(r[21], [])),
        categories=tuple(loads(r[22], [])),
        metadata=loads(r[23], {}),
        knowers=knowers,
        evidence=evidence,
        entities=entities,
    )
