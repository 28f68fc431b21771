"""Row conversion shared by the PostgreSQL store's modules: UTC times and units."""

from __future__ import annotations

import datetime as dt
from typing import Any

import numpy as np


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
