"""Row conversion shared by the PostgreSQL store's modules: UTC times and units."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Any

import numpy as np

from mneme.core.model import Network, Unit, UnitStatus, UnitType, Visibility

UNIT_COLS = (
    "bank_id, id, text, content_key, network, type, status, confidence, agent_id, visibility, "
    "occurred_start, occurred_end, valid_from, valid_until, recorded_at, retired_at, "
    "mentioned_at, embedding_model, embedding_dim, superseded_by, supersedes, contradictions, "
    "categories, metadata"
)


#: The token count BM25 normalises by. FTS5 counts every token, stop words included, so this
#: counts the parser's word tokens (not blanks, not the parts of a hyphenated word) rather than
#: the tsvector's lexemes: with lexemes only, "Alice moved to Lisbon" and "Alice in Lisbon"
#: would be the same length and the two backends would break ties differently.
def utc_opt(value: dt.datetime | None) -> dt.datetime | None:
    """Aware UTC; a naive datetime is taken as UTC (the SQLite codec's rule)."""
    if value is None:
        return None
    if value.tzinfo is None:
        return value.replace(tzinfo=dt.UTC)
    return value.astimezone(dt.UTC)


def utc(value: dt.datetime | None) -> Any:
    return utc_opt(value)


def portable(kind: str, value: Any) -> Any:
    """A stored value in the portable form of ``mneme.store.tables`` (export, row seals)."""
    if value is None:
        return None
    if kind == "ts":
        return utc_opt(value)
    if kind == "vector":
        # pgvector prints the shortest text that reads back as the same float32
        text = str(value).strip("[]")
        return [float(x) for x in np.array(text.split(",") if text else [], dtype=np.float32)]
    if kind == "float":
        return float(value)
    if kind == "bool":
        return bool(value)
    return value


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
        occurred_start=utc_opt(r[10]),
        occurred_end=utc_opt(r[11]),
        valid_from=utc_opt(r[12]),
        valid_until=utc_opt(r[13]),
        recorded_at=utc(r[14]),
        retired_at=utc_opt(r[15]),
        mentioned_at=utc_opt(r[16]),
        embedding_model=r[17],
        embedding_dim=r[18],
        superseded_by=r[19],
        supersedes=tuple(r[20] or ()),
        contradictions=tuple(r[21] or ()),
        categories=tuple(r[22] or ()),
        metadata=r[23] or {},
        knowers=knowers,
        evidence=evidence,
        entities=entities,
    )
