"""Rows read by name: a select list and a decoder made from a table's spec."""

from __future__ import annotations

import datetime as dt
import enum
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from mneme.store.sql.dialect import Dialect
from mneme.store.tables import spec

#: What a required time reads as when a row lacks it (rows written before the column was).
EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)

#: The most ids one IN list carries (SQLite's default limit on parameters is far above it).
CHUNK = 500


def chunks(ids: Sequence[str]) -> Iterator[list[str]]:
    """``ids`` without repeats, in order, in lists of at most ``CHUNK``: one IN list each."""
    unique = list(dict.fromkeys(ids))
    for i in range(0, len(unique), CHUNK):
        yield unique[i : i + CHUNK]


class Columns:
    """Some columns of one table: their select list, their encoding and a row decoder."""

    def __init__(self, table: str, names: Sequence[str] | None = None) -> None:
        t = spec(table)
        kinds = dict(t.columns)
        self.table = table
        self.names = tuple(names or t.names)
        unknown = [n for n in self.names if n not in kinds]
        if unknown:
            raise KeyError(f"{table} has no column {', '.join(unknown)}")
        self.kinds = tuple(kinds[n] for n in self.names)
        #: ``a, b, c``: the select list.
        self.select = ", ".join(self.names)
        #: ``?, ?, ?``: the values of an INSERT of every one of them.
        self.marks = ", ".join("?" * len(self.names))
        #: ``INSERT INTO table (a, b, c) VALUES (?, ?, ?)``.
        self.insert = f"INSERT INTO {table} ({self.select}) VALUES ({self.marks})"

    def decode(self, dialect: Dialect, row: Sequence[Any]) -> dict[str, Any]:
        """One row of ``SELECT {select}`` as portable values by column name."""
        return {
            n: dialect.decode(k, v) for n, k, v in zip(self.names, self.kinds, row, strict=True)
        }

    def encode(self, dialect: Dialect, values: Sequence[Any]) -> tuple[Any, ...]:
        """Portable values, in the order of ``names``, as the backend stores them."""
        return tuple(dialect.encode(k, v) for k, v in zip(self.kinds, values, strict=True))

    def row(self, dialect: Dialect, record: object, **given: Any) -> tuple[Any, ...]:
        """A record's fields named like the columns (``given`` for those it lacks), encoded: an
        enum as its value, a tuple as a list, a mapping as a dict."""
        encode = dialect.encode
        return tuple(
            [
                encode(k, _portable(given[n] if n in given else getattr(record, n)))
                for n, k in zip(self.names, self.kinds, strict=True)
            ]
        )

    def assignments(self, dialect: Dialect, changes: object) -> tuple[list[str], list[Any]]:
        """``col = ?`` for each of these columns whose field in ``changes`` is set (not None),
        with the encoded values: an UPDATE of what changed."""
        sets: list[str] = []
        params: list[Any] = []
        for name, kind in zip(self.names, self.kinds, strict=True):
            value = getattr(changes, name)
            if value is not None:
                sets.append(f"{name} = ?")
                params.append(dialect.encode(kind, _portable(value)))
        return sets, params


#: Types stored as they are: most fields of most rows (checked first, by exact type: an
#: enum that is also a str is not one of them).
_PLAIN = frozenset({str, int, float, bool, bytes, dt.datetime, type(None)})


def _portable(value: Any) -> Any:
    if type(value) in _PLAIN:
        return value
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, tuple):
        return list(value)
    if isinstance(value, Mapping):
        return dict(value)
    return value
