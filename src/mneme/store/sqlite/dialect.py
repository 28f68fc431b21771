"""SQLite's side of the shared SQL: ``?`` as written, times as sortable text, JSON as text."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from mneme.store.codec import dumps, ts, vector_bytes
from mneme.store.sqlite.rows import from_storage


class SQLiteDialect:
    name = "sqlite"
    true = "1"
    skip_locked = ""  # one writer holds the whole file (BEGIN IMMEDIATE)
    for_update = ""
    greatest = "max"
    vector_mark = "?"  # float32 bytes in a BLOB
    insertion = "rowid"
    vector_select = "{}"
    ts_min = ""  # times are ISO text: "" sorts before every one, "9999" after
    ts_max = "9999"

    def compile(self, sql: str) -> str:
        return sql

    def encode(self, kind: str, value: Any) -> Any:
        if value is None:
            return None
        if kind == "ts":
            return ts(value)
        if kind == "json":
            return dumps(value)
        if kind == "bool":
            return int(bool(value))
        if kind == "vector":
            return vector_bytes(np.asarray(value, dtype=np.float32))
        return value

    def decode(self, kind: str, value: Any) -> Any:
        return from_storage(kind, value)

    def hashed_ts(self, value: Any) -> str | None:
        return None if value is None else str(value)

    def one_of(
        self, column: str, values: Sequence[Any], *, negate: bool = False, kind: str = "text"
    ) -> tuple[str, list[Any]]:
        if not values:
            return ("1" if negate else "0"), []
        marks = ",".join("?" * len(values))
        return f"{column} {'NOT IN' if negate else 'IN'} ({marks})", list(values)

    def json_text(self, column: str, key: str) -> str:
        return f"json_extract({column}, '$.{key}')"

    def indexed_by(self, index: str) -> str:
        return f" INDEXED BY {index}"


DIALECT = SQLiteDialect()
